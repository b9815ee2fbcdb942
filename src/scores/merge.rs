//! Merging the tables of several score files by topic id.

use super::{Builder, ScoreTable};
use crate::error::{Error, Result};
use std::path::PathBuf;

/// Merges tables read from several files: systems and topics in first-seen order over the files,
/// notes concatenated.
///
/// Errors (exit 2): a (topic, system) pair that has a score in two files (naming the later file).
pub fn merge(tables: Vec<(PathBuf, ScoreTable)>) -> Result<ScoreTable> {
    if tables.len() == 1 {
        return Ok(tables.into_iter().next().map(|(_, t)| t).unwrap_or_else(empty));
    }
    let mut b = Builder::default();
    for (path, t) in tables {
        for s in &t.systems {
            b.system(s);
        }
        for (si, s) in t.systems.iter().enumerate() {
            for (ti, topic) in t.topics.iter().enumerate() {
                if let Some(x) = t.values[si][ti] {
                    b.set(topic, s, x).map_err(|_| {
                        Error::in_file(
                            &path,
                            format!("topic `{}` of system `{}` already has a score from an earlier file", topic, s),
                        )
                    })?;
                }
            }
        }
        for n in t.notes {
            b.note(n);
        }
    }
    Ok(b.finish())
}

fn empty() -> ScoreTable {
    ScoreTable { systems: vec![], topics: vec![], values: vec![], notes: vec![] }
}
