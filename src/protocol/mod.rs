//! The protocol: the TOML file a team registers before collecting data.
//!
//! Keys are kebab-case, `schema-version` is required (1 or 2), and unknown keys are rejected with
//! the key's name, its line and column, and the closest known key (a silently ignored misspelled
//! key would defeat pre-registration). Format 2 adds what the analysis depends on beyond format
//! 1: how scores are read (`[scores]`: measure or column, value labels, topic column, layout),
//! the registered systems (`analysis.systems`), the split analyzed (`analysis.split`) and the
//! hypotheses (`[[hypotheses]]`: named comparisons, primary or secondary) and the study's
//! Time-Stamping Authority (`[witness] tsa`). Format 1 files keep
//! registering and verifying as before; format-2 keys in a format-1 file are an error. Every key,
//! its unit and its default are listed in the README's protocol reference; the example protocols
//! live in `protocols/`.

mod diff;
mod hash;
mod load;
mod loaded;
mod validate;

pub use diff::{changes, count_basis_changes, pilot_change};
pub use hash::{protocol_hash, ProtocolHash};
pub use load::{error_at_key, load, parse};
pub use loaded::{load_protocol, LoadedProtocol};
pub use validate::{is_http_url, is_safe_study_id, MAX_STUDY_ID, MAX_TRIALS};

use serde::{Deserialize, Serialize};

/// A parsed and validated protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Protocol {
    /// Format version: 1 or 2 ([`SCHEMA_VERSIONS`]).
    pub schema_version: u32,
    /// Who registers what.
    pub study: Study,
    /// The power target.
    pub target: Target,
    /// What a component is and how many questions of one are counted.
    #[serde(default)]
    pub components: Components,
    /// Link rules, applied in this order; each merges components.
    #[serde(default)]
    pub link_rules: Vec<LinkRule>,
    /// Splits (e.g. final, tuning) and their required number of components.
    #[serde(default)]
    pub splits: Vec<Split>,
    /// What count makes the build stop.
    #[serde(default)]
    pub stop_rule: StopRule,
    /// How the analysis is run.
    #[serde(default)]
    pub analysis: Analysis,
    /// The judgment pool, for the pool-bias statement.
    #[serde(default)]
    pub pool: Pool,
    /// How per-topic scores are read (format 2).
    #[serde(default)]
    pub scores: Option<ScoresSpec>,
    /// The registered hypotheses (format 2): named comparisons; the primary ones are the
    /// multiplicity family.
    #[serde(default)]
    pub hypotheses: Vec<Hypothesis>,
    /// A registered topic filter (format 2): topics where every system scores at the extremes
    /// are dropped, and the report gives the unfiltered means beside the filtered ones.
    #[serde(default)]
    pub topic_filter: Option<TopicFilter>,
    /// Who witnesses the registration (format 2): the Time-Stamping Authority `register` and
    /// `amend` ask for a token when no `--tsa` flag names one.
    #[serde(default)]
    pub witness: Option<WitnessSpec>,
}

/// `[witness]` (format 2): the study's default RFC 3161 Time-Stamping Authority. `register` and
/// `amend` take the TSA from `--tsa URL`, else from this table, else from git config `pledge.tsa`.
/// Since the protocol's hash is registered, the registration fixes its witness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct WitnessSpec {
    /// The TSA's URL (`http://` or `https://` with a host), e.g. `https://freetsa.org/tsr`.
    #[serde(default)]
    pub tsa: Option<String>,
}

/// `[topic-filter]` (format 2): drop the topics on which every system scores at the extremes
/// (values in the metric's scale).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TopicFilter {
    /// Drop a topic when every system scores at least this.
    #[serde(default)]
    pub drop_all_at_least: Option<f64>,
    /// Drop a topic when every system scores at most this.
    #[serde(default)]
    pub drop_all_at_most: Option<f64>,
}

impl TopicFilter {
    /// Whether the rule drops nothing by construction.
    pub fn is_empty(&self) -> bool {
        self.drop_all_at_least.is_none() && self.drop_all_at_most.is_none()
    }

    /// The rule in words.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(x) = self.drop_all_at_least {
            parts.push(format!("every system scores ≥ {}", x));
        }
        if let Some(x) = self.drop_all_at_most {
            parts.push(format!("every system scores ≤ {}", x));
        }
        format!("topics where {} are dropped", parts.join(" or "))
    }
}

/// The protocol format versions this build reads.
pub const SCHEMA_VERSIONS: [u32; 2] = [1, 2];

crate::named_enum! {
    /// The layout of the per-topic score inputs (`[scores] layout`).
    #[derive(Default)]
    pub enum ScoreLayout {
        /// Detected from the content (see the score readers).
        #[default]
        Auto = "auto",
        /// A CSV/TSV with `topic`, `system` and `score` columns.
        Long = "long",
        /// A CSV/TSV with a topic column and one column per system.
        Wide = "wide",
        /// One file per system; the score is `[scores] column`.
        PerSystem = "per-system",
        /// JSON Lines `{"topic", "system", "score"}`.
        Jsonl = "jsonl",
        /// `trec_eval -q` output; the value is `[scores] measure`.
        TrecEval = "trec-eval",
        /// TREC runs evaluated against qrels with `[scores] measure` (`--qrels`, `--run`).
        TrecRuns = "trec-runs",
    }
}

/// `[scores]` (format 2): how the per-topic scores the analysis uses are read. Every key binds
/// `pledge analyze`: a flag that reads them otherwise is a deviation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ScoresSpec {
    /// The layout of the inputs. Default `auto`.
    #[serde(default)]
    pub layout: ScoreLayout,
    /// The trec_eval measure (TREC runs, trec_eval -q files), by a trec_eval name or an alias.
    #[serde(default)]
    pub measure: Option<String>,
    /// The column holding the score (one system per file, or a long file's score column).
    #[serde(default)]
    pub column: Option<String>,
    /// The topic-id column, where it is not detected.
    #[serde(default)]
    pub topic_column: Option<String>,
    /// Value labels and the score each stands for, e.g. `HALTED = 0` (matched case-insensitively,
    /// before the built-in CORRECT/INCORRECT, true/false, yes/no).
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, f64>,
}

crate::named_enum! {
    /// The direction a hypothesis expects: `system − comparator` above or below 0.
    pub enum Direction {
        /// The system scores higher than the comparator.
        Greater = "greater",
        /// The system scores lower than the comparator.
        Less = "less",
    }
}

/// `[[hypotheses]]` (format 2): one registered comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Hypothesis {
    /// A short name, unique in the protocol (shown in the report).
    pub name: String,
    /// The system the hypothesis is about.
    pub system: String,
    /// What it is compared with.
    pub comparator: String,
    /// The expected sign of `system − comparator`.
    pub direction: Direction,
    /// 1 (one-sided in `direction`) or 2 (two-sided); default `target.sides`.
    #[serde(default)]
    pub sides: Option<u8>,
    /// Primary (the multiplicity family, answered by the report's verdict) or secondary.
    /// Default true.
    #[serde(default = "d_true")]
    pub primary: bool,
}

/// `[study]`: identity of the study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Study {
    /// Stable identifier; a second, different protocol under the same id must be an `amend`.
    pub id: String,
    /// Human title.
    pub title: String,
    /// Free-text hypothesis or description.
    #[serde(default)]
    pub description: String,
    /// Who registers it (name, e-mail, team).
    pub registered_by: String,
}

crate::named_enum! {
    /// Unit of the metric and of every difference: fraction (0–1) or points (0–100).
    #[derive(Default)]
    pub enum Scale {
        /// Values in [0, 1]; a 3-point difference is 0.03.
        #[default]
        Fraction = "fraction",
        /// Values in [0, 100]; a 3-point difference is 3.
        Points = "points",
    }
}

impl Scale {
    /// The largest value a metric (and a difference) can take on this scale.
    pub fn max(self) -> f64 {
        match self {
            Scale::Fraction => 1.0,
            Scale::Points => 100.0,
        }
    }
    /// Unit label used in output: `""` for fractions, `" points"` for points.
    pub fn unit(self) -> &'static str {
        match self {
            Scale::Fraction => "",
            Scale::Points => " points",
        }
    }
}

/// `[target]`: the power target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Target {
    /// Metric name, e.g. `accuracy`, `map`, `ndcg_cut.10`, `P.10` (trec_eval names for TREC runs).
    pub metric: String,
    /// Scale of the metric.
    #[serde(default)]
    pub scale: Scale,
    /// Minimum detectable difference δ > 0, in the metric's scale.
    pub mde: f64,
    /// Significance level α in (0, 1). Default 0.05.
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Target power 1 − β in (0, 1). Default 0.8.
    #[serde(default = "d_power")]
    pub power: f64,
    /// 1 or 2 sided test. Default 2.
    #[serde(default = "d_sides")]
    pub sides: u8,
    /// Assumed SD σ > 0 of the paired difference, in the metric's scale: of component-level
    /// differences, or of per-question differences when `icc` is given (then the design effect
    /// 1 + (m − 1)ρ turns it into components needed).
    #[serde(default)]
    pub sd: Option<f64>,
    /// Where the assumed SD comes from (a pilot, a prior study, a formula).
    #[serde(default)]
    pub sd_source: Option<String>,
    /// A pilot score file to estimate σ (and ρ) from, relative to the protocol file.
    #[serde(default)]
    pub pilot: Option<String>,
    /// Intra-component correlation ρ in [0, 1] used with `components.max-per-component`.
    #[serde(default)]
    pub icc: Option<f64>,
    /// Which power calculation derives required counts: `t` (exact paired t-test) or `normal`.
    #[serde(default)]
    pub method: PowerMethod,
}

crate::named_enum! {
    /// Power calculation used to derive required components from the target.
    #[derive(Default)]
    pub enum PowerMethod {
        /// Exact paired t-test (non-central t), as statsmodels `TTestPower`.
        #[default]
        T = "t",
        /// Normal approximation n = ((z_{1−α/s} + z_{1−β})·σ/δ)².
        Normal = "normal",
    }
}

/// `[components]`: what a component node is and how questions within one are counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Components {
    /// `question` (each question is a node) or the name of a question/passage field such as
    /// `doc` (all questions of one document are one node). Default `question`.
    #[serde(default = "d_unit")]
    pub unit: String,
    /// Maximum questions counted per component (m ≥ 1). Default 4.
    #[serde(default = "d_max_per")]
    pub max_per_component: u32,
    /// Which questions are kept when a component has more than m.
    #[serde(default)]
    pub keep: Keep,
    /// Estimator of a system's mean over components.
    #[serde(default)]
    pub estimator: Estimator,
}

impl Default for Components {
    fn default() -> Self {
        Components {
            unit: d_unit(),
            max_per_component: d_max_per(),
            keep: Keep::default(),
            estimator: Estimator::default(),
        }
    }
}

crate::named_enum! {
    /// Which questions of an over-full component are kept.
    #[derive(Default)]
    pub enum Keep {
        /// The first m by question id (byte order).
        #[default]
        FirstById = "first-by-id",
        /// A sample of m drawn with the analysis seed.
        SeededSample = "seeded-sample",
    }
}

crate::named_enum! {
    /// Estimator of a system's mean when questions are grouped in components.
    #[derive(Default)]
    pub enum Estimator {
        /// Mean over components of each component's mean.
        #[default]
        ComponentMean = "component-mean",
        /// Mean over (kept) questions.
        QuestionWeighted = "question-weighted",
    }
}

crate::named_enum! {
    /// Unicode normalization applied to passage text before comparison.
    #[derive(Default)]
    pub enum Normalization {
        /// Compare bytes as given.
        None = "none",
        /// Unicode NFC (canonical composition): NFC and NFD forms compare equal.
        #[default]
        Nfc = "nfc",
        /// Unicode NFKC (compatibility composition): also folds full-width forms, ligatures.
        Nfkc = "nfkc",
    }
}

/// One link rule; `kind` decides which other keys apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LinkRule {
    /// Name shown in the ablation table (e.g. "identical passages").
    pub name: String,
    /// What the rule links.
    pub kind: LinkKind,
    /// Unicode normalization of passage text (identical and near-duplicate rules). Default nfc.
    #[serde(default)]
    pub normalization: Normalization,
    /// Character n-gram size n ≥ 1 for near-duplicate shingles. Default 5.
    #[serde(default)]
    pub shingle_size: Option<u32>,
    /// Jaccard threshold in (0, 1] for near-duplicates. Default 0.8.
    #[serde(default)]
    pub jaccard: Option<f64>,
    /// Field name, for `shared-field`.
    #[serde(default)]
    pub field: Option<String>,
}

impl LinkRule {
    /// Shingle size n (default 5 characters).
    pub fn shingle_size(&self) -> usize {
        self.shingle_size.unwrap_or(5) as usize
    }
    /// Jaccard threshold (default 0.8).
    pub fn jaccard(&self) -> f64 {
        self.jaccard.unwrap_or(0.8)
    }
}

crate::named_enum! {
    /// Kinds of link rule.
    pub enum LinkKind {
        /// Same passage id, or identical normalized text.
        IdenticalPassage = "identical-passage",
        /// Character n-gram shingles with Jaccard ≥ threshold (exact join).
        NearDuplicatePassage = "near-duplicate-passage",
        /// A question is linked to the passage (and document) it uses as a decoy or distractor.
        Decoy = "decoy",
        /// Questions with the same value of `field`.
        SharedField = "shared-field",
    }
}

/// `[[splits]]`: one split and its required number of components.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Split {
    /// Name, e.g. `final`, `tuning`.
    pub name: String,
    /// A number of components, or `"from-target"` to derive it from `[target]` by the power
    /// calculation.
    pub required_components: Required,
    /// Share of components `components --assign` puts into this split; default: in proportion
    /// to the required counts.
    #[serde(default)]
    pub share: Option<f64>,
}

/// A required count given directly, or derived from the power target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Required {
    /// Given directly.
    Count(u64),
    /// `"from-target"`.
    Derived(Derived),
}

crate::named_enum! {
    /// The keyword `from-target`.
    pub enum Derived {
        /// Derive from `[target]`.
        FromTarget = "from-target",
    }
}

/// `[stop-rule]`: when the build stops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StopRule {
    /// Which components are counted: those holding at least one candidate (default) or all.
    #[serde(default)]
    pub count: StopCount,
    /// Stop when the count is below the sum of the splits' requirements (default) or when any
    /// split alone could not be filled (`each-split`: count < max of requirements).
    #[serde(default)]
    pub required: StopRequired,
}

crate::named_enum! {
    /// Which components the stop rule counts.
    #[derive(Default)]
    pub enum StopCount {
        /// Components holding at least one candidate question.
        #[default]
        WithCandidates = "with-candidates",
        /// All components, including passage-only ones.
        All = "all",
    }
}

crate::named_enum! {
    /// What the counted components are compared with.
    #[derive(Default)]
    pub enum StopRequired {
        /// Sum of all splits' required components (splits cannot share a component).
        #[default]
        SumOfSplits = "sum-of-splits",
        /// The largest single split's requirement.
        EachSplit = "each-split",
    }
}

/// `[analysis]`: how the analysis runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Analysis {
    /// Seed of the pinned generator (ChaCha8 from rand_chacha). Default 0.
    #[serde(default)]
    pub seed: u64,
    /// Bootstrap trials B ≥ 1. Default 10000.
    #[serde(default = "d_trials")]
    pub trials: u32,
    /// Interval level in (0, 1). Default 0.95.
    #[serde(default = "d_level")]
    pub interval_level: f64,
    /// Resampling unit: `topic` or `component`. Default topic.
    #[serde(default)]
    pub resampling_unit: ResamplingUnit,
    /// Field holding the stratum of each topic (resample within strata), if stratified.
    #[serde(default)]
    pub strata_field: Option<String>,
    /// Percentile definition for intervals. Default linear (Hyndman–Fan type 7, numpy default).
    #[serde(default)]
    pub percentile: Percentile,
    /// Topics missing in one system: error (default), zero (as `trec_eval -c`), intersection.
    #[serde(default)]
    pub missing_topics: MissingTopics,
    /// Baseline system; every other system is compared with it. Empty: all pairs.
    #[serde(default)]
    pub baseline: Option<String>,
    /// Multiple-comparison adjustment. Default holm.
    #[serde(default)]
    pub adjust: Adjust,
    /// Trials of the Monte-Carlo randomization test (exact enumeration when 2^n is smaller).
    #[serde(default = "d_trials")]
    pub randomization_trials: u32,
    /// Relative tolerance τ when comparing statistics for ties: two mean differences are tied
    /// when they differ by at most τ times the largest absolute score (see
    /// [`crate::stats::ties`]). Default 1e-12.
    #[serde(default = "d_tol")]
    pub tie_tolerance: f64,
    /// The registered systems (format 2): the analysis uses exactly these; others in the inputs
    /// are ignored (and said so), a missing one is a deviation.
    #[serde(default)]
    pub systems: Vec<String>,
    /// The split of the component assignment that is analyzed (format 2), e.g. `final`.
    #[serde(default)]
    pub split: Option<String>,
}

impl Default for Analysis {
    fn default() -> Self {
        Analysis {
            seed: 0,
            trials: d_trials(),
            interval_level: d_level(),
            resampling_unit: ResamplingUnit::default(),
            strata_field: None,
            percentile: Percentile::default(),
            missing_topics: MissingTopics::default(),
            baseline: None,
            adjust: Adjust::default(),
            randomization_trials: d_trials(),
            tie_tolerance: d_tol(),
            systems: vec![],
            split: None,
        }
    }
}

crate::named_enum! {
    /// The resampling unit.
    #[derive(Default)]
    pub enum ResamplingUnit {
        /// Topics (questions) are resampled.
        #[default]
        Topic = "topic",
        /// Whole components are resampled.
        Component = "component",
    }
}

crate::named_enum! {
    /// Percentile definitions (Hyndman & Fan 1996 types, numpy method names).
    #[derive(Default)]
    pub enum Percentile {
        /// Type 7, numpy `linear` (default).
        #[default]
        Linear = "linear",
        /// Type 1, numpy `inverted_cdf`.
        InvertedCdf = "inverted-cdf",
        /// numpy `lower`.
        Lower = "lower",
        /// numpy `higher`.
        Higher = "higher",
        /// numpy `nearest`.
        Nearest = "nearest",
    }
}

crate::named_enum! {
    /// Policy for topics present for one system and not another.
    #[derive(Default)]
    pub enum MissingTopics {
        /// An error listing the topics.
        #[default]
        Error = "error",
        /// Score 0 for the missing system, as `trec_eval -c`.
        Zero = "zero",
        /// Only topics present for all systems.
        Intersection = "intersection",
    }
}

crate::named_enum! {
    /// Multiple-comparison adjustment of p-values.
    #[derive(Default)]
    pub enum Adjust {
        /// Holm step-down (family-wise error).
        #[default]
        Holm = "holm",
        /// Benjamini–Hochberg (false discovery rate).
        Bh = "bh",
        /// Bonferroni.
        Bonferroni = "bonferroni",
        /// No adjustment.
        None = "none",
        /// Randomized Tukey HSD over all pairs of the systems (Carterette, ACM TOIS 30(1), 2012):
        /// not a transformation of the per-comparison p-values but a test of its own, which
        /// permutes each topic's (or, with `resampling-unit = "component"`, each component's)
        /// scores across all systems; see [`crate::stats::tukey`].
        TukeyHsd = "tukey-hsd",
    }
}

/// `[pool]`: the judgment pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Pool {
    /// Run tags that contributed to the judgment pool.
    #[serde(default)]
    pub contributors: Vec<String>,
    /// Pool depth (documents per run per topic that were judged), if known.
    #[serde(default)]
    pub depth: Option<u32>,
    /// k for judged@k. Default 10.
    #[serde(default = "d_judged_k")]
    pub judged_k: u32,
    /// Whether the evaluated systems contributed to the judgment, stated in words for non-TREC
    /// benchmarks (e.g. "answers judged by exact match against gold; no pool").
    #[serde(default)]
    pub statement: Option<String>,
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            contributors: vec![],
            depth: None,
            judged_k: d_judged_k(),
            statement: None,
        }
    }
}

fn d_alpha() -> f64 {
    0.05
}
fn d_power() -> f64 {
    0.8
}
fn d_sides() -> u8 {
    2
}
fn d_unit() -> String {
    "question".into()
}
fn d_max_per() -> u32 {
    4
}
fn d_trials() -> u32 {
    10_000
}
fn d_level() -> f64 {
    0.95
}
fn d_tol() -> f64 {
    1e-12
}
fn d_judged_k() -> u32 {
    10
}
fn d_true() -> bool {
    true
}

impl Protocol {
    /// The sides of hypothesis `h`: its own, else `target.sides`.
    pub fn sides_of(&self, h: &Hypothesis) -> u8 {
        h.sides.unwrap_or(self.target.sides)
    }

    /// Whether a split's requirement is derived from `[target]` (`required-components =
    /// "from-target"`).
    pub fn derives_requirement(&self) -> bool {
        self.splits
            .iter()
            .any(|s| matches!(s.required_components, Required::Derived(_)))
    }

    /// The primary hypotheses (the multiplicity family), in protocol order.
    pub fn primary_hypotheses(&self) -> impl Iterator<Item = &Hypothesis> {
        self.hypotheses.iter().filter(|h| h.primary)
    }

    /// The value labels the protocol registers (format 2), as reader options take them.
    pub fn labels(&self) -> Vec<(String, f64)> {
        self.scores
            .as_ref()
            .map(|s| s.labels.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default()
    }
}
