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
    /// The registered hypotheses (sides resolved): when present, they are the comparisons, and
    /// the primary ones are the multiplicity family.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hypotheses: Vec<crate::protocol::Hypothesis>,
    /// The registered topic filter, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_filter: Option<super::filter::TopicFilter>,
    /// The hypothesis every comparison of `compare` answers (`--kind`, `--margin`,
    /// `--direction`); `None` without one, and always for `analyze` (its hypotheses are
    /// registered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_comparison: Option<EveryComparison>,
    /// Whether lower values are better (a cost, a latency, an error rate): rank 1 is then the
    /// lowest (`target.lower-is-better`, `compare --lower-is-better`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lower_is_better: bool,
}

/// A hypothesis `compare` tests on every comparison `system − baseline` (one family).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EveryComparison {
    /// What is claimed.
    pub kind: super::margin::HypothesisKind,
    /// The margin, for a margin kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// Which way is better (`None` for equivalence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<crate::protocol::Direction>,
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
            adjust: p.family.as_ref().map_or(a.adjust, |f| f.adjust),
            randomization_trials: a.randomization_trials,
            tie_tolerance: a.tie_tolerance,
            resampling_unit: a.resampling_unit,
            estimator: p.components.estimator,
            max_per_component: p.components.max_per_component,
            keep: p.components.keep,
            metric: p.target.metric.clone(),
            scale: p.target.scale,
            target_mde: Some(p.target.mde),
            alpha: p.verdict_alpha(),
            power: p.target.power,
            sides: p.target.sides,
            hypotheses: p
                .hypotheses
                .iter()
                .map(|h| crate::protocol::Hypothesis {
                    sides: Some(p.sides_of(h)),
                    ..h.clone()
                })
                .collect(),
            topic_filter: p.topic_filter.filter(|f| !f.is_empty()),
            every_comparison: None,
            lower_is_better: p.target.lower_is_better,
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
            hypotheses: vec![],
            topic_filter: None,
            every_comparison: None,
            lower_is_better: false,
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
    /// TREC qrels and runs evaluated directly instead of score files, with the trec_eval
    /// measure used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trec: Option<TrecInputs>,
    /// Settings the analysis ran with instead of the protocol's (each one a recorded deviation).
    #[serde(default, skip_serializing_if = "Overrides::is_empty")]
    pub overrides: Overrides,
}

/// Analysis settings given on the command line instead of the protocol's. Each one that differs
/// from the protocol is a deviation, refused unless recorded with a reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overrides {
    /// Seed of the generator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Bootstrap trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// Randomization-test trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub randomization_trials: Option<u32>,
    /// Interval level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_level: Option<f64>,
    /// Percentile definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Percentile>,
    /// Missing-topics policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_topics: Option<MissingTopics>,
    /// Resampling unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resampling_unit: Option<ResamplingUnit>,
    /// Estimator with components.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimator: Option<Estimator>,
    /// Multiple-comparison adjustment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjust: Option<Adjust>,
    /// Drop topics where every system scores at least this (a topic filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_all_at_least: Option<f64>,
    /// Drop topics where every system scores at most this (a topic filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_all_at_most: Option<f64>,
}

impl Overrides {
    /// Whether nothing is overridden.
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }

    /// Applies the overrides to `s`; returns `(field, registered, used)` for each value that
    /// changed (protocol key names).
    pub fn apply(&self, s: &mut Settings) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        fn set<T: PartialEq + Copy + std::fmt::Display>(
            out: &mut Vec<(String, String, String)>,
            key: &str,
            slot: &mut T,
            v: Option<T>,
        ) {
            if let Some(v) = v {
                if *slot != v {
                    out.push((key.to_string(), slot.to_string(), v.to_string()));
                    *slot = v;
                }
            }
        }
        set(&mut out, "analysis.seed", &mut s.seed, self.seed);
        set(&mut out, "analysis.trials", &mut s.trials, self.trials);
        set(
            &mut out,
            "analysis.randomization-trials",
            &mut s.randomization_trials,
            self.randomization_trials,
        );
        set(
            &mut out,
            "analysis.interval-level",
            &mut s.interval_level,
            self.interval_level,
        );
        set(&mut out, "analysis.percentile", &mut s.percentile, self.percentile);
        set(
            &mut out,
            "analysis.missing-topics",
            &mut s.missing_topics,
            self.missing_topics,
        );
        set(
            &mut out,
            "analysis.resampling-unit",
            &mut s.resampling_unit,
            self.resampling_unit,
        );
        set(&mut out, "components.estimator", &mut s.estimator, self.estimator);
        set(&mut out, "analysis.adjust", &mut s.adjust, self.adjust);
        if self.drop_all_at_least.is_some() || self.drop_all_at_most.is_some() {
            let before = s.topic_filter.unwrap_or(super::filter::TopicFilter {
                drop_all_at_least: None,
                drop_all_at_most: None,
            });
            let after = super::filter::TopicFilter {
                drop_all_at_least: self.drop_all_at_least.or(before.drop_all_at_least),
                drop_all_at_most: self.drop_all_at_most.or(before.drop_all_at_most),
            };
            if after != before {
                let show =
                    |f: &super::filter::TopicFilter| if f.is_empty() { "none".to_string() } else { f.describe() };
                out.push(("topic-filter".into(), show(&before), show(&after)));
                s.topic_filter = Some(after);
            }
        }
        out
    }
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
    /// Runs read for the pool-bias check only (judgment-pool contributors not compared).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pool_runs: Vec<String>,
    /// Contributors of the protocol may be missing from the supplied runs (the pool statement
    /// says so and no leave-one-run-out figure is computed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pool_partial: bool,
}
