//! The measures pledge computes per topic, each as trec_eval (usnistgov/trec_eval 10.0, commit
//! f4253652, `m_*.c`) computes it, named as trec_eval prints them (`map`, `P_10`, `ndcg_cut_10`,
//! `iprec_at_recall_0.10`, `rbp_p=0.95`, ...), plus five measures of pledge's own for names that
//! ir_measures and ranx use and trec_eval lacks (`judged_k`, `judged_ret_k`, `recip_rank_cut_k`,
//! `ndcg_burges`, `ndcg_burges_cut_k`).
//!
//! Names are read as people type them: trec_eval's `-m` syntax (`P.10`, `ndcg_cut.5,10`,
//! `rbp.p=0.95`), trec_eval's printed names (`P_10`), ir_measures' (`nDCG@10`, `AP`, `R@100`,
//! `RBP(p=0.8)`) and ranx's (`ndcg@10`, `mrr`, `hit_rate@10`, `rbp.95`): see [`resolve`] and
//! [`parse`]; the alias table is in `aliases.rs` and the book (`docs/reference/measures.md`).

use crate::error::{Error, Result};
use serde::Serialize;

/// trec_eval's default cutoffs for `P`, `recall`, `ndcg_cut`, `map_cut` and `relative_P`.
pub const CUTOFFS: [u32; 9] = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
/// trec_eval's default cutoffs for `success`.
pub const SUCCESS_CUTOFFS: [u32; 3] = [1, 5, 10];
/// trec_eval's default cutoffs for `unj`.
pub const UNJ_CUTOFFS: [u32; 3] = [5, 10, 20];
/// trec_eval's default recall levels for `iprec_at_recall` and `11pt_avg` (fractions).
pub const RECALL_LEVELS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// trec_eval's default multiples of R for `Rprec_mult`.
pub const RPREC_MULTIPLES: [f64; 10] = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];
/// trec_eval's `MIN_GEO_MEAN`: per-topic values below it count as it in `gm_map` / `gm_bpref`.
pub const MIN_GEO_MEAN: f64 = 0.00001;

/// Gain values of the gain-based measures (`ndcg`, `G`, `Rndcg`, `ndcg_rel`, `dcg`,
/// `ideal_dcg`, `rbp`), as trec_eval's `-m ndcg.1=3,2=9` sets them (`gain_init.c`): a listed
/// relevance level gets the listed gain, every other level its own grade as gain.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Gains {
    /// `(relevance level, gain)` pairs as given.
    pub pairs: Vec<(i64, f64)>,
    /// The parameter text as typed (`1=3,2=9`), which trec_eval appends to the printed name
    /// (`ndcg_1=3,2=9`); `None` for the defaults (name without suffix).
    pub params: Option<String>,
}

impl Gains {
    fn suffix(&self) -> String {
        self.params.as_ref().map(|p| format!("_{}", p)).unwrap_or_default()
    }
}

/// One measure. Values are fractions (0–1) except the counts, `utility` and `yaap`.
/// "Relevant" means grade ≥ the relevance level (trec_eval `-l`, default 1); `n` is the number
/// of documents retrieved (after `-M` / `-J`), `R` = `num_rel`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// Documents retrieved (`num_ret`); its `all` value is a sum.
    NumRet,
    /// Relevant documents in the qrels (`num_rel`), a sum.
    NumRel,
    /// Relevant documents retrieved (`num_rel_ret`), a sum.
    NumRelRet,
    /// Average precision (`map`): the sum of precision at each relevant retrieved document,
    /// divided by R (0 when R = 0).
    Map,
    /// Geometric mean of average precision (`gm_map`, `m_gm_map.c`): per topic the AP, over
    /// topics exp(mean ln max(AP, 0.00001)); trec_eval prints it only in the summary.
    GmMap,
    /// Precision after R documents (`Rprec`).
    Rprec,
    /// Binary preference (`bpref`, Buckley & Voorhees 2004, `m_bpref.c`): over relevant
    /// retrieved documents, 1 − min(judged non-relevant above it, R) / min(judged non-relevant,
    /// R), divided by R; unjudged documents are skipped.
    Bpref,
    /// 1 / rank of the first relevant document, 0 if none (`recip_rank`).
    RecipRank,
    /// Interpolated precision at a recall level (`iprec_at_recall_0.10`,
    /// `m_iprec_at_recall.c`): the highest precision at or after the rank where
    /// round(level × R) relevant documents have been seen.
    IprecAtRecall(f64),
    /// Precision at k (`P_k`): relevant among the top k, divided by k (also when fewer retrieved).
    P(u32),
    /// The relevance values of the first `len` documents as a string (`relstring`,
    /// `m_relstring.c`): the grade (`>` above 9), `-` not judged, `.` judged as unjudged (a
    /// negative grade with `--negative-unjudged`), `<` a negative grade read as judged. Printed
    /// per topic only; not a number, so never in `values`.
    RelString {
        /// Number of documents shown (default 10).
        len: u32,
        /// Parameter text as typed (`20` gives `relstring_20`); `None` for the default.
        params: Option<String>,
    },
    /// Recall at k (`recall_k`): relevant among the top k divided by R (0 when R = 0).
    Recall(u32),
    /// Inferred AP (`infAP`, Yilmaz & Aslam 2006, `m_infap.c`).
    InfAp,
    /// bpref with the geometric mean over topics (`gm_bpref`); summary only, as `gm_map`.
    GmBpref,
    /// Precision at a multiple of R (`Rprec_mult_0.20`): relevant among the top
    /// ⌊multiple × R + 0.9⌋ divided by that number.
    RprecMult(f64),
    /// Set utility (`utility`, `m_utility.c`): c1·rel_ret + c2·nonrel_ret + c3·rel_not_ret +
    /// c4·nonrel_not_ret, with the collection size from `-N`.
    Utility {
        /// The four coefficients (default 1, −1, 0, 0).
        coefficients: [f64; 4],
        /// Parameter text as typed; `None` for the default.
        params: Option<String>,
    },
    /// Interpolated precision averaged over recall levels (`11pt_avg`, `m_11pt_avg.c`).
    ElevenPtAvg {
        /// The recall levels, in the order given (default the 11 of [`RECALL_LEVELS`]).
        levels: Vec<f64>,
        /// Parameter text as typed; `None` for the default.
        params: Option<String>,
    },
    /// Binary G (`binG`, `m_binG.c`): mean over relevant documents of
    /// 1 / log2(2 + non-relevant retrieved before it).
    BinG,
    /// Normalized gain G (`G`, `m_G.c`).
    G(Gains),
    /// DCG over the whole ranking (`dcg`; gain = grade unless set, discount log2(rank + 1)).
    Dcg(Gains),
    /// The ideal DCG of the topic (`ideal_dcg`).
    IdealDcg(Gains),
    /// nDCG over the whole ranking (`ndcg`, Järvelin & Kekäläinen 2002, `m_ndcg.c`): DCG /
    /// ideal DCG over every judged document of the topic.
    Ndcg(Gains),
    /// nDCG averaged at relevant documents (`ndcg_rel`, `m_ndcg_rel.c`).
    NdcgRel(Gains),
    /// nDCG averaged at the R-levels of the gains (`Rndcg`, `m_Rndcg.c`).
    Rndcg(Gains),
    /// nDCG cut at k (`ndcg_cut_k`, `m_ndcg_cut.c`): gain = grade, DCG of the top k / ideal DCG
    /// of k documents.
    NdcgCut(u32),
    /// Average precision cut at k (`map_cut_k`): precisions at relevant documents in the top k,
    /// divided by R.
    MapCut(u32),
    /// Relative precision at k (`relative_P_k`): relevant in the top k / min(k, R).
    RelativeP(u32),
    /// Success at k (`success_k`): 1 if a relevant document is in the top k.
    Success(u32),
    /// Set precision (`set_P`): relevant retrieved / n.
    SetP,
    /// Relative set precision (`set_relative_P`): relevant retrieved / min(n, R).
    SetRelativeP,
    /// Set recall (`set_recall`): relevant retrieved / R.
    SetRecall,
    /// Set MAP (`set_map`): relevant retrieved² / (n · R).
    SetMap,
    /// Set F (`set_F`, van Rijsbergen 1979, `m_set_F.c`): (β + 1)·P·R / (β·P + R) over the
    /// retrieved set, with trec_eval's parameter β (default 1).
    SetF {
        /// trec_eval's parameter (default 1.0).
        beta: f64,
        /// Parameter text as typed; `None` for the default.
        params: Option<String>,
    },
    /// Judged non-relevant documents retrieved (`num_nonrel_judged_ret`), a sum.
    NumNonrelJudgedRet,
    /// Yet another average precision (`yaap`, Robertson 2012, `m_yaap.c`):
    /// ln((1 + s) / (1 + R − s)), s = the sum of precisions at relevant documents.
    Yaap,
    /// Rank-biased precision (`rbp`; Moffat & Zobel 2008, `m_rbp.c`): (1 − p) Σ gain_i p^(i−1),
    /// gains scaled to [0, 1] (by the largest) when one lies outside it.
    Rbp {
        /// Persistence p in (0, 1) (trec_eval's default 0.9).
        p: f64,
        /// Gains (and the parameter text, which includes `p=`).
        gains: Gains,
    },
    /// RBP residual (`rbp_resid`, `m_rbp_resid.c`): p^n + (1 − p) Σ_{unjudged i} p^(i−1); 0
    /// when no retrieved document is unjudged (even for a run shorter than the horizon).
    RbpResid {
        /// Persistence p in (0, 1) (default 0.9).
        p: f64,
        /// Parameter text as typed (`p=0.95`); `None` for the default.
        params: Option<String>,
    },
    /// Unjudged among the top k, divided by k (`unj_k`, `m_unjudged.c`).
    Unj(u32),
    /// judged@k (`judged_k`, pledge's own): judged documents among the top k divided by **k**,
    /// also when the run returned fewer than k (missing positions count as not judged).
    Judged(u32),
    /// ir_measures' `Judged@k` (`judged_ret_k`, pledge's name): judged documents among the top
    /// k divided by the number of documents there, min(k, n); `None`: over the whole ranking.
    JudgedRet(Option<u32>),
    /// Reciprocal rank cut at k (`recip_rank_cut_k`, pledge's name for ir_measures' `RR@k`,
    /// ranx's `mrr@k`, MS MARCO's MRR@10): 1 / rank of the first relevant document if it is in
    /// the top k, else 0.
    RecipRankCut(u32),
    /// nDCG with exponential gains (`ndcg_burges`; Burges et al. 2005, ranx `ndcg_burges`,
    /// ir_measures `nDCG(dcg='exp-log2')`): gain 2^grade − 1, discount log2(rank + 1), ideal
    /// from every judged document of the topic.
    NdcgBurges,
    /// [`Measure::NdcgBurges`] cut at k (`ndcg_burges_cut_k`).
    NdcgBurgesCut(u32),
}

/// How a measure's per-topic values are combined into trec_eval's `all` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// Arithmetic mean over topics.
    Mean,
    /// Sum over topics (counts).
    Sum,
    /// Geometric mean of max(value, [`MIN_GEO_MEAN`]) (`gm_map`, `gm_bpref`).
    GeometricMean,
    /// No summary (`relstring`).
    None,
}

impl Measure {
    /// The name trec_eval prints for this measure, which pledge prints too (e.g. `P_10`,
    /// `ndcg_cut_20`, `iprec_at_recall_0.10`, `rbp`, `rbp_p=0.95`, `ndcg_1=3,2=9`); pledge's
    /// own measures follow the same pattern (`judged_10`, `recip_rank_cut_10`).
    /// [`resolve`] of this name gives the measure back.
    pub fn canonical_name(&self) -> String {
        match self {
            Measure::NumRet => "num_ret".into(),
            Measure::NumRel => "num_rel".into(),
            Measure::NumRelRet => "num_rel_ret".into(),
            Measure::Map => "map".into(),
            Measure::GmMap => "gm_map".into(),
            Measure::Rprec => "Rprec".into(),
            Measure::Bpref => "bpref".into(),
            Measure::RecipRank => "recip_rank".into(),
            Measure::IprecAtRecall(x) => format!("iprec_at_recall_{:.2}", x),
            Measure::P(k) => format!("P_{}", k),
            Measure::RelString { params, .. } => suffixed("relstring", params),
            Measure::Recall(k) => format!("recall_{}", k),
            Measure::InfAp => "infAP".into(),
            Measure::GmBpref => "gm_bpref".into(),
            Measure::RprecMult(x) => format!("Rprec_mult_{:.2}", x),
            Measure::Utility { params, .. } => suffixed("utility", params),
            Measure::ElevenPtAvg { params, .. } => suffixed("11pt_avg", params),
            Measure::BinG => "binG".into(),
            Measure::G(g) => format!("G{}", g.suffix()),
            Measure::Dcg(g) => format!("dcg{}", g.suffix()),
            Measure::IdealDcg(g) => format!("ideal_dcg{}", g.suffix()),
            Measure::Ndcg(g) => format!("ndcg{}", g.suffix()),
            Measure::NdcgRel(g) => format!("ndcg_rel{}", g.suffix()),
            Measure::Rndcg(g) => format!("Rndcg{}", g.suffix()),
            Measure::NdcgCut(k) => format!("ndcg_cut_{}", k),
            Measure::MapCut(k) => format!("map_cut_{}", k),
            Measure::RelativeP(k) => format!("relative_P_{}", k),
            Measure::Success(k) => format!("success_{}", k),
            Measure::SetP => "set_P".into(),
            Measure::SetRelativeP => "set_relative_P".into(),
            Measure::SetRecall => "set_recall".into(),
            Measure::SetMap => "set_map".into(),
            Measure::SetF { params, .. } => suffixed("set_F", params),
            Measure::NumNonrelJudgedRet => "num_nonrel_judged_ret".into(),
            Measure::Yaap => "yaap".into(),
            Measure::Rbp { gains, .. } => format!("rbp{}", gains.suffix()),
            Measure::RbpResid { params, .. } => suffixed("rbp_resid", params),
            Measure::Unj(k) => format!("unj_{}", k),
            Measure::Judged(k) => format!("judged_{}", k),
            Measure::JudgedRet(None) => "judged_ret".into(),
            Measure::JudgedRet(Some(k)) => format!("judged_ret_{}", k),
            Measure::RecipRankCut(k) => format!("recip_rank_cut_{}", k),
            Measure::NdcgBurges => "ndcg_burges".into(),
            Measure::NdcgBurgesCut(k) => format!("ndcg_burges_cut_{}", k),
        }
    }

    /// The same as [`Measure::canonical_name`] (the name printed in output).
    pub fn name(&self) -> String {
        self.canonical_name()
    }

    /// Whether values are counts, printed as integers, whose `all` value is a sum (num_ret,
    /// num_rel, num_rel_ret, num_nonrel_judged_ret).
    pub fn is_count(&self) -> bool {
        matches!(
            self,
            Measure::NumRet | Measure::NumRel | Measure::NumRelRet | Measure::NumNonrelJudgedRet
        )
    }

    /// Whether trec_eval prints the measure only in the summary (`gm_map`, `gm_bpref`): its
    /// per-topic value (the topic's AP or bpref) is not a per-topic value of the measure.
    pub fn is_summary_only(&self) -> bool {
        matches!(self, Measure::GmMap | Measure::GmBpref)
    }

    /// Whether the measure is a string per topic (`relstring`) rather than a number.
    pub fn is_string(&self) -> bool {
        matches!(self, Measure::RelString { .. })
    }

    /// How the `all` value is formed.
    pub fn aggregate(&self) -> Aggregate {
        if self.is_count() {
            Aggregate::Sum
        } else if self.is_summary_only() {
            Aggregate::GeometricMean
        } else if self.is_string() {
            Aggregate::None
        } else {
            Aggregate::Mean
        }
    }

    /// Whether trec_eval computes it (false for pledge's own `judged_k`, `judged_ret_k`,
    /// `recip_rank_cut_k`, `ndcg_burges`, `ndcg_burges_cut_k`).
    pub fn is_trec_eval(&self) -> bool {
        !matches!(
            self,
            Measure::Judged(_)
                | Measure::JudgedRet(_)
                | Measure::RecipRankCut(_)
                | Measure::NdcgBurges
                | Measure::NdcgBurgesCut(_)
        )
    }

    /// trec_eval's default set (no `-m`; its nickname `official`), in trec_eval's output order:
    /// num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall (11 levels)
    /// P (9 cutoffs).
    pub fn defaults() -> Vec<Measure> {
        let mut v = vec![
            Measure::NumRet,
            Measure::NumRel,
            Measure::NumRelRet,
            Measure::Map,
            Measure::GmMap,
            Measure::Rprec,
            Measure::Bpref,
            Measure::RecipRank,
        ];
        v.extend(RECALL_LEVELS.iter().map(|&x| Measure::IprecAtRecall(x)));
        v.extend(CUTOFFS.iter().map(|&k| Measure::P(k)));
        v
    }

    /// trec_eval's `-m all_trec` set (98 values), in trec_eval's output order (`measures.c`).
    pub fn all_trec() -> Vec<Measure> {
        let mut v = Measure::defaults();
        v.push(Measure::RelString { len: 10, params: None });
        v.extend(CUTOFFS.iter().map(|&k| Measure::Recall(k)));
        v.extend([Measure::InfAp, Measure::GmBpref]);
        v.extend(RPREC_MULTIPLES.iter().map(|&x| Measure::RprecMult(x)));
        v.extend([
            default_utility(),
            default_11pt(),
            Measure::BinG,
            Measure::G(Gains::default()),
            Measure::Ndcg(Gains::default()),
            Measure::NdcgRel(Gains::default()),
            Measure::Rndcg(Gains::default()),
        ]);
        v.extend(CUTOFFS.iter().map(|&k| Measure::NdcgCut(k)));
        v.extend(CUTOFFS.iter().map(|&k| Measure::MapCut(k)));
        v.extend(CUTOFFS.iter().map(|&k| Measure::RelativeP(k)));
        v.extend(SUCCESS_CUTOFFS.iter().map(|&k| Measure::Success(k)));
        v.extend([
            Measure::SetP,
            Measure::SetRelativeP,
            Measure::SetRecall,
            Measure::SetMap,
            default_set_f(),
            Measure::NumNonrelJudgedRet,
            default_rbp(0.9),
            Measure::RbpResid { p: 0.9, params: None },
        ]);
        v.extend(UNJ_CUTOFFS.iter().map(|&k| Measure::Unj(k)));
        v
    }

    /// trec_eval's `-m set` nickname: num_ret num_rel num_rel_ret utility set_P set_recall
    /// set_relative_P set_map set_F.
    pub fn set_measures() -> Vec<Measure> {
        vec![
            Measure::NumRet,
            Measure::NumRel,
            Measure::NumRelRet,
            default_utility(),
            Measure::SetP,
            Measure::SetRecall,
            Measure::SetRelativeP,
            Measure::SetMap,
            default_set_f(),
        ]
    }

    /// Parses a measure spec as trec_eval's `-m` takes it, as trec_eval prints it, or as
    /// ir_measures / ranx name it; see [`parse`].
    pub fn parse(spec: &str) -> Result<Vec<Measure>> {
        parse(spec)
    }
}

fn suffixed(base: &str, params: &Option<String>) -> String {
    match params {
        Some(p) => format!("{}_{}", base, p),
        None => base.to_string(),
    }
}

fn default_utility() -> Measure {
    Measure::Utility {
        coefficients: [1.0, -1.0, 0.0, 0.0],
        params: None,
    }
}

fn default_11pt() -> Measure {
    Measure::ElevenPtAvg {
        levels: RECALL_LEVELS.to_vec(),
        params: None,
    }
}

fn default_set_f() -> Measure {
    Measure::SetF {
        beta: 1.0,
        params: None,
    }
}

/// RBP with persistence `p` and default gains; the name is `rbp` for trec_eval's default 0.9,
/// else `rbp_p=<p>`.
pub(crate) fn default_rbp(p: f64) -> Measure {
    Measure::Rbp {
        p,
        gains: Gains {
            pairs: Vec::new(),
            params: if p == 0.9 { None } else { Some(format!("p={}", p)) },
        },
    }
}

/// Resolves one measure name as people type it — trec_eval (`ndcg_cut.10`, `ndcg_cut_10`,
/// `P.10`, `P_10`, `map`), ir_measures (`nDCG@10`, `P@10`, `AP`, `RR`, `R@100`, `AP@100`,
/// `Judged@10`, `Success@10`, `RBP(p=0.8)`, `nDCG(dcg='exp-log2')@10`), ranx (`ndcg@10`,
/// `map@100`, `mrr`, `precision@10`, `recall@100`, `hit_rate@10`, `bpref`, `rbp.95`) or
/// MTEB (`ndcg_at_10`) — to the one [`Measure`] it denotes; [`Measure::canonical_name`] gives
/// the name pledge prints. This is the function for a name that must denote exactly one
/// measure (a protocol's `target.metric`, `--measure`).
///
/// Errors (exit 2, with a did-you-mean hint for an unknown name): an unknown or unsupported
/// name (each refusal says why, e.g. per-measure `rel=` or ir_measures' `ERR`); bad
/// parameters; a name that denotes several measures (`P`, `recall`, `all_trec`) or none
/// (`num_q`, `runid`).
pub fn resolve(name: &str) -> Result<Measure> {
    let ms = parse(name)?;
    match <[Measure; 1]>::try_from(ms) {
        Ok([m]) => Ok(m),
        Err(ms) if ms.is_empty() => Err(Error::input(format!(
            "measure `{}` is not a per-topic measure (pledge prints runid and num_q with every evaluation)",
            name.trim()
        ))),
        Err(ms) => {
            let shown: Vec<String> = ms.iter().take(4).map(Measure::canonical_name).collect();
            Err(Error::input(format!(
                "measure `{}` names {} measures ({}{}); name one",
                name.trim(),
                ms.len(),
                shown.join(", "),
                if ms.len() > 4 { ", ..." } else { "" }
            ))
            .with_hint(format!("e.g. `{}`", shown[0])))
        }
    }
}

/// [`resolve`] for a measure whose per-topic values are analysed (a protocol's
/// `target.metric`, `--measure` with `--qrels`, the pool-bias metric): it also refuses
/// `relstring` (not a number) and `gm_map` / `gm_bpref` (a summary over topics, whose
/// per-topic values are those of `map` / `bpref`).
///
/// Errors (exit 2): as [`resolve`], and those two cases.
pub fn resolve_per_topic(name: &str) -> Result<Measure> {
    let m = resolve(name)?;
    if m.is_string() {
        return Err(Error::input(format!(
            "measure `{}` is a string per topic, not a number",
            name.trim()
        )));
    }
    if m.is_summary_only() {
        return Err(Error::input(format!(
            "measure `{}` is a geometric mean over topics, not a per-topic value",
            name.trim()
        ))
        .with_hint(if m == Measure::GmMap {
            "analyse `map` per topic (gm_map is its geometric mean)"
        } else {
            "analyse `bpref` per topic (gm_bpref is its geometric mean)"
        }));
    }
    Ok(m)
}

/// Parses a measure spec into the measures it denotes, in output order: one name as
/// [`resolve`] takes it, or a trec_eval spec naming several (`P` = all default cutoffs,
/// `P.5,10`, `recall`, `iprec_at_recall`, the nicknames `all_trec`, `official`, `set`, and
/// `all` = `all_trec`). trec_eval's `runid` and `num_q` give no measure (pledge always prints
/// them). Cutoff lists are sorted, as trec_eval sorts them.
///
/// Errors (exit 2): as [`resolve`], except that several measures are fine.
pub fn parse(spec: &str) -> Result<Vec<Measure>> {
    super::aliases::parse(spec.trim())
}

/// Parses several measure specs, keeping first-seen order and dropping repeats; an empty list
/// gives trec_eval's default set ([`Measure::defaults`]).
///
/// Errors (exit 2): as [`parse`], for the first bad spec.
pub fn parse_all<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Measure>> {
    if specs.is_empty() {
        return Ok(Measure::defaults());
    }
    let mut out: Vec<Measure> = Vec::new();
    for s in specs {
        for m in parse(s.as_ref())? {
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
    fn sets_have_trec_evals_sizes_and_order() {
        // out.test (no -m): 28 measures after runid and num_q; out.test.aq: 98.
        assert_eq!(Measure::defaults().len(), 28);
        let all = Measure::all_trec();
        assert_eq!(all.len(), 98);
        let names: Vec<String> = all.iter().map(Measure::canonical_name).collect();
        assert_eq!(names[4], "gm_map");
        assert_eq!(names[8], "iprec_at_recall_0.00");
        assert_eq!(names[28], "relstring");
        assert_eq!(names[49], "Rprec_mult_2.00");
        assert_eq!(names[97], "unj_20");
        let mut dedup = names.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), 98, "no name twice");
        assert_eq!(Measure::set_measures().len(), 9);
    }

    #[test]
    fn every_canonical_name_resolves_back() {
        let mut ms = Measure::all_trec();
        ms.extend([
            Measure::Yaap,
            Measure::Dcg(Gains::default()),
            Measure::IdealDcg(Gains::default()),
            Measure::Judged(10),
            Measure::JudgedRet(Some(10)),
            Measure::JudgedRet(None),
            Measure::RecipRankCut(10),
            Measure::NdcgBurges,
            Measure::NdcgBurgesCut(10),
            default_rbp(0.95),
            Measure::RbpResid {
                p: 0.5,
                params: Some("p=0.5".into()),
            },
        ]);
        for m in ms {
            let name = m.canonical_name();
            assert_eq!(resolve(&name).unwrap(), m, "{}", name);
        }
    }

    #[test]
    fn parse_all_dedups_and_defaults() {
        assert_eq!(
            parse_all(&["map", "map", "P.10"]).unwrap(),
            vec![Measure::Map, Measure::P(10)]
        );
        assert_eq!(parse_all::<&str>(&[]).unwrap(), Measure::defaults());
        assert_eq!(parse_all(&["AP", "map", "MAP"]).unwrap(), vec![Measure::Map]);
    }
}
