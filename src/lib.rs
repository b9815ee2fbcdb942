//! pledge: a pre-registration and audit ledger for evaluation benchmarks.
//!
//! A team registers a TOML [`protocol`] before seeing data; its SHA-256 goes into a hash-chained
//! [`ledger`] kept in git. [`components`] counts independent components under the registered link
//! rules and applies the stop rule; [`power`] computes components needed for a minimum detectable
//! difference; [`stats`] runs paired, stratified and component bootstraps and tests over
//! per-topic [`scores`] (or per-topic measures from TREC runs and qrels, [`trec`]); [`report`]
//! renders the reviewer-facing Markdown report. The command-line interface ([`cli`]) is a thin
//! layer over these modules, which never print or exit.
//!
//! Methods follow two articles kept with the project (how many topics a benchmark needs; why
//! questions are counted by component) and the references named in each module.

pub mod assignment;
#[cfg(feature = "cli")]
pub mod cli;
pub mod components;
pub mod error;
pub mod formats;
pub mod gate;
pub mod input;
pub mod io;
pub mod ledger;
pub mod named;
pub mod ops;
pub mod output;
pub mod power;
pub mod protocol;
pub mod records;
pub mod report;
pub mod rng;
pub mod scores;
pub mod stats;
pub mod tabular;
pub mod text;
pub mod trec;

pub use error::{Error, Result};

/// Whether a test's outside tool is there (fails the test under `CI=true` when it is not).
#[cfg(test)]
#[path = "../tests/cli/tools.rs"]
pub(crate) mod test_tools;
