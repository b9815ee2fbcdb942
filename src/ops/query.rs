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
/// under another version of the protocol than `lp`, and that version fixed otherwise what the
/// count decides from, the refusal naming each changed value ([`Refusal::Recount`]).
///
/// What a count decides from: `[components]` and `[[link-rules]]` (which questions form one
/// component); with splits in either version, `[[splits]]` and `[stop-rule]`; with a split whose
/// `required-components` is `"from-target"`, `[target]` and the pilot file's SHA-256. The
/// earlier version is read from the `register`/`amend` entry that stored its text; when no
/// entry does (or the text no longer parses), the count is refused as made under an unknown
/// protocol. A count under the same protocol hash, or none at all, gives `None`.
pub fn count_basis(entries: &[StoredEntry], lp: &LoadedProtocol) -> Option<Refusal> {
    let study = &lp.protocol.study.id;
    let count = latest(entries, study, &[EntryKind::Count, EntryKind::Stop, EntryKind::Go])?;
    let counted_under = count.entry.protocol_sha256.as_deref()?;
    if counted_under == lp.hash.sha256 {
        return None;
    }
    let refusal = |changes: String| Refusal::Recount {
        seq: count.entry.seq,
        protocol: crate::text::short(counted_under, 12).to_string(),
        changes,
    };
    let earlier = entries.iter().rev().find(|e| {
        e.entry.seq < count.entry.seq
            && e.entry.study_id == *study
            && matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend)
            && e.entry.protocol_sha256.as_deref() == Some(counted_under)
    });
    let Some(old_text) = earlier.and_then(|e| e.protocol_text.as_deref()) else {
        return Some(refusal("the protocol (its text is not in the ledger)".into()));
    };
    let path = std::path::Path::new(count.entry.protocol_path.as_deref().unwrap_or("protocol.toml"));
    let Ok(old) = crate::protocol::parse(old_text, path) else {
        return Some(refusal(
            "the protocol (its earlier text no longer reads as a protocol)".into(),
        ));
    };
    let mut listed = crate::protocol::count_basis_changes(&old, old_text, &lp.protocol, &lp.text);
    // The pilot's SD (when it gives the requirement's σ) registered anew under the same path.
    let t = &lp.protocol.target;
    if lp.protocol.derives_requirement() && t.sd.is_none() && t.pilot.is_some() && listed.is_empty() {
        let pilot = |e: &StoredEntry| -> Vec<String> {
            e.entry
                .inputs
                .iter()
                .filter(|(k, _)| k.role == crate::ledger::InputRole::Pilot)
                .map(|(_, h)| h.clone())
                .collect()
        };
        if let Some(reg) = latest_registration(entries, study) {
            if pilot(count) != pilot(reg) {
                listed.push(format!(
                    "the pilot file (entry #{} registers another SHA-256)",
                    reg.entry.seq
                ));
            }
        }
    }
    (!listed.is_empty()).then(|| refusal(listed.join("; ")))
}
