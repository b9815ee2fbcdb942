//! `pledge publish REMOTE`: copy the ledger ref to another repository.

use crate::error::Result;
use crate::ledger::{self, Ledger, PublishReport};
use std::path::Path;

/// Resolves `remote` (a configured remote, a path relative to `cwd`, or a `file://` URL) and
/// pushes the ledger there (see [`ledger::publish()`]).
///
/// Errors: a network URL or no repository there (exit 2); not a fast-forward (exit 1); git
/// failures (exit 70).
pub fn publish(l: &Ledger, remote: &str, cwd: &Path) -> Result<PublishReport> {
    let r = ledger::resolve_remote(l, remote, cwd)?;
    ledger::publish(l, &r)
}
