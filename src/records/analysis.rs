//! The `result.json` of an `analyze` entry ([`AnalysisRecord`]) and its parts: the stored
//! form of [`crate::stats::AnalysisResult`], field by field, made with `From<&AnalysisResult>`.
//! The method's types may change; these change only with the record (see
//! [`RECORD_VERSION`]), and the tests pin their serialized form.

use super::mirror::{mirror, mirror_enum};
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
        /// Input files and options of an `analyze` run (for `verify --rerun`); `None` for compare.
        pub options: Option<RunOptions>,
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
    /// One comparison: `difference = system − baseline`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Comparison from crate::stats::analyze::Comparison {
        /// The system compared.
        pub system: String,
        /// What it is compared with.
        pub baseline: String,
        /// Observed difference under the primary unit's estimator.
        pub difference: f64,
        /// Primary resampling unit (`topic` or `component`).
        pub primary_unit: String,
        /// Paired bootstrap over topics (unstratified).
        pub paired: Bootstrap,
        /// Bootstrap within strata, when stratified.
        pub stratified: Option<Bootstrap>,
        /// Bootstrap over whole components, when an assignment is given.
        pub component: Option<Bootstrap>,
        /// Paired t-test on the primary unit-level differences.
        pub t_test: TTest,
        /// Standardized paired difference d_z (mean/SD of the same unit-level differences as the
        /// t-test) with its exact interval at the interval level.
        pub effect_size: EffectSize,
        /// Cluster-robust (CRV1) SE of the question-weighted difference, with components.
        pub cluster_robust: Option<ClusterRobust>,
        /// Sign-flip randomization test over the primary units.
        pub randomization: Randomization,
        /// Multiple-comparison adjusted p.
        pub p_adjusted: Adjusted,
        /// Achieved MDE at the realized number of primary units.
        pub mde: AchievedMde,
        /// Degenerate-data flags (all differences equal, n = 1, one component, zero difference).
        pub flags: Vec<String>,
        /// The estimator of `difference`, and so of every figure beside it (interval, reversal
        /// rate, t-test, effect size, detectable difference).
        #[serde(default)]
        pub estimator: String,
        /// The registered hypothesis this comparison answers, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub hypothesis: Option<HypothesisResult>,
        /// Topic-level detail: wins/ties/losses, correlation, paired and unpaired SE, McNemar for
        /// 0/1 scores (absent in records written before it was computed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub detail: Option<PairDetail>,
    }
}

mirror! {
    /// Adjusted p-value of one comparison.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Adjusted from crate::stats::analyze::Adjusted {
        /// statsmodels name of the method, or `tukey-hsd` (randomized Tukey HSD).
        pub method: String,
        /// Which p-value it is: `randomization` (the sign-flip p, adjusted over the comparisons), or
        /// for `tukey-hsd` the randomized range test in words (over topics or components, of how
        /// many systems).
        pub of: String,
        /// Number of comparisons in the family: the comparisons made, or for `tukey-hsd` all
        /// k·(k − 1)/2 pairs of the k systems (also when a baseline limits the comparisons shown).
        pub family: usize,
        /// The adjusted p-value.
        pub p: f64,
    }
}

mirror! {
    /// The answer to one registered hypothesis.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HypothesisResult from crate::stats::analyze::HypothesisResult {
        /// The hypothesis' name.
        pub name: String,
        /// Primary (the multiplicity family) or secondary.
        pub primary: bool,
        /// The expected sign of `system − comparator` (which way is better for a margin kind);
        /// `None` for equivalence.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub direction: Option<crate::protocol::Direction>,
        /// 1 (one-sided, in `direction`) or 2; 1 for the margin kinds.
        pub sides: u8,
        /// The p-value: the randomization test's for these sides and direction (superiority), or
        /// the margin test's ([`HypothesisResult::margin_test`]).
        pub p: f64,
        /// `p` adjusted over the family (`family` hypotheses) with the protocol's adjustment.
        pub p_adjusted: f64,
        /// `primary` or `secondary`.
        pub family: String,
        /// Number of hypotheses in the family.
        pub family_size: usize,
        /// The registered α.
        pub alpha: f64,
        /// Whether the difference has the expected sign.
        pub direction_holds: bool,
        /// Supported at α: adjusted p < α and the difference has the expected sign.
        pub supported: bool,
        /// Whether the achieved detectable difference reached the registered target (`None`: no
        /// target or undefined).
        pub powered: Option<bool>,
        /// What the hypothesis claims (absent: superiority).
        #[serde(default, skip_serializing_if = "is_superiority")]
        pub kind: HypothesisKind,
        /// The margin M of a margin kind, in the metric's unit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub margin: Option<f64>,
        /// The shifted paired t-tests of a margin kind, with the intervals at 1 − 2α.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub margin_test: Option<MarginTest>,
        /// The verdict: supported, not supported or inconclusive, with the interval it was read from
        /// (see [`crate::stats::verdict`]); given by `compare --kind`, absent in `analyze`'s records until
        /// the report's verdict card reads it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub judgement: Option<Judgement>,
    }
}

mirror! {
    /// Summary of a bootstrap distribution of differences.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Bootstrap from crate::stats::bootstrap::Bootstrap {
        /// What was resampled: `topic`, `topic (stratified)`, `component`.
        pub unit: String,
        /// Number of resampling units.
        pub units: usize,
        /// Number of strata (1 when unstratified).
        pub strata: usize,
        /// Trials B.
        pub trials: usize,
        /// Observed difference (the estimate on the data).
        pub observed: f64,
        /// Mean of the resampled differences.
        pub mean: f64,
        /// Standard deviation (ddof 0) of the resampled differences: the bootstrap standard error.
        pub sd: f64,
        /// Median of the resampled differences (same percentile definition).
        pub median: f64,
        /// Percentile interval `[lower, upper]` at `level`.
        pub interval: [f64; 2],
        /// Interval level, e.g. 0.95.
        pub level: f64,
        /// numpy name of the percentile definition.
        pub percentile: String,
        /// Share of resamples whose difference has the sign opposite to the observed one (strictly,
        /// beyond the tie tolerance); `None` when the observed difference is 0 (nothing to reverse).
        pub reversal_rate: Option<f64>,
        /// Share of resamples with a difference of 0 (|d| ≤ tie tolerance).
        pub ties_share: f64,
        /// Share of resamples with a difference < 0 and > 0 (beyond the tolerance).
        pub below_zero: f64,
        /// See `below_zero`.
        pub above_zero: f64,
        /// Histogram of the resampled differences, for the report's plot.
        pub histogram: Histogram,
    }
}

mirror! {
    /// The question-weighted mean difference with a cluster-robust (CRV1) standard error.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct ClusterRobust from crate::stats::cluster::ClusterRobust {
        /// Number of clusters (components) G.
        pub clusters: usize,
        /// Number of questions N.
        pub questions: usize,
        /// Naive standard error sd/√N, treating questions as independent; undefined (`null`) below 2
        /// questions.
        pub naive_se: Option<f64>,
        /// CRV1 standard error, with the small-sample factor G/(G−1)·(N−1)/(N−K), K = 1; undefined
        /// (`null`, see `undefined`) below 2 components, where statsmodels raises; exactly 0 when
        /// every difference is the same.
        pub se: Option<f64>,
        /// Without the small-sample factor: √(Σ_g (Σ_{i∈g} e_i)²) / N; undefined below 2 components
        /// (one cluster's residuals always sum to 0, which says nothing about sampling error).
        pub se_uncorrected: Option<f64>,
        /// se / naive_se (the square root of the design effect), when both are defined and the naive
        /// SE is positive.
        pub se_ratio: Option<f64>,
        /// Why the SEs are undefined, when they are.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub undefined: Option<String>,
        /// t-test of the mean with the CRV1 SE and G − 1 degrees of freedom.
        pub test: TTest,
    }
}

mirror! {
    /// The standardized paired difference d_z with its interval.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct EffectSize from crate::stats::effect::EffectSize {
        /// `d_z`: mean of the unit-level differences divided by their SD (ddof 1); unitless.
        pub measure: String,
        /// Unit the differences are taken over (`topic` or `component`).
        pub unit: String,
        /// Number of differences n.
        pub n: usize,
        /// d_z; `None` when undefined (fewer than 2 units, or zero SD: see `flag`).
        pub estimate: Option<f64>,
        /// Exact interval for the population d_z at `level`; `None` when undefined.
        pub ci: Option<[f64; 2]>,
        /// Level of `ci`, e.g. 0.95.
        pub level: f64,
        /// How the interval is computed.
        pub method: String,
        /// Why a value is missing.
        pub flag: Option<String>,
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
    /// Equal-width bins from `min` to `max` (bin `i` is `[min + i·w, min + (i+1)·w)`; the last bin
    /// includes `max`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Histogram from crate::stats::histogram::Histogram {
        /// Left edge of the first bin: the smallest value, or half a lattice step below it.
        pub min: f64,
        /// Right edge of the last bin.
        pub max: f64,
        /// Bin width (`(max − min) / bins`; 0 when all values are equal, with one bin).
        pub bin_width: f64,
        /// Count per bin.
        pub counts: Vec<u64>,
    }
}

mirror! {
    /// The test of one margin hypothesis.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MarginTest from crate::stats::margin::MarginTest {
        /// The kind (never superiority).
        pub kind: HypothesisKind,
        /// The margin M, in the metric's unit.
        pub margin: f64,
        /// Which way is better (`None` for equivalence).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub direction: Option<crate::protocol::Direction>,
        /// The estimate of Δ the tests use (the t-test's mean).
        pub estimate: f64,
        /// Its standard error.
        pub se: Option<f64>,
        /// Degrees of freedom (n − 1, or G − 1).
        pub df: usize,
        /// The one-sided tests: one, or two for equivalence (lower bound first).
        pub tests: Vec<MarginOneSided>,
        /// The hypothesis' p: the one test's, or the larger of the two; `None` when undefined.
        pub p: Option<f64>,
        /// Level of the intervals: 1 − 2α.
        pub level: f64,
        /// The t interval at `level`, mean ± t_{1−α, df}·SE.
        pub t_interval: Option<[f64; 2]>,
        /// The bootstrap percentile interval at `level` over the primary units.
        pub bootstrap_interval: [f64; 2],
        /// The method in words.
        pub method: String,
        /// Why `p` is undefined, when it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub flag: Option<String>,
    }
}

mirror! {
    /// One one-sided t-test against a null bound.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MarginOneSided from crate::stats::margin::OneSided {
        /// The null bound b (H0: Δ ≤ b for `greater`, Δ ≥ b for `less`).
        pub bound: f64,
        /// The alternative: Δ above (`greater`) or below (`less`) the bound.
        pub alternative: crate::protocol::Direction,
        /// t = (mean − b)/SE; `None` when the SE is undefined or 0.
        pub t: Option<f64>,
        /// One-sided p; `None` when `t` is.
        pub p: Option<f64>,
    }
}

mirror_enum! {
    /// What a hypothesis claims about Δ = `system − comparator` (in the direction it expects;
    /// margins M > 0 in the metric's unit). The null hypotheses, for the direction `greater` (for
    /// `less` mirror them): superiority Δ ≤ 0 (or Δ = 0 two-sided), the paired randomization
    /// test; non-inferiority Δ ≤ −M; superiority by a margin Δ ≤ M; equivalence |Δ| ≥ M, the two
    /// one-sided tests (TOST; Schuirmann 1987).
    #[derive(Default)]
    pub enum HypothesisKind from crate::stats::margin::HypothesisKind {
        /// The system differs from the comparator in `direction` (no margin).
        #[default]
        Superiority = "superiority",
        /// The system is not worse than the comparator by the margin or more.
        NonInferiority = "non-inferiority",
        /// The system is better than the comparator by more than the margin.
        SuperiorityByMargin = "superiority-by-margin",
        /// The two are within ±margin of each other (no direction).
        Equivalence = "equivalence",
    }
}

mirror! {
    /// The achieved MDE next to the registered target.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct AchievedMde from crate::stats::mde::AchievedMde {
        /// The formula used.
        pub method: String,
        /// Resampling unit the count refers to (`topic` or `component`).
        pub unit: String,
        /// Realized number of units n.
        pub n: usize,
        /// SD (ddof 1) of the unit-level differences.
        pub sd: f64,
        /// α, power and sides from the protocol's `[target]`.
        pub alpha: f64,
        /// Target power 1 − β.
        pub power: f64,
        /// 1 or 2.
        pub sides: u8,
        /// Achieved MDE; `None` when n < 2 or the SD is 0 (flagged).
        pub achieved: Option<f64>,
        /// Registered target δ, if any.
        pub target: Option<f64>,
        /// Whether achieved ≤ target.
        pub meets_target: Option<bool>,
        /// Why `achieved` is missing.
        pub flag: Option<String>,
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
    /// Result of the sign-flip test.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Randomization from crate::stats::randomization::Randomization {
        /// `exact` (all 2^n assignments) or `monte-carlo`.
        pub method: String,
        /// Number of units n.
        pub units: usize,
        /// Assignments evaluated (2^n, or B).
        pub assignments: u64,
        /// Assignments at least as extreme as the observed one.
        pub hits: u64,
        /// Two-sided p-value: hits/2^n (exact) or (hits + 1)/(B + 1) (Monte-Carlo).
        pub p: f64,
        /// How ties were compared: `integer units`, `integer units of 1e-k` or `tolerance T (τ ×
        /// data scale S)` on the mean (n·T on the sums).
        pub ties: String,
        /// Set when n = 0 or all values are 0 (p = 1).
        pub flag: Option<String>,
        /// One-sided p-values, for a hypothesis with a direction (absent in records written before
        /// they were computed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub one_sided: Option<OneSided>,
    }
}

mirror! {
    /// One-sided p-values of the sign-flip test, from the same assignments as the two-sided one:
    /// `greater` = share with Σ s_u v_u ≥ Σ v_u (the alternative "system − comparator > 0"),
    /// `less` = share with Σ s_u v_u ≤ Σ v_u; Monte-Carlo as (hits + 1)/(B + 1).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct OneSided from crate::stats::randomization::OneSided {
        /// p for the alternative "greater than 0".
        pub greater: f64,
        /// p for the alternative "less than 0".
        pub less: f64,
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
    /// A one-sample t-test of the mean of the differences against 0.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct TTest from crate::stats::ttest::TTest {
        /// Number of differences n.
        pub n: usize,
        /// Mean difference.
        pub mean: f64,
        /// Sample variance of the differences (ddof 1); undefined (`null`) below 2 differences,
        /// exactly 0 when all are equal.
        pub variance: Option<f64>,
        /// Standard error sd/√n; undefined (`null`) below 2 differences (or, for the cluster-robust
        /// test, below 2 components), exactly 0 when all differences are equal.
        pub se: Option<f64>,
        /// t statistic; `None` when undefined (n < 2 or zero variance; see `flag`).
        pub t: Option<f64>,
        /// Degrees of freedom n − 1.
        pub df: usize,
        /// Two-sided p-value; `None` when undefined.
        pub p: Option<f64>,
        /// Confidence interval for the mean difference at `level`; `None` when undefined.
        pub ci: Option<[f64; 2]>,
        /// Level of `ci`.
        pub level: f64,
        /// Why a value is missing (n < 2, all differences equal).
        pub flag: Option<String>,
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
    /// The verdict with what it was read from.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Judgement from crate::stats::verdict::Judgement {
        /// The verdict.
        pub verdict: Verdict,
        /// The interval read, at `level`.
        pub interval: [f64; 2],
        /// Its level (1 − α two-sided, 1 − 2α one-sided).
        pub level: f64,
        /// How the interval was computed.
        pub interval_method: String,
        /// The effect that matters the interval is read against (the target δ, or the margin bound
        /// in the metric's unit); `None` when no target was given (then only supported or not).
        pub relevant: Option<f64>,
        /// Why, in words.
        pub reason: String,
        /// Primary units needed at the observed SD, when inconclusive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub needed: Option<Needed>,
    }
}

mirror! {
    /// What a study would need to decide an inconclusive hypothesis.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Needed from crate::stats::verdict::Needed {
        /// Primary units needed (rounded up, at least 2).
        pub units: u64,
        /// `component` or `topic`.
        pub unit: String,
        /// The SD of the unit-level differences it assumes (the observed one).
        pub sd: f64,
        /// The target power.
        pub power: f64,
        /// The formula.
        pub method: String,
    }
}

mirror_enum! {
    /// A hypothesis' verdict at α. The one place a verdict is named (the report's verdict card
    /// uses it as `report::card::Verdict`).
    pub enum Verdict from crate::stats::verdict::Verdict {
        /// The test rejects its null at α (adjusted over the family).
        Supported = "supported",
        /// The interval rules the claim out.
        NotSupported = "not supported",
        /// The interval holds both an effect that matters and none.
        Inconclusive = "inconclusive",
    }
}

mirror! {
    /// Topic-level detail of one comparison `system − baseline`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PairDetail from crate::stats::agreement::PairDetail {
        /// Topics where the system scores higher (beyond the tie tolerance).
        pub wins: usize,
        /// Topics where both score the same (within the tie tolerance).
        pub ties: usize,
        /// Topics where the system scores lower.
        pub losses: usize,
        /// Pearson correlation of the two systems' per-topic scores; undefined when either is
        /// constant or below 2 topics.
        pub correlation: Option<f64>,
        /// SD(d)/√n of the per-topic differences (ddof 1).
        pub paired_se: Option<f64>,
        /// √(Var(a)/n + Var(b)/n): the SE of the same difference of means from unpaired samples.
        pub unpaired_se: Option<f64>,
        /// McNemar's test, for 0/1 scores.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcnemar: Option<McNemar>,
    }
}

mirror! {
    /// McNemar's test on paired 0/1 scores.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct McNemar from crate::stats::agreement::McNemar {
        /// Topics the system gets right and the baseline wrong.
        pub b: u64,
        /// Topics the baseline gets right and the system wrong.
        pub c: u64,
        /// Exact two-sided p: min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); 1 without
        /// discordant topics.
        pub exact_p: f64,
        /// Mid-p: min(1, 2·(P(X < min(b, c)) + ½·P(X = min(b, c)))).
        pub mid_p: f64,
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

/// Whether `k` is superiority (the default kind, not stored).
fn is_superiority(k: &HypothesisKind) -> bool {
    *k == HypothesisKind::Superiority
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
