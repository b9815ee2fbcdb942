//! `pledge note`: record a change of the declared data-access level, or a remark.

use crate::error::{Error, Result};
use crate::ledger::{DataAccess, Draft, Entry, EntryKind, Ledger, NoteSummary};
use crate::records;
use chrono::{DateTime, Utc};

/// Records a `note` entry, optionally tied to `study_id` (empty for the whole ledger); its
/// summary is a [`NoteSummary`]. With `despite_findings` the note is appended even onto a
/// ledger whose chain fails verification (every other append is refused there), and records
/// the findings in its summary (`ledger_findings`); `ledger` must then have been given
/// [`Ledger::set_accept_findings`].
///
/// Errors: an empty `reason` (exit 2); a study id that is not registered (exit 1); a ledger that
/// fails verification without `despite_findings` (exit 1).
pub fn note(
    ledger: &Ledger,
    study_id: &str,
    access: Option<DataAccess>,
    reason: &str,
    despite_findings: bool,
    now: DateTime<Utc>,
) -> Result<Entry> {
    if reason.trim().is_empty() {
        return Err(Error::input("a note needs a non-empty --reason"));
    }
    let ledger_findings: Vec<String> = if despite_findings {
        crate::ledger::verify_ledger(ledger, None)?
            .findings
            .iter()
            .map(|f| format!("{}: {}", f.code.as_str(), f.message))
            .collect()
    } else {
        vec![]
    };
    ledger.append_with(now, study_id, |snap| {
        if !study_id.is_empty() && snap.rules().study(study_id).and_then(|s| s.in_force()).is_none() {
            return Err(
                Error::refused(format!("study `{}` is not registered in this ledger", study_id))
                    .with_hint("register it first, or leave out --study for a note on the whole ledger"),
            );
        }
        let before = snap.access_in_force(study_id)?;
        let changed = access.filter(|a| *a != before);
        Ok(Draft {
            kind: Some(EntryKind::Note),
            study_id: study_id.to_string(),
            reason: Some(reason.to_string()),
            data_access: access,
            summary: records::to_value(&NoteSummary {
                access_changed_from: changed.map(|_| before),
                ledger_findings: ledger_findings.clone(),
            })?,
            ..Default::default()
        })
    })
}
