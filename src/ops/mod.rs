//! One home for each command's work. An op takes typed options, the clock and the repository,
//! does every check and every ledger append (inside one [`Ledger::append_many_with`], so the
//! checks hold for the entries that land and a command's entries land together or not at all),
//! and returns data: nothing here prints or exits. Notes and warnings meant for people are
//! returned in a [`Notes`] list; `cli/` prints them.
//!
//! [`Ledger::append_many_with`]: crate::ledger::Ledger::append_many_with

pub mod analyze;
mod attempt;
pub mod check;
pub mod checks;
pub mod components;
pub mod demo;
pub mod estimate;
pub mod eval;
pub mod export;
mod flagged;
pub mod init;
pub mod inputs;
pub mod log;
pub mod new;
pub mod note;
pub mod power;
pub mod publish;
pub mod query;
pub mod register;
pub mod registered_set;
pub mod report;
pub mod report_check;
pub mod rerun;
pub mod timestamp;
pub mod trace;
pub mod verify;

use serde::Serialize;

crate::named_enum! {
    /// How much a [`Note`] matters.
    pub enum NoteLevel {
        /// A fact worth knowing.
        Note = "note",
        /// Something that may be wrong.
        Warning = "warning",
    }
}

/// A message for people that an op returns instead of printing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// Note or warning.
    pub level: NoteLevel,
    /// One sentence.
    pub text: String,
}

/// The notes an op returns, in the order they arose.
pub type Notes = Vec<Note>;

impl Note {
    /// A note.
    pub fn info(text: impl Into<String>) -> Self {
        Note {
            level: NoteLevel::Note,
            text: text.into(),
        }
    }

    /// A warning.
    pub fn warning(text: impl Into<String>) -> Self {
        Note {
            level: NoteLevel::Warning,
            text: text.into(),
        }
    }
}
