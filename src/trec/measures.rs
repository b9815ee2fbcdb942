//! The measures pledge computes per topic, each as trec_eval (usnistgov/trec_eval, `m_*.c`)
//! computes it, with trec_eval's names (`map`, `P_10`, `ndcg_cut_10`, `recip_rank`, ...).

use crate::error::{Error, Result};
use serde::Serialize;

/// trec_eval's default cutoffs for `P` and `ndcg_cut`.
pub const CUTOFFS: [u32; 9] = [5, 10, 15, 20, 30, 100, 200, 500, 1000];

/// One measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Documents retrieved (`num_ret`); its `all` value is a sum.
    NumRet,
    /// Relevant documents in the qrels (grade >= the relevance level; `num_rel`), a sum.
    NumRel,
    /// Relevant documents retrieved (`num_rel_ret`), a sum.
    NumRelRet,
    /// Average precision (`map`): the sum of precision at each relevant retrieved document,
    /// divided by num_rel (0 when num_rel = 0).
    Map,
    /// Precision after R = num_rel documents (`Rprec`).
    Rprec,
    /// 1 / rank of the first relevant document, 0 if none (`recip_rank`).
    RecipRank,
    /// Precision at k (`P_k`): relevant among the top k, divided by k (also when fewer retrieved).
    P(u32),
    /// nDCG over the whole ranking (`ndcg`): gain = grade, discount log2(rank + 1), ideal from
    /// all judged documents of the topic (Järvelin & Kekäläinen 2002 as in trec_eval `m_ndcg.c`).
    Ndcg,
    /// nDCG cut at k (`ndcg_cut_k`, `m_ndcg_cut.c`): DCG of the top k / ideal DCG of k documents.
    NdcgCut(u32),
    /// Rank-biased precision with persistence p (`rbp`; Moffat & Zobel 2008, trec_eval `m_rbp.c`):
    /// (1 − p) Σ gain_i p^(i−1), grades scaled to [0, 1] by the topic's largest grade when it is
    /// above 1.
    Rbp(f64),
    /// RBP residual (`rbp_resid`, `m_rbp_resid.c`): p^n + (1 − p) Σ_{unjudged i} p^(i−1), the
    /// most RBP could rise if every unjudged document were relevant. As in trec_eval, 0 when no
    /// retrieved document is unjudged (even for a run shorter than the horizon).
    RbpResid(f64),
    /// judged@k (`judged_k`, pledge's own): judged documents among the top k divided by **k**,
    /// also when the run returned fewer than k (missing positions count as not judged).
    Judged(u32),
}

impl Measure {
    /// The trec_eval-style name printed in output, e.g. `P_10`, `ndcg_cut_20`, `rbp`,
    /// `rbp_0.95` (a persistence other than 0.9), `judged_10`.
    pub fn name(&self) -> String {
        match *self {
            Measure::NumRet => "num_ret".into(),
            Measure::NumRel => "num_rel".into(),
            Measure::NumRelRet => "num_rel_ret".into(),
            Measure::Map => "map".into(),
            Measure::Rprec => "Rprec".into(),
            Measure::RecipRank => "recip_rank".into(),
            Measure::P(k) => format!("P_{}", k),
            Measure::Ndcg => "ndcg".into(),
            Measure::NdcgCut(k) => format!("ndcg_cut_{}", k),
            Measure::Rbp(0.9) => "rbp".into(),
            Measure::Rbp(p) => format!("rbp_{}", p),
            Measure::RbpResid(0.9) => "rbp_resid".into(),
            Measure::RbpResid(p) => format!("rbp_resid_{}", p),
            Measure::Judged(k) => format!("judged_{}", k),
        }
    }

    /// Whether the `all` value is a sum printed as an integer (num_ret, num_rel, num_rel_ret).
    pub fn is_count(&self) -> bool {
        matches!(self, Measure::NumRet | Measure::NumRel | Measure::NumRelRet)
    }

    /// Every measure with its default parameters, in trec_eval's output order.
    pub fn defaults() -> Vec<Measure> {
        let mut v = vec![
            Measure::NumRet,
            Measure::NumRel,
            Measure::NumRelRet,
            Measure::Map,
            Measure::Rprec,
            Measure::RecipRank,
        ];
        v.extend(CUTOFFS.iter().map(|&k| Measure::P(k)));
        v.push(Measure::Ndcg);
        v.extend(CUTOFFS.iter().map(|&k| Measure::NdcgCut(k)));
        v.extend([Measure::Rbp(0.9), Measure::RbpResid(0.9), Measure::Judged(10)]);
        v
    }

    /// Parses a measure name as trec_eval's `-m` takes it, or as printed: `map`, `P` (all
    /// default cutoffs), `P.10`, `P_10`, `P.5,10`, `ndcg_cut.10`, `ndcg_cut_10`, `rbp`,
    /// `rbp.p=0.95`, `rbp_resid`, `judged.10`, `judged_10`, `all_trec` / `all` (the defaults).
    ///
    /// Errors (exit 2): an unknown name, a cutoff that is not a positive integer, p outside (0, 1).
    pub fn parse(spec: &str) -> Result<Vec<Measure>> {
        let bad = |why: &str| {
            Error::input(format!("measure `{}`: {}", spec, why)).with_hint(
                "known: num_ret num_rel num_rel_ret map Rprec recip_rank P.k ndcg ndcg_cut.k rbp rbp.p=P \
                 rbp_resid judged.k all_trec",
            )
        };
        let (base, params) = match spec.find('.') {
            Some(i) if !spec[..i].is_empty() => (&spec[..i], Some(&spec[i + 1..])),
            _ => match spec.rfind('_') {
                Some(i) if spec[i + 1..].parse::<u32>().is_ok() => (&spec[..i], Some(&spec[i + 1..])),
                _ => (spec, None),
            },
        };
        let cutoffs = |default: &[u32]| -> Result<Vec<u32>> {
            match params {
                None => Ok(default.to_vec()),
                Some(p) => p
                    .split(',')
                    .map(|c| match c.trim().parse::<u32>() {
                        Ok(k) if k > 0 => Ok(k),
                        _ => Err(bad("cutoffs must be positive integers")),
                    })
                    .collect(),
            }
        };
        let persistence = || -> Result<f64> {
            match params {
                None => Ok(0.9),
                Some(p) => match p.strip_prefix("p=").unwrap_or(p).parse::<f64>() {
                    Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
                    _ => Err(bad("persistence must be `p=X` with 0 < X < 1")),
                },
            }
        };
        let single = |m: Measure| -> Result<Vec<Measure>> {
            if params.is_some() {
                Err(bad("this measure takes no parameters"))
            } else {
                Ok(vec![m])
            }
        };
        match base {
            "num_ret" => single(Measure::NumRet),
            "num_rel" => single(Measure::NumRel),
            "num_rel_ret" => single(Measure::NumRelRet),
            "map" => single(Measure::Map),
            "Rprec" => single(Measure::Rprec),
            "recip_rank" => single(Measure::RecipRank),
            "ndcg" => single(Measure::Ndcg),
            "all_trec" | "all" => single(Measure::Ndcg).map(|_| Measure::defaults()),
            "P" => Ok(cutoffs(&CUTOFFS)?.into_iter().map(Measure::P).collect()),
            "ndcg_cut" => Ok(cutoffs(&CUTOFFS)?.into_iter().map(Measure::NdcgCut).collect()),
            "judged" => Ok(cutoffs(&[10])?.into_iter().map(Measure::Judged).collect()),
            "rbp" => Ok(vec![Measure::Rbp(persistence()?)]),
            "rbp_resid" => Ok(vec![Measure::RbpResid(persistence()?)]),
            _ => Err(bad("unknown measure")),
        }
    }
}

/// Parses several measure specs, keeping first-seen order and dropping repeats; an empty list
/// gives [`Measure::defaults`].
pub fn parse_all<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Measure>> {
    if specs.is_empty() {
        return Ok(Measure::defaults());
    }
    let mut out: Vec<Measure> = Vec::new();
    for s in specs {
        for m in Measure::parse(s.as_ref())? {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_trec_eval_names() {
        assert_eq!(Measure::parse("P.10").unwrap(), vec![Measure::P(10)]);
        assert_eq!(Measure::parse("P_10").unwrap(), vec![Measure::P(10)]);
        assert_eq!(Measure::parse("P.5,10").unwrap(), vec![Measure::P(5), Measure::P(10)]);
        assert_eq!(Measure::parse("P").unwrap().len(), 9);
        assert_eq!(Measure::parse("ndcg_cut.10").unwrap(), vec![Measure::NdcgCut(10)]);
        assert_eq!(Measure::parse("ndcg_cut_20").unwrap(), vec![Measure::NdcgCut(20)]);
        assert_eq!(Measure::parse("rbp.p=0.95").unwrap(), vec![Measure::Rbp(0.95)]);
        assert_eq!(Measure::parse("rbp_resid").unwrap()[0].name(), "rbp_resid");
        assert_eq!(Measure::parse("judged.10").unwrap()[0].name(), "judged_10");
        assert_eq!(Measure::parse("Rprec").unwrap()[0].name(), "Rprec");
        assert!(Measure::parse("P.0").is_err());
        assert!(Measure::parse("map.3").is_err());
        assert!(Measure::parse("rbp.p=1.5").is_err());
        assert!(Measure::parse("mapp").is_err());
        assert_eq!(
            parse_all(&["map", "map", "P.10"]).unwrap(),
            vec![Measure::Map, Measure::P(10)]
        );
        assert_eq!(parse_all::<&str>(&[]).unwrap(), Measure::defaults());
    }
}
