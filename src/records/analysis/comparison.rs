//! The stored form of one comparison of an analysis ([`Comparison`]) and its parts: the
//! bootstrap, t-test, effect size, cluster-robust SE, randomization test, adjusted p, detectable
//! difference, the answer to a hypothesis with its margin test and verdict, and the topic-level
//! detail, each made from the statistics' type by `From`.

use crate::records::mirror::{mirror, mirror_enum};
use serde::{Deserialize, Serialize};

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
        /// (see [`crate::stats::verdict`]); absent in records written before verdicts were
        /// three-valued.
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

/// Whether `k` is superiority (the default kind, not stored).
fn is_superiority(k: &HypothesisKind) -> bool {
    *k == HypothesisKind::Superiority
}
