//! The reviewer-facing Markdown report (seed article "How Many Topics a Benchmark Needs": the
//! mean and topic count, the interval or reversal rate from paired resampling, and whether the
//! evaluated runs contributed to the judgment pool), rendered from the ledger alone with
//! minijinja, with SVG pictures beside it.

mod assemble;
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
    assemble(ledger, &entries, &id, verification)
}
