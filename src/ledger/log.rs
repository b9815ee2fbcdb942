//! `pledge log`: the ledger's entries with their commits, first to last.

use super::entry::Entry;
use super::store::Ledger;
use crate::error::Result;
use serde::Serialize;

/// One row of `pledge log`: the entry object with the commit that holds it. In JSON the entry's
/// keys are inlined next to `commit`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogItem {
    /// The ledger commit id (hex).
    pub commit: String,
    /// The entry.
    #[serde(flatten)]
    pub entry: Entry,
}

/// All entries of the ledger, first to last. Errors: a malformed entry (exit 2; `verify` lists
/// such problems as findings), git failures (exit 70).
pub fn log(ledger: &Ledger) -> Result<Vec<LogItem>> {
    let Some(tip) = ledger.tip()? else {
        return Ok(vec![]);
    };
    // Only `entry.json` is read of each commit (not the result or protocol files).
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(oid) = next {
        let (entry, parent) = ledger.read_entry_and_parent(oid)?;
        out.push(LogItem {
            commit: oid.to_string(),
            entry,
        });
        next = parent;
    }
    out.reverse();
    Ok(out)
}
