//! Delimited (CSV/TSV) scores with a header row: long, one-system-per-file, and wide layouts.

use super::{check_summary, duplicate_in, parse_value, value::is_number, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use std::path::Path;

use crate::tabular::ID_NAMES;
use crate::tabular::{is_id_name, Record, Table};

/// Reads a delimited score file (see the module docs of [`crate::scores`]).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let table = Table::parse(path, text, None)?;
    read_table(&table, opts)
}

/// Reads scores from a table (delimited text, flat JSON objects or Parquet rows): long when the
/// header has `topic`, `system` and `score`, one system per file with [`ReadOptions::column`],
/// else wide (see the module docs of [`crate::scores`]).
pub(super) fn read_table(table: &Table, opts: &ReadOptions) -> Result<ScoreTable> {
    let rows: Vec<&Record> = table.records.iter().filter(|r| !r.is_blank()).collect();
    let path = table.path.as_path();
    if rows.is_empty() {
        return Err(Error::in_file(
            path,
            "no data rows after the header (expected per-topic scores)",
        ));
    }
    let layout = |what: &str| not_long(table, opts, what);
    if !super::promptfoo::csv_systems(table).is_empty() {
        layout("promptfoo results")?;
        return super::promptfoo::read_table(table, opts);
    }
    if super::inspect_samples::is_samples(table) {
        layout("an inspect_ai samples table (its `epoch` column names the samples)")?;
        return super::inspect_samples::read_table(table, opts);
    }
    let col = |name: &str| table.column(name);
    let topic = match &opts.topic_column {
        Some(tc) => Some(table.require(tc, "topic-id")?),
        None => col("topic"),
    };
    if let (Some(t), Some(s), Some(v)) = (topic, col("system"), col("score")) {
        if let Some(sc) = &opts.sample_column {
            let k = table.require(sc, "sample")?;
            return long_samples(table, &rows, (t, s, v, k), opts);
        }
        return long(table, &rows, (t, s, v), opts);
    }
    layout("not a long table (no `topic`, `system` and `score` columns)")?;
    if let Some(c) = &opts.column {
        let v = table.require(c, "score")?;
        return per_system(table, &rows, v, opts);
    }
    if let Some((t, s, m, v)) = super::measure_long::columns(table) {
        return super::measure_long::read_table(table, t, s, m, v, opts, "a topic/measure/value table");
    }
    wide(table, &rows, opts)
}

fn long(table: &Table, rows: &[&Record], (t, s, v): (usize, usize, usize), opts: &ReadOptions) -> Result<ScoreTable> {
    let mut b = Builder::default();
    for r in rows {
        let (topic, system) = (r.get(t), r.get(s));
        if topic.is_empty() || system.is_empty() {
            return Err(table.err(r, "topic and system must not be empty"));
        }
        let x = parse_value(r.get(v), opts).map_err(|m| table.err(r, m))?;
        b.set(topic, system, x)
            .map_err(|_| duplicate_in(table, r.line, topic, system))?;
    }
    Ok(b.finish())
}

/// Refuses [`ReadOptions::sample_column`] on a table read as `what` (only a long table takes it).
fn not_long(table: &Table, opts: &ReadOptions, what: &str) -> Result<()> {
    match &opts.sample_column {
        None => Ok(()),
        Some(c) => Err(table
            .header_err(format!(
                "--sample-column {} applies to a long table (columns topic, system, score and the sample column), but this file is {}",
                c, what
            ))
            .with_hint("drop --sample-column (or the protocol's [scores] sample-column) for this file")),
    }
}

/// A long table with several rows per (topic, system), one per sample named in column `k`:
/// every sample is kept and the cell's value is the samples reduced with
/// [`ReadOptions::sample_aggregation`] ([`crate::scores::aggregate`]).
///
/// Errors (exit 2): an empty topic, system or sample key; a (topic, system, sample) row given
/// twice; a value that does not parse; `majority` over a value other than 0 or 1.
fn long_samples(
    table: &Table,
    rows: &[&Record],
    (t, s, v, k): (usize, usize, usize, usize),
    opts: &ReadOptions,
) -> Result<ScoreTable> {
    let mut b = Builder::default();
    let unit = table.headers[k].clone();
    for r in rows {
        let (topic, system, key) = (r.get(t), r.get(s), r.get(k));
        if topic.is_empty() || system.is_empty() || key.is_empty() {
            return Err(table.err(r, format!("topic, system and {} must not be empty", unit)));
        }
        let x = parse_value(r.get(v), opts).map_err(|m| table.err(r, m))?;
        b.sample(&unit, topic, system, key, x).map_err(|_| {
            table.err(
                r,
                format!(
                    "{} `{}` of topic `{}` and system `{}` appears twice",
                    unit, key, topic, system
                ),
            )
        })?;
    }
    b.aggregate(opts.aggregation())
        .map_err(|m| Error::in_file(&table.path, m))?;
    Ok(super::samples::noted(&table.path, b.finish()))
}

fn per_system(table: &Table, rows: &[&Record], v: usize, opts: &ReadOptions) -> Result<ScoreTable> {
    let (path, headers) = (table.path.as_path(), &table.headers);
    let t = match &opts.topic_column {
        Some(tc) => table.require(tc, "topic-id")?,
        None => headers.iter().position(|h| is_id_name(h)).unwrap_or(0),
    };
    let system = opts.system_name(path);
    let mut b = Builder::default();
    b.system(&system);
    let mut vals = Vec::new();
    let mut summary = None;
    for r in rows {
        let topic = r.get(t);
        if topic.is_empty() {
            if summary.is_some() {
                return Err(table.err(r, "a second row with an empty topic id"));
            }
            summary = Some(r.get(v).to_string());
            continue;
        }
        let x = parse_value(r.get(v), opts).map_err(|m| table.err(r, m))?;
        vals.push(x);
        b.set(topic, &system, x)
            .map_err(|_| duplicate_in(table, r.line, topic, &system))?;
    }
    if let Some(s) = summary {
        let what = format!("the summary row (empty topic id) of column `{}`", headers[v]);
        if let Some(n) = check_summary(path, &what, &s, &vals) {
            b.note(n);
        }
    }
    Ok(b.finish())
}

fn wide(table: &Table, rows: &[&Record], opts: &ReadOptions) -> Result<ScoreTable> {
    let (path, headers) = (table.path.as_path(), &table.headers);
    // Columns that came from JSON objects or Parquet have no reliable order: the topic column is
    // found by name there.
    let id_col = match (&opts.topic_column, table.delimiter) {
        (Some(tc), _) => table.require(tc, "topic-id")?,
        (None, Some(_)) => 0,
        (None, None) => table.id_column().ok_or_else(|| {
            table.header_err(format!(
                "no topic-id column (one of {}) among the fields ({})",
                ID_NAMES.join(", "),
                headers.join(", ")
            ))
        })?,
    };
    // A first column named as an id (or `question`, the header `pledge new`'s protocols and the
    // README use) holds the topic ids even when they are numbers; only an unnamed numeric first
    // column makes the topics row numbers.
    let named_id = is_id_name(&headers[0]) || headers[0].trim().eq_ignore_ascii_case("question");
    let by_row = opts.topic_column.is_none()
        && table.delimiter.is_some()
        && !named_id
        && rows[0].cells.iter().all(|c| is_number(c));
    let first_sys = if by_row { 0 } else { 1 };
    if headers.len() <= first_sys {
        return Err(table.header_err("expected a topic column and at least one system column"));
    }
    let systems: Vec<usize> = (0..headers.len()).filter(|&j| by_row || j != id_col).collect();
    check_text_columns(table, rows, &systems, opts)?;
    let mut b = Builder::default();
    let mut seen = std::collections::HashSet::new();
    for &j in &systems {
        let h = &headers[j];
        if h.is_empty() {
            return Err(table.header_err("a system column has an empty name"));
        }
        if !seen.insert(h.as_str()) {
            return Err(table.header_err(format!("system column `{}` appears twice", h)));
        }
        b.system(h);
    }
    if by_row {
        b.note(format!(
            "{}: no topic-id column (first header `{}`); topics are named by their 1-based row number",
            path.display(),
            headers[0]
        ));
    }
    for (i, r) in rows.iter().enumerate() {
        let topic = if by_row {
            (i + 1).to_string()
        } else {
            r.get(id_col).to_string()
        };
        if topic.is_empty() {
            return Err(table.err(r, "empty topic id"));
        }
        b.topic(&topic);
        for &j in &systems {
            let (h, c) = (&headers[j], r.get(j));
            if c.is_empty() {
                continue;
            }
            let x = parse_value(c, opts).map_err(|m| table.err(r, format!("column `{}`: {}", h, m)))?;
            b.set(&topic, h, x)
                .map_err(|_| duplicate_in(table, r.line, &topic, h))?;
        }
    }
    Ok(b.finish())
}

/// A wide file's "system" column that holds text (a question, an answer) rather than scores
/// means the file is one system's results, not a wide table: say so instead of suggesting that
/// the text be mapped to a score with `--label`.
fn check_text_columns(table: &Table, rows: &[&Record], systems: &[usize], opts: &ReadOptions) -> Result<()> {
    for &j in systems {
        let cells: Vec<&str> = rows.iter().map(|r| r.get(j)).filter(|c| !c.is_empty()).collect();
        let bad = cells.iter().filter(|c| parse_value(c, opts).is_err()).count();
        let texty = cells.iter().filter(|c| c.contains(' ') || c.len() > 40).count();
        if bad == 0 || texty * 2 < cells.len().max(1) {
            continue;
        }
        let numeric: Vec<&str> = systems
            .iter()
            .filter(|&&k| k != j)
            .filter(|&&k| rows.iter().all(|r| r.get(k).is_empty() || is_number(r.get(k))))
            .map(|&k| table.headers[k].as_str())
            .collect();
        let first = rows
            .iter()
            .find(|r| !r.get(j).is_empty() && parse_value(r.get(j), opts).is_err())
            .map_or(1, |r| r.line);
        let e = table.err_at(
            first,
            format!(
                "column `{}` holds text, not scores: read as a wide table (one column per system), this file has no usable system columns",
                table.headers[j]
            ),
        );
        return Err(if numeric.is_empty() {
            e.with_hint("for one system's results per file, pass --column NAME with the score column")
        } else {
            e.with_hint(format!(
                "for one system's results per file, pass --column NAME with the score column (numeric columns: {})",
                numeric.join(", ")
            ))
        });
    }
    Ok(())
}
