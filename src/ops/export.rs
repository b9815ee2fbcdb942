//! `pledge export FILE`: the ledger as portable JSON Lines (verified offline with
//! `pledge verify --ledger FILE`).

pub use crate::ledger::{export_to as export, ExportSummary};
