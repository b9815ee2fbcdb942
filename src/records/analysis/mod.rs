//! The `result.json` of an `analyze` entry ([`AnalysisRecord`]) and its parts: the stored
//! form of [`crate::stats::AnalysisResult`], field by field, made with `From<&AnalysisResult>`.
//! The method's types may change; these change only with the record (see
//! [`RECORD_VERSION`]), and the tests pin their serialized form.

mod comparison;
mod family;
mod registered;
mod samples;

pub use comparison::*;
pub use family::*;
pub use registered::*;
pub use samples::*;

use super::mirror::mirror;
use super::{legacy, RECORD_VERSION};
use serde::{Deserialize, Serialize};

mirror! {
    /// `result.json` of an `analyze` entry: the full analysis, as
    /// [`crate::stats::analyze::run`] computed it (the report renders it).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AnalysisRecord from crate::stats::analyze::AnalysisResult {
        /// Format identifier, `pledge.analysis/1`.
        pub schema: String,
        /// [`RECORD_VERSION`] when written; 1 when absent (written before versions were
        /// recorded).
        #[serde(default = "legacy")]
        pub record_version: u32 = RECORD_VERSION,
        /// `analyze` (checked against a registration) or `compare` (no ledger).
        pub mode: String,
        /// Registration status in words.
        pub registration: String,
        /// Study id, for `analyze`.
        pub study_id: Option<String>,
        /// Settings used.
        pub settings: Settings,
        /// Random generator.
        pub generator: crate::rng::RngInfo,
        /// Topic accounting under the missing-topics policy.
        pub topics: TopicAccounting,
        /// Component accounting.
        pub components: Option<ComponentAccounting>,
        /// Strata field and sizes.
        pub strata: Option<StrataInfo>,
        /// Systems.
        pub systems: Vec<SystemSummary>,
        /// With three or more systems: each system's rank with its bootstrap rank interval and
        /// P(rank 1) (absent in records written before version 4, and below three systems).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ranking: Option<Ranking>,
        /// Comparisons.
        pub comparisons: Vec<Comparison>,
        /// Notes from reading the inputs.
        pub notes: Vec<String>,
        /// The randomized Tukey HSD test over all pairs of systems, when `adjust = "tukey-hsd"`
        /// (every pair's p, also those a baseline leaves out of `comparisons`).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub tukey_hsd: Option<TukeyHsd>,
        /// What the registered topic filter dropped, with the unfiltered means.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub topic_filter: Option<FilterInfo>,
        /// Pool-bias check (qrels + runs only): judged@k, contributors, leave-one-run-out.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub pool_bias: Option<PoolBias>,
        /// Repeated samples per topic with the `mean` aggregation: the variance split and the
        /// two-level bootstrap (absent without repeated samples, as in every record written before
        /// it existed, so older records read unchanged).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub repeated_samples: Option<RepeatedSamples>,
        /// Input files and options of an `analyze` run (for `verify --rerun`); `None` for compare.
        pub options: Option<RunOptions>,
        /// The family across metrics the comparisons were adjusted in (`[family]`), with the
        /// other metrics' systems and comparisons; absent for one metric, as in every record
        /// written before it existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub metric_family: Option<MetricFamily>,
        /// The registered analysis on the registered question set, when the analyzed set differs
        /// from it (a recount accepted with a deviation); absent otherwise, and in records before
        /// version 4.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub registered_set: Option<RegisteredSet> = None,
    }
}

mirror! {
    /// Strata used.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct StrataInfo from crate::stats::analyze::StrataInfo {
        /// Field name.
        pub field: String,
        /// (stratum, topics).
        pub sizes: Vec<(String, usize)>,
    }
}

mirror! {
    /// Per-system summary.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SystemSummary from crate::stats::analyze::SystemSummary {
        /// System name.
        pub name: String,
        /// Mean over analyzed topics (question-weighted).
        pub mean: f64,
        /// Mean of component means, when components are known.
        pub component_mean: Option<f64>,
        /// Analyzed topics.
        pub topics: usize,
        /// Components, when known.
        pub components: Option<usize>,
        /// The system's estimate under the comparisons' estimator, with its SE and intervals (absent
        /// in records written before they were computed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub interval: Option<SystemInterval>,
    }
}

mirror! {
    /// What the filter did: the topics it dropped and the means without it.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FilterInfo from crate::stats::filter::FilterInfo {
        /// The rule.
        pub rule: crate::protocol::TopicFilter,
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
}

mirror! {
    /// How the component assignment was used.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ComponentAccounting from crate::stats::prepare::ComponentAccounting {
        /// Components with at least one analyzed question.
        pub components: usize,
        /// Analyzed questions in them.
        pub questions: usize,
        /// Split the assignment was restricted to, if any.
        pub split: Option<String>,
        /// Where the per-component cap came from: the file's `counted` column, or applied here.
        pub cap: String,
        /// Largest number of analyzed questions in one component.
        pub largest: usize,
    }
}

mirror! {
    /// How topics were accounted for (the report states the policy and the counts).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct TopicAccounting from crate::stats::prepare::TopicAccounting {
        /// The missing-topics policy (`error`, `zero`, `intersection`).
        pub policy: crate::protocol::MissingTopics,
        /// Topics in the score input(s).
        pub in_scores: usize,
        /// Topics analyzed.
        pub analyzed: usize,
        /// (system, topic) cells filled with 0 under `zero`.
        pub filled_with_zero: usize,
        /// Topics dropped under `intersection`.
        pub dropped_missing: usize,
        /// Scored topics left out by the component assignment (other split, or over the cap).
        pub excluded_by_assignment: usize,
        /// Up to 20 of the dropped or excluded topic ids, for the record.
        pub examples: Vec<String>,
    }
}

mirror! {
    /// Everything that decides an analysis besides the data. Serialized into the result.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Settings from crate::stats::settings::Settings {
        /// ChaCha8 seed.
        pub seed: u64,
        /// Bootstrap trials B.
        pub trials: u32,
        /// Interval level, e.g. 0.95.
        pub interval_level: f64,
        /// Percentile definition (numpy name in the output).
        pub percentile: crate::protocol::Percentile,
        /// Missing-topics policy.
        pub missing_topics: crate::protocol::MissingTopics,
        /// Baseline system; `None`: all pairs.
        pub baseline: Option<String>,
        /// Multiple-comparison adjustment.
        pub adjust: crate::protocol::Adjust,
        /// Monte-Carlo trials of the randomization test.
        pub randomization_trials: u32,
        /// Tie tolerance.
        pub tie_tolerance: f64,
        /// Primary resampling unit.
        pub resampling_unit: crate::protocol::ResamplingUnit,
        /// Component estimator.
        pub estimator: crate::protocol::Estimator,
        /// Cap m per component.
        pub max_per_component: u32,
        /// Keep rule for the cap.
        pub keep: crate::protocol::Keep,
        /// Metric name.
        pub metric: String,
        /// Metric scale.
        pub scale: crate::protocol::Scale,
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
        pub topic_filter: Option<crate::protocol::TopicFilter>,
        /// The hypothesis every comparison of `compare` answers (`--kind`, `--margin`,
        /// `--direction`); `None` without one, and always for `analyze` (its hypotheses are
        /// registered).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub every_comparison: Option<EveryComparison>,
        /// Whether lower values are better (rank 1 the lowest); absent when higher is better.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pub lower_is_better: bool,
    }
}

mirror! {
    /// A hypothesis `compare` tests on every comparison `system − baseline` (one family).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct EveryComparison from crate::stats::settings::EveryComparison {
        /// What is claimed.
        pub kind: HypothesisKind,
        /// The margin, for a margin kind.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub margin: Option<f64>,
        /// Which way is better (`None` for equivalence).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub direction: Option<crate::protocol::Direction>,
    }
}

mirror! {
    /// Inputs and options of one run, stored in the result so that a recorded analysis can be
    /// recomputed (`rerun`). Paths are relative to the repository root (absolute when outside it).
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct RunOptions from crate::stats::settings::RunOptions {
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
}

mirror! {
    /// Analysis settings given on the command line instead of the protocol's. Each one that differs
    /// from the protocol is a deviation, refused unless recorded with a reason.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Overrides from crate::stats::settings::Overrides {
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
        pub percentile: Option<crate::protocol::Percentile>,
        /// Missing-topics policy.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub missing_topics: Option<crate::protocol::MissingTopics>,
        /// Resampling unit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resampling_unit: Option<crate::protocol::ResamplingUnit>,
        /// Estimator with components.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub estimator: Option<crate::protocol::Estimator>,
        /// Multiple-comparison adjustment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub adjust: Option<crate::protocol::Adjust>,
        /// Drop topics where every system scores at least this (a topic filter).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub drop_all_at_least: Option<f64>,
        /// Drop topics where every system scores at most this (a topic filter).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub drop_all_at_most: Option<f64>,
    }
}

mirror! {
    /// Qrels and runs given to `analyze`/`compare` instead of per-topic score files: the per-topic
    /// values of `measure` (trec_eval's definition, see [`crate::trec`]) become the scores, and the
    /// pool-bias check runs on the same runs.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct TrecInputs from crate::stats::settings::TrecInputs {
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
}

mirror! {
    /// A system's estimate with its standard error and intervals.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SystemInterval from crate::stats::system::SystemInterval {
        /// The estimator, in the comparisons' words.
        pub estimator: String,
        /// The estimate (in the metric's scale).
        pub estimate: f64,
        /// What the standard error counts: `component` with an assignment, else `topic`.
        pub unit: String,
        /// Number of those units (n or G).
        pub n: usize,
        /// The standard error under `method`; undefined below 2 units (or 2 components).
        pub se: Option<f64>,
        /// Degrees of freedom of the t interval (n − 1 or G − 1).
        pub df: usize,
        /// Level of the intervals, e.g. 0.95.
        pub level: f64,
        /// estimate ± t_{df}·SE; `None` when the SE is undefined or 0.
        pub interval: Option<[f64; 2]>,
        /// How `se` and `interval` are computed.
        pub method: String,
        /// Wilson score interval, for 0/1 scores (0 and 100 on the points scale) without a component
        /// assignment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub wilson: Option<[f64; 2]>,
        /// Bootstrap percentile interval over the primary unit.
        pub bootstrap: [f64; 2],
        /// Its SD (ddof 0): the bootstrap standard error.
        pub bootstrap_se: f64,
        /// How the bootstrap interval is computed (unit, trials, percentile definition).
        pub bootstrap_method: String,
    }
}

mirror! {
    /// The ranking of the systems with its uncertainty (Hall & Miller 2009).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Ranking from crate::stats::rank::Ranking {
        /// How the ranks and their intervals are computed, in words.
        pub method: String,
        /// Paired bootstrap draws B the ranks were read from.
        pub trials: usize,
        /// Level of the rank intervals, e.g. 0.95.
        pub level: f64,
        /// Every system, in input order.
        pub systems: Vec<SystemRank>,
        /// Whether lower estimates rank first (absent: higher is better).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pub lower_is_better: bool,
    }
}

mirror! {
    /// One system's place in the ranking.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SystemRank from crate::stats::rank::SystemRank {
        /// System name.
        pub name: String,
        /// Its estimate (the systems' estimator, in the metric's scale).
        pub estimate: f64,
        /// Its rank by estimate, 1 for the highest, tied estimates sharing the mid-rank.
        pub rank: f64,
        /// Percentile interval of its rank over the draws, `[best, worst]`.
        pub interval: [f64; 2],
        /// Share of draws in which it ranks first (ties for first split evenly).
        pub p_first: f64,
    }
}

mirror! {
    /// Result of the randomized Tukey HSD test over all pairs of the systems.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct TukeyHsd from crate::stats::tukey::TukeyHsd {
        /// `exact` or `monte-carlo`.
        pub method: String,
        /// What is permuted across systems: `topic` or `component`.
        pub unit: String,
        /// Number of units n.
        pub units: usize,
        /// The k systems, in input order.
        pub systems: Vec<String>,
        /// Size of the family: k·(k − 1)/2 pairs.
        pub family: usize,
        /// Assignments evaluated: (k!)^(n−1) (exact, first unit fixed) or B.
        pub assignments: u64,
        /// The statistic, in words.
        pub statistic: String,
        /// How ties were compared (see [`crate::stats::ties`]).
        pub ties: String,
        /// Every pair (i, j), i < j in input order.
        pub pairs: Vec<TukeyPair>,
        /// Set when there are no units or fewer than 2 systems.
        pub flag: Option<String>,
    }
}

mirror! {
    /// One pair of systems.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct TukeyPair from crate::stats::tukey::TukeyPair {
        /// First system (earlier in the input order).
        pub system: String,
        /// Second system.
        pub other: String,
        /// Observed difference of the system means, `system − other`, in the metric's unit.
        pub difference: f64,
        /// Assignments whose range of system means is at least |difference|.
        pub hits: u64,
        /// Family-wise adjusted p-value: hits/assignments (exact) or (hits + 1)/(B + 1).
        pub p: f64,
    }
}

mirror! {
    /// The pool-bias result for a set of runs.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PoolBias from crate::trec::PoolBias {
        /// The metric (trec_eval name), e.g. `map`.
        pub metric: String,
        /// k of judged@k.
        pub judged_k: u32,
        /// Pool depth, if the protocol gives it.
        pub depth: Option<u32>,
        /// Per run, in the order given.
        pub runs: Vec<RunPoolBias>,
        /// The whole finding in words, for the report.
        pub statement: String,
        /// Contributor tags of the protocol that name no supplied run (only with a partial pool:
        /// then no leave-one-run-out figure is computed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub missing_contributors: Vec<String>,
    }
}

mirror! {
    /// The pool-bias figures of one run.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct RunPoolBias from crate::trec::RunPoolBias {
        /// Run tag.
        pub tag: String,
        /// Whether the tag is among `pool.contributors`.
        pub contributor: bool,
        /// Topics evaluated (run ∩ qrels).
        pub topics: usize,
        /// Mean over topics of judged@k (judged among the top k, divided by k), fraction.
        pub judged_at_k: f64,
        /// Mean over topics of the share of the top k that was retrieved but unjudged, and so
        /// counted as non-relevant by the metric (divided by k), fraction.
        pub unjudged_at_k: f64,
        /// The run's mean of the metric.
        pub mean: f64,
        /// Leave-one-run-out check, for a contributing run when the pool depth is known.
        pub leave_one_out: Option<LeaveOneOut>,
        /// The run's figures in one sentence.
        pub statement: String,
    }
}

mirror! {
    /// The leave-one-run-out check of one contributing run.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct LeaveOneOut from crate::trec::LeaveOneOut {
        /// Pool depth used: documents per run per topic that were judged.
        pub depth: u32,
        /// Judged documents (over all topics) that only this run put in the pool: in its top
        /// `depth` and in no other contributing run's top `depth`.
        pub unique_judged: usize,
        /// Of these, how many are relevant.
        pub unique_relevant: usize,
        /// The run's mean of the metric with those documents removed from the qrels.
        pub mean_without: f64,
        /// `mean_without − mean` (negative: the run gained from its own contribution), in the
        /// metric's scale (fraction).
        pub change: f64,
    }
}

impl Overrides {
    /// Whether nothing is overridden.
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }

    /// The overrides as the analysis takes them.
    pub fn to_method(&self) -> crate::stats::settings::Overrides {
        crate::stats::settings::Overrides {
            seed: self.seed,
            trials: self.trials,
            randomization_trials: self.randomization_trials,
            interval_level: self.interval_level,
            percentile: self.percentile,
            missing_topics: self.missing_topics,
            resampling_unit: self.resampling_unit,
            estimator: self.estimator,
            adjust: self.adjust,
            drop_all_at_least: self.drop_all_at_least,
            drop_all_at_most: self.drop_all_at_most,
        }
    }
}

impl RunOptions {
    /// The run options as the analysis takes them, to recompute a recorded analysis
    /// (`verify --rerun`).
    pub fn to_method(&self) -> crate::stats::settings::RunOptions {
        crate::stats::settings::RunOptions {
            scores: self.scores.clone(),
            components: self.components.clone(),
            strata: self.strata.clone(),
            read: self.read.clone(),
            baseline: self.baseline.clone(),
            split: self.split.clone(),
            trec: self.trec.as_ref().map(|t| crate::stats::settings::TrecInputs {
                qrels: t.qrels.clone(),
                runs: t.runs.clone(),
                measure: t.measure.clone(),
                complete: t.complete,
                pool_runs: t.pool_runs.clone(),
                pool_partial: t.pool_partial,
            }),
            overrides: self.overrides.to_method(),
        }
    }
}
