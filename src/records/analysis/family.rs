//! The stored form of an analysis's family across metrics ([`crate::stats::metric_family`]).

use super::super::mirror::mirror;
use super::{Comparison, SystemSummary};
use serde::{Deserialize, Serialize};

mirror! {
    /// The family across metrics an analysis was adjusted in (`[family]`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MetricFamily from crate::stats::metric_family::MetricFamilyResult {
        /// The statsmodels name of the correction: `holm` or `fdr_bh`.
        pub method: String,
        /// The level α every verdict is read at.
        pub alpha: f64,
        /// The metrics, in order; the first is the analysis' own (its `comparisons`).
        pub metrics: Vec<String>,
        /// The p-values adjusted together (primary hypotheses, or every comparison).
        pub size: usize,
        /// The secondary hypotheses adjusted together (0: none).
        pub secondary_size: usize,
        /// Every metric after the first, in order.
        pub others: Vec<MetricAnalysis>,
    }
}

mirror! {
    /// One further metric of a family: its systems and comparisons.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MetricAnalysis from crate::stats::metric_family::MetricAnalysis {
        /// The metric, as the family names it.
        pub metric: String,
        /// The systems under this metric.
        pub systems: Vec<SystemSummary>,
        /// The comparisons under this metric, adjusted over the whole family.
        pub comparisons: Vec<Comparison>,
    }
}
