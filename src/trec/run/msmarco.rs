//! MS MARCO 3-column runs: `qid<TAB>docid<TAB>rank` (tabs or spaces), as Anserini's and
//! pyserini's `--output-format msmarco` write them. A document's score is `1/rank`, as
//! pyserini's `convert_msmarco_run_to_trec_run` gives it, so documents rank as the file ranks
//! them.

use crate::error::{Error, Result};
use std::path::Path;

/// Whether `text` is an MS MARCO run: its first line that is not blank or a `#` comment has
/// exactly three fields, the third a positive integer (a TREC run has six).
pub(super) fn detect(text: &str) -> bool {
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let f: Vec<&str> = line.split_ascii_whitespace().collect();
    f.len() == 3 && f[2].parse::<u64>().is_ok_and(|r| r > 0)
}

/// Reads an MS MARCO run into (query, [(document, 1/rank)]) in file order.
///
/// Errors (exit 2, `file:line`): a line without three fields; a rank that is not a positive
/// integer.
pub(super) fn pairs(path: &Path, text: &str) -> Result<super::super::ranx::Pairs> {
    let mut out: super::super::ranx::Pairs = Vec::new();
    let mut index = std::collections::HashMap::new();
    for (no, line) in crate::io::lines(text) {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = l.split_ascii_whitespace().collect();
        if f.len() != 3 {
            return Err(Error::at(
                path,
                no,
                format!(
                    "expected 3 fields `qid docid rank` (an MS MARCO run), found {}",
                    f.len()
                ),
            ));
        }
        let rank = f[2]
            .parse::<u64>()
            .ok()
            .filter(|r| *r > 0)
            .ok_or_else(|| Error::at(path, no, format!("rank `{}` is not a positive integer", f[2])))?;
        let i = *index.entry(f[0].to_string()).or_insert_with(|| {
            out.push((f[0].to_string(), Vec::new()));
            out.len() - 1
        });
        out[i].1.push((f[1].to_string(), 1.0 / rank as f64));
    }
    if out.is_empty() {
        return Err(Error::in_file(path, "run is empty (expected `qid docid rank` lines)"));
    }
    Ok(out)
}
