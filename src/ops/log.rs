//! `pledge log`: the ledger's entries with their commits, first to last.

pub use crate::ledger::{log, LogItem};
