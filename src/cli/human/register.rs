//! Text forms of `init`, `register`, `amend` and `note`.

use super::Human;
use crate::ledger::Entry;
use crate::ops::init::InitOutcome;

/// A register or amend entry, with the verb to say.
pub struct Registered<'a>(pub &'a Entry, pub &'a str);

impl Human for Registered<'_> {
    fn human(&self) -> String {
        let e = self.0;
        format!(
            "{} study `{}` as entry #{}\nprotocol sha256 {}\n",
            self.1,
            e.study_id,
            e.seq,
            e.protocol_sha256.as_deref().unwrap_or("-")
        )
    }
}

/// A note entry.
pub struct Noted<'a>(pub &'a Entry);

impl Human for Noted<'_> {
    fn human(&self) -> String {
        format!("Noted as entry #{} (data access {})\n", self.0.seq, self.0.data_access)
    }
}

impl Human for InitOutcome {
    fn human(&self) -> String {
        let verb = if self.created {
            "Created a git repository at"
        } else {
            "Using the git repository at"
        };
        format!("{} {} for the ledger ({})\n", verb, self.root, self.ledger_ref)
    }
}
