//! A registered topic filter: drop the topics on which every system scores at or above a value
//! (all solved) or at or below one (none solved). Such topics cannot tell systems apart and add
//! variance-free noise to the mean, but a filtered topic set gives a mean that is not comparable
//! to an unfiltered one (Sakai, *Laboratory Experiments in Information Retrieval*, 2018, on
//! discriminative topic sets), so the analysis keeps both means and says so.

use super::describe;
use super::prepare::Prepared;
use serde::{Deserialize, Serialize};

pub use crate::protocol::TopicFilter;

/// What the filter did: the topics it dropped and the means without it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterInfo {
    /// The rule.
    pub rule: TopicFilter,
    /// Topics before the filter.
    pub topics_before: usize,
    /// Topics dropped.
    pub dropped: usize,
    /// Up to 20 dropped topic ids.
    pub examples: Vec<String>,
    /// Each system's mean over every topic (before the filter), in system order.
    pub unfiltered_means: Vec<(String, f64)>,
    /// The statement the report carries.
    pub statement: String,
}

/// Drops the topics `rule` selects from `p` (scores, components, strata), and says what it did.
/// Components left without a topic disappear from the counts.
///
/// Dropping every topic is left to the caller to refuse (no topic left to analyze).
pub fn apply(p: &mut Prepared, rule: TopicFilter) -> FilterInfo {
    let n = p.topics.len();
    let unfiltered_means = p
        .systems
        .iter()
        .zip(&p.values)
        .map(|(s, v)| (s.clone(), describe::mean(v)))
        .collect();
    let drop: Vec<bool> = (0..n)
        .map(|t| {
            let col = || p.values.iter().map(move |v| v[t]);
            rule.drop_all_at_least.is_some_and(|x| col().all(|v| v >= x))
                || rule.drop_all_at_most.is_some_and(|x| col().all(|v| v <= x))
        })
        .collect();
    let keep = |v: &[usize]| -> Vec<usize> { v.iter().zip(&drop).filter(|(_, d)| !**d).map(|(x, _)| *x).collect() };
    let examples: Vec<String> = p
        .topics
        .iter()
        .zip(&drop)
        .filter(|(_, d)| **d)
        .take(20)
        .map(|(t, _)| t.clone())
        .collect();
    let dropped = drop.iter().filter(|d| **d).count();
    p.topics = p
        .topics
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(t, _)| t.clone())
        .collect();
    for v in p.values.iter_mut() {
        *v = v.iter().zip(&drop).filter(|(_, d)| !**d).map(|(x, _)| *x).collect();
    }
    if let Some(c) = p.component_of.as_mut() {
        // Renumber the remaining components 0..G'.
        let kept = keep(c);
        let mut ids: Vec<usize> = kept.clone();
        ids.sort_unstable();
        ids.dedup();
        let pos = |x: usize| ids.binary_search(&x).unwrap_or(0);
        *c = kept.iter().map(|&x| pos(x)).collect();
        if let Some(info) = p.components_info.as_mut() {
            let mut sizes = vec![0usize; ids.len()];
            c.iter().for_each(|&x| sizes[x] += 1);
            info.components = ids.len();
            info.questions = c.len();
            info.largest = sizes.into_iter().max().unwrap_or(0);
        }
    }
    if let Some(st) = p.stratum_of.as_mut() {
        *st = keep(st);
        for (i, (_, size)) in p.strata_sizes.iter_mut().enumerate() {
            *size = st.iter().filter(|&&x| x == i).count();
        }
    }
    p.topics_info.analyzed = p.topics.len();
    let statement = format!(
        "A registered topic filter applies: {}. It dropped {} of {} topics; the means below are over the {} remaining, so they are not comparable to means over an unfiltered topic set (the unfiltered means are given beside them).",
        rule.describe(),
        dropped,
        n,
        n - dropped
    );
    FilterInfo {
        rule,
        topics_before: n,
        dropped,
        examples,
        unfiltered_means,
        statement,
    }
}
