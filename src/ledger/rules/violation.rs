//! What the rules can say against an entry: one typed value per rule, read by `verify` as a
//! finding or a note ([`Violation::code`], [`Violation::message`]) and by commands as the
//! refusal they explain to the user ([`Violation::refusal`]).

use super::super::entry::{Entry, EntryKind, InputRole, Inputs};
use super::super::finding::FindingCode;
use super::state::{Overlap, Scope};
use crate::error::Refusal;
use crate::records::FieldDeviation;
use crate::text::short;
use serde::{Deserialize, Serialize};

/// One rule an entry breaks (a finding), or a fact about it the rules disclose (a note).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Violation {
    /// An `amend` or `deviation` without a reason.
    MissingReason,
    /// A second `register` of a registered study (`same`: with the protocol already registered).
    RegisteredTwice {
        /// The registration in force.
        seq: u64,
        /// Whether the protocol is the one in force.
        same: bool,
    },
    /// A `register` of a study that earlier entries already used unregistered.
    RegisteredAfterUse {
        /// The first such entry.
        first: u64,
    },
    /// An `amend` that does not name the registration in force (or of an unregistered study).
    AmendLink {
        /// The hash in force, if any.
        registered: Option<String>,
    },
    /// An `amend` identical to the registration in force (same protocol and pilot).
    AmendsNothing {
        /// The registration in force.
        seq: u64,
    },
    /// An entry of a registered study under another protocol than the one in force.
    ProtocolNotInForce {
        /// The hash the entry uses.
        used: String,
        /// The hash in force.
        registered: String,
        /// The registration in force.
        seq: u64,
    },
    /// An entry under a protocol of a study that is not registered (before it).
    UnregisteredStudy,
    /// An analysis after the stop rule said stop.
    Stopped {
        /// The `stop` entry.
        seq: u64,
    },
    /// An analysis under a protocol with a stop rule, but no component count recorded.
    NoCount,
    /// An analysis without a component assignment after a `go` (which covers one).
    GoWithoutAssignment {
        /// The `go` entry.
        seq: u64,
    },
    /// An analysis on an assignment, with no components entry of the study before it.
    NoAssignmentRecorded,
    /// An analysis on an assignment, but the latest components entry records none.
    AssignmentNotRecorded {
        /// That entry.
        seq: u64,
    },
    /// An analysis on another assignment than the latest components entry's.
    AssignmentOther {
        /// That entry.
        seq: u64,
        /// Its assignment input (`assignment:PATH`).
        key: String,
        /// Its hash.
        recorded: String,
        /// The hash the analysis used.
        now: String,
    },
    /// An analysis on a count that the registration in force counts otherwise.
    Recount {
        /// The count.
        seq: u64,
        /// The protocol hash it was made under (12 hex digits).
        protocol: String,
        /// What changed, `key: old → new` joined by `; `.
        changes: String,
    },
    /// An analysis reading other content for a data role than the study's first analysis
    /// reading it.
    DataReplaced {
        /// The role (scores, qrels, run, strata).
        role: InputRole,
        /// The first analysis reading it.
        first: u64,
        /// What it read (`PATH (sha256 …)`, joined).
        recorded: String,
        /// What this analysis reads.
        now: String,
    },
    /// A count on other inputs than the study's previous count.
    CountOnOtherInputs {
        /// The previous count.
        seq: u64,
        /// What differs.
        fields: Vec<FieldDeviation>,
    },
    /// A count under another pilot file than the registration in force records.
    PilotNotRegistered {
        /// The pilot path.
        path: String,
        /// The registration in force.
        seq: u64,
    },
    /// A count that is a build attempt past the registered budget (`[build] attempts`).
    AttemptOverBudget {
        /// Its attempt number.
        attempt: u64,
        /// The registered budget.
        budget: u32,
        /// The count entries of the attempts before it.
        before: Vec<u64>,
    },
    /// A build attempt within the budget that changes more of the previous attempt's
    /// candidates than `[build] attempt-may-change` allows.
    AttemptChangeNotAllowed {
        /// Its attempt number.
        attempt: u64,
        /// What the registration allows.
        allowed: Vec<crate::protocol::AttemptChange>,
        /// What changed beyond it, one line each.
        outside: Vec<String>,
    },
    /// A build attempt within the budget whose count entry does not record the check of what it
    /// changed against the previous attempt (the count before it).
    AttemptUnchecked {
        /// Its attempt number.
        attempt: u64,
        /// The previous attempt's count entry.
        previous: u64,
    },
    /// A registration or amendment declaring results seen.
    RegisteredAfterResultsSeen,
    /// A lower data-access level than the one in force.
    AccessLowered {
        /// The level in force before.
        before: crate::ledger::DataAccess,
    },
    /// The study overlaps an earlier one.
    Overlap(Overlap),
    /// A `register` or `amend` whose protocol requires a time-stamp (`[witness] tsa`), and no
    /// valid token covers it (found once the chain ends, [`super::LedgerState::finish`]).
    TokenMissing,
    /// A `register` or `amend` whose protocol requires a time-stamp, first witnessed more than
    /// the tolerance after its claimed time (the chain was stamped again later).
    WitnessLate {
        /// The earliest witnessed time covering it (RFC 3339, seconds).
        at: String,
        /// The TSA.
        tsa: String,
        /// The `timestamp` entry holding that token.
        timestamp_seq: u64,
        /// How much later than the claimed time (seconds).
        late_secs: i64,
    },
    /// A `register` or `amend` whose protocol requires a signed commit (`[witness] signed =
    /// true`), and its commit carries no signature.
    SignatureMissing {
        /// Whether the raw commit was at hand (false: an export line without it, so no
        /// signature can show).
        carried: bool,
    },
}

/// `PATH (sha256 …)` for each input of `role`, joined, or `none`.
pub(crate) fn shown(inputs: &Inputs, role: InputRole) -> String {
    let v: Vec<String> = inputs
        .iter()
        .filter(|(k, _)| k.role == role)
        .map(|(k, h)| format!("{} (sha256 {})", k.path, short(h, 12)))
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

impl Violation {
    /// Whether `verify` reports it as a finding (the ledger fails) rather than a note.
    pub fn is_finding(&self) -> bool {
        !matches!(
            self,
            Violation::UnregisteredStudy
                | Violation::RegisteredAfterResultsSeen
                | Violation::AccessLowered { .. }
                | Violation::Overlap(_)
        )
    }

    /// Whether a deviation recorded with the entry discloses it (the entry is then allowed and
    /// the rule listed as overridden). Reasons, registrations and the pilot cannot be deviated
    /// from.
    pub fn deviable(&self) -> bool {
        matches!(
            self,
            Violation::ProtocolNotInForce { .. }
                | Violation::Stopped { .. }
                | Violation::NoCount
                | Violation::GoWithoutAssignment { .. }
                | Violation::NoAssignmentRecorded
                | Violation::AssignmentNotRecorded { .. }
                | Violation::AssignmentOther { .. }
                | Violation::Recount { .. }
                | Violation::DataReplaced { .. }
                | Violation::CountOnOtherInputs { .. }
                | Violation::AttemptOverBudget { .. }
                | Violation::AttemptChangeNotAllowed { .. }
                | Violation::AttemptUnchecked { .. }
        )
    }

    /// The finding code `verify` reports it under.
    pub fn code(&self) -> FindingCode {
        use Violation::*;
        match self {
            MissingReason => FindingCode::MissingReason,
            RegisteredTwice { .. } => FindingCode::DuplicateRegistration,
            AmendLink { .. } | AmendsNothing { .. } => FindingCode::AmendLink,
            RegisteredAfterUse { .. } | ProtocolNotInForce { .. } => FindingCode::UnregisteredProtocol,
            UnregisteredStudy => FindingCode::UnregisteredStudy,
            Stopped { .. }
            | NoCount
            | GoWithoutAssignment { .. }
            | NoAssignmentRecorded
            | AssignmentNotRecorded { .. }
            | AssignmentOther { .. }
            | Recount { .. }
            | DataReplaced { .. } => FindingCode::AnalysisRefused,
            CountOnOtherInputs { .. } | PilotNotRegistered { .. } => FindingCode::CountRefused,
            AttemptOverBudget { .. } | AttemptChangeNotAllowed { .. } | AttemptUnchecked { .. } => {
                FindingCode::AttemptRefused
            }
            RegisteredAfterResultsSeen => FindingCode::RegisteredAfterResultsSeen,
            AccessLowered { .. } => FindingCode::AccessLowered,
            Overlap(_) => FindingCode::StudyOverlap,
            TokenMissing | SignatureMissing { .. } => FindingCode::WitnessMissing,
            WitnessLate { .. } => FindingCode::WitnessLate,
        }
    }

    /// The part of the registration it concerns (for the headline of a deviation that
    /// overrides it).
    pub fn scope(&self) -> Scope {
        use Violation::*;
        match self {
            Stopped { .. } | NoCount | GoWithoutAssignment { .. } => Scope::StopRule,
            NoAssignmentRecorded | AssignmentNotRecorded { .. } | AssignmentOther { .. } | Recount { .. } => {
                Scope::Count
            }
            DataReplaced { .. } => Scope::Data,
            CountOnOtherInputs { .. } => Scope::QuestionSet,
            AttemptOverBudget { .. } | AttemptChangeNotAllowed { .. } | AttemptUnchecked { .. } => Scope::Attempts,
            _ => Scope::Other,
        }
    }

    /// What `verify` says of entry `e` (the finding's or note's message).
    pub fn message(&self, e: &Entry) -> String {
        use Violation::*;
        let (seq, kind, id) = (e.seq, e.kind.as_str(), e.study_id.as_str());
        match self {
            MissingReason => format!("entry #{} ({}) has no reason", seq, kind),
            RegisteredTwice { seq: r, same: false } => format!(
                "entry #{} registers study `{}` again with a different protocol instead of amending it (registered in entry #{})",
                seq, id, r
            ),
            RegisteredTwice { seq: r, same: true } => format!(
                "entry #{} registers study `{}` again with the protocol entry #{} registered",
                seq, id, r
            ),
            RegisteredAfterUse { first } => format!(
                "entry #{} registers study `{}`, whose protocol earlier entries already used unregistered (from entry #{}): a registration must come before the study's entries",
                seq, id, first
            ),
            AmendLink { registered } => format!(
                "entry #{} amends study `{}` but does not name its registered version ({})",
                seq,
                id,
                registered.as_deref().unwrap_or("none registered")
            ),
            AmendsNothing { seq: r } => format!(
                "entry #{} amends study `{}` with the protocol and pilot entry #{} registered: it changes nothing",
                seq, id, r
            ),
            ProtocolNotInForce { used, registered, .. } => format!(
                "entry #{} ({}) used protocol {} but study `{}` was registered with {} at that time",
                seq,
                kind,
                short(used, 12),
                id,
                short(registered, 12)
            ),
            UnregisteredStudy => format!(
                "entry #{} ({}) concerns study `{}`, which is not registered before it",
                seq, kind, id
            ),
            RegisteredAfterResultsSeen => format!(
                "entry #{} {}s study `{}` after results were seen (declared data access: results-seen)",
                seq, kind, id
            ),
            AccessLowered { before } => format!(
                "entry #{} declares data access {} after {} was declared{}",
                seq,
                e.data_access.as_str(),
                before.as_str(),
                if id.is_empty() {
                    String::new()
                } else {
                    format!(" for study `{}`", id)
                }
            ),
            Overlap(o) => format!("study `{}` overlaps an earlier study: {}", id, o),
            TokenMissing | WitnessLate { .. } | SignatureMissing { .. } => self.witness_message(e),
            CountOnOtherInputs { seq: prev, fields } => format!(
                "entry #{} counts study `{}` on other inputs than its count #{} ({}), without a deviation",
                seq,
                id,
                prev,
                fields.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("; ")
            ),
            AttemptOverBudget { .. } | AttemptChangeNotAllowed { .. } | AttemptUnchecked { .. } => {
                format!("entry #{} counts study `{}` {}, without a deviation", seq, id, self.attempt_clause())
            }
            PilotNotRegistered { path, seq: r } => format!(
                "entry #{} counts study `{}` on the pilot {}, which is not the one its registration (entry #{}) records",
                seq, id, path, r
            ),
            analysis => format!(
                "entry #{} analyzes study `{}` {}, without a deviation",
                seq,
                id,
                analysis.analysis_clause()
            ),
        }
    }

    /// The message of a witness rule's finding on the `register` or `amend` entry `e`.
    fn witness_message(&self, e: &Entry) -> String {
        use Violation::*;
        let what = if e.kind == EntryKind::Amend {
            "amends"
        } else {
            "registers"
        };
        let (seq, id) = (e.seq, e.study_id.as_str());
        match self {
            WitnessLate {
                at,
                tsa,
                timestamp_seq,
                late_secs,
            } => format!(
                "entry #{} claims {}, but was first witnessed at {} by {} (timestamp #{}), {} later; its protocol requires a time-stamp at registration ([witness] tsa), so the chain was stamped again later (back-dated?)",
                seq,
                e.time,
                at,
                tsa,
                timestamp_seq,
                super::witness::span(*late_secs)
            ),
            SignatureMissing { carried } => format!(
                "entry #{} {} study `{}` under a protocol that requires a signed commit ([witness] signed = true), but {}",
                seq,
                what,
                id,
                if *carried {
                    "its commit is not signed"
                } else {
                    "its export line carries no raw commit, so no signature can show it"
                }
            ),
            _ => format!(
                "entry #{} {} study `{}` under a protocol that requires a time-stamp ([witness] tsa), but no valid token covers it: the token was dropped, or never obtained",
                seq, what, id
            ),
        }
    }

    /// The middle of a build-attempt finding's message (and of the refusal `components` shows).
    pub fn attempt_clause(&self) -> String {
        use Violation::*;
        match self {
            AttemptOverBudget { attempt, budget, before } => format!(
                "as build attempt {}, past the {} its registration allows ([build] attempts = {}; earlier attempts: {})",
                attempt,
                crate::text::plural(u64::from(*budget), "attempt", "attempts"),
                budget,
                crate::text::seq_list(before)
            ),
            AttemptChangeNotAllowed {
                attempt,
                allowed,
                outside,
            } => format!(
                "as build attempt {}, which changes more than its registration allows ([build] attempt-may-change = [{}]): {}",
                attempt,
                allowed.iter().map(|a| format!("\"{}\"", a)).collect::<Vec<_>>().join(", "),
                outside.join("; ")
            ),
            AttemptUnchecked { attempt, previous } => format!(
                "as build attempt {}, and its entry records no check of what it changed against the previous attempt (entry #{})",
                attempt, previous
            ),
            other => format!("({})", other.code()),
        }
    }

    /// The middle of an analysis finding's message.
    fn analysis_clause(&self) -> String {
        use Violation::*;
        match self {
            Stopped { seq } => format!("after its stop rule said stop (entry #{})", seq),
            NoCount => {
                "under a protocol with a stop rule, but no component count of the study is recorded before it".into()
            }
            GoWithoutAssignment { seq } => format!(
                "without a component assignment, although its stop rule's go (entry #{}) covers one",
                seq
            ),
            NoAssignmentRecorded => {
                "on a component assignment, and no components entry of the study records one before it".into()
            }
            AssignmentNotRecorded { seq } => format!(
                "on a component assignment, and its latest count (entry #{}) records none",
                seq
            ),
            AssignmentOther { seq, .. } => format!(
                "on a component assignment, and it is not the one its latest count (entry #{}) recorded",
                seq
            ),
            Recount { seq, changes, .. } => format!(
                "on its count (entry #{}), which the registration then in force counts otherwise ({})",
                seq, changes
            ),
            DataReplaced {
                role,
                first,
                recorded,
                now,
            } => format!(
                "on other {} content than its first analysis (entry #{}) read ({} → {})",
                role, first, recorded, now
            ),
            other => format!("({})", other.code()),
        }
    }

    /// The refusal a command shows for it when about to append `e` (`path`: the protocol file
    /// as the user gave it).
    pub fn refusal(&self, e: &Entry, path: &str) -> Refusal {
        use Violation::*;
        let study = e.study_id.as_str();
        match self {
            ProtocolNotInForce { used, registered, seq } => Refusal::Changed {
                path: path.to_string(),
                seq: *seq,
                registered: registered.clone(),
                now: used.clone(),
            },
            UnregisteredStudy => Refusal::Unregistered {
                path: path.to_string(),
                study: study.to_string(),
            },
            Stopped { seq } => Refusal::Stopped { seq: *seq },
            NoCount => Refusal::Other(
                "the protocol has a stop rule, but no component count is recorded (run `pledge components` first)"
                    .into(),
            ),
            GoWithoutAssignment { seq } => Refusal::Other(format!(
                "the stop rule's go (entry #{}) covers a component assignment: analyze it with --components FILE",
                seq
            )),
            NoAssignmentRecorded => {
                Refusal::Assignment("no components entry records a component assignment for this study".into())
            }
            AssignmentNotRecorded { seq } => {
                Refusal::Assignment(format!("entry #{} records no component assignment", seq))
            }
            AssignmentOther {
                seq,
                key,
                recorded,
                now,
            } => Refusal::Assignment(format!(
                "the component assignment differs from the one recorded in entry #{} ({} = {}, file now {})",
                seq, key, recorded, now
            )),
            Recount { seq, protocol, changes } => Refusal::Recount {
                seq: *seq,
                protocol: protocol.clone(),
                changes: changes.clone(),
            },
            DataReplaced {
                role,
                first,
                recorded,
                now,
            } => Refusal::Data(format!(
                "other {} content than the study's first analysis read (entry #{}): {} → {}",
                role, first, recorded, now
            )),
            other => Refusal::Other(other.message(e)),
        }
    }
}
