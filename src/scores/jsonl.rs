//! JSON Lines scores: `{"topic": ..., "system": ..., "score": ...}` per line.

use super::{duplicate, parse_value, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// Reads JSON Lines scores (see the module docs of [`crate::scores`]).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let mut b = Builder::default();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(l).map_err(|e| {
            Error::at(
                path,
                line,
                "not a JSON object (expected {\"topic\", \"system\", \"score\"})",
            )
            .caused_by(e)
        })?;
        let topic = match v.get("topic") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Err(Error::at(
                    path,
                    line,
                    "`topic` missing or not a non-empty string or integer",
                ))
            }
        };
        let system = match v.get("system") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(Error::at(path, line, "`system` missing or not a non-empty string")),
        };
        let score = match v.get("score") {
            Some(Value::Number(n)) => n
                .as_f64()
                .ok_or_else(|| Error::at(path, line, "`score` is not a number"))?,
            Some(Value::String(s)) => parse_value(s, opts).map_err(|m| Error::at(path, line, m))?,
            Some(Value::Bool(x)) => f64::from(u8::from(*x)),
            _ => return Err(Error::at(path, line, "`score` missing or not a number")),
        };
        b.set(&topic, &system, score)
            .map_err(|_| duplicate(path, line, &topic, &system))?;
    }
    if b.is_empty() {
        return Err(Error::in_file(
            path,
            "no scores found (expected one JSON object per line)",
        ));
    }
    Ok(b.finish())
}

/// Flat JSON objects as a table: JSON Lines (one object per line, located by line) or one JSON
/// array of objects (located by record).
///
/// Errors (exit 2): malformed JSON, a line or element that is not an object.
pub(super) fn objects_table(path: &Path, text: &str) -> Result<crate::tabular::Table> {
    use crate::tabular::{OrderedObject, Table, Unit};
    if text.trim_start().starts_with('[') {
        let v: Vec<Value> = serde_json::from_str(text)
            .map_err(|e| Error::at(path, e.line(), "malformed JSON (expected an array of objects)").caused_by(e))?;
        let mut objs = Vec::with_capacity(v.len());
        for (i, x) in v.into_iter().enumerate() {
            let o: OrderedObject = serde_json::from_value(x)
                .map_err(|_| Error::in_file(path, format!("record {}: expected a JSON object", i + 1)))?;
            objs.push((i + 1, o.0));
        }
        return Ok(Table::from_objects(path, Unit::Record, objs));
    }
    let mut objs = Vec::new();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let o: OrderedObject = serde_json::from_str(l)
            .map_err(|e| Error::at(path, line, "not a JSON object (expected one object per line)").caused_by(e))?;
        objs.push((line, o.0));
    }
    Ok(Table::from_objects(path, Unit::Line, objs))
}
