//! The `result.json` of a `count`, `stop` or `go` entry ([`super::CountRecord`]) and its
//! parts, and the split shares and requirements the `assign` and count summaries hold: the
//! stored form of the component count ([`crate::components::CountResult`]), the stop rule's
//! decision, the diagnostics and the contamination check, field by field, made with `From` the
//! methods' results. The tests pin their serialized form.

use super::mirror::{mirror, mirror_enum};
use serde::{Deserialize, Serialize};

mirror! {
    /// The result of counting: what `pledge components` prints and stores in the ledger.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Count from crate::components::CountResult {
        /// The component unit: `question` or a field name.
        pub unit: String,
        /// Passages read.
        pub passages: usize,
        /// Candidate questions read.
        pub questions: usize,
        /// Unit nodes (questions, or distinct unit field values).
        pub units: usize,
        /// Titles of a HotpotQA/MuSiQue file seen with differing texts (the first text is kept).
        pub conflicting_titles: usize,
        /// Counts with no link rule (questions joined only to their own passages).
        pub before_rules: Snapshot,
        /// One row per link rule, in protocol order; the last row is the final count.
        pub ablation: Vec<AblationRow>,
        /// Components in all, after every rule.
        pub components: usize,
        /// Components holding at least one candidate question, after every rule.
        pub with_candidates: usize,
        /// The largest component holding candidates (by units, then questions; first by id on ties).
        pub largest: Option<Component>,
        /// Histogram of candidate-holding components by candidate questions.
        pub histogram: Vec<Bin>,
    }
}

mirror! {
    /// One row of the ablation table: the counts once this rule (and all before it) are applied.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct AblationRow from crate::components::AblationRow {
        /// The rule's name from the protocol.
        pub rule: String,
        /// Its kind (kebab-case).
        pub kind: crate::protocol::LinkKind,
        /// Edges the rule contributed (for a near-duplicate rule: passage pairs with Jaccard ≥ t).
        pub links: usize,
        /// Counts after the rule.
        #[serde(flatten)]
        pub counts: Snapshot,
        /// For a near-duplicate rule whose pairs were read from a file (`--pairs`) instead of joined:
        /// how many were checked exactly. Absent when the join ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub listed: Option<SampleCheck>,
        /// For a near-duplicate rule whose join ran: in memory or partitioned, and into how many
        /// partitions (a disclosure; the pairs are the same either way). Absent for other rules
        /// and for listed pairs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub join: Option<JoinRun>,
    }
}

mirror! {
    /// Diagnostics of a count, asked for with `--sensitivity` and `--bridges`: they show how the
    /// count depends on the near-duplicate rule and which elements join the units, and never change
    /// the registered count or the stop rule's decision.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Diagnostics from crate::components::Diagnostics {
        /// The count as a function of the near-duplicate rule's threshold and shingle size.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sensitivity: Option<Sensitivity>,
        /// The elements that join the most units.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub bridges: Option<Bridges>,
    }
}

mirror! {
    /// Counts after a given set of rules.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Snapshot from crate::components::count::Snapshot {
        /// Components in all (including those holding only passages).
        pub components: usize,
        /// Components holding at least one candidate question.
        pub with_candidates: usize,
        /// Units in the largest component (by units, then questions).
        pub largest_units: usize,
        /// Candidate questions in that component.
        pub largest_questions: usize,
    }
}

mirror! {
    /// One candidate-holding component of the final graph.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Component from crate::components::count::Component {
        /// Stable id `C1`, `C2`, … numbered by the component's smallest question id (byte order).
        pub id: String,
        /// Units (nodes that are questions or unit field values).
        pub units: usize,
        /// Number of candidate questions.
        pub size: usize,
    }
}

mirror! {
    /// One bin of the size histogram: components holding `min..=max` candidate questions.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Bin from crate::components::count::Bin {
        /// Smallest size in the bin.
        pub min: usize,
        /// Largest size in the bin.
        pub max: usize,
        /// Components in the bin.
        pub components: usize,
        /// Candidate questions in those components.
        pub questions: usize,
    }
}

mirror! {
    /// How the near-duplicate join of a count ran: disclosed in the count record, never a
    /// registered field (the pairs, and so the count, are the same either way).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct JoinRun from crate::components::ooc::JoinRun {
        /// In memory or partitioned.
        pub mode: JoinMode,
        /// Partitions joined (1 in memory).
        pub partitions: usize,
        /// The sizes and estimate the mode was chosen from (absent without a memory limit, and in
        /// records written before it was recorded).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub decision: Option<JoinDecision>,
    }
}

mirror! {
    /// How the in-memory decision was made, from the measured sizes of the texts and of their token
    /// sets: recorded in the count record beside [`JoinRun`] (a disclosure; the pairs are the same
    /// either way).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct JoinDecision from crate::components::ooc::JoinDecision {
        /// Shingle occurrences of the texts (characters: an upper bound; for spilled texts, their
        /// bytes).
        pub occurrences: u64,
        /// Elements of the token sets (each text's distinct shingles), when the texts were shingled
        /// in memory; absent when the shingling itself would not have fit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub elements: Option<u64>,
        /// The estimated peak bytes: of the shingling, from the occurrences, when it would not fit;
        /// else of the token sets and the join's structures ([`crate::components::join::working_bytes`]).
        pub estimate_bytes: u64,
    }
}

mirror_enum! {
    /// Where a near-duplicate join ran.
    pub enum JoinMode from crate::components::ooc::JoinMode {
        /// All shingle sets and join structures in memory ([`crate::components::join::join`]).
        InMemory = "in-memory",
        /// Out of core, partitioned by prefix token with spill files
        /// ([`join_partitioned`](crate::components::ooc::join_partitioned)).
        Partitioned = "partitioned",
    }
}

mirror! {
    /// What [`check_sample`](crate::components::pairs::check_sample) checked.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields)]
    pub struct SampleCheck from crate::components::pairs::SampleCheck {
        /// Pairs in the file (distinct).
        pub pairs: usize,
        /// Pairs checked exactly.
        pub checked: usize,
        /// Seed of the sample (`ChaCha8Rng::seed_from_u64`, `rand::seq::index::sample`).
        pub seed: u64,
        /// Lines of the file that repeat a pair an earlier line lists
        /// ([`PairList::repeated_lines`](crate::components::pairs::PairList::repeated_lines));
        /// absent when none.
        #[serde(default, skip_serializing_if = "is_zero")]
        pub repeated_lines: usize,
    }
}

mirror! {
    /// The sensitivity curve of a count.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Sensitivity from crate::components::sensitivity::Sensitivity {
        /// The near-duplicate rule varied (its name in the protocol).
        pub rule: String,
        /// Its registered shingle size.
        pub registered_shingle_size: usize,
        /// Its registered Jaccard threshold.
        pub registered_jaccard: f64,
        /// Points by shingle size (ascending), then threshold (ascending).
        pub points: Vec<SensitivityPoint>,
    }
}

mirror! {
    /// One point of the sweep: the final count with the near-duplicate rule at `(shingle_size,
    /// jaccard)` and every other rule as registered.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SensitivityPoint from crate::components::sensitivity::SensitivityPoint {
        /// Shingle size (characters).
        pub shingle_size: usize,
        /// Jaccard threshold (a fraction).
        pub jaccard: f64,
        /// Passage pairs with Jaccard ≥ the threshold.
        pub pairs: usize,
        /// Whether this is the registered rule.
        pub registered: bool,
        /// The final counts (every rule applied).
        #[serde(flatten)]
        pub counts: Snapshot,
    }
}

mirror! {
    /// The top bridges of a count.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Bridges from crate::components::bridges::Bridges {
        /// Units in the largest component with every link.
        pub largest_units: usize,
        /// Candidate questions in it.
        pub largest_questions: usize,
        /// Elements that join two or more units.
        pub total: usize,
        /// The top bridges, best first (at most the number asked for).
        pub top: Vec<Bridge>,
    }
}

mirror! {
    /// One bridge.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Bridge from crate::components::bridges::Bridge {
        /// What it is.
        pub kind: BridgeKind,
        /// The passage id (for a group: its first passage in input order), or `field = value`.
        pub label: String,
        /// The names of the rules whose links it owns.
        pub rules: Vec<String>,
        /// Passages in the group (1 for a decoy, 0 for a field value).
        pub passages: usize,
        /// The start of the passage's text (at most 60 characters, white space collapsed; empty for
        /// a field value).
        pub excerpt: String,
        /// Links it owns.
        pub links: usize,
        /// Units it joins.
        pub units: usize,
        /// Candidate questions in those units.
        pub questions: usize,
        /// The largest component without this element's links: units.
        pub largest_units_without: usize,
        /// The largest component without this element's links: candidate questions.
        pub largest_questions_without: usize,
    }
}

mirror_enum! {
    /// What a bridge is.
    pub enum BridgeKind from crate::components::bridges::BridgeKind {
        /// A group of identical or near-identical passages.
        Passage = "passage",
        /// A passage used as a decoy / distractor.
        Decoy = "decoy",
        /// A value of a shared-field rule's field.
        Field = "field",
    }
}

mirror! {
    /// The stop-rule decision.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Decision from crate::components::stop::Decision {
        /// The decision.
        pub decision: StopDecision,
        /// Components counted by the rule.
        pub counted: usize,
        /// Which components are counted.
        pub count: crate::protocol::StopCount,
        /// Components required (None without splits).
        pub required: Option<u64>,
        /// How the requirement combines the splits.
        pub required_rule: crate::protocol::StopRequired,
        /// Per-split requirements, in protocol order.
        pub splits: Vec<SplitRequirement>,
    }
}

mirror! {
    /// One split's requirement.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SplitRequirement from crate::components::stop::SplitRequirement {
        /// Split name.
        pub name: String,
        /// Components required.
        pub required: u64,
        /// The power computation, when the requirement is derived from the target.
        pub power: Option<Requirement>,
        /// The split's share for `--assign`, when the protocol gives one.
        pub share: Option<f64>,
    }
}

mirror_enum! {
    /// What the stop rule decided.
    pub enum StopDecision from crate::components::stop::StopDecision {
        /// Enough components: the build may go on (a `go` ledger entry).
        Go = "go",
        /// Too few components: the build stops (a `stop` entry, exit 3).
        Stop = "stop",
        /// The protocol has no splits, so no requirement and no gate (a `count` entry).
        Count = "count",
    }
}

mirror! {
    /// What one split received.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct SplitShare from crate::components::assign::SplitShare {
        /// Split name.
        pub name: String,
        /// Fraction of components aimed at (0–1).
        pub share: f64,
        /// Components assigned.
        pub components: usize,
        /// Candidate questions in them.
        pub questions: usize,
        /// Questions counted under the cap.
        pub counted: usize,
        /// The split's required components.
        pub required: u64,
    }
}

mirror! {
    /// The contamination rules' outcome over the candidates.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Contamination from crate::gate::contamination::Contamination {
        /// Candidate questions checked.
        pub candidates: usize,
        /// One row per rule, in protocol order.
        pub rules: Vec<RuleResult>,
        /// Candidate questions no rule flagged (they go on to the count).
        pub passed: usize,
        /// The first rule whose stop threshold was reached: the build stops.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub stopped_by: Option<String>,
        /// Every flagged question with each rule's flagged passages and sealed matches (by
        /// fingerprint id), in rule order, then question order.
        #[serde(default)]
        pub flags: Vec<QuestionFlag>,
    }
}

mirror! {
    /// A flagged question under one rule (one line of the flags file).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct QuestionFlag from crate::gate::contamination::QuestionFlag {
        /// The question id.
        pub question: String,
        /// The rule's name.
        pub rule: String,
        /// The question's passages that meet the rule, in role order, then as listed.
        pub passages: Vec<PassageFlag>,
    }
}

mirror! {
    /// A candidate passage that meets a rule.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PassageFlag from crate::gate::contamination::PassageFlag {
        /// The passage id.
        pub passage: String,
        /// Its role in the question.
        pub role: crate::protocol::PassageRole,
        /// |A|: the distinct hashes of its shingles.
        pub shingles: u32,
        /// The sealed passages it meets, by fingerprint id.
        pub matches: Vec<SealedMatch>,
    }
}

mirror! {
    /// A sealed passage a candidate passage meets.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SealedMatch from crate::gate::contamination::SealedMatch {
        /// The sealed passage's fingerprint id (16 hex digits).
        pub fingerprint: String,
        /// |A ∩ S|.
        pub overlap: u32,
        /// The overlap under the rule's measure.
        pub value: f64,
    }
}

mirror! {
    /// What one contamination rule found (the funnel's row for it).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RuleResult from crate::gate::contamination::RuleResult {
        /// The rule's name.
        pub rule: String,
        /// The roles checked.
        pub roles: Vec<crate::protocol::PassageRole>,
        /// The overlap measure.
        pub measure: crate::protocol::OverlapMeasure,
        /// The threshold.
        pub threshold: f64,
        /// The shingle size.
        pub shingle_size: u32,
        /// SHA-256 of the fingerprint file used (the registered one).
        pub fingerprint_sha256: String,
        /// The key's commitment (the registered one).
        pub key_sha256: String,
        /// Sealed passages in the fingerprint.
        pub sealed_passages: usize,
        /// Distinct candidate passages checked, per role.
        pub passages_checked: RoleCounts,
        /// Of those, the ones that meet the rule, per role.
        pub passages_flagged: RoleCounts,
        /// Candidate questions the rule flags (of all candidates).
        pub questions_flagged: usize,
        /// Of those, the ones no earlier rule flagged: the funnel's drop at this rule.
        pub removed: usize,
        /// Candidate questions no rule so far flagged.
        pub remaining: usize,
        /// Whether the rule's `stop-share` or `stop-count` was reached.
        pub stop: bool,
    }
}

mirror! {
    /// Passages per role (a passage in several roles counts in each).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RoleCounts from crate::gate::contamination::RoleCounts {
        /// Supporting passages.
        pub supporting: usize,
        /// Distractors.
        pub distractors: usize,
        /// Decoys.
        pub decoys: usize,
    }
}

mirror! {
    /// Components required for a minimum detectable difference (what `pledge power` prints and what
    /// the stop rule stores in its `count` / `stop` / `go` ledger entry). Deterministic for the same
    /// inputs. σ and δ are in the metric's scale.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Requirement from crate::power::Requirement {
        /// Components required: `unrounded` rounded up, at least 2.
        pub components: u64,
        /// Unrounded components needed: n_iid·DEFF/m (n_iid without clustering).
        pub unrounded: f64,
        /// `t` (exact paired t-test) or `normal`.
        pub method: crate::protocol::PowerMethod,
        /// δ, the minimum detectable difference, in the metric's scale.
        pub mde: f64,
        /// σ of the paired difference of one independent unit: per component without clustering,
        /// per question when `icc` is given.
        pub sd: f64,
        /// α.
        pub alpha: f64,
        /// Target power.
        pub power: f64,
        /// 1 or 2.
        pub sides: u8,
        /// Effect size d = δ/σ.
        pub effect_size: f64,
        /// Unrounded independent units n_iid the method asks for (questions when clustered).
        pub independent_n: f64,
        /// m, questions per component, when clustered.
        pub per_component: Option<u32>,
        /// ρ, intra-component correlation, when clustered.
        pub icc: Option<f64>,
        /// 1 + (m − 1)ρ; 1 without clustering.
        pub design_effect: f64,
        /// Independent units the rounded requirement is worth: components·m/DEFF.
        pub effective_n: f64,
        /// t method only: 2 pairs (the smallest with a t-test) already reach the power, so n_iid = 2
        /// is a floor rather than a root.
        pub at_minimum: bool,
        /// The registered primary hypothesis' kind when it has a margin (then `mde` is the
        /// distance of the assumed true difference from the null bound); absent for superiority.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub kind: Option<crate::protocol::HypothesisKind>,
        /// The margin M of `kind`, in the metric's scale.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub margin: Option<f64>,
        /// K samples per question, when the target registers them (`sd` is then σ_K).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub samples_per_topic: Option<u32>,
        /// σ_within, with `samples_per_topic`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sd_within: Option<f64>,
    }
}

/// Whether `n` is 0 (not stored).
fn is_zero(n: &usize) -> bool {
    *n == 0
}
