//! The text forms (`--format human`) of every command's result, in one place.

mod analysis;
mod check;
mod components;
mod estimate;
pub mod eval;
mod ledger;
mod power;
pub mod register;
mod samples;

pub use components::stop_line;

use crate::output::{to_json, Format};
use serde::Serialize;

/// A result that can be written as text for people.
pub trait Human {
    /// The text form, ending with a newline.
    fn human(&self) -> String;
}

/// Renders an analysis in `format`: its JSON is the record the ledger stores
/// ([`crate::records::AnalysisRecord`], pretty-printed with a trailing newline).
pub fn render_analysis(result: &crate::stats::AnalysisResult, format: Format) -> String {
    match format {
        Format::Human => result.human(),
        Format::Json => to_json(&crate::records::AnalysisRecord::from(result)),
    }
}

/// Renders what `analyze` recorded in `format`: the human text, or the JSON of the entry's
/// `result.json` (the analysis record with the registered question set's analysis, when it
/// has one).
pub fn render_recorded(
    result: &crate::stats::AnalysisResult,
    registered: Option<&crate::records::analysis::RegisteredSet>,
    format: Format,
) -> String {
    match format {
        Format::Human => result.human(),
        Format::Json => to_json(&crate::records::AnalysisRecord {
            registered_set: registered.cloned(),
            ..crate::records::AnalysisRecord::from(result)
        }),
    }
}

/// Renders `value` in `format`: JSON is pretty-printed with a trailing newline.
pub fn render<T: Serialize + Human>(value: &T, format: Format) -> String {
    match format {
        Format::Human => value.human(),
        Format::Json => to_json(value),
    }
}
