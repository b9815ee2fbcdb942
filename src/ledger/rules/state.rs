//! The typed state the rules fold a ledger into: per study what its registration fixes and what
//! has happened since, and the few ledger-wide facts the rules need.

use super::super::entry::{AccessLevels, DataAccess, EntryKind, InputRole, Inputs};
use crate::records::FieldDeviation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

crate::named_enum! {
    /// How an analysis stands against its study's registration.
    pub enum Classification {
        /// The study's registered analysis: its first analysis that needs no deviation, on the
        /// question set the first `go` fixed and on the data of record, with no amendment of the
        /// registered question after the first count and no analysis seen before it.
        Confirmatory = "confirmatory",
        /// The study's registered analysis, but something it rests on departed from the
        /// registration (listed in its [`Departure`]s): the question set changed by a recount
        /// with a deviation, the registered question amended after the first count, or earlier
        /// analyses of the study were run (and seen) before it.
        ConfirmatoryWithDeviations = "confirmatory-with-deviations",
        /// Any other analysis: one recorded with a deviation, one after the study's registered
        /// analysis, or one of a study that is not registered.
        Exploratory = "exploratory",
    }
}

crate::named_enum! {
    /// When a change (amendment or deviation) was made, relative to the study's first count
    /// and first analysis.
    pub enum Timing {
        /// Before any component count of the study.
        BeforeFirstCount = "before-first-count",
        /// After the first count, before the first analysis.
        AfterFirstCount = "after-first-count",
        /// After the first analysis.
        AfterFirstAnalysis = "after-first-analysis",
    }
}

crate::named_enum! {
    /// What part of a study's registration a change touches.
    pub enum Scope {
        /// The hypotheses (systems compared, direction, primary family) or the baseline.
        Hypotheses = "hypotheses",
        /// The power target (`[target]`: MDE, α, power, σ, metric).
        Target = "target",
        /// The stop rule (`[stop-rule]`) or a stop decision it overrides.
        StopRule = "stop-rule",
        /// The splits and their required components (`[[splits]]`), or the split analyzed.
        Splits = "splits",
        /// The questions counted (a recount on other questions, passages, qrels or pairs).
        QuestionSet = "question-set",
        /// The data analyzed (other scores, runs, qrels or strata than the study's first
        /// analysis read).
        Data = "data",
        /// The component count an analysis rests on (a count the registration in force counts
        /// otherwise, another assignment).
        Count = "count",
        /// The registered build-attempt budget (`[build]`), or an attempt past it or changing
        /// more than it allows.
        Attempts = "build-attempts",
        /// Anything else (analysis settings, the protocol file itself, the reader).
        Other = "other",
    }
}

impl Scope {
    /// Whether a change of this scope touches the registered question, and so belongs in the
    /// headline beside the verdict.
    pub fn in_headline(self) -> bool {
        !matches!(self, Scope::Other)
    }

    /// The scope of a protocol key (`target.mde`, `hypotheses[name = "h"].system`, ...).
    pub fn of_key(key: &str) -> Scope {
        let head = key.split(['.', '[', ':', ' ']).next().unwrap_or("");
        match head {
            "hypotheses" => Scope::Hypotheses,
            "target" => Scope::Target,
            "stop-rule" => Scope::StopRule,
            "splits" => Scope::Splits,
            "build" => Scope::Attempts,
            _ if key.starts_with("analysis.baseline") || key.starts_with("analysis.systems") => Scope::Hypotheses,
            _ if key.starts_with("analysis.split") => Scope::Splits,
            _ if matches!(head, "questions" | "passages" | "qrels" | "pairs") => Scope::QuestionSet,
            _ => Scope::Other,
        }
    }
}

crate::named_enum! {
    /// How a study overlaps an earlier one of the same ledger.
    pub enum OverlapKind {
        /// The same protocol (but for its `[study]` table) is registered under another id.
        SameProtocol = "same-protocol",
        /// Input content this study analyzes was analyzed before by another study.
        SameData = "same-data",
    }
}

/// One overlap of a study with an earlier study of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    /// What overlaps.
    pub kind: OverlapKind,
    /// The earlier study.
    pub study: String,
    /// The earlier study's entry that holds it (its registration, or its analysis).
    pub their_seq: u64,
    /// This study's entry where it shows (its registration, or its analysis).
    pub seq: u64,
    /// For data: the input (`ROLE:PATH` as this study's entry names it).
    pub input: Option<String>,
}

impl std::fmt::Display for Overlap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            OverlapKind::SameProtocol => write!(
                f,
                "the same protocol is registered as study `{}` (entry #{})",
                self.study, self.their_seq
            ),
            OverlapKind::SameData => write!(
                f,
                "{} (analyzed in entry #{}) was analyzed before by study `{}` (entry #{})",
                self.input.as_deref().unwrap_or("an input"),
                self.seq,
                self.study,
                self.their_seq
            ),
        }
    }
}

/// A version of a study's protocol: its `register` or `amend` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// The entry.
    pub seq: u64,
    /// Its time, as stored.
    pub time: String,
    /// The protocol hash it registers.
    pub hash: String,
    /// The pilot hashes it records (`pilot:PATH` → SHA-256).
    pub pilot: Inputs,
    /// The stored protocol text, when the entry holds one that is UTF-8.
    pub text: Option<String>,
    /// Whether the protocol has splits (and so a stop rule); `None` when the text does not
    /// parse.
    pub splits: Option<bool>,
    /// The split an analysis analyzes: `analysis.split`, else the protocol's only split.
    pub split: Option<String>,
    /// The registered attempt budget (`[build]`), when the protocol has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::protocol::BuildSpec>,
}

/// A build attempt of a study: a component count on other questions, passages, qrels or pairs
/// than the count before it (the study's first count is attempt 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// Its number, from 1.
    pub number: u64,
    /// The count entry that made it.
    pub seq: u64,
    /// The budget registered when it was made (`[build] attempts`), if any.
    pub budget: Option<u32>,
    /// The deviation recorded with it, and its reason.
    pub deviation: Option<(u64, String)>,
}

impl Attempt {
    /// Whether it came past the registered budget.
    pub fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| self.number > u64::from(b))
    }
}

/// A component count of a study: its `count`, `stop` or `go` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountRef {
    /// The entry.
    pub seq: u64,
    /// `count`, `stop` or `go`.
    pub kind: EntryKind,
    /// The protocol hash it was made under.
    pub protocol: Option<String>,
    /// What it counted: questions, passages, qrels and pairs (`ROLE:PATH` → SHA-256).
    pub counted: Inputs,
    /// Its pilot and assignment inputs.
    pub inputs: Inputs,
    /// The ledger commit holding it (hex), where known: its record can be read from there.
    pub commit: Option<String>,
}

/// A study's question set, against the one its first `go` fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionSetChange {
    /// The count that fixed the registered set (the study's first `go`, or its first count when
    /// the protocol has no stop rule).
    pub registered_seq: u64,
    /// The later count on other inputs.
    pub count_seq: u64,
    /// The deviation recorded with that count, and its reason.
    pub deviation: Option<(u64, String)>,
    /// What differs, one field per input role (`questions (counted in entry #N)`, ...).
    pub fields: Vec<FieldDeviation>,
    /// Questions of the registered set the later count no longer holds, when recorded.
    pub left: Option<u64>,
    /// Questions the later count holds that the registered set did not, when recorded.
    pub joined: Option<u64>,
}

impl std::fmt::Display for QuestionSetChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the question set changed since the registered count (entry #{}) by the recount in entry #{}",
            self.registered_seq, self.count_seq
        )?;
        match (self.left, self.joined) {
            (Some(l), Some(j)) => write!(f, ": {} question(s) left, {} joined", l, j)?,
            _ => {
                let fields: Vec<String> = self.fields.iter().map(|x| x.to_string()).collect();
                if !fields.is_empty() {
                    write!(f, " ({})", fields.join("; "))?;
                }
            }
        }
        if let Some((seq, reason)) = &self.deviation {
            write!(f, ", deviation #{}: \"{}\"", seq, reason)?;
        }
        Ok(())
    }
}

/// Why an analysis is not plainly confirmatory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Departure {
    /// A deviation entry was recorded with the analysis.
    Deviated {
        /// The deviation entry.
        seq: u64,
        /// Its reason.
        reason: String,
        /// What it overrode: the rules the analysis would otherwise break (in words), and the
        /// fields it used otherwise than registered.
        overridden: Vec<String>,
    },
    /// The analysis comes after the study's registered analysis.
    AfterRegistered {
        /// The registered (lead) analysis.
        seq: u64,
    },
    /// Analyses of the study were run before it (their results seen).
    EarlierAnalyses {
        /// Their entries (the first ones, when there are many).
        seqs: Vec<u64>,
        /// How many there were.
        count: u64,
    },
    /// The question set differs from the registered one.
    QuestionSet(QuestionSetChange),
    /// An amendment touched the registered question after the first count.
    Amended {
        /// The amend entry.
        seq: u64,
        /// What it changed of the registered question.
        changes: Vec<String>,
        /// Its reason.
        reason: String,
    },
    /// The study is not registered.
    Unregistered,
}

impl std::fmt::Display for Departure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Departure::Deviated {
                seq,
                reason,
                overridden,
            } => {
                write!(f, "deviation #{}: \"{}\"", seq, reason)?;
                if !overridden.is_empty() {
                    write!(f, " (overriding: {})", overridden.join("; "))?;
                }
                Ok(())
            }
            Departure::AfterRegistered { seq } => {
                write!(f, "run after the study's registered analysis (entry #{})", seq)
            }
            Departure::EarlierAnalyses { seqs, count } => write!(
                f,
                "run after {} seen: {}{}",
                if *count == 1 {
                    "an earlier analysis was".to_string()
                } else {
                    format!("{} earlier analyses were", count)
                },
                crate::text::seq_list(seqs),
                if (seqs.len() as u64) < *count { ", …" } else { "" }
            ),
            Departure::QuestionSet(q) => q.fmt(f),
            Departure::Amended { seq, changes, reason } => write!(
                f,
                "the registered question was amended after the first count (entry #{}: {}; reason: \"{}\")",
                seq,
                changes.join("; "),
                reason
            ),
            Departure::Unregistered => write!(f, "the study is not registered"),
        }
    }
}

/// How one analysis stands: its classification and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisVerdict {
    /// The `analyze` entry.
    pub seq: u64,
    /// Its classification.
    pub classification: Classification,
    /// Why it is not plainly confirmatory (empty for a confirmatory analysis).
    pub departures: Vec<Departure>,
    /// The split it analyzed, when the study's protocol names one (`analysis.split`) or has a
    /// single split.
    pub split: Option<String>,
}

impl AnalysisVerdict {
    /// The classification with its first departure, in words: `confirmatory`, `confirmatory
    /// with deviations: …`, `exploratory: …`.
    pub fn headline(&self) -> String {
        let name = match self.classification {
            Classification::Confirmatory => "confirmatory",
            Classification::ConfirmatoryWithDeviations => "confirmatory with deviations",
            Classification::Exploratory => "exploratory",
        };
        match self.departures.first() {
            None => name.to_string(),
            Some(d) => format!("{}: {}", name, d),
        }
    }
}

crate::named_enum! {
    /// What kind of change a [`Change`] is.
    pub enum ChangeKind {
        /// An `amend` entry: a new version of the protocol.
        Amend = "amend",
        /// A `deviation` entry: an action the registration refuses, recorded with its reason.
        Deviation = "deviation",
    }
}

/// An amendment or deviation of a study, with what it touches and when it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The entry.
    pub seq: u64,
    /// Amendment or deviation.
    pub kind: ChangeKind,
    /// Its time, as stored.
    pub time: String,
    /// Its reason.
    pub reason: String,
    /// For a deviation: the command it covers (`analyze`, `components`).
    pub command: Option<String>,
    /// For a deviation: the entry written with it (the next entry).
    pub covers: Option<u64>,
    /// What it changed or overrode, one line each (`key: old → new`, or a rule in words).
    pub what: Vec<String>,
    /// The parts of the registration it touches (sorted, each once).
    pub scopes: Vec<Scope>,
    /// When it was made, relative to the first count and the first analysis.
    pub timing: Timing,
}

impl Change {
    /// Whether it touches the registered question (hypotheses, target, stop rule, splits,
    /// question set, data), and so belongs in the headline.
    pub fn in_headline(&self) -> bool {
        self.scopes.iter().any(|s| s.in_headline())
    }
}

/// The study's registered analysis (the first that needs no deviation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lead {
    /// Its verdict.
    pub verdict: AnalysisVerdict,
}

/// Everything the rules know of one study.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyState {
    /// The study id.
    pub id: String,
    /// Its versions: the `register` entry and each `amend`, in order.
    pub versions: Vec<Version>,
    /// Declared data access at registration.
    pub registered_access: Option<DataAccess>,
    /// The first entry of the study that used a protocol before any registration of it.
    pub used_unregistered: Option<u64>,
    /// Its first count.
    pub first_count: Option<u64>,
    /// The count that fixed the registered question set: the first `go`, or the first count
    /// when the protocol has no stop rule.
    pub registered_set: Option<CountRef>,
    /// Its latest count (`count`, `stop` or `go`).
    pub latest_count: Option<CountRef>,
    /// Its latest stop-rule decision (`stop` or `go`).
    pub decision: Option<CountRef>,
    /// Its latest components entry (`count`, `stop`, `go`, `assign`): its number and the
    /// assignment hashes it records.
    pub assignment: Option<(u64, Inputs)>,
    /// The question set against the registered one, once a later count changed it.
    pub question_set: Option<QuestionSetChange>,
    /// How many analyses it has.
    pub analyses: u64,
    /// Its first analysis.
    pub first_analysis: Option<u64>,
    /// The analyses before its registered analysis, while there is none yet (at most
    /// [`StudyState::EARLIER_KEPT`] kept, the first ones).
    pub earlier: Vec<u64>,
    /// The data of record: per input role (scores, qrels, run, strata), the content the first
    /// analysis reading it read (`ROLE:PATH` → SHA-256) and that analysis.
    pub data: BTreeMap<InputRole, (u64, Inputs)>,
    /// The registered analysis, once there is one.
    pub lead: Option<Lead>,
    /// Amendments and deviations, in order.
    pub changes: Vec<Change>,
    /// Overlaps with earlier studies.
    pub overlap: Vec<Overlap>,
    /// Its build attempts, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
}

impl StudyState {
    /// How many of the analyses before the registered one [`StudyState::earlier`] keeps.
    pub const EARLIER_KEPT: usize = 20;

    /// The first `register` entry.
    pub fn registration(&self) -> Option<&Version> {
        self.versions.first()
    }

    /// The registration in force (the latest `register` or `amend`).
    pub fn in_force(&self) -> Option<&Version> {
        self.versions.last()
    }

    /// The version registering `hash`, latest first.
    pub fn version(&self, hash: &str) -> Option<&Version> {
        self.versions.iter().rev().find(|v| v.hash == hash)
    }

    /// When a change made now is made, relative to the first count and the first analysis.
    pub fn timing_now(&self) -> Timing {
        match (self.first_count, self.first_analysis) {
            (_, Some(_)) => Timing::AfterFirstAnalysis,
            (Some(_), None) => Timing::AfterFirstCount,
            (None, None) => Timing::BeforeFirstCount,
        }
    }

    /// The amendments and deviations that touch the registered question, in order: what the
    /// headline lists beside the verdict.
    pub fn headline_changes(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.in_headline())
    }

    /// The build attempts in words, when a budget is registered and there was a count:
    /// `2 of 2 registered`, `3 of 2 registered; attempt 3 (entry #9) past the budget, with
    /// deviation #8: "reason"`.
    pub fn attempts_statement(&self) -> Option<String> {
        let budget = self.in_force().and_then(|v| v.build.as_ref()).map(|b| b.attempts)?;
        let last = self.attempts.last()?;
        let mut s = format!("{} of {} registered", last.number, budget);
        for a in self
            .attempts
            .iter()
            .filter(|a| a.over_budget() || a.deviation.is_some())
        {
            s.push_str(&format!("; attempt {} (entry #{})", a.number, a.seq));
            if a.over_budget() {
                s.push_str(" past the budget");
            }
            match &a.deviation {
                Some((seq, reason)) => s.push_str(&format!(", with deviation #{}: \"{}\"", seq, reason)),
                None => s.push_str(", without a deviation"),
            }
        }
        Some(s)
    }

    /// The declared data access at registration in words, unless the ledger shows otherwise:
    /// then the declaration and what contradicts it (an overlap with an earlier study).
    pub fn data_access_statement(&self) -> String {
        let label = match self.registered_access.unwrap_or_default() {
            DataAccess::NothingRun => "nothing run yet",
            DataAccess::PilotOnly => "pilot data only",
            DataAccess::ResultsUnseen => "results produced but not seen",
            DataAccess::ResultsSeen => "results seen",
        };
        let shown: Vec<String> = self.overlap.iter().map(|o| o.to_string()).collect();
        if shown.is_empty() || self.registered_access == Some(DataAccess::ResultsSeen) {
            return label.to_string();
        }
        format!("declared: {}; but the ledger shows {}", label, shown.join("; "))
    }
}

/// The previous entry of the ledger, as the disclosure rule needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Last {
    /// Its number.
    pub seq: u64,
    /// Its kind.
    pub kind: EntryKind,
    /// Its study.
    pub study: String,
    /// Its protocol hash.
    pub protocol: Option<String>,
}

/// The whole ledger's state under the rules: every study's, and the ledger-wide facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerState {
    /// Per study id (never the empty id of ledger-wide entries).
    pub studies: BTreeMap<String, StudyState>,
    /// Data-access levels in force.
    pub access: AccessLevels,
    /// The last entry folded.
    pub last: Option<Last>,
    /// Entries folded.
    pub entries: u64,
    /// Whether an entry that cannot be read was passed (only when verifying a damaged copy):
    /// what came before it is unknown, so the absence of a registration or a count is not a
    /// finding.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// Protocol fingerprints (the parsed protocol without its `[study]` table, SHA-256) →
    /// the first study and entry registering it.
    pub fingerprints: BTreeMap<String, (String, u64)>,
    /// Content hashes of data analyzed (scores, runs, qrels, strata) → the first study and
    /// analysis reading it.
    pub analyzed: BTreeMap<String, (String, u64)>,
}

impl LedgerState {
    /// The state of `study`, if the ledger has any entry of it.
    pub fn study(&self, id: &str) -> Option<&StudyState> {
        self.studies.get(id)
    }
}
