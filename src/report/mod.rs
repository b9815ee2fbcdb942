//! The reviewer-facing Markdown report, rendered from the ledger alone with minijinja, with SVG
//! pictures beside it; from the same data, a self-contained HTML page ([`html`]) and a LaTeX
//! table of the results ([`latex`]). It leads with the three statements an honest benchmark report makes: the
//! mean and the topic count, the paired-resampling interval and reversal rate, and whether the
//! evaluated runs contributed to the judgment pool (Sakai, *Laboratory Experiments in
//! Information Retrieval*, 2018; Zobel, "How reliable are the results of large-scale information
//! retrieval experiments?", SIGIR 1998, for pool bias).

mod assemble;
pub mod diagnostics;
pub mod html;
pub mod latex;
pub mod markdown;
pub mod model;
mod render;
mod sections;
pub mod svg;

pub use assemble::{assemble, pick_study, Assembled};
pub use render::{render, DEFAULT_TEMPLATE};

use crate::error::Result;
use crate::ledger::Ledger;

/// Verifies the ledger and assembles the report of `study` (or the only study).
///
/// Errors: see [`assemble`] and [`pick_study`]. A ledger that fails verification is not an
/// error: the report is still built, with the failure first.
pub fn build(ledger: &Ledger, study: Option<&str>) -> Result<Assembled> {
    let entries = ledger.entries()?;
    let id = pick_study(&entries, study)?;
    let verification = sections::verification_view(ledger)?;
    assemble(&entries, &id, verification)
}
