//! Per-topic score inputs: long CSV/TSV (`topic,system,score`), wide CSV/TSV (a topic column and
//! one column per system), JSON Lines, and `trec_eval -q` output. Topics are joined by id, never
//! by position; topic ids are strings.

use crate::error::{Error, Result};
use serde::Serialize;
use std::path::Path;

/// Per-topic scores of several systems, joined by topic id.
///
/// `values[s][t]` is the score of `systems[s]` on `topics[t]`, `None` when that system has no
/// score for that topic. Topics keep first-seen order; systems keep first-seen order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreTable {
    /// System (run) names.
    pub systems: Vec<String>,
    /// Topic ids.
    pub topics: Vec<String>,
    /// Scores, `[system][topic]`, in the metric's own scale.
    pub values: Vec<Vec<Option<f64>>>,
    /// Notes found while reading (e.g. a `trec_eval` `all` row that disagrees with the mean).
    pub notes: Vec<String>,
}

/// Reads a score file, detecting its layout (see the module docs).
///
/// Errors (exit 2): missing or empty file, duplicate (topic, system), NaN or non-numeric score;
/// each names the file and line.
pub fn read(path: &Path) -> Result<ScoreTable> {
    Err(Error::internal(format!(
        "reading scores from {} is not implemented yet",
        path.display()
    )))
}
