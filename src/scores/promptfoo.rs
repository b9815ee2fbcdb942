//! promptfoo results (`promptfoo eval -o FILE`): the JSON file (`{evalId, results: {results:
//! [...], prompts: [...]}}`), the JSON Lines file (one result object per line) and the CSV file
//! (the vars' columns, then per prompt and provider a `[PROVIDER] PROMPT` output column followed
//! by `Status`, `Score`, `Named Scores`, ...).
//!
//! Topic = the test's index (`testIdx`; in the CSV the row's, counted from 0 like `testIdx`).
//! One system per prompt and provider, named as promptfoo's own table heads them:
//! `[PROVIDER] PROMPT LABEL` (the provider's label, else its id). The value is the test's
//! `score` (promptfoo's weighted mean of its assertions' scores; the CSV prints it with 2
//! decimals), or with [`ReadOptions::measure`] `pass` (1 for a passed test, else 0) or a named
//! score (`namedScores`, JSON and JSON Lines). promptfoo's own per-prompt figure
//! (`prompts[i].metrics.score` over the prompt's test count) is the mean of these scores; the
//! JSON file's is checked and a difference reported in the notes.

use super::{choose, push_unique, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use crate::tabular::{Record, Table};
use serde_json::Value;
use std::path::Path;

/// Whether a JSON object is one promptfoo result row (a JSON Lines record).
pub(super) fn is_result(m: &serde_json::Map<String, Value>) -> bool {
    m.contains_key("promptIdx")
        && m.contains_key("testIdx")
        && (m.contains_key("gradingResult") || m.contains_key("score"))
}

/// Whether a JSON document is a promptfoo results file.
pub(super) fn is_output(m: &serde_json::Map<String, Value>) -> bool {
    m.contains_key("evalId")
        && m.get("results")
            .and_then(|r| r.get("results"))
            .is_some_and(Value::is_array)
}

/// The CSV columns of each system: (system name, its `Status` column, its `Score` column).
pub(super) fn csv_systems(t: &Table) -> Vec<(String, usize, usize)> {
    let h = &t.headers;
    (0..h.len().saturating_sub(2))
        .filter(|&i| h[i].starts_with('[') && h[i + 1] == "Status" && h[i + 2] == "Score")
        .map(|i| (h[i].clone(), i + 1, i + 2))
        .collect()
}

/// Reads the JSON or JSON Lines file (see the module docs).
pub(super) fn read_json(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let (rows, prompts) = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(doc)) if is_output(&doc) => {
            let results = doc.get("results");
            let rows = results
                .and_then(|r| r.get("results"))
                .and_then(Value::as_array)
                .cloned();
            let prompts = results
                .and_then(|r| r.get("prompts"))
                .and_then(Value::as_array)
                .cloned();
            (rows.unwrap_or_default(), prompts.unwrap_or_default())
        }
        _ => (json_lines(path, text)?, Vec::new()),
    };
    let mut found = vec!["score".to_string(), "pass".to_string()];
    for r in &rows {
        if let Some(Value::Object(n)) = r.get("namedScores") {
            n.keys().for_each(|k| push_unique(&mut found, k));
        }
    }
    let measure = match opts.measure.as_deref() {
        None => "score".to_string(),
        Some(w) => choose(path, "measure", &found, Some(w), "--measure")?,
    };
    let mut b = Builder::default();
    for (i, r) in rows.iter().enumerate() {
        let at = |m: &str| Error::in_file(path, format!("result {}: {}", i + 1, m));
        let topic = r
            .get("testIdx")
            .and_then(Value::as_u64)
            .ok_or_else(|| at("no `testIdx`"))?;
        let system = system_of(r);
        let x = match measure.as_str() {
            "score" => r.get("score").and_then(Value::as_f64),
            "pass" => r
                .get("success")
                .and_then(Value::as_bool)
                .map(|p| f64::from(u8::from(p))),
            named => r.get("namedScores").and_then(|n| n.get(named)).and_then(Value::as_f64),
        };
        let Some(x) = x.filter(|x| x.is_finite()) else {
            if measure == "score" || measure == "pass" {
                return Err(at(&format!(
                    "no finite `{}`",
                    if measure == "pass" { "success" } else { "score" }
                )));
            }
            continue;
        };
        b.set(&topic.to_string(), &system, x)
            .map_err(|_| at(&format!("test {} of `{}` appears twice", topic, system)))?;
    }
    if b.is_empty() {
        return Err(Error::in_file(
            path,
            format!("promptfoo results: no test has a `{}`", measure),
        ));
    }
    let table = b.finish();
    Ok(check_prompts(path, table, &prompts, &measure))
}

/// The records of a JSON Lines file.
fn json_lines(path: &Path, text: &str) -> Result<Vec<Value>> {
    let mut rows = Vec::new();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(l)
            .map_err(|e| Error::at(path, line, "malformed JSON (expected a promptfoo result per line)").caused_by(e))?;
        rows.push(v);
    }
    Ok(rows)
}

/// `[PROVIDER] PROMPT LABEL`, as promptfoo heads its table's columns.
fn system_of(r: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let label = text(r.pointer("/provider/label"));
    let provider = if label.is_empty() {
        match r.get("provider") {
            Some(Value::String(s)) => s.clone(),
            p => text(p.and_then(|p| p.get("id"))),
        }
    } else {
        label
    };
    format!("[{}] {}", provider, text(r.pointer("/prompt/label")))
}

/// Notes where the JSON file's own per-prompt score (`metrics.score` / test count) differs from
/// the mean of the values read.
fn check_prompts(path: &Path, table: ScoreTable, prompts: &[Value], measure: &str) -> ScoreTable {
    if measure != "score" {
        return table;
    }
    let mut table = table;
    for p in prompts {
        let text = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let name = format!("[{}] {}", text("provider"), text("label"));
        let Some(s) = table.systems.iter().position(|x| *x == name) else {
            continue;
        };
        let m = p.get("metrics");
        let count = |k: &str| m.and_then(|m| m.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
        let tests = count("testPassCount") + count("testFailCount") + count("testErrorCount");
        let (Some(total), true) = (m.and_then(|m| m.get("score")).and_then(Value::as_f64), tests > 0.0) else {
            continue;
        };
        let vals: Vec<f64> = table.values[s].iter().flatten().copied().collect();
        let mean = vals.iter().sum::<f64>() / vals.len().max(1) as f64;
        if (mean - total / tests).abs() > 1e-9 {
            table.notes.push(format!(
                "{}: promptfoo states a score of {} over {} tests for `{}` ({:.6}) but the mean of the {} values read is {:.6}",
                path.display(),
                total,
                tests,
                name,
                total / tests,
                vals.len(),
                mean
            ));
        }
    }
    table
}

/// Reads the CSV file (a table whose columns [`csv_systems`] finds).
pub(super) fn read_table(t: &Table, opts: &ReadOptions) -> Result<ScoreTable> {
    let systems = csv_systems(t);
    let found = vec!["score".to_string(), "pass".to_string()];
    let measure = match opts.measure.as_deref() {
        None => "score".to_string(),
        Some(w) => choose(&t.path, "measure", &found, Some(w), "--measure")?,
    };
    let mut b = Builder::default();
    let rows: Vec<&Record> = t.records.iter().filter(|r| !r.is_blank()).collect();
    for (name, _, _) in &systems {
        b.system(name);
    }
    for (i, r) in rows.iter().enumerate() {
        for (name, status, score) in &systems {
            let x = if measure == "pass" {
                match r.get(*status) {
                    "PASS" => 1.0,
                    "FAIL" | "ERROR" => 0.0,
                    s => return Err(t.err(r, format!("`{}` Status `{}` is not PASS, FAIL or ERROR", name, s))),
                }
            } else {
                match r.get(*score).parse::<f64>() {
                    Ok(x) if x.is_finite() => x,
                    _ => return Err(t.err(r, format!("`{}` Score `{}` is not a number", name, r.get(*score)))),
                }
            };
            let _ = b.set(&i.to_string(), name, x);
        }
    }
    if b.is_empty() {
        return Err(Error::in_file(&t.path, "promptfoo CSV: no test rows"));
    }
    Ok(b.finish())
}
