//! The registration rules, written once: a fold of the ledger's entries, first to last, into one
//! typed state ([`LedgerState`]; per study a [`StudyState`]). Each step judges an entry on the
//! state before it ([`LedgerState::step`]) and says which rules it breaks ([`Violation`]s: a
//! finding, or a note) and, for an analysis, how it stands ([`AnalysisVerdict`]:
//! [`Classification::Confirmatory`], [`Classification::ConfirmatoryWithDeviations`] or
//! [`Classification::Exploratory`], with its [`Departure`]s).
//!
//! Every reader of the rules goes through this fold, so no rule is written twice:
//! - `verify` replays it over the whole chain and reports each violation as a finding or note
//!   (`ledger/chain.rs`);
//! - an append steps the state kept for the tip (in the tip-keyed index, `ledger/index.rs`)
//!   with the new entries and refuses them when one has a finding
//!   (`Snapshot::check_new`), so an append is refused exactly when `verify` would flag
//!   the entry;
//! - commands ask it before they append ([`super::Snapshot::preview`]): `analyze` and
//!   `components` turn the violations into their refusals (or, with `--deviation`, into the
//!   deviation entry that discloses them), and show the classification;
//! - the report renders the state of the whole chain ([`Review`]).
//!
//! The rules, by entry kind (a deviation entry, and the entry written with it, may break the
//! deviable ones, which are then listed as overridden):
//! - `register`: not of a study already registered, nor of one whose protocol earlier entries
//!   used unregistered; `amend`: names the registration in force and changes something; both
//!   with a reason where required;
//! - any entry under a protocol: the study's registration in force (deviable);
//! - `count`/`stop`/`go`: on the questions, passages, qrels and pairs of the study's previous
//!   count (deviable), under the registered pilot;
//! - `analyze`: not after a `stop`; with a stop rule, after a count, and on the assignment a
//!   `go` covers; on the assignment of the study's latest components entry; on a count the
//!   registration in force counts alike ([`crate::protocol::count_basis_changes`],
//!   [`pilot_change`]); on the data of record (per role, the content the study's first analysis
//!   reading it read). All deviable.
//!
//! Notes: a study not registered before its entry, a registration after results were seen, a
//! lowered data-access level, an overlap with an earlier study (the same protocol but for its
//! `[study]` table, or the same data analyzed).
//!
//! What the state keeps is bounded by the studies and their registrations, not by the ledger's
//! length, so that the index can keep it for the tip and an append costs the same on a ledger
//! of 10 or 10,000 entries.

mod basis;
mod classify;
mod state;
mod step;
mod violation;
pub(crate) mod witness;

#[cfg(test)]
mod tests;

pub use basis::pilot_change;
pub use state::{
    AnalysisVerdict, Attempt, Change, ChangeKind, Classification, CountRef, Departure, Last, Lead, LedgerState,
    Overlap, OverlapKind, QuestionSetChange, Scope, StudyState, Timing, Version,
};
pub use step::{counted_changes, Fact, Verdict, COUNTED_ROLES, DATA_ROLES};
pub use violation::Violation;
pub use witness::{Signed, Token, WitnessEvidence, WitnessRequired};

use super::entry::StoredEntry;
use super::entry::{DataAccess, Draft, Entry, EntryKind, Tool};

/// The whole chain folded: the state at its end and what the rules say of every entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// The state after the last entry.
    pub state: LedgerState,
    /// One verdict per entry folded, in ledger order.
    pub verdicts: Vec<Verdict>,
}

impl Review {
    /// Folds `entries` (first to last, as read from the ledger).
    pub fn of(entries: &[StoredEntry]) -> Review {
        let mut r = Review::default();
        for s in entries {
            let v = r.state.step(&Fact::of_stored(s));
            r.verdicts.push(v);
        }
        r
    }

    /// The verdict of entry `seq`.
    pub fn verdict(&self, seq: u64) -> Option<&Verdict> {
        match self.verdicts.binary_search_by_key(&seq, |v| v.seq) {
            Ok(i) => self.verdicts.get(i),
            Err(_) => self.verdicts.iter().find(|v| v.seq == seq),
        }
    }

    /// The state of study `id`.
    pub fn study(&self, id: &str) -> Option<&StudyState> {
        self.state.study(id)
    }

    /// The verdict of each analysis of study `id` in ledger order (every `analyze` entry of it).
    pub fn analyses<'a>(
        &'a self,
        entries: &'a [StoredEntry],
        id: &'a str,
    ) -> impl Iterator<Item = &'a AnalysisVerdict> {
        entries
            .iter()
            .filter(move |s| s.entry.study_id == id && s.entry.kind == EntryKind::Analyze)
            .filter_map(|s| self.verdict(s.entry.seq))
            .filter_map(|v| v.analysis.as_ref())
    }

    /// The study's registered analysis (confirmatory, or confirmatory with deviations), if it
    /// has one.
    pub fn registered_analysis(&self, id: &str) -> Option<&AnalysisVerdict> {
        self.study(id).and_then(|s| s.lead.as_ref()).map(|l| &l.verdict)
    }
}

impl<'a> Fact<'a> {
    /// The fact of a stored entry (its protocol text counts only for `register` and `amend`).
    pub fn of_stored(s: &'a StoredEntry) -> Fact<'a> {
        Fact {
            entry: &s.entry,
            protocol_text: match s.entry.kind {
                EntryKind::Register | EntryKind::Amend => s.protocol_text.as_deref(),
                _ => None,
            },
            commit: Some(&s.commit),
        }
    }
}

/// The entry `d` would be as entry `seq` at `time`, for the rules to judge before it is
/// written (hashes and links, which the rules do not read, are left empty). A draft without a
/// data-access level gets `access` (the level in force).
pub fn candidate(d: &Draft, seq: u64, time: &str, access: DataAccess) -> Entry {
    Entry {
        seq,
        kind: d.kind.unwrap_or(EntryKind::Note),
        time: time.to_string(),
        prev_sha256: String::new(),
        study_id: d.study_id.clone(),
        protocol_sha256: d.protocol_sha256.clone(),
        protocol_path: d.protocol_path.clone(),
        amends: d.amends.clone(),
        inputs: d.inputs.clone(),
        result_sha256: None,
        tool: Tool::current(),
        rng: d.rng.clone(),
        reason: d.reason.clone(),
        data_access: d.data_access.unwrap_or(access),
        git_head: None,
        summary: d.summary.clone(),
        canonical: None,
        clock: None,
        entry_sha256: String::new(),
    }
}

impl LedgerState {
    /// What the rules say of `drafts` if appended (in order, as entries `first_seq`, … at
    /// `time`), judged on this state, which is left as it is.
    pub fn preview(&self, drafts: &[Draft], first_seq: u64, time: &str) -> Vec<Verdict> {
        let mut s = self.clone();
        let mut out = Vec::with_capacity(drafts.len());
        for (i, d) in drafts.iter().enumerate() {
            let access = s.access.in_force(&d.study_id);
            let e = candidate(d, first_seq + i as u64, time, access);
            out.push(s.step(&Fact {
                entry: &e,
                protocol_text: d.protocol_text.as_deref(),
                commit: None,
            }));
        }
        out
    }
}
