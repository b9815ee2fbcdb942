//! Line splitting shared by the run and qrels readers.

use crate::error::{Error, Result};
use std::path::Path;

/// What to do with a second line for the same (topic, docno).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Duplicates {
    /// A bad-input error naming the file and line (default; trec_eval also refuses duplicates).
    #[default]
    Error,
    /// Keep the first line seen and ignore later ones.
    KeepFirst,
}

/// Splits `line` on spaces and tabs into its first `N` fields. Blank lines and lines whose first
/// non-blank character is `#` give `Ok(None)`; extra fields are ignored.
///
/// Errors: fewer than `N` fields (`path:no: expected ...`).
pub fn fields<'a, const N: usize>(
    line: &'a str,
    path: &Path,
    no: usize,
    expected: &str,
) -> Result<Option<[&'a str; N]>> {
    if line.trim_start().starts_with('#') {
        return Ok(None);
    }
    let mut it = line.split_ascii_whitespace();
    let mut out = [""; N];
    for (i, slot) in out.iter_mut().enumerate() {
        match it.next() {
            Some(f) => *slot = f,
            None if i == 0 => return Ok(None),
            None => {
                return Err(Error::at(
                    path,
                    no,
                    format!("expected {} fields `{}`, found {}", N, expected, i),
                ))
            }
        }
    }
    Ok(Some(out))
}
