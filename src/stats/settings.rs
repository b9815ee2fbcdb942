//! Analysis settings, taken from a protocol (`analyze`) or from defaults and flags (`compare`).

use crate::protocol::{Adjust, Estimator, Keep, MissingTopics, Percentile, Protocol, ResamplingUnit, Scale};
use serde::{Deserialize, Serialize};

/// Everything that decides an analysis besides the data. Serialized into the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// ChaCha8 seed.
    pub seed: u64,
    /// Bootstrap trials B.
    pub trials: u32,
    /// Interval level, e.g. 0.95.
    pub interval_level: f64,
    /// Percentile definition (numpy name in the output).
    pub percentile: Percentile,
    /// Missing-topics policy.
    pub missing_topics: MissingTopics,
    /// Baseline system; `None`: all pairs.
    pub baseline: Option<String>,
    /// Multiple-comparison adjustment.
    pub adjust: Adjust,
    /// Monte-Carlo trials of the randomization test.
    pub randomization_trials: u32,
    /// Tie tolerance.
    pub tie_tolerance: f64,
    /// Primary resampling unit.
    pub resampling_unit: ResamplingUnit,
    /// Component estimator.
    pub estimator: Estimator,
    /// Cap m per component.
    pub max_per_component: u32,
    /// Keep rule for the cap.
    pub keep: Keep,
    /// Metric name.
    pub metric: String,
    /// Metric scale.
    pub scale: Scale,
    /// Registered MDE target, α, power, sides.
    pub target_mde: Option<f64>,
    /// α.
    pub alpha: f64,
    /// Power 1 − β.
    pub power: f64,
    /// Sides.
    pub sides: u8,
}

impl Settings {
    /// Settings of a registered protocol.
    pub fn from_protocol(p: &Protocol) -> Settings {
        let a = &p.analysis;
        Settings {
            seed: a.seed,
            trials: a.trials,
            interval_level: a.interval_level,
            percentile: a.percentile,
            missing_topics: a.missing_topics,
            baseline: a.baseline.clone(),
            adjust: a.adjust,
            randomization_trials: a.randomization_trials,
            tie_tolerance: a.tie_tolerance,
            resampling_unit: a.resampling_unit,
            estimator: p.components.estimator,
            max_per_component: p.components.max_per_component,
            keep: p.components.keep,
            metric: p.target.metric.clone(),
            scale: p.target.scale,
            target_mde: Some(p.target.mde),
            alpha: p.target.alpha,
            power: p.target.power,
            sides: p.target.sides,
        }
    }

    /// Defaults of `pledge compare` (the protocol format's defaults; no target).
    pub fn compare_defaults() -> Settings {
        let a = crate::protocol::Analysis::default();
        let c = crate::protocol::Components::default();
        Settings {
            seed: a.seed,
            trials: a.trials,
            interval_level: a.interval_level,
            percentile: a.percentile,
            missing_topics: a.missing_topics,
            baseline: None,
            adjust: a.adjust,
            randomization_trials: a.randomization_trials,
            tie_tolerance: a.tie_tolerance,
            resampling_unit: a.resampling_unit,
            estimator: c.estimator,
            max_per_component: c.max_per_component,
            keep: c.keep,
            metric: "score".into(),
            scale: Scale::Fraction,
            target_mde: None,
            alpha: 0.05,
            power: 0.8,
            sides: 2,
        }
    }
}

/// Inputs and options of one run, stored in the result so that a recorded analysis can be
/// recomputed (`rerun`). Paths are relative to the repository root (absolute when outside it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunOptions {
    /// Score files, in the order given.
    pub scores: Vec<String>,
    /// Component assignment file.
    pub components: Option<String>,
    /// Strata file (else the first score file is searched for the strata column).
    pub strata: Option<String>,
    /// Score reader options.
    pub read: crate::scores::ReadOptions,
    /// Baseline given on the command line (overrides the protocol's).
    pub baseline: Option<String>,
    /// Split the assignment was restricted to.
    pub split: Option<String>,
    /// TREC qrels and runs evaluated directly instead of score files (issue: analyze accepts
    /// qrels + runs), with the trec_eval measure used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trec: Option<TrecInputs>,
}

/// Qrels and runs given to `analyze`/`compare` instead of per-topic score files: the per-topic
/// values of `measure` (trec_eval's definition, see [`crate::trec`]) become the scores, and the
/// pool-bias check runs on the same runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrecInputs {
    /// Qrels file.
    pub qrels: String,
    /// Run files, in the order given; systems are named by their run tags.
    pub runs: Vec<String>,
    /// trec_eval measure, e.g. `map`, `P.10`, `ndcg_cut.10`.
    pub measure: String,
    /// Zero-fill qrels topics a run lacks (trec_eval `-c`).
    pub complete: bool,
}
