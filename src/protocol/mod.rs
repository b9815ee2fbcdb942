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
//! its type, its default and its doc comment are listed in the book's protocol reference
//! (`docs/reference/protocol.md`, generated from these doc comments by `tests/cli/docs`); the
//! example protocols live in `protocols/`.

mod diff;
mod hash;
mod load;
mod loaded;
mod validate;

pub use diff::{changes, count_basis_changes};
pub use hash::{protocol_hash, ProtocolHash};
pub use load::{error_at_key, load, parse, parse_all};
pub use loaded::{load_protocol, LoadedProtocol};
pub use validate::{is_http_url, is_safe_study_id, MAX_STUDY_ID, MAX_TRIALS};

use serde::{Deserialize, Serialize};

/// A parsed and validated protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Protocol {
    /// The protocol format: `1` or `2` ([`SCHEMA_VERSIONS`]). Format 2 adds the keys marked format
    /// 2; in a format-1 file they are an error.
    pub schema_version: u32,
    /// `[study]`: who registers what.
    pub study: Study,
    /// `[target]`: the power target.
    pub target: Target,
    /// `[components]`: what a component is and how many questions of one are counted.
    #[serde(default)]
    pub components: Components,
    /// `[[link-rules]]`: the link rules, applied in file order; each merges components.
    #[serde(default)]
    pub link_rules: Vec<LinkRule>,
    /// `[[splits]]`: the splits (e.g. final, tuning) and the components each needs.
    #[serde(default)]
    pub splits: Vec<Split>,
    /// `[stop-rule]`: what count makes the build stop.
    #[serde(default)]
    pub stop_rule: StopRule,
    /// `[analysis]`: how the analysis runs.
    #[serde(default)]
    pub analysis: Analysis,
    /// `[pool]`: the judgment pool, for the pool-bias statement.
    #[serde(default)]
    pub pool: Pool,
    /// `[scores]` (format 2): how the per-topic scores are read.
    #[serde(default)]
    pub scores: Option<ScoresSpec>,
    /// `[[hypotheses]]` (format 2): the registered comparisons; the primary ones are the
    /// multiplicity family.
    #[serde(default)]
    pub hypotheses: Vec<Hypothesis>,
    /// `[topic-filter]` (format 2): topics where every system scores at the extremes are dropped,
    /// and the report gives the unfiltered means beside the filtered ones.
    #[serde(default)]
    pub topic_filter: Option<TopicFilter>,
    /// `[witness]` (format 2): the Time-Stamping Authority that `register` and `amend` ask for a
    /// token when no `--tsa` flag names one.
    #[serde(default)]
    pub witness: Option<WitnessSpec>,
    /// `[[contamination-rules]]` (format 2): passage-level contamination checks against sealed
    /// sets known only by their keyed fingerprints (`pledge fingerprint`), run by `components`
    /// before the count, in file order; the questions they flag are left out of the count.
    #[serde(default)]
    pub contamination_rules: Vec<ContaminationRule>,
    /// `[build]` (format 2): the registered attempt budget: how many build attempts (component
    /// counts on other questions or passages than the count before) the study may make, and
    /// what an attempt after the first may change.
    #[serde(default)]
    pub build: Option<BuildSpec>,
    /// `[repair-trace]` (format 2): the repair-trace test (`pledge trace`): whether a classifier
    /// that reads only the passages tells a repair's replacement passages from the originals.
    #[serde(default)]
    pub repair_trace: Option<RepairTrace>,
    /// `[family]` (format 2): one multiplicity family across several metrics: every registered
    /// comparison of every metric listed, adjusted together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<MetricFamily>,
}

/// `[family]` (format 2): one multiplicity family across several metrics (e.g. nDCG@10 and
/// recall@100, or accuracy and F1). The analysis runs once per metric, on the same inputs, the
/// same systems and the same hypotheses; the p-values of all those comparisons (each
/// hypothesis' p, or each comparison's randomization p without hypotheses; primary and
/// secondary hypotheses as two families) are adjusted together with `adjust`, as statsmodels
/// `multipletests` does, and every verdict is read at `alpha` from the adjusted p. Absent: one
/// metric, adjusted with `analysis.adjust` at `target.alpha`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MetricFamily {
    /// The metrics of the family, in order, at least two and each once. The first is
    /// `target.metric` (read as `[scores]` registers it); each further one is read from the same
    /// inputs with its name as the measure (TREC runs, `trec_eval -q` files, long tables with a
    /// measure column) or, when `[scores] column` names the score column, as the column.
    pub metrics: Vec<String>,
    /// The correction across the family: `holm` (Holm 1979, family-wise error) or `bh`
    /// (Benjamini–Hochberg 1995, false discovery rate). It replaces `analysis.adjust`.
    pub adjust: Adjust,
    /// The level α every verdict of the family is read at, in (0, 1). Default: `target.alpha`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
}

/// `[repair-trace]` (format 2): the registered repair-trace test run by `pledge trace` on the
/// original passages and their replacements (or any two labelled passage sets). Character
/// n-gram features (counts over the vocabulary of both sets, each passage's vector scaled to
/// unit length), an L2-regularized logistic regression with an unpenalized intercept, stratified
/// k-fold cross-validation with folds drawn from `analysis.seed`, and the pooled out-of-fold AUC
/// of replacements against originals with DeLong's interval. The verdict is "no detectable
/// trace" when the interval's upper bound is below `threshold`, else "the repair left a trace".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RepairTrace {
    /// Character n-gram size n ≥ 1 of the features (Unicode scalar values).
    #[serde(default = "d_trace_ngram")]
    pub ngram_size: u32,
    /// Unicode normalization of the texts before the n-grams are taken.
    #[serde(default)]
    pub normalization: Normalization,
    /// Lowercase the texts (after normalization) before the n-grams are taken.
    #[serde(default = "d_true")]
    pub lowercase: bool,
    /// C > 0, the inverse of the L2 penalty's strength (scikit-learn's `C`): the fit minimizes
    /// ½‖w‖² + C·Σ log-loss; the intercept is not penalized.
    #[serde(default = "d_one")]
    pub regularization_c: f64,
    /// The number k ≥ 2 of cross-validation folds (stratified: each set needs at least k
    /// passages).
    #[serde(default = "d_trace_folds")]
    pub folds: u32,
    /// The level of the AUC's DeLong interval, in (0, 1).
    #[serde(default = "d_level")]
    pub confidence: f64,
    /// "No detectable trace" when the interval's upper bound is below this AUC, in (0.5, 1].
    pub threshold: f64,
}

fn d_trace_ngram() -> u32 {
    3
}

fn d_trace_folds() -> u32 {
    5
}

fn d_one() -> f64 {
    1.0
}

crate::named_enum! {
    /// What a build attempt after the first may change in the candidates of the attempt before
    /// it (`[build] attempt-may-change`).
    pub enum AttemptChange {
        /// Replace distractor passages that the previous attempt's contamination check flagged
        /// (each by one passage: the same number of distractors), and leave out questions it
        /// flagged; every other question, field and passage stays as it was.
        ContaminatedDistractors = "contaminated-distractors",
        /// As `contaminated-distractors`, for decoy passages.
        ContaminatedDecoys = "contaminated-decoys",
        /// Anything: the attempt is only counted against the budget.
        Anything = "anything",
    }
}

/// `[build]` (format 2): the attempt budget registered before any count. Every component count
/// on other questions, passages, qrels or pairs than the count before it is a new build
/// attempt (the first count is attempt 1). An attempt within the budget that changes only what
/// `attempt-may-change` allows needs no deviation; one past the budget, or changing anything
/// else, is refused unless `components --deviation "reason"` records why, and the report's
/// verdict card and `verify` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct BuildSpec {
    /// How many build attempts the study may make, ≥ 1 (the first count is attempt 1; `2` allows
    /// exactly one more attempt).
    pub attempts: u32,
    /// What an attempt after the first may change in the candidates of the attempt before it;
    /// not empty, each once. Checked by `components` against the previous attempt's questions
    /// and passages (read from the paths its count entry records, with the recorded hashes) and
    /// the questions and passages its contamination check flagged.
    pub attempt_may_change: Vec<AttemptChange>,
}

crate::named_enum! {
    /// The role a passage plays in a candidate question.
    pub enum PassageRole {
        /// The passages the question uses (HotpotQA's supporting facts, MuSiQue's supporting
        /// paragraphs, a pledge file's `passages`).
        Supporting = "supporting",
        /// The other paragraphs of a HotpotQA or MuSiQue context, and a pledge file's
        /// `distractors`.
        Distractors = "distractors",
        /// A pledge file's `decoys` (or `decoy`).
        Decoys = "decoys",
    }
}

crate::named_enum! {
    /// How a candidate passage's overlap with a sealed passage is measured, over their shingle
    /// sets A (candidate) and S (sealed).
    #[derive(Default)]
    pub enum OverlapMeasure {
        /// |A ∩ S| / |A|: the share of the candidate's shingles found in the sealed passage.
        #[default]
        Containment = "containment",
        /// |A ∩ S| / |A ∪ S|.
        Jaccard = "jaccard",
    }
}

/// `[[contamination-rules]]` (format 2): one passage-level contamination check against a sealed
/// set, known only by its keyed fingerprint (`pledge fingerprint`). A candidate passage is
/// flagged when its overlap with some sealed passage reaches the threshold; a question is flagged
/// when a passage in one of the rule's roles is. `components` leaves the flagged questions out of
/// the count, and stops the build when the flagged questions reach `stop-share` or `stop-count`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ContaminationRule {
    /// The name shown in the funnel (e.g. "distractors against sealed validation"); unique.
    pub name: String,
    /// The passage roles checked; not empty, no role twice.
    #[serde(default = "all_roles")]
    pub roles: Vec<PassageRole>,
    /// The sealed set's fingerprint file, relative to the protocol file.
    pub fingerprint: String,
    /// The SHA-256 of the fingerprint file (64 hex digits): a count with another file is
    /// refused.
    pub fingerprint_sha256: String,
    /// The commitment of the fingerprint's key: the SHA-256 of the key file (64 hex digits). The
    /// key itself stays with the sealed data; `components --sealed-key FILE` gives it.
    pub key_sha256: String,
    /// Character n-gram size n ≥ 1 of the shingles; the fingerprint's must be the same.
    #[serde(default = "d_shingle")]
    pub shingle_size: u32,
    /// Unicode normalization of the texts before shingling; the fingerprint's must be the same.
    #[serde(default)]
    pub normalization: Normalization,
    /// How the overlap is measured.
    #[serde(default)]
    pub measure: OverlapMeasure,
    /// A passage is flagged when its overlap with some sealed passage is at least this, in (0,
    /// 1].
    pub threshold: f64,
    /// The build stops when at least this share of the candidate questions is flagged by the
    /// rule, in (0, 1]. None: flagged questions are left out, and the build goes on.
    #[serde(default)]
    pub stop_share: Option<f64>,
    /// The build stops when at least this many candidate questions (≥ 1) are flagged by the
    /// rule.
    #[serde(default)]
    pub stop_count: Option<u64>,
}

/// `[witness]` (format 2): who must witness the study's registration and amendments. The
/// requirements bind: since the protocol's hash is registered, the registration fixes its
/// witness. `register` and `amend` take the TSA from `--tsa URL`, else from this table, else
/// from git config `pledge.tsa`, and obtain its token over the new entry's hash before the
/// ledger moves (entry and token land together or not at all); `verify` reports a register or
/// amend entry that lacks a required token or signature as a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct WitnessSpec {
    /// The RFC 3161 Time-Stamping Authority whose token every `register` and `amend` entry must
    /// carry: an `http://` or `https://` URL with a host, e.g. `https://freetsa.org/tsr` (anything
    /// else is exit 2 at the key). Precedence: `--tsa URL`, then this key, then `git config
    /// pledge.tsa`. The token is obtained before the ledger moves (a TSA that cannot be reached
    /// leaves nothing, exit 75), and the protocol is hashed at registration, so the registration
    /// fixes its witness.
    #[serde(default)]
    pub tsa: Option<String>,
    /// Whether every register and amend entry must be in an SSH-signed ledger commit
    /// (`--sign-key`, or git's `gpg.format = ssh` signing settings); default false.
    #[serde(default)]
    pub signed: Option<bool>,
}

/// `[topic-filter]` (format 2): drop the topics on which every system scores at the extremes
/// (values in the metric's scale).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TopicFilter {
    /// Drop the topics on which every system scores at least this value (all solved), in the
    /// metric's scale. Filtering that is not registered (`--drop-all-at-least`) is a deviation.
    #[serde(default)]
    pub drop_all_at_least: Option<f64>,
    /// Drop the topics on which every system scores at most this value (none solved), in the
    /// metric's scale. Filtering that is not registered (`--drop-all-at-most`) is a deviation.
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
    /// How a topic's repeated samples (inspect_ai epochs, seeds, a long table's sample column)
    /// become the one value per topic and system the analysis reads (`[scores]
    /// sample-aggregation`, `--sample-aggregation`).
    #[derive(Default)]
    pub enum SampleAggregation {
        /// The mean of the topic's samples (inspect_ai's default `mean` epoch reducer).
        #[default]
        Mean = "mean",
        /// The first sample (the lowest epoch; in a table, the first row of the topic).
        First = "first",
        /// For 0/1 scores: the value more than half the samples have; a tie takes the first
        /// sample's value (as inspect_ai's `mode` reducer and Python's `Counter.most_common`
        /// break ties by first occurrence). A value other than 0 or 1 is an error.
        Majority = "majority",
    }
}

impl SampleAggregation {
    /// Whether this is the default (`mean`), left out of serialized reader options.
    pub fn is_default(&self) -> bool {
        *self == SampleAggregation::Mean
    }
}

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
    /// What the score inputs are; reading other inputs is a deviation. `trec-runs` means qrels and
    /// runs evaluated with the measure (`--qrels`, `--run`).
    #[serde(default)]
    pub layout: ScoreLayout,
    /// The trec_eval measure (TREC runs, trec_eval `-q` files), by name or alias; another
    /// `--measure` is a deviation. Default: `target.metric` when that is a measure.
    #[serde(default)]
    pub measure: Option<String>,
    /// The column holding the score (one system per file, as `--column`; or a long file's score
    /// column); another `--column` is a deviation.
    #[serde(default)]
    pub column: Option<String>,
    /// The topic-id column, where it is not detected. Default: detected.
    #[serde(default)]
    pub topic_column: Option<String>,
    /// The column naming each row's sample (epoch, seed, repeat) in a long table with several
    /// rows per topic and system (as `--sample-column`); another `--sample-column` is a
    /// deviation. Default: none (one row per topic and system).
    #[serde(default)]
    pub sample_column: Option<String>,
    /// Several score files of one system are its repeated samples, one of this unit (`seed`,
    /// `repeat`) per file, the i-th file of each system its sample i (as `--sample-files`:
    /// lm-evaluation-harness samples files of each seed); another `--sample-files` is a
    /// deviation. Default: none (two files of one system score different topics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_files: Option<String>,
    /// How a topic's repeated samples become its value: `mean` (default), `first` or
    /// `majority` (0/1 scores); another `--sample-aggregation` is a deviation.
    #[serde(default)]
    pub sample_aggregation: SampleAggregation,
    /// Value labels and the score each stands for, e.g. `HALTED = 0` (matched case-insensitively,
    /// before the built-in CORRECT/INCORRECT, true/false, yes/no); other `--label`s are a
    /// deviation.
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

crate::named_enum! {
    /// What a hypothesis claims about Δ = `system − comparator` (in the direction it expects;
    /// margins M > 0 in the metric's unit). The null hypotheses, for the direction `greater` (for
    /// `less` mirror them): superiority Δ ≤ 0 (or Δ = 0 two-sided), the paired randomization
    /// test; non-inferiority Δ ≤ −M; superiority by a margin Δ ≤ M; equivalence |Δ| ≥ M, the two
    /// one-sided tests (TOST; Schuirmann 1987).
    #[derive(Default)]
    pub enum HypothesisKind {
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

impl HypothesisKind {
    /// Whether the kind needs a margin (every kind but superiority).
    pub fn has_margin(self) -> bool {
        self != HypothesisKind::Superiority
    }
}

/// `[[hypotheses]]` (format 2): one registered comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Hypothesis {
    /// The hypothesis' name, unique in the protocol (shown in the report).
    pub name: String,
    /// The system the hypothesis is about: the comparison is `system − comparator` (among
    /// `analysis.systems` when that is given).
    pub system: String,
    /// What the system is compared with (among `analysis.systems` when that is given).
    pub comparator: String,
    /// What is claimed: `superiority` (the randomization test of a difference in `direction`),
    /// `non-inferiority` (not worse by `margin` or more) or `superiority-by-margin` (better by more
    /// than `margin`), each a one-sided paired t-test shifted by the margin at `target.alpha`, or
    /// `equivalence` (within ±`margin`: the two one-sided tests, TOST). The margin kinds read
    /// their verdict from the interval at 1 − 2α (90% at α = 0.05).
    #[serde(default, skip_serializing_if = "is_superiority")]
    pub kind: HypothesisKind,
    /// The margin M of a margin kind, in the metric's unit (`target.scale`, as `target.mde`): > 0
    /// and ≤ 1 (fraction) or ≤ 100 (points). Required for `non-inferiority`,
    /// `superiority-by-margin` and `equivalence`; not allowed for `superiority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// The expected sign of `system − comparator` (which way is better): required, except for
    /// `kind = "equivalence"`, which has no direction (and takes none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// `1` (one-sided, in `direction`) or `2` (two-sided), for `superiority` only (the margin
    /// kinds are one-sided tests). Default: `target.sides`.
    #[serde(default)]
    pub sides: Option<u8>,
    /// Primary hypotheses are the multiplicity family (adjusted together with `analysis.adjust`)
    /// and get the report's verdict; secondary ones are adjusted in a family of their own. At least
    /// one must be primary; not together with `analysis.baseline`.
    #[serde(default = "d_true")]
    pub primary: bool,
}

/// `[study]`: identity of the study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Study {
    /// Stable study identifier: 1 to 100 ASCII letters, digits, `.`, `_` or `-`, starting with a
    /// letter or digit (it names output files such as `ID.components.csv`). A second, different
    /// protocol under the same id must be registered with `pledge amend`.
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
    /// Unit of the metric and of every difference: fraction (0–1), points (0–100), or unbounded
/// (the values' own unit, e.g. dollars or seconds).
    #[derive(Default)]
    pub enum Scale {
        /// Values in [0, 1]; a 3-point difference is 0.03.
        #[default]
        Fraction = "fraction",
        /// Values in [0, 100]; a 3-point difference is 3.
        Points = "points",
        /// Values on no fixed scale (a cost in dollars, a latency in seconds, a token count):
        /// values and differences are in the values' own unit, no upper bound is checked, and no
        /// value is called a fraction or 0/1 (no Wilson interval).
        Unbounded = "unbounded",
    }
}

impl Scale {
    /// The largest value a metric (and a difference) can take on this scale (infinite when
    /// unbounded).
    pub fn max(self) -> f64 {
        match self {
            Scale::Fraction => 1.0,
            Scale::Points => 100.0,
            Scale::Unbounded => f64::INFINITY,
        }
    }
    /// Unit label used in output: `""` for fractions and unbounded values, `" points"` for
    /// points.
    pub fn unit(self) -> &'static str {
        match self {
            Scale::Fraction | Scale::Unbounded => "",
            Scale::Points => " points",
        }
    }
    /// The scale in words: `fraction (0-1)`, `points (0-100)`, `unbounded (the values' own
    /// unit)`.
    pub fn describe(self) -> &'static str {
        match self {
            Scale::Fraction => "fraction (0-1)",
            Scale::Points => "points (0-100)",
            Scale::Unbounded => "unbounded (the values' own unit)",
        }
    }
}

/// `[target]`: the power target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Target {
    /// The metric, e.g. `accuracy`, `map`, `ndcg_cut.10`, `P.10`, `nDCG@10` (for TREC runs:
    /// trec_eval, ir_measures or ranx names, see `pledge eval`). In format 2 it must be a measure
    /// pledge computes unless `[scores]` says where the values come from (a column, or a layout
    /// whose cells are the scores).
    pub metric: String,
    /// The unit of the metric and of `mde` and `sd`.
    #[serde(default)]
    pub scale: Scale,
    /// The minimum detectable difference δ, in the metric's scale: > 0 and ≤ 1 (fraction) or ≤ 100
    /// (points).
    pub mde: f64,
    /// The significance level α, in (0, 1).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// The target power 1 − β, in (0, 1).
    #[serde(default = "d_power")]
    pub power: f64,
    /// A one- (`1`) or two-sided (`2`) test.
    #[serde(default = "d_sides")]
    pub sides: u8,
    /// The assumed SD σ > 0 of the paired difference, in the metric's scale: of component-level
    /// differences, or of per-question differences when `icc` is given (then the design effect 1 +
    /// (m − 1)ρ turns it into components needed).
    #[serde(default)]
    pub sd: Option<f64>,
    /// Where the assumed SD comes from (a pilot, a prior study, a formula).
    #[serde(default)]
    pub sd_source: Option<String>,
    /// A pilot score file, relative to the protocol file: hashed into the registration
    /// (`pilot:PATH` input), σ estimated from it at registration (for the first primary hypothesis'
    /// two systems, else the file's two systems) and shown; a `"from-target"` split without
    /// `target.sd` uses it (the component-level σ, or the per-question one when `icc` is given); a
    /// pilot changed after registration is refused.
    #[serde(default)]
    pub pilot: Option<String>,
    /// The intra-component correlation ρ in [0, 1], used with `components.max-per-component`.
    #[serde(default)]
    pub icc: Option<f64>,
    /// The power calculation that derives required counts.
    #[serde(default)]
    pub method: PowerMethod,
    /// (format 2) Lower values of the metric are better (a cost, a latency, an error rate): rank
    /// 1 is the lowest in the ranking, its rank intervals and P(rank 1), the ranking table and
    /// the report.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lower_is_better: bool,
    /// (format 2) Samples per question K ≥ 1 (epochs, repeats, seeds), with `sd-within`: `sd`
    /// is then σ_topic, the SD of the questions' true paired differences, and power is computed
    /// at the SD of a question's K-sample mean difference, √(σ_topic² + σ_within²/K) (as `pledge
    /// power --samples-per-topic K --sd-within W`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_per_topic: Option<u32>,
    /// (format 2) σ_within ≥ 0, the SD of one sample's paired difference around its question's
    /// mean, in the metric's scale (with `samples-per-topic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd_within: Option<f64>,
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
    /// What a component node is: `question` (each question) or the name of a question/passage field
    /// such as `doc` (all questions sharing its value are one node).
    #[serde(default = "d_unit")]
    pub unit: String,
    /// Questions counted per component, m ≥ 1.
    #[serde(default = "d_max_per")]
    pub max_per_component: u32,
    /// Which m questions of a larger component are kept.
    #[serde(default)]
    pub keep: Keep,
    /// A system's mean when questions are grouped in components.
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
    /// The name shown in the ablation table (e.g. "identical passages").
    pub name: String,
    /// What the rule links. Rules apply in file order, each merging components.
    pub kind: LinkKind,
    /// Unicode normalization of passage text before comparison (identical and near-duplicate
    /// rules).
    #[serde(default)]
    pub normalization: Normalization,
    /// Character n-gram size n ≥ 1 of the shingles (only `near-duplicate-passage`). Default: 5.
    #[serde(default)]
    pub shingle_size: Option<u32>,
    /// Jaccard threshold in (0, 1] (only `near-duplicate-passage`). Default: 0.8.
    #[serde(default)]
    pub jaccard: Option<f64>,
    /// The field whose equal values link questions: required for, and only allowed with,
    /// `shared-field`.
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
    /// The split's name, e.g. `final`, `tuning`; unique.
    pub name: String,
    /// The components the split needs: a number, or `"from-target"` to derive it from `[target]` by
    /// the power calculation (this needs `target.sd` or `target.pilot`; a target no count of
    /// components can meet, such as a minimum detectable difference of 1e-10, is refused at
    /// registration).
    pub required_components: Required,
    /// The share of components `components --assign` puts in this split, in (0, 1]; the shares add
    /// up to ≤ 1. Default: in proportion to the required counts.
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
    /// Which components are counted.
    #[serde(default)]
    pub count: StopCount,
    /// What the count is compared with.
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
    /// The seed of the pinned generator (ChaCha8, `rand_chacha` 0.3.1).
    #[serde(default)]
    pub seed: u64,
    /// Bootstrap trials B ≥ 1.
    #[serde(default = "d_trials")]
    pub trials: u32,
    /// The interval level, in (0, 1).
    #[serde(default = "d_level")]
    pub interval_level: f64,
    /// What the bootstrap resamples.
    #[serde(default)]
    pub resampling_unit: ResamplingUnit,
    /// The field holding each topic's stratum: the bootstrap resamples within strata (from
    /// `--strata FILE`, else the score file).
    #[serde(default)]
    pub strata_field: Option<String>,
    /// The percentile definition of the intervals (numpy method names).
    #[serde(default)]
    pub percentile: Percentile,
    /// Topics scored for one system and not another.
    #[serde(default)]
    pub missing_topics: MissingTopics,
    /// The system every other system is compared with. Default: all pairs.
    #[serde(default)]
    pub baseline: Option<String>,
    /// The multiple-comparison adjustment of p-values.
    #[serde(default)]
    pub adjust: Adjust,
    /// Monte-Carlo trials of the randomization test, ≥ 1 (exact enumeration when 2^n is smaller).
    #[serde(default = "d_trials")]
    pub randomization_trials: u32,
    /// The tolerance τ ≥ 0 for ties: two mean differences are tied when they differ by at most τ ×
    /// the largest absolute score (decimal scores are compared exactly in integer units, see
    /// `stats::ties`).
    #[serde(default = "d_tol")]
    pub tie_tolerance: f64,
    /// Format 2: the registered systems. The analysis uses exactly these (others in the inputs are
    /// left out, with a note); one missing from the inputs is a deviation. Empty: all systems in
    /// the scores.
    #[serde(default)]
    pub systems: Vec<String>,
    /// The split of the component assignment that is analyzed (e.g. `final`), in format 1 too;
    /// required when the protocol has several `[[splits]]`; another `--split` is a deviation.
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
        /// Hyndman–Fan type 7, numpy `linear`.
        #[default]
        Linear = "linear",
        /// Hyndman–Fan type 1, numpy `inverted_cdf`.
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
    /// Run tags that contributed to the judgment pool; each must be among the supplied runs
    /// (`--run`, or `--pool-run` for a run read only for the pool), else exit 2 naming the tag,
    /// unless `--pool-partial` (then the statement names the missing ones and no leave-one-run-out
    /// figure is computed).
    #[serde(default)]
    pub contributors: Vec<String>,
    /// The pool depth: documents per run and topic that were judged.
    #[serde(default)]
    pub depth: Option<u32>,
    /// k for judged@k, ≥ 1.
    #[serde(default = "d_judged_k")]
    pub judged_k: u32,
    /// Whether the evaluated systems contributed to the judgments, in words (for benchmarks without
    /// a pool, e.g. "answers judged by exact match against gold; no pool").
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
fn is_superiority(k: &HypothesisKind) -> bool {
    *k == HypothesisKind::Superiority
}
fn d_shingle() -> u32 {
    5
}
fn all_roles() -> Vec<PassageRole> {
    vec![PassageRole::Supporting, PassageRole::Distractors, PassageRole::Decoys]
}

impl Protocol {
    /// The sides of hypothesis `h`: 1 for a margin kind, else its own, else `target.sides`.
    pub fn sides_of(&self, h: &Hypothesis) -> u8 {
        if h.kind.has_margin() {
            1
        } else {
            h.sides.unwrap_or(self.target.sides)
        }
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

    /// The α verdicts are read at: `[family] alpha`, else `target.alpha`.
    pub fn verdict_alpha(&self) -> f64 {
        self.family.as_ref().and_then(|f| f.alpha).unwrap_or(self.target.alpha)
    }

    /// The value labels the protocol registers (format 2), as reader options take them.
    pub fn labels(&self) -> Vec<(String, f64)> {
        self.scores
            .as_ref()
            .map(|s| s.labels.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default()
    }
}
