//! Repeated samples per topic: inspect_ai's epochs, a long table's sample column (seeds,
//! repeats). The readers keep every sample of a (topic, system) cell with its key (the epoch
//! number, the seed, as the file names it) and reduce the samples to the cell's one value with
//! the registered [`SampleAggregation`].
//!
//! Unequal sample counts across topics or systems are used as they are: each cell is reduced
//! from the samples it has, and a note says how many samples the cells hold (least and most).

use super::ScoreTable;
use crate::protocol::SampleAggregation;
use serde::Serialize;

/// One sample of a (topic, system) cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// The sample's key as the file names it: the epoch (`1`, `2`, ...), the seed, the repeat.
    /// Samples of two systems with the same key are paired (the same seed or epoch).
    pub key: String,
    /// The score, in the metric's own scale.
    pub value: f64,
}

/// The repeated samples of a score table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Samples {
    /// What one sample is: `epoch` (inspect_ai) or the sample column's name.
    pub unit: String,
    /// `cells[s][t]`: the samples of system `s` on topic `t`, in the file's order (empty where
    /// the cell has none).
    pub cells: Vec<Vec<Vec<Sample>>>,
    /// How the samples were reduced to [`ScoreTable::values`].
    pub aggregation: SampleAggregation,
}

impl Samples {
    /// The least and the most samples a cell holds, over the cells that hold any.
    pub fn count_range(&self) -> Option<(usize, usize)> {
        let counts = self.cells.iter().flatten().map(Vec::len).filter(|&k| k > 0);
        counts.fold(None, |acc, k| match acc {
            None => Some((k, k)),
            Some((lo, hi)) => Some((lo.min(k), hi.max(k))),
        })
    }
}

/// Reduces one cell's samples to its value with `agg`; `Err` says why it cannot (no samples,
/// or `majority` over a value other than 0 or 1).
pub fn aggregate(samples: &[Sample], agg: SampleAggregation) -> std::result::Result<f64, String> {
    let first = samples.first().ok_or_else(|| "no samples".to_string())?;
    match agg {
        SampleAggregation::Mean => Ok(samples.iter().map(|s| s.value).sum::<f64>() / samples.len() as f64),
        SampleAggregation::First => Ok(first.value),
        SampleAggregation::Majority => {
            if let Some(s) = samples.iter().find(|s| s.value != 0.0 && s.value != 1.0) {
                return Err(format!(
                    "sample `{}` is {}: `majority` takes 0/1 scores only (use `mean` or `first`)",
                    s.key, s.value
                ));
            }
            let ones = samples.iter().filter(|s| s.value == 1.0).count();
            let zeros = samples.len() - ones;
            Ok(match ones.cmp(&zeros) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Less => 0.0,
                std::cmp::Ordering::Equal => first.value,
            })
        }
    }
}

/// The note a table with repeated samples carries (none when every cell has one sample): the
/// unit, the counts, the aggregation.
pub(crate) fn note(path: &std::path::Path, s: &Samples) -> Option<String> {
    let (lo, hi) = s.count_range().filter(|&(_, hi)| hi > 1)?;
    let counts = if lo == hi {
        format!("{} {}s per topic and system", lo, s.unit)
    } else {
        format!(
            "{} to {} {}s per topic and system (unequal: each topic's value is reduced from the samples it has)",
            lo, hi, s.unit
        )
    };
    Some(format!(
        "{}: {}, reduced per topic with `{}`",
        path.display(),
        counts,
        s.aggregation
    ))
}

/// The order of epochs (or other sample keys): by number when both are numbers, else by text.
pub(crate) fn by_epoch(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}

/// `t` with the note of its samples (see [`note`]), read from `path`.
pub(crate) fn noted(path: &std::path::Path, mut t: ScoreTable) -> ScoreTable {
    if let Some(n) = t.samples.as_ref().and_then(|s| note(path, s)) {
        t.notes.push(n);
    }
    t
}

impl ScoreTable {
    /// Keeps the systems at `idx` (in that order), with their samples.
    pub fn select_systems(&mut self, idx: &[usize]) {
        self.systems = idx.iter().map(|&i| self.systems[i].clone()).collect();
        self.values = idx.iter().map(|&i| self.values[i].clone()).collect();
        if let Some(s) = &mut self.samples {
            s.cells = idx.iter().map(|&i| s.cells[i].clone()).collect();
        }
    }

    /// Keeps the topics at `idx` (in that order), with their samples.
    pub fn select_topics(&mut self, idx: &[usize]) {
        self.topics = idx.iter().map(|&i| self.topics[i].clone()).collect();
        self.values = self
            .values
            .iter()
            .map(|row| idx.iter().map(|&i| row[i]).collect())
            .collect();
        if let Some(s) = &mut self.samples {
            s.cells = s
                .cells
                .iter()
                .map(|row| idx.iter().map(|&i| row[i].clone()).collect())
                .collect();
        }
    }
}

/// Merges the tables of several files whose systems repeat (one file per seed or repeat of a
/// system, `--sample-files UNIT`): every value becomes a sample of its (topic, system) cell,
/// keyed by the file's position among that system's files (`1`, `2`, ...; the i-th file of each
/// system is its sample i), and each cell's value is its samples reduced with `agg`.
///
/// Errors (exit 2): a file that already has repeated samples (inspect_ai epochs, a sample
/// column); a cell that cannot be reduced (`majority` over a value other than 0 or 1).
pub(crate) fn from_files(
    tables: Vec<(std::path::PathBuf, ScoreTable)>,
    unit: &str,
    agg: SampleAggregation,
) -> crate::error::Result<ScoreTable> {
    use crate::error::Error;
    let mut b = super::Builder::default();
    let mut files_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut notes = Vec::new();
    for (path, t) in &tables {
        if t.samples.is_some() {
            return Err(Error::in_file(
                path,
                format!(
                    "already holds repeated samples, so it cannot be one {} of a system (--sample-files)",
                    unit
                ),
            )
            .with_hint("give either one file per sample (--sample-files) or files with their samples inside"));
        }
        for (si, s) in t.systems.iter().enumerate() {
            b.system(s);
            let k = files_of.entry(s.clone()).or_insert(0);
            *k += 1;
            let key = k.to_string();
            for (ti, topic) in t.topics.iter().enumerate() {
                if let Some(x) = t.values[si][ti] {
                    // Each file adds a new key for each of its systems: never a duplicate.
                    let _ = b.sample(unit, topic, s, &key, x);
                }
            }
        }
        notes.extend(t.notes.iter().cloned());
    }
    b.aggregate(agg).map_err(Error::input)?;
    for n in notes {
        b.note(n);
    }
    let mut systems: Vec<(&String, &usize)> = files_of.iter().collect();
    systems.sort();
    let counts: Vec<String> = systems.iter().map(|(s, k)| format!("{} {}", s, k)).collect();
    b.note(format!(
        "{} files read as repeated samples (one {} per file; the i-th file of each system is its {} i, paired across systems): {}",
        tables.len(),
        unit,
        unit,
        counts.join(", ")
    ));
    Ok(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xs(v: &[f64]) -> Vec<Sample> {
        v.iter()
            .enumerate()
            .map(|(i, &value)| Sample {
                key: (i + 1).to_string(),
                value,
            })
            .collect()
    }

    #[test]
    fn the_aggregations_reduce_as_documented() {
        let agg = |v: &[f64], a| aggregate(&xs(v), a).unwrap();
        assert_eq!(agg(&[1.0, 0.0, 0.5], SampleAggregation::Mean), 0.5);
        assert_eq!(agg(&[0.25, 1.0], SampleAggregation::First), 0.25);
        assert_eq!(agg(&[0.0, 1.0, 1.0], SampleAggregation::Majority), 1.0);
        assert_eq!(agg(&[1.0, 0.0, 0.0], SampleAggregation::Majority), 0.0);
        // A tie takes the first sample's value.
        assert_eq!(agg(&[0.0, 1.0], SampleAggregation::Majority), 0.0);
        assert_eq!(agg(&[1.0, 0.0, 0.0, 1.0], SampleAggregation::Majority), 1.0);
        let e = aggregate(&xs(&[1.0, 0.5]), SampleAggregation::Majority).unwrap_err();
        assert!(e.contains("sample `2` is 0.5") && e.contains("0/1"), "{}", e);
        assert!(aggregate(&[], SampleAggregation::Mean).is_err());
    }
}
