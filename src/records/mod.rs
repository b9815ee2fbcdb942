//! Typed, versioned records: what commands store in the ledger (`result.json` beside an entry,
//! and the entry's small `summary`), written and read back with the same types.
//!
//! | entry kind | `result.json` | `summary` |
//! |---|---|---|
//! | `register`, `amend` | — | [`RegistrationSummary`] |
//! | `count`, `stop`, `go` | [`CountRecord`] | [`CountSummary`] |
//! | `assign` | [`AssignRecord`] | [`AssignSummary`] |
//! | `analyze` | [`AnalysisRecord`] | [`AnalyzeSummary`] |
//! | `deviation` | — | [`DeviationSummary`] |
//! | `trace` | [`TraceRecord`] | [`TraceSummary`] |
//! | `timestamp` | — | [`TimestampSummary`] |
//! | `note` | — | `ledger::entry::NoteSummary` (it names the ledger's data-access levels) |
//!
//! Each record type is the records' own: a struct (or named enum) per part, with the fields
//! and serde attributes it is stored with, made from the method's result by `From` (see
//! [`mirror`]). A refactor of the statistics or of the count cannot change what is stored without
//! a change here, and the tests in this module pin each kind's serialized form.
//!
//! Every `result.json` carries `record_version` ([`RECORD_VERSION`]; records written before
//! versions were recorded have none and are version 1). Readers ([`read_result`],
//! [`read_summary`]) refuse unknown fields, missing fields and newer versions with an error that
//! names the entry (`#seq`) and the field: a renamed field can never turn into a silent default.

pub mod analysis;
pub mod count;
pub mod mirror;
#[cfg(test)]
mod tests;
pub mod trace;

use crate::components::assign::Assignment;
use crate::error::{Error, Result};
pub use analysis::AnalysisRecord;
pub use count::StopDecision;
use count::{Contamination, Count, Decision, Diagnostics, SplitRequirement, SplitShare};
use mirror::FromMethod;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
pub use trace::{TraceRecord, TraceSummary};

/// The record version this build writes (and the newest it reads).
pub const RECORD_VERSION: u32 = 4;

/// Version of records that carry no `record_version` (written before it existed).
pub(crate) fn legacy() -> u32 {
    1
}

/// `result.json` of a `count`, `stop` or `go` entry: the component count and the stop-rule
/// decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountRecord {
    /// [`RECORD_VERSION`] when written.
    #[serde(default = "legacy")]
    pub record_version: u32,
    /// The count (components, ablation table, histogram, largest component).
    pub count: Count,
    /// The stop rule's decision.
    pub stop: Decision,
    /// Diagnostics run with the count (`--sensitivity`, `--bridges`); absent when none was
    /// asked for. They are not inputs to the decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
    /// The contamination rules' outcome before the count (`[[contamination-rules]]`); absent
    /// when the protocol has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contamination: Option<Contamination>,
    /// The candidate question ids counted, sorted (record version 3 on; empty in older
    /// records): what a later recount's question change is computed against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub question_ids: Vec<String>,
    /// On other questions than the study's registered count: which left and which joined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_change: Option<QuestionChange>,
}

/// `result.json` of an `assign` entry: whole components assigned to splits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignRecord {
    /// [`RECORD_VERSION`] when written.
    #[serde(default = "legacy")]
    pub record_version: u32,
    /// What each split received, in protocol order.
    pub splits: Vec<SplitShare>,
    /// The cap m.
    pub max_per_component: u32,
    /// The keep rule.
    pub keep: crate::protocol::Keep,
    /// The seed of the shuffle.
    pub seed: u64,
}

impl From<&Assignment> for AssignRecord {
    fn from(a: &Assignment) -> Self {
        AssignRecord {
            record_version: RECORD_VERSION,
            splits: FromMethod::from_method(&a.splits),
            max_per_component: a.max_per_component,
            keep: a.keep,
            seed: a.seed,
        }
    }
}

/// The `summary` of a `register` or `amend` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistrationSummary {
    /// The study's title.
    pub title: String,
    /// Who registered it.
    pub registered_by: String,
    /// Whether the declared data access was `results-seen` (disclosed by verify and the report).
    pub results_seen_at_registration: bool,
    /// What the protocol's pilot file (`target.pilot`) says, estimated at registration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pilot: Option<PilotSummary>,
}

/// The `summary` of a `timestamp` entry: an RFC 3161 token over an earlier entry's
/// `entry_sha256` (the SHA-256 of that entry's canonical form, the token's message imprint).
/// What the token witnesses (time, TSA) is read from the token itself at verification, never
/// from fields stored beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimestampSummary {
    /// Sequence number of the covered entry.
    pub covers_seq: u64,
    /// `entry_sha256` of the covered entry (hex): the hash the token stamps.
    pub covers_sha256: String,
    /// The TSA URL the token was asked from.
    pub tsa_url: String,
    /// The DER time-stamp token (a CMS `ContentInfo`, RFC 3161 section 2.4.2), hex.
    pub token_der: String,
}

/// σ estimated from a registered pilot file (see [`crate::power::pilot`]), in the metric's
/// scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PilotSummary {
    /// The pilot file, relative to the repository root.
    pub file: String,
    /// [A, B]: the paired difference is A − B.
    pub systems: Vec<String>,
    /// Questions scored by both systems.
    pub questions: usize,
    /// Mean paired difference.
    pub mean_difference: f64,
    /// SD (n − 1) of the per-question paired difference.
    pub sd_question: f64,
    /// SD (G − 1) of the component-level paired difference (each question its own component).
    pub sd_component: f64,
}

impl PilotSummary {
    /// The σ the power calculation uses: per question when the protocol gives an intra-component
    /// correlation (`target.icc`), else of the component-level difference.
    pub fn sd_for(&self, target: &crate::protocol::Target) -> f64 {
        if target.icc.is_some() {
            self.sd_question
        } else {
            self.sd_component
        }
    }
}

/// The `summary` of a `count`, `stop` or `go` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountSummary {
    /// The decision.
    pub decision: StopDecision,
    /// Components counted by the stop rule.
    pub counted: usize,
    /// Components required (none without splits).
    pub required: Option<u64>,
    /// Which components the rule counts.
    pub count: crate::protocol::StopCount,
    /// How the splits' requirements combine.
    pub required_rule: crate::protocol::StopRequired,
    /// Per-split requirements.
    pub splits: Vec<SplitRequirement>,
    /// Components in all.
    pub components: usize,
    /// Components holding candidates.
    pub with_candidates: usize,
    /// Candidate questions.
    pub questions: usize,
    /// SHA-256 of the assignment file the count produced.
    pub assignment_sha256: String,
    /// On other questions than the study's registered count (its first `go`): how many left
    /// and joined; absent when the questions are the registered ones, or not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_change: Option<QuestionCounts>,
    /// A new build attempt under a registered budget (`[build]`): how it changed the previous
    /// attempt's candidates; absent for a count on the inputs of the count before it, and
    /// without a budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<AttemptCheck>,
}

/// How a build attempt changed the candidates of the attempt before it, as `components`
/// checked it against `[build] attempt-may-change` ([`crate::gate::attempt::check`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptCheck {
    /// The count entry of the previous attempt it was compared with.
    pub previous: u64,
    /// What the registration lets an attempt change.
    pub may_change: Vec<crate::protocol::AttemptChange>,
    /// Questions of the previous attempt left out (each flagged by its contamination check).
    pub dropped: u64,
    /// Passages replaced (flagged by the previous attempt's check, in a role allowed).
    pub replaced: u64,
    /// Questions with at least one passage replaced so (the repaired questions).
    pub repaired: u64,
    /// What changed beyond what the registration allows, one line each; empty when nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<String>,
}

/// How a count's candidate questions differ from the study's registered count's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionCounts {
    /// The registered count (the study's first `go`).
    pub registered_seq: u64,
    /// Questions of the registered count this count no longer holds.
    pub left: u64,
    /// Questions this count holds that the registered count did not.
    pub joined: u64,
}

/// Which candidate questions a count no longer holds, and which it added, against the study's
/// registered count (ids sorted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionChange {
    /// The registered count (the study's first `go`).
    pub registered_seq: u64,
    /// Question ids of the registered count this count no longer holds.
    pub left: Vec<String>,
    /// Question ids this count holds that the registered count did not.
    pub joined: Vec<String>,
}

impl QuestionChange {
    /// The change between the registered count `registered_seq`'s question ids and `now`'s
    /// (both sorted, each id once).
    pub fn between(registered_seq: u64, registered: &[String], now: &[String]) -> QuestionChange {
        let (a, b): (std::collections::BTreeSet<&String>, std::collections::BTreeSet<&String>) =
            (registered.iter().collect(), now.iter().collect());
        QuestionChange {
            registered_seq,
            left: a.difference(&b).map(|s| s.to_string()).collect(),
            joined: b.difference(&a).map(|s| s.to_string()).collect(),
        }
    }

    /// The counts for the entry's summary.
    pub fn counts(&self) -> QuestionCounts {
        QuestionCounts {
            registered_seq: self.registered_seq,
            left: self.left.len() as u64,
            joined: self.joined.len() as u64,
        }
    }
}

/// The `summary` of an `assign` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignSummary {
    /// Per-split summary.
    pub splits: Vec<SplitShare>,
    /// The cap m.
    pub max_per_component: u32,
    /// The keep rule.
    pub keep: crate::protocol::Keep,
    /// SHA-256 of the assignment file.
    pub assignment_sha256: String,
}

/// One comparison in an [`AnalyzeSummary`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComparisonSummary {
    /// The system compared.
    pub system: String,
    /// Its comparator.
    pub baseline: String,
    /// The difference system − baseline, in the metric's scale.
    pub difference: f64,
    /// Paired bootstrap interval.
    pub interval: [f64; 2],
    /// Component bootstrap interval, with components.
    pub component_interval: Option<[f64; 2]>,
    /// Reversal rate (fraction of resamples), `None` for a zero difference.
    pub reversal_rate: Option<f64>,
    /// Share of tied resamples.
    pub ties_share: f64,
    /// t-test p-value, when defined.
    pub p_t: Option<f64>,
    /// Randomization-test p-value.
    pub p_randomization: f64,
    /// Adjusted p-value.
    pub p_adjusted: f64,
    /// The adjustment (statsmodels name).
    pub adjust: String,
}

/// The `summary` of an `analyze` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeSummary {
    /// Bootstrap trials.
    pub trials: u32,
    /// The seed.
    pub seed: u64,
    /// Topics analyzed.
    pub topics: usize,
    /// Components analyzed, with components.
    pub components: Option<usize>,
    /// Whether a deviation entry covers this analysis.
    pub deviation: bool,
    /// One line per comparison.
    pub comparisons: Vec<ComparisonSummary>,
}

/// The `summary` of a `deviation` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviationSummary {
    /// The command the deviation covers (`analyze`, `components`).
    pub command: String,
    /// The refusals the deviation overrides, in words.
    pub overridden: Vec<String>,
    /// Each field the analysis used otherwise than registered.
    #[serde(default)]
    pub fields: Vec<FieldDeviation>,
}

/// One difference between what the registration fixes and what an analysis or a count uses
/// (stored in a [`DeviationSummary`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDeviation {
    /// The protocol key (or concept) concerned, e.g. `scores.column`, `analysis.seed`.
    pub field: String,
    /// What the registration fixes.
    pub registered: String,
    /// What the analysis uses instead.
    pub used: String,
}

impl std::fmt::Display for FieldDeviation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} → {}", self.field, self.registered, self.used)
    }
}

/// A record that knows its version (every `result.json` type).
pub trait Versioned {
    /// The version the record says it has.
    fn version(&self) -> u32;
}

impl Versioned for CountRecord {
    fn version(&self) -> u32 {
        self.record_version
    }
}

impl Versioned for AssignRecord {
    fn version(&self) -> u32 {
        self.record_version
    }
}

impl Versioned for AnalysisRecord {
    fn version(&self) -> u32 {
        self.record_version
    }
}

/// What the readers need of a stored entry: its number and kind (for messages), its `summary`
/// and its `result.json` bytes. The ledger's entry types implement it, so that records, a lower
/// layer than the ledger, never name them.
pub trait Stored {
    /// The entry's sequence number.
    fn seq(&self) -> u64;
    /// The entry's kind, as stored (e.g. `analyze`).
    fn kind_name(&self) -> &str;
    /// The entry's `summary`.
    fn summary(&self) -> &serde_json::Value;
    /// The bytes of the entry's `result.json`, when it has one and they were read.
    fn result_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl<T: Stored + ?Sized> Stored for &T {
    fn seq(&self) -> u64 {
        (**self).seq()
    }
    fn kind_name(&self) -> &str {
        (**self).kind_name()
    }
    fn summary(&self) -> &serde_json::Value {
        (**self).summary()
    }
    fn result_bytes(&self) -> Option<&[u8]> {
        (**self).result_bytes()
    }
}

/// Reads the `result.json` of `e` as record type `T` (named `what` in errors).
///
/// Errors (exit 2): no stored result; not JSON; a missing, unknown or mistyped field (the error
/// names the entry and the field); a record version newer than this build reads.
pub fn read_result<T: DeserializeOwned + Versioned>(e: &impl Stored, what: &str) -> Result<T> {
    let bytes = e.result_bytes().ok_or_else(|| {
        Error::input(format!(
            "ledger entry #{} ({}) holds no result.json",
            e.seq(),
            e.kind_name()
        ))
    })?;
    let r: T = serde_json::from_slice(bytes).map_err(|err| {
        Error::input(format!(
            "ledger entry #{} ({}): result.json is not a valid {} record",
            e.seq(),
            e.kind_name(),
            what
        ))
        .caused_by(err)
    })?;
    if r.version() > RECORD_VERSION {
        return Err(Error::input(format!(
            "ledger entry #{}: its {} record has version {}, newer than this pledge reads ({})",
            e.seq(),
            what,
            r.version(),
            RECORD_VERSION
        ))
        .with_hint("upgrade pledge"));
    }
    Ok(r)
}

/// Reads the `summary` of `e` as type `T` (named `what` in errors).
///
/// Errors (exit 2): a missing, unknown or mistyped field, naming the entry and the field.
pub fn read_summary<T: DeserializeOwned>(e: &impl Stored, what: &str) -> Result<T> {
    T::deserialize(e.summary()).map_err(|err| {
        Error::input(format!(
            "ledger entry #{} ({}): its summary is not a valid {} summary",
            e.seq(),
            e.kind_name(),
            what
        ))
        .caused_by(err)
    })
}

/// A record or summary as the JSON value stored in a ledger draft.
///
/// Errors (exit 70): serialization failed (pledge's own types always serialize).
pub fn to_value<T: Serialize>(v: &T) -> Result<serde_json::Value> {
    serde_json::to_value(v).map_err(|e| Error::internal("serializing a ledger record").caused_by(e))
}

/// [`to_value`], then the value read back with the record's own type and written again: a
/// record that would not read back as written is refused before anything is appended, so the
/// ledger never holds an entry its readers reject. (JSON has no infinity or NaN: serde_json
/// writes them as `null`, which a number field refuses.)
///
/// Errors (exit 2): the record would not read back, e.g. it holds a number that is not finite
/// (`what` names the record).
pub fn to_checked_value<T>(v: &T, what: &str) -> Result<serde_json::Value>
where
    T: Serialize + serde::de::DeserializeOwned,
{
    let value = to_value(v)?;
    let back = serde_json::from_value::<T>(value.clone())
        .ok()
        .map(|b| to_value(&b))
        .transpose()?;
    if back.as_ref() == Some(&value) {
        return Ok(value);
    }
    Err(Error::input(format!(
        "the {} holds a number that is not finite (an overflow, or 0/0): nothing was recorded",
        what
    ))
    .with_hint("check the inputs for extreme values; every stored number must be finite"))
}
