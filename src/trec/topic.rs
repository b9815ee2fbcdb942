//! Per-topic computation of every [`Measure`] in one pass over the ranked grades, following
//! trec_eval's `form_res_rels.c` and `m_*.c`.

use super::measures::Measure;
use super::qrels::TopicQrels;

/// How grades are read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judging {
    /// Grade at or above which a document is relevant (trec_eval `-l`, default 1).
    pub relevance_level: i32,
    /// Treat negative grades as "in the pool but unjudged" (trec_eval's reading, which matters
    /// for `rbp_resid` and `judged_k` only). Default false: a negative grade is judged and
    /// non-relevant.
    pub negative_unjudged: bool,
}

impl Default for Judging {
    fn default() -> Self {
        Judging {
            relevance_level: 1,
            negative_unjudged: false,
        }
    }
}

/// Counts of judged documents per non-negative grade (`counts[g]`).
fn level_counts(tq: Option<&TopicQrels>) -> Vec<usize> {
    let mut counts: Vec<usize> = Vec::new();
    if let Some(tq) = tq {
        for &g in tq.grades.values() {
            if g >= 0 {
                let g = g as usize;
                if counts.len() <= g {
                    counts.resize(g + 1, 0);
                }
                counts[g] += 1;
            }
        }
    }
    counts
}

/// Ideal DCG of the first `k` positions (all positions when `k` is `None`): grades sorted
/// descending, gain = grade, discount log2(i + 2) for 0-based position i.
fn ideal_dcg(counts: &[usize], k: Option<usize>) -> f64 {
    let mut sum = 0.0;
    let mut i = 0usize;
    for level in (1..counts.len()).rev() {
        for _ in 0..counts[level] {
            if k.is_some_and(|k| i >= k) {
                return sum;
            }
            sum += level as f64 / ((i + 2) as f64).log2();
            i += 1;
        }
    }
    sum
}

/// The value of each of `measures` for one topic. `grades[i]` is the grade of the document at
/// 0-based position i in trec_eval's order (`None`: not in the qrels); `tq` the topic's
/// judgments (`None`: no judgments, e.g. a `-c` zero topic with an empty ranking).
pub fn topic_values(grades: &[Option<i32>], tq: Option<&TopicQrels>, measures: &[Measure], j: Judging) -> Vec<f64> {
    let counts = level_counts(tq);
    let num_rel: usize = counts
        .iter()
        .enumerate()
        .filter(|(g, _)| *g as i64 >= j.relevance_level as i64)
        .map(|(_, c)| c)
        .sum();
    let n = grades.len();
    let is_rel = |g: Option<i32>| g.is_some_and(|g| g >= j.relevance_level);
    let is_judged = |g: Option<i32>| g.is_some_and(|g| !j.negative_unjudged || g >= 0);
    let max_level = counts.len().saturating_sub(1) as f64;

    // Prefix pass: relevant so far, AP sum, first relevant, DCG prefix.
    let mut rel_prefix = Vec::with_capacity(n + 1);
    let mut judged_prefix = Vec::with_capacity(n + 1);
    let mut dcg_prefix = Vec::with_capacity(n + 1);
    rel_prefix.push(0usize);
    judged_prefix.push(0usize);
    dcg_prefix.push(0.0f64);
    let (mut rel, mut judged, mut dcg, mut ap) = (0usize, 0usize, 0.0f64, 0.0f64);
    let mut first_rel: Option<usize> = None;
    for (i, &g) in grades.iter().enumerate() {
        if is_rel(g) {
            rel += 1;
            ap += rel as f64 / (i + 1) as f64;
            first_rel.get_or_insert(i + 1);
        }
        if is_judged(g) {
            judged += 1;
        }
        if let Some(g) = g {
            if g > 0 {
                dcg += g as f64 / ((i + 2) as f64).log2();
            }
        }
        rel_prefix.push(rel);
        judged_prefix.push(judged);
        dcg_prefix.push(dcg);
    }
    let at = |v: &Vec<usize>, k: usize| v[k.min(n)];
    let rbp = |p: f64| {
        let mut sum = 0.0;
        let mut cur = 1.0;
        for &g in grades {
            if let Some(g) = g {
                if g > 0 {
                    let gain = if max_level > 1.0 {
                        g as f64 / max_level
                    } else {
                        g as f64
                    };
                    sum += gain * cur;
                }
            }
            cur *= p;
        }
        (1.0 - p) * sum
    };
    let rbp_resid = |p: f64| {
        let (mut sum, mut cur, mut unj) = (0.0, 1.0, 0usize);
        for &g in grades {
            if !is_judged(g) {
                unj += 1;
                sum += cur;
            }
            cur *= p;
        }
        if unj > 0 {
            cur + (1.0 - p) * sum
        } else {
            0.0
        }
    };
    measures
        .iter()
        .map(|m| match *m {
            Measure::NumRet => n as f64,
            Measure::NumRel => num_rel as f64,
            Measure::NumRelRet => rel as f64,
            Measure::Map => ratio(ap, num_rel as f64),
            Measure::Rprec => ratio(at(&rel_prefix, num_rel) as f64, num_rel as f64),
            Measure::RecipRank => first_rel.map_or(0.0, |r| 1.0 / r as f64),
            Measure::P(k) => at(&rel_prefix, k as usize) as f64 / k as f64,
            Measure::Ndcg => ratio(dcg, ideal_dcg(&counts, None)),
            Measure::NdcgCut(k) => ratio(dcg_prefix[(k as usize).min(n)], ideal_dcg(&counts, Some(k as usize))),
            Measure::Rbp(p) => rbp(p),
            Measure::RbpResid(p) => rbp_resid(p),
            Measure::Judged(k) => at(&judged_prefix, k as usize) as f64 / k as f64,
        })
        .collect()
}

/// `a / b`, or 0 when `b` is 0 (trec_eval leaves such values at 0).
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tq(pairs: &[(&str, i32)]) -> TopicQrels {
        TopicQrels {
            grades: pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect(),
        }
    }

    #[test]
    fn hand_computed_values() {
        // Qrels: a=1, b=2, c=0, d=-1; e unjudged. Ranking: e a c b d.
        let q = tq(&[("a", 1), ("b", 2), ("c", 0), ("d", -1)]);
        let grades = [None, Some(1), Some(0), Some(2), Some(-1)];
        let ms = [
            Measure::NumRel,
            Measure::NumRelRet,
            Measure::Map,
            Measure::Rprec,
            Measure::RecipRank,
            Measure::P(5),
            Measure::P(10),
            Measure::Judged(5),
            Measure::Judged(10),
            Measure::Ndcg,
            Measure::Rbp(0.5),
            Measure::RbpResid(0.5),
        ];
        let v = topic_values(&grades, Some(&q), &ms, Judging::default());
        // AP = (1/2 + 2/4) / 2; Rprec = rel in top 2 / 2; RR = 1/2.
        assert_eq!(v[0..5], [2.0, 2.0, 0.5, 0.5, 0.5]);
        assert_eq!(v[5], 0.4);
        assert_eq!(v[6], 0.2);
        assert_eq!(v[7], 0.8); // e is the only unjudged document; d (-1) is judged.
        assert_eq!(v[8], 0.4); // denominator k = 10 although 5 were returned.
        let dcg = 1.0 / 3f64.log2() + 2.0 / 5f64.log2();
        let idcg = 2.0 + 1.0 / 3f64.log2();
        assert!((v[9] - dcg / idcg).abs() < 1e-12);
        // RBP, grades scaled by max 2: (1-.5)(.5*.5 + 1*.125).
        assert!((v[10] - 0.5 * (0.25 + 0.125)).abs() < 1e-12);
        // Residual: e unjudged at position 1, then p^5.
        assert!((v[11] - (0.5f64.powi(5) + 0.5 * 1.0)).abs() < 1e-12);
        let t = topic_values(
            &grades,
            Some(&q),
            &[Measure::Judged(5)],
            Judging {
                negative_unjudged: true,
                ..Judging::default()
            },
        );
        assert_eq!(t, vec![0.6]);
    }

    #[test]
    fn empty_ranking_is_zero() {
        let q = tq(&[("a", 1)]);
        let v = topic_values(&[], Some(&q), &Measure::defaults(), Judging::default());
        assert_eq!(v[1], 1.0);
        assert!(v.iter().enumerate().all(|(i, x)| i == 1 || *x == 0.0));
    }
}
