//! Merging the tables of several score files by topic id.

use super::{Builder, ScoreTable};
use crate::error::{Error, Result};
use crate::input::system_name_from_path;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Merges tables read from several files: systems and topics in first-seen order over the files,
/// notes concatenated. A system may come from several files when their topics differ (one
/// system's scores split over files).
///
/// Errors (exit 2): a (topic, system) pair that has a score in two files: the message names both
/// files, the hint the `--scores FILE=NAME` flags that name their systems apart.
pub fn merge(tables: Vec<(PathBuf, ScoreTable)>) -> Result<ScoreTable> {
    if tables.len() == 1 {
        return Ok(tables.into_iter().next().map(|(_, t)| t).unwrap_or_else(empty));
    }
    let mut b = Builder::default();
    // The file each (topic, system) score came from, for the message naming both.
    let mut first: HashMap<(String, String), usize> = HashMap::new();
    for (fi, (path, t)) in tables.iter().enumerate() {
        for s in &t.systems {
            b.system(s);
        }
        for (si, s) in t.systems.iter().enumerate() {
            for (ti, topic) in t.topics.iter().enumerate() {
                if let Some(x) = t.values[si][ti] {
                    if b.set(topic, s, x).is_err() {
                        let earlier = first.get(&(topic.clone(), s.clone())).map_or(0, |&i| i);
                        return Err(collision(&tables[earlier].0, path, s, topic));
                    }
                    first.insert((topic.clone(), s.clone()), fi);
                }
            }
        }
    }
    merge_samples(&mut b, &tables);
    for (_, t) in tables {
        for n in t.notes {
            b.note(n);
        }
    }
    Ok(b.finish())
}

/// Adds the samples of each table to `b` (each cell's value is already set, from its own file's
/// reduction); a system read from a file without samples has none.
fn merge_samples(b: &mut Builder, tables: &[(PathBuf, ScoreTable)]) {
    let mut agg = None;
    for (_, t) in tables {
        let Some(samples) = &t.samples else { continue };
        agg.get_or_insert(samples.aggregation);
        for (si, s) in t.systems.iter().enumerate() {
            for (ti, topic) in t.topics.iter().enumerate() {
                for x in &samples.cells[si][ti] {
                    // The cell's value came from this file alone (a pair in two files is refused
                    // above), so its keys are new.
                    let _ = b.sample(&samples.unit, topic, s, &x.key, x.value);
                }
            }
        }
    }
    if let Some(a) = agg {
        // Every cell with samples has its value: this records the aggregation only.
        let _ = b.aggregate(a);
    }
}

/// Two files give one system a score on the same topic: the error names both files and shows
/// the flags that name their systems apart (names made from the file names, else numbered).
pub(crate) fn collision(earlier: &Path, later: &Path, system: &str, topic: &str) -> Error {
    let (mut a, mut b) = (system_name_from_path(earlier), system_name_from_path(later));
    if a == b || a.is_empty() || b.is_empty() {
        (a, b) = (format!("{}-1", system), format!("{}-2", system));
    }
    Error::in_file(
        later,
        format!(
            "system `{}` is also in {}, with a score for the same topic (`{}`): two files, one system name",
            system,
            earlier.display(),
            topic
        ),
    )
    .with_hint(format!(
        "name each file's system: --scores {} --scores {} (or --system-name once per file, in order)",
        shell_word(&format!("{}={}", earlier.display(), a)),
        shell_word(&format!("{}={}", later.display(), b)),
    ))
}

/// `s` as one shell word: unchanged when it holds only safe characters, else single-quoted.
fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:@%+,=".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn empty() -> ScoreTable {
    ScoreTable {
        systems: vec![],
        topics: vec![],
        values: vec![],
        notes: vec![],
        samples: None,
    }
}
