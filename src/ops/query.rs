//! The words for the registration's refusals (their hints, the error a command returns). What
//! the registration allows is decided by the rules ([`crate::ledger::rules`]), never here.

use crate::error::Refusal;

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
        Refusal::Data(_) => Some(
            "analyze the data the study's first analysis read (restore the file), or proceed and record the change with --deviation \"reason\"".into(),
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
