//! `pledge init`: use the enclosing git repository for the ledger, or create one.

use crate::error::Result;
use crate::ledger::Ledger;
use serde::Serialize;
use std::path::Path;

/// What `init` did.
#[derive(Debug, Clone, Serialize)]
pub struct InitOutcome {
    /// The repository's work tree root.
    pub root: String,
    /// Whether a repository was created.
    pub created: bool,
    /// The ledger ref.
    pub ledger_ref: &'static str,
}

/// Uses the git repository enclosing `dir`, or creates one there.
///
/// Errors (exit 70): the repository cannot be created.
pub fn init(dir: &Path) -> Result<InitOutcome> {
    let (ledger, created) = Ledger::init(dir)?;
    Ok(InitOutcome {
        root: ledger.root().display().to_string(),
        created,
        ledger_ref: crate::ledger::LEDGER_REF,
    })
}
