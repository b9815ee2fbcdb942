//! Whether the component count an analysis rests on stands under the registration in force.

use super::super::entry::{hashes_of, Entry, InputRole, Inputs};
use super::state::{StudyState, Version};
use super::violation::Violation;

/// When analysis `e` of study `s` rests on the study's latest count (with splits in the
/// analysis's protocol, or when it used a component assignment) and that count was made under
/// another protocol version that counted otherwise ([`crate::protocol::count_basis_changes`])
/// or on another pilot than the registration in force records ([`pilot_change`]): the
/// [`Violation::Recount`]. `None` as well when a protocol text needed is not in the ledger.
pub(super) fn counted_otherwise(s: &StudyState, e: &Entry) -> Option<Violation> {
    let count = s.latest_count.as_ref()?;
    let (now, then) = (e.protocol_sha256.as_deref()?, count.protocol.as_deref()?);
    let reg = s.in_force();
    // The common case, read without parsing a protocol: the same version and pilot.
    let same_pilot = |r: &Version| hashes_of(&r.pilot, InputRole::Pilot) == hashes_of(&count.inputs, InputRole::Pilot);
    if now == then && reg.is_none_or(same_pilot) {
        return None;
    }
    let path = std::path::Path::new("protocol.toml");
    let new_text = s.version(now)?.text.as_deref()?;
    let new = crate::protocol::parse(new_text, path).ok()?;
    if new.splits.is_empty() && hashes_of(&e.inputs, InputRole::Assignment).is_empty() {
        return None;
    }
    let mut changes = Vec::new();
    if now != then {
        let old_text = s.version(then)?.text.as_deref()?;
        let old = crate::protocol::parse(old_text, path).ok()?;
        changes = crate::protocol::count_basis_changes(&old, old_text, &new, new_text);
    }
    changes.extend(reg.and_then(|r| pilot_change(&new, &count.inputs, &r.pilot)));
    (!changes.is_empty()).then(|| Violation::Recount {
        seq: count.seq,
        protocol: crate::text::short(then, 12).to_string(),
        changes: changes.join("; "),
    })
}

/// When the requirement's σ comes from the pilot file (a `"from-target"` split, `target.pilot`
/// and no `target.sd` in `p`), and the pilot's SHA-256 recorded by a count (`counted`, the
/// count entry's inputs) differs from the one registered (`registered`, the registration's
/// inputs): `the pilot file's SHA-256: OLD → NEW` (12 hex digits each, `none` when absent).
pub fn pilot_change(p: &crate::protocol::Protocol, counted: &Inputs, registered: &Inputs) -> Option<String> {
    if !p.derives_requirement() || p.target.sd.is_some() || p.target.pilot.is_none() {
        return None;
    }
    let pilot = |inputs: &Inputs| -> Vec<String> {
        hashes_of(inputs, InputRole::Pilot)
            .into_iter()
            .map(|h| crate::text::short(h, 12).to_string())
            .collect()
    };
    let (a, b) = (pilot(counted), pilot(registered));
    let show = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    (a != b).then(|| format!("the pilot file's SHA-256: {} → {}", show(&a), show(&b)))
}
