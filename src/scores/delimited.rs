//! Delimited (CSV/TSV) scores with a header row: long, one-system-per-file, and wide layouts.

use super::{
    check_summary, duplicate, parse_value, system_name_from_path, value::is_number, Builder, ReadOptions, ScoreTable,
};
use crate::error::{Error, Result};
use std::path::Path;

/// Header names taken as the topic-id column (case-insensitive), in order of preference; the
/// strata reader uses the same list.
pub(crate) const ID_NAMES: [&str; 8] = [
    "topic",
    "topic_id",
    "qid",
    "query_id",
    "question_id",
    "id",
    "_id",
    "index",
];

fn is_id_name(h: &str) -> bool {
    ID_NAMES.iter().any(|n| h.trim().eq_ignore_ascii_case(n))
}

/// One parsed record with its 1-based line number.
struct Row {
    line: usize,
    cells: Vec<String>,
}

fn records(path: &Path, text: &str) -> Result<(Vec<String>, Vec<Row>)> {
    let first = text.lines().next().unwrap_or("");
    let delim = if first.contains('\t') { b'\t' } else { b',' };
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| Error::at(path, 1, "cannot read the header row").caused_by(e))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
            Error::at(
                path,
                line,
                format!("malformed row (expected {} fields like the header)", headers.len()),
            )
            .caused_by(e)
        })?;
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        rows.push(Row {
            line,
            cells: rec.iter().map(|c| c.trim().to_string()).collect(),
        });
    }
    Ok((headers, rows))
}

/// Reads a delimited score file (see the module docs of [`crate::scores`]).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let (headers, rows) = records(path, text)?;
    if rows.is_empty() {
        return Err(Error::in_file(
            path,
            "no data rows after the header (expected per-topic scores)",
        ));
    }
    let col = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let table = if let (Some(t), Some(s), Some(v)) = (col("topic"), col("system"), col("score")) {
        long(path, &rows, (t, s, v), opts)?
    } else if let Some(c) = &opts.column {
        let v = col(c).ok_or_else(|| {
            Error::at(
                path,
                1,
                format!("no column `{}` in the header ({})", c, headers.join(", ")),
            )
        })?;
        per_system(path, &headers, &rows, v, opts)?
    } else {
        wide(path, &headers, &rows, opts)?
    };
    Ok(table)
}

fn long(path: &Path, rows: &[Row], (t, s, v): (usize, usize, usize), opts: &ReadOptions) -> Result<ScoreTable> {
    let mut b = Builder::default();
    for r in rows {
        let (topic, system) = (&r.cells[t], &r.cells[s]);
        if topic.is_empty() || system.is_empty() {
            return Err(Error::at(path, r.line, "topic and system must not be empty"));
        }
        let x = parse_value(&r.cells[v], opts).map_err(|m| Error::at(path, r.line, m))?;
        b.set(topic, system, x)
            .map_err(|_| duplicate(path, r.line, topic, system))?;
    }
    Ok(b.finish())
}

fn per_system(path: &Path, headers: &[String], rows: &[Row], v: usize, opts: &ReadOptions) -> Result<ScoreTable> {
    let t = headers.iter().position(|h| is_id_name(h)).unwrap_or(0);
    let system = system_name_from_path(path);
    let mut b = Builder::default();
    b.system(&system);
    let mut vals = Vec::new();
    let mut summary = None;
    for r in rows {
        let topic = &r.cells[t];
        if topic.is_empty() {
            if summary.is_some() {
                return Err(Error::at(path, r.line, "a second row with an empty topic id"));
            }
            summary = Some(r.cells[v].clone());
            continue;
        }
        let x = parse_value(&r.cells[v], opts).map_err(|m| Error::at(path, r.line, m))?;
        vals.push(x);
        b.set(topic, &system, x)
            .map_err(|_| duplicate(path, r.line, topic, &system))?;
    }
    if let Some(s) = summary {
        let what = format!("the summary row (empty topic id) of column `{}`", headers[v]);
        if let Some(n) = check_summary(path, &what, &s, &vals) {
            b.note(n);
        }
    }
    Ok(b.finish())
}

fn wide(path: &Path, headers: &[String], rows: &[Row], opts: &ReadOptions) -> Result<ScoreTable> {
    let by_row = !is_id_name(&headers[0]) && rows[0].cells.iter().all(|c| is_number(c));
    let first_sys = if by_row { 0 } else { 1 };
    if headers.len() <= first_sys {
        return Err(Error::at(
            path,
            1,
            "expected a topic column and at least one system column",
        ));
    }
    let mut b = Builder::default();
    let mut seen = std::collections::HashSet::new();
    for h in &headers[first_sys..] {
        if h.is_empty() {
            return Err(Error::at(path, 1, "a system column has an empty name"));
        }
        if !seen.insert(h.as_str()) {
            return Err(Error::at(path, 1, format!("system column `{}` appears twice", h)));
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
            r.cells[0].clone()
        };
        if topic.is_empty() {
            return Err(Error::at(path, r.line, "empty topic id"));
        }
        b.topic(&topic);
        for (j, h) in headers.iter().enumerate().skip(first_sys) {
            let c = &r.cells[j];
            if c.is_empty() {
                continue;
            }
            let x = parse_value(c, opts).map_err(|m| Error::at(path, r.line, format!("column `{}`: {}", h, m)))?;
            b.set(&topic, h, x).map_err(|_| duplicate(path, r.line, &topic, h))?;
        }
    }
    Ok(b.finish())
}
