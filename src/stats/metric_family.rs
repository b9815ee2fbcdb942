//! One multiplicity family across several metrics: the analyses of the same systems and
//! comparisons under each metric (nDCG@10 and recall@100, accuracy and F1), their p-values
//! adjusted together and every verdict read again from the jointly adjusted p.
//!
//! Which p-values form a family: each registered hypothesis' p (the sided randomization p, or a
//! margin kind's shifted t-test p), the primary hypotheses of all metrics as one family and the
//! secondary ones as another; without hypotheses, each comparison's two-sided randomization p,
//! all of them one family. The order is metric by metric (the order the family lists them), then
//! the comparisons' order; Holm's and Benjamini–Hochberg's adjusted p-values do not depend on it
//! (ties are broken by that order, as statsmodels `multipletests` breaks them by position).
//! The adjustment is [`super::multiple::adjust`] (statsmodels `multipletests`, `holm` and
//! `fdr_bh`).

use super::analyze::{AnalysisResult, Comparison, SystemSummary};
use super::multiple;
use crate::error::{Error, Result};
use crate::protocol::Adjust;
use serde::{Deserialize, Serialize};

/// One further metric of a family: its systems and comparisons, with the p-values adjusted over
/// the whole family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricAnalysis {
    /// The metric, as the family names it.
    pub metric: String,
    /// The systems under this metric (mean, SE and intervals).
    pub systems: Vec<SystemSummary>,
    /// The comparisons under this metric, in the order of the first metric's.
    pub comparisons: Vec<Comparison>,
}

/// The family across metrics an analysis was adjusted in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricFamilyResult {
    /// The statsmodels name of the correction: `holm` or `fdr_bh`.
    pub method: String,
    /// The level α every verdict is read at.
    pub alpha: f64,
    /// The metrics, in order; the first is the analysis' own (its `comparisons`).
    pub metrics: Vec<String>,
    /// The p-values adjusted together: the primary hypotheses of every metric (or every
    /// comparison, without hypotheses).
    pub size: usize,
    /// The secondary hypotheses of every metric, adjusted together as a family of their own (0:
    /// none).
    pub secondary_size: usize,
    /// Every metric after the first, in order.
    pub others: Vec<MetricAnalysis>,
}

/// Where a comparison's p-value belongs: the primary or secondary hypotheses, or (without
/// hypotheses) the comparisons.
fn group_of(c: &Comparison) -> Option<bool> {
    c.hypothesis.as_ref().map(|h| h.primary)
}

/// The p-value a comparison enters the family with: its hypothesis' p, or the two-sided
/// randomization p.
fn raw_p(c: &Comparison) -> f64 {
    c.hypothesis.as_ref().map_or(c.randomization.p, |h| h.p)
}

/// Adjusts the comparisons of `primary` (the first metric's analysis) and of `others` (each
/// further metric's analysis of the same inputs, with its name) as one family with `adjust` at
/// the settings' α, reads each verdict again from its adjusted p, and returns `primary` with the
/// family ([`AnalysisResult::metric_family`]) holding the other metrics.
///
/// Errors (exit 2): fewer than two metrics; an adjustment other than `holm` or `bh`; an analysis
/// whose comparisons are not the first metric's (other systems or pairs).
pub fn adjust_across(
    mut primary: AnalysisResult,
    others: Vec<(String, AnalysisResult)>,
    adjust: Adjust,
) -> Result<AnalysisResult> {
    if others.is_empty() {
        return Err(Error::input("a family across metrics needs at least two metrics"));
    }
    if !matches!(adjust, Adjust::Holm | Adjust::Bh) {
        return Err(Error::input(format!(
            "a family across metrics is adjusted with holm or bh, not {}",
            multiple::method_name(adjust)
        ))
        .with_hint("adjust with holm or bh"));
    }
    let pairs = |r: &AnalysisResult| -> Vec<(String, String)> {
        r.comparisons
            .iter()
            .map(|c| (c.system.clone(), c.baseline.clone()))
            .collect()
    };
    for (m, r) in &others {
        if pairs(r) != pairs(&primary) {
            return Err(Error::input(format!(
                "under metric `{}` the comparisons are not those of metric `{}`: the metrics of a family must score the same systems",
                m, primary.settings.metric
            )));
        }
    }
    let mut metrics = vec![primary.settings.metric.clone()];
    let mut rest: Vec<MetricAnalysis> = Vec::with_capacity(others.len());
    for (m, r) in others {
        metrics.push(m.clone());
        rest.push(MetricAnalysis {
            metric: m,
            systems: r.systems,
            comparisons: r.comparisons,
        });
    }
    let s = primary.settings.clone();
    let n_metrics = metrics.len();
    let mut sizes = [0usize; 2];
    for group in [Some(true), Some(false), None] {
        let mut all: Vec<&mut Comparison> = primary
            .comparisons
            .iter_mut()
            .chain(rest.iter_mut().flat_map(|m| m.comparisons.iter_mut()))
            .filter(|c| group_of(c) == group)
            .collect();
        let ps: Vec<f64> = all.iter().map(|c| raw_p(c)).collect();
        let adjusted = multiple::adjust(&ps, adjust).unwrap_or_else(|| ps.clone());
        for (c, q) in all.iter_mut().zip(adjusted) {
            super::analyze::readjust(c, q, ps.len(), n_metrics, adjust, &s);
        }
        match group {
            Some(false) => sizes[1] = ps.len(),
            _ => sizes[0] += ps.len(),
        }
    }
    primary.metric_family = Some(MetricFamilyResult {
        method: multiple::method_name(adjust).into(),
        alpha: s.alpha,
        metrics,
        size: sizes[0],
        secondary_size: sizes[1],
        others: rest,
    });
    Ok(primary)
}

#[cfg(test)]
mod tests;
