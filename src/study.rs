//! Operations on a registered study that several commands share: loading a protocol with its
//! hash, registering it, and checking that a protocol in use is the registered one.

use crate::error::{Error, Result};
use crate::ledger::{DataAccess, Draft, Entry, EntryKind, Ledger, StoredEntry};
use chrono::{DateTime, Utc};
use std::path::Path;

pub use crate::protocol::{load_protocol, LoadedProtocol};

/// The path of `p` relative to the repository root, with `/` separators, when it lies inside.
pub fn repo_relative(ledger: &Ledger, p: &Path) -> String {
    let root = ledger.root();
    let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    match abs.strip_prefix(&root) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => abs.to_string_lossy().into_owned(),
    }
}

/// The latest `register` or `amend` entry of `study_id`, if any.
pub fn latest_registration<'a>(entries: &'a [StoredEntry], study_id: &str) -> Option<&'a StoredEntry> {
    entries
        .iter()
        .rev()
        .find(|e| e.entry.study_id == study_id && matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend))
}

/// Checks that `lp` is the protocol currently registered for its study.
///
/// Returns the registration entry. Errors (exit 1, refused): the study has no registration, or
/// the protocol's hash differs from the latest registered one (the protocol changed since).
pub fn check_registered<'a>(entries: &'a [StoredEntry], lp: &LoadedProtocol) -> Result<&'a StoredEntry> {
    let id = &lp.protocol.study.id;
    let reg = latest_registration(entries, id).ok_or_else(|| {
        Error::refused(format!(
            "protocol {} (study `{}`) is not registered",
            lp.path.display(),
            id
        ))
        .with_hint(format!("register it first: pledge register {}", lp.path.display()))
    })?;
    if reg.entry.protocol_sha256.as_deref() != Some(lp.hash.sha256.as_str()) {
        return Err(Error::refused(format!(
            "protocol {} changed since it was registered (entry #{})",
            lp.path.display(),
            reg.entry.seq
        ))
        .caused_by(format!(
            "registered sha256 {}, file now {}",
            reg.entry.protocol_sha256.as_deref().unwrap_or("-"),
            lp.hash.sha256
        ))
        .with_hint("restore the registered file, or record the change with `pledge amend PROTOCOL --reason TEXT`"));
    }
    Ok(reg)
}

/// Registers `lp` (kind `register`) or a new version of it (kind `amend`, `reason` required).
///
/// The checks run against the ledger as it is when the entry lands (inside the atomic append),
/// so two processes registering the same study at once cannot both succeed.
///
/// The entry's summary is `{"title", "registered_by", "results_seen_at_registration"}`; the
/// last is true when the declared data-access level (`access`, or the level in force for the
/// study when `None`, see [`DataAccess::in_force`]) is `results-seen`: such a registration is allowed but marked, and `verify`
/// and the report disclose it.
///
/// Refused (exit 1): registering a different protocol under an already registered study id
/// (use amend); registering the same protocol twice; amending a study that is not registered;
/// an amend identical to the registered version. Bad input (exit 2): an amend without a reason.
pub fn register(
    ledger: &Ledger,
    lp: &LoadedProtocol,
    amend_reason: Option<&str>,
    access: Option<DataAccess>,
    now: DateTime<Utc>,
) -> Result<Entry> {
    if let Some(r) = amend_reason {
        if r.trim().is_empty() {
            return Err(Error::input(
                "amend needs a non-empty --reason (it is disclosed in the report)",
            ));
        }
    }
    let rel = repo_relative(ledger, &lp.path);
    ledger.append_with(now, |entries| {
        registration_draft(entries, lp, &rel, amend_reason, access)
    })
}

/// The draft of a register/amend entry for `lp` given the current `entries`; see [`register`].
fn registration_draft(
    entries: &[StoredEntry],
    lp: &LoadedProtocol,
    rel: &str,
    amend_reason: Option<&str>,
    access: Option<DataAccess>,
) -> Result<Draft> {
    let id = &lp.protocol.study.id;
    let prev = latest_registration(entries, id);
    let kind = match (amend_reason, prev) {
        (None, None) => EntryKind::Register,
        (None, Some(p)) if p.entry.protocol_sha256.as_deref() == Some(lp.hash.sha256.as_str()) => {
            return Err(Error::refused(format!(
                "study `{}` is already registered with this protocol (entry #{})",
                id, p.entry.seq
            )));
        }
        (None, Some(p)) => {
            return Err(Error::refused(format!(
                "study `{}` is already registered (entry #{}) with a different protocol",
                id, p.entry.seq
            ))
            .with_hint(format!(
                "to register a new version, use: pledge amend {} --reason TEXT",
                lp.path.display()
            )))
        }
        (Some(_), None) => {
            return Err(Error::refused(format!(
                "study `{}` is not registered, so there is nothing to amend",
                id
            ))
            .with_hint(format!("register it first: pledge register {}", lp.path.display())))
        }
        (Some(_), Some(p)) => {
            if p.entry.protocol_sha256.as_deref() == Some(lp.hash.sha256.as_str()) {
                return Err(Error::refused(format!(
                    "the protocol is identical to the registered version (entry #{}): nothing to amend",
                    p.entry.seq
                )));
            }
            EntryKind::Amend
        }
    };
    let level = access.unwrap_or_else(|| DataAccess::in_force(entries.iter().map(|e| &e.entry), id));
    let mut inputs = std::collections::BTreeMap::new();
    inputs.insert(format!("protocol:{}", rel), lp.hash.raw_sha256.clone());
    Ok(Draft {
        kind: Some(kind),
        study_id: id.clone(),
        protocol_sha256: Some(lp.hash.sha256.clone()),
        protocol_path: Some(rel.to_string()),
        amends: if kind == EntryKind::Amend {
            prev.and_then(|p| p.entry.protocol_sha256.clone())
        } else {
            None
        },
        inputs,
        reason: amend_reason.map(str::to_string),
        data_access: Some(level),
        rng: None,
        summary: serde_json::json!({
            "title": lp.protocol.study.title,
            "registered_by": lp.protocol.study.registered_by,
            "results_seen_at_registration": level == DataAccess::ResultsSeen,
        }),
        result: None,
        protocol_text: Some(lp.text.clone()),
    })
}

/// Records a `note` entry: a change of the declared data-access level and/or a free remark,
/// optionally tied to `study_id` (empty for the whole ledger). The summary is
/// `{"access_changed_from": LEVEL|null}`.
///
/// Errors (exit 2): an empty `reason`.
pub fn note(
    ledger: &Ledger,
    study_id: &str,
    access: Option<DataAccess>,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<Entry> {
    if reason.trim().is_empty() {
        return Err(Error::input("a note needs a non-empty --reason"));
    }
    ledger.append_with(now, |entries| {
        if !study_id.is_empty() && latest_registration(entries, study_id).is_none() {
            return Err(
                Error::refused(format!("study `{}` is not registered in this ledger", study_id))
                    .with_hint("register it first, or leave out --study for a note on the whole ledger"),
            );
        }
        let before = DataAccess::in_force(entries.iter().map(|e| &e.entry), study_id);
        let changed = access.filter(|a| *a != before);
        Ok(Draft {
            kind: Some(EntryKind::Note),
            study_id: study_id.to_string(),
            reason: Some(reason.to_string()),
            data_access: access,
            summary: serde_json::json!({ "access_changed_from": changed.map(|_| before) }),
            ..Default::default()
        })
    })
}
