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
        Refusal::Stopped { .. } => Some(
            "the study has too few components for its registered target: add components and count again, or proceed and record it with --deviation \"reason\"".into(),
        ),
        Refusal::Recount { .. } => Some(
            "count again under the protocol in force with `pledge components` on the same inputs (no reason needed), or proceed and record it with --deviation \"reason\"".into(),
        ),
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

/// When the study's latest component count (its latest `count`, `stop` or `go` entry) was made
/// under another version of the protocol than `lp` that fixed otherwise what the count decides
/// from ([`crate::protocol::count_basis_changes`]), or on another pilot file than the one
/// registered now ([`crate::protocol::pilot_change`]): the refusal naming each changed value
/// ([`Refusal::Recount`]).
///
/// The earlier version is the `register`/`amend` entry before the count that stored its text,
/// looked up among `entries` and then by `earlier(count, accept)` (the latest entry before the
/// count that `accept` takes: a `register`/`amend` entry of the study with the count's hash); when none holds a text that parses, the
/// count is refused as made under an unknown protocol. No count, or a count under the same
/// protocol hash and pilot, gives `None`.
///
/// Errors: those of `earlier` (a ledger commit that cannot be read).
pub fn count_basis(
    entries: &[StoredEntry],
    lp: &LoadedProtocol,
    earlier: impl Fn(&StoredEntry, &dyn Fn(&StoredEntry) -> bool) -> crate::error::Result<Option<StoredEntry>>,
) -> crate::error::Result<Option<Refusal>> {
    let study = &lp.protocol.study.id;
    let Some(count) = latest(entries, study, &[EntryKind::Count, EntryKind::Stop, EntryKind::Go]) else {
        return Ok(None);
    };
    let Some(counted_under) = count.entry.protocol_sha256.as_deref() else {
        return Ok(None);
    };
    let refusal = |changes: String| Refusal::Recount {
        seq: count.entry.seq,
        protocol: crate::text::short(counted_under, 12).to_string(),
        changes,
    };
    let pilot = latest_registration(entries, study)
        .and_then(|reg| crate::protocol::pilot_change(&lp.protocol, &count.entry.inputs, &reg.entry.inputs));
    if counted_under == lp.hash.sha256 {
        return Ok(pilot.map(refusal));
    }
    let registers = |e: &StoredEntry| {
        e.entry.seq < count.entry.seq
            && e.entry.study_id == *study
            && matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend)
            && e.entry.protocol_sha256.as_deref() == Some(counted_under)
    };
    let found = match entries.iter().rev().find(|e| registers(e)) {
        Some(e) => Some(e.clone()),
        None => earlier(count, &registers)?,
    };
    let Some(old_text) = found.as_ref().and_then(|e| e.protocol_text.as_deref()) else {
        return Ok(Some(refusal("the protocol (its text is not in the ledger)".into())));
    };
    let path = std::path::Path::new(count.entry.protocol_path.as_deref().unwrap_or("protocol.toml"));
    let Ok(old) = crate::protocol::parse(old_text, path) else {
        return Ok(Some(refusal(
            "the protocol (its earlier text no longer reads as a protocol)".into(),
        )));
    };
    let mut listed = crate::protocol::count_basis_changes(&old, old_text, &lp.protocol, &lp.text);
    listed.extend(pilot);
    Ok((!listed.is_empty()).then(|| refusal(listed.join("; "))))
}
