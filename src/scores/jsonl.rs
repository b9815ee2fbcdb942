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
        let v: Value = serde_json::from_str(l)
            .map_err(|e| Error::at(path, line, "not a JSON object (expected {\"topic\", \"system\", \"score\"})").caused_by(e))?;
        let topic = match v.get("topic") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(Error::at(path, line, "`topic` missing or not a non-empty string or integer")),
        };
        let system = match v.get("system") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(Error::at(path, line, "`system` missing or not a non-empty string")),
        };
        let score = match v.get("score") {
            Some(Value::Number(n)) => n.as_f64().ok_or_else(|| Error::at(path, line, "`score` is not a number"))?,
            Some(Value::String(s)) => parse_value(s, opts).map_err(|m| Error::at(path, line, m))?,
            Some(Value::Bool(x)) => f64::from(u8::from(*x)),
            _ => return Err(Error::at(path, line, "`score` missing or not a number")),
        };
        b.set(&topic, &system, score)
            .map_err(|_| duplicate(path, line, &topic, &system))?;
    }
    if b.is_empty() {
        return Err(Error::in_file(path, "no scores found (expected one JSON object per line)"));
    }
    Ok(b.finish())
}
