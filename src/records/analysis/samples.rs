//! The stored form of an analysis's repeated samples ([`crate::stats::samples`]).

use super::super::mirror::mirror;
use serde::{Deserialize, Serialize};

mirror! {
    /// Repeated samples per topic (epochs, seeds) with the `mean` aggregation: each system's and
    /// each comparison's variance split and two-level bootstrap.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RepeatedSamples from crate::stats::samples::RepeatedSamples {
        /// What one sample is (`epoch`, `seed`, ...).
        pub unit: String,
        /// The aggregation the per-topic values come from.
        pub aggregation: crate::protocol::SampleAggregation,
        /// The least and the most samples per topic and system, over the analyzed topics.
        pub samples_per_topic: [usize; 2],
        /// How the two-level intervals are computed, in words.
        pub method: String,
        /// Each system's mean.
        pub systems: Vec<SampleSummary>,
        /// Each comparison's difference, in the order of the comparisons.
        pub comparisons: Vec<SampleSummary>,
    }
}

mirror! {
    /// What repeated samples say about one system's mean or one paired difference.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SampleSummary from crate::stats::samples::SampleSummary {
        /// The system, or `SYSTEM − BASELINE` for a difference.
        pub name: String,
        /// Topics with samples.
        pub topics: usize,
        /// For a difference: whether every topic's samples are paired by key; `None` for a system.
        pub paired: Option<bool>,
        /// The split of the mean's variance between topics and samples within topics.
        pub split: Option<VarianceSplit>,
        /// The two-level bootstrap.
        pub two_level: TwoLevelInterval,
    }
}

mirror! {
    /// The split of a mean's variance between topics and samples (Miller 2024, §3).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct VarianceSplit from crate::stats::samples::VarianceSplit {
        /// Topics n.
        pub topics: usize,
        /// Samples per topic K (the harmonic-type mean when counts differ).
        pub samples_per_topic: f64,
        /// σ²_topic.
        pub between: f64,
        /// σ²_within.
        pub within: f64,
        /// The SE of the mean.
        pub se: f64,
        /// The share of SE² due to sampling within topics.
        pub within_share: f64,
        /// The SE with twice the samples per topic.
        pub se_double_samples: f64,
        /// The SE with unlimited samples per topic.
        pub se_unlimited_samples: f64,
    }
}

mirror! {
    /// The two-level bootstrap's SE and percentile interval.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TwoLevelInterval from crate::stats::samples::TwoLevelInterval {
        /// The SD of the B estimates.
        pub se: f64,
        /// The percentile interval, `[low, high]`.
        pub interval: [f64; 2],
    }
}
