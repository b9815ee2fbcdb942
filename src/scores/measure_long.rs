//! One row per (topic, measure): ir_measures `-q` output (`query_id<TAB>measure<TAB>value`), and
//! tables with a topic column, a `measure` column and a `value` column (PyTerrier's per-query
//! `Experiment` results saved with `to_csv`, with the system in `name`; ir_measures JSON Lines).

use super::{choose, duplicate_in, parse_value, push_unique, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use crate::tabular::{Record, Table, Unit};
use std::path::Path;

/// Reads ir_measures `-q` output: `query_id<TAB>measure<TAB>value`, optionally under a header
/// row; the system is named by the file ([`ReadOptions::system_name`]).
pub(super) fn read_ir_measures(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let mut records = Vec::new();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').map(str::trim).collect();
        if f.len() != 3 {
            return Err(Error::at(
                path,
                line,
                "expected `query_id<TAB>measure<TAB>value` (ir_measures -q output)",
            ));
        }
        if records.is_empty() && f[1].eq_ignore_ascii_case("measure") {
            continue;
        }
        records.push(Record {
            line,
            cells: f.iter().map(|c| c.to_string()).collect(),
        });
    }
    let table = Table {
        path: path.to_path_buf(),
        headers: vec!["query_id".into(), "measure".into(), "value".into()],
        records,
        unit: Unit::Line,
        delimiter: Some(crate::tabular::Delimiter::Tab),
    };
    read_table(&table, 0, None, 1, 2, opts, "ir_measures -q output")
}

/// The columns of a topic/measure/value table, if it is one: (topic, system, measure, value).
pub(super) fn columns(t: &Table) -> Option<(usize, Option<usize>, usize, usize)> {
    let m = t.column("measure")?;
    let v = t.column("value")?;
    let topic = t.id_column()?;
    let system = t
        .column("name")
        .or_else(|| t.column("system"))
        .or_else(|| t.column("run"));
    Some((topic, system, m, v))
}

/// Reads a topic/measure/value table: one measure is used ([`ReadOptions::measure`], else the
/// only one); the system comes from column `system` (PyTerrier's `name`), else the file name.
/// Rows whose topic is `all` are summaries and skipped.
pub(super) fn read_table(
    t: &Table,
    topic: usize,
    system: Option<usize>,
    measure: usize,
    value: usize,
    opts: &ReadOptions,
    what: &str,
) -> Result<ScoreTable> {
    let rows: Vec<&Record> = t.records.iter().filter(|r| !r.is_blank()).collect();
    let mut found = Vec::new();
    for r in &rows {
        push_unique(&mut found, r.get(measure));
    }
    if rows.is_empty() {
        return Err(Error::in_file(&t.path, format!("no per-topic values ({})", what)));
    }
    let m = choose(&t.path, "measure", &found, opts.measure.as_deref(), "--measure")
        .map_err(|e| e.caused_by(format!("read as {}", what)))?;
    let default_system = opts.system_name(&t.path);
    let mut b = Builder::default();
    for r in rows {
        if r.get(measure) != m {
            continue;
        }
        let topic_id = r.get(topic);
        if topic_id.is_empty() {
            return Err(t.err(r, "empty topic id"));
        }
        if topic_id == "all" {
            continue;
        }
        let sys = match system {
            Some(s) if !r.get(s).is_empty() => r.get(s).to_string(),
            _ => default_system.clone(),
        };
        let x = parse_value(r.get(value), opts).map_err(|msg| t.err(r, msg))?;
        b.set(topic_id, &sys, x)
            .map_err(|_| duplicate_in(t, r.line, topic_id, &sys))?;
    }
    Ok(b.finish())
}
