//! Questions commands ask of a ledger's entries: a study's registration in force, whether a
//! protocol is the registered one, the latest entry of some kinds.

use crate::error::Refusal;
use crate::ledger::{EntryKind, StoredEntry};
use crate::protocol::LoadedProtocol;

/// The latest `register` or `amend` entry of `study_id`, if any.
pub fn latest_registration<'a>(entries: &'a [StoredEntry], study_id: &str) -> Option<&'a StoredEntry> {
    latest(entries, study_id, &[EntryKind::Register, EntryKind::Amend])
}

/// The latest entry of `study_id` whose kind is one of `kinds`.
pub fn latest<'a>(entries: &'a [StoredEntry], study_id: &str, kinds: &[EntryKind]) -> Option<&'a StoredEntry> {
    entries
        .iter()
        .rev()
        .find(|e| e.entry.study_id == study_id && kinds.contains(&e.entry.kind))
}

/// Checks that `lp` is the protocol currently registered for its study; returns the
/// registration entry.
///
/// Refusals: the study has no registration ([`Refusal::Unregistered`]); the protocol's hash
/// differs from the latest registered one ([`Refusal::Changed`]).
pub fn check_registered<'a>(entries: &'a [StoredEntry], lp: &LoadedProtocol) -> Result<&'a StoredEntry, Refusal> {
    let id = &lp.protocol.study.id;
    let path = lp.path.display().to_string();
    let reg = latest_registration(entries, id).ok_or_else(|| Refusal::Unregistered {
        path: path.clone(),
        study: id.clone(),
    })?;
    if reg.entry.protocol_sha256.as_deref() != Some(lp.hash.sha256.as_str()) {
        return Err(Refusal::Changed {
            path,
            seq: reg.entry.seq,
            registered: reg.entry.protocol_sha256.clone().unwrap_or_else(|| "-".into()),
            now: lp.hash.sha256.clone(),
        });
    }
    Ok(reg)
}

/// The hint that goes with a registration refusal: register an unregistered protocol, amend a
/// changed one.
pub fn registration_hint(r: &Refusal) -> Option<String> {
    match r {
        Refusal::Unregistered { path, .. } => Some(format!("register it first: pledge register {}", path)),
        Refusal::Changed { path, .. } => Some(format!(
            "restore the registered file, or record the change with `pledge amend {} --reason TEXT`",
            path
        )),
        _ => None,
    }
}

/// A registration refusal as the error a command returns (exit 1) with its hint.
pub fn refusal_error(r: Refusal) -> crate::error::Error {
    let hint = registration_hint(&r);
    let mut e = crate::error::Error::refused(r.headline());
    if let Some(d) = r.detail() {
        e = e.caused_by(d);
    }
    match hint {
        Some(h) => e.with_hint(h),
        None => e,
    }
}
