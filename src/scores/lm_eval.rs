//! lm-evaluation-harness per-sample logs (`lm_eval ... --log_samples`, file
//! `OUTPUT/MODEL/samples_TASK_DATE.jsonl`): one JSON object per line and filter, with `doc_id`,
//! `filter` (`none`, `strict-match`, `flexible-extract`, ...), `metrics` (the metric names) and
//! one field per metric (`acc`, `exact_match`, ...). A document appears once per filter.
//!
//! Topic = `doc_id`; one filter ([`ReadOptions::filter`], else the only one) and one metric
//! ([`ReadOptions::measure`], else the only one) are read. The system is [`ReadOptions::system`],
//! else the directory the file is in (lm-eval names it after the model, e.g.
//! `EleutherAI__pythia-160m`), else the file name.

use super::{choose, parse_value, push_unique, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// The system an lm-eval samples file stands for (see the module docs).
pub(super) fn system_of(path: &Path, opts: &ReadOptions) -> String {
    if let Some(s) = &opts.system {
        return s.clone();
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.starts_with("samples_") {
        if let Some(dir) = path.parent().and_then(Path::file_name) {
            return dir.to_string_lossy().into_owned();
        }
    }
    crate::input::system_name_from_path(path)
}

/// Reads an lm-evaluation-harness samples file (see the module docs).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let mut recs = Vec::new();
    let (mut filters, mut metrics) = (Vec::new(), Vec::new());
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let v: serde_json::Map<String, Value> = serde_json::from_str(l).map_err(|e| {
            Error::at(
                path,
                line,
                "not a JSON object (expected an lm-evaluation-harness sample with `doc_id`)",
            )
            .caused_by(e)
        })?;
        let doc = match v.get("doc_id") {
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(Error::at(path, line, "`doc_id` missing (lm-evaluation-harness sample)")),
        };
        let filter = v.get("filter").and_then(Value::as_str).unwrap_or("none").to_string();
        push_unique(&mut filters, &filter);
        match v.get("metrics") {
            Some(Value::Array(ms)) => {
                for m in ms.iter().filter_map(Value::as_str) {
                    push_unique(&mut metrics, m);
                }
            }
            _ => {
                // Older logs have no `metrics` list: numeric top-level fields are the metrics.
                for (k, x) in &v {
                    if x.is_number() && k != "doc_id" {
                        push_unique(&mut metrics, k);
                    }
                }
            }
        }
        recs.push((line, doc, filter, v));
    }
    if recs.is_empty() {
        return Err(Error::in_file(
            path,
            "no samples (lm-evaluation-harness samples JSON Lines)",
        ));
    }
    let filter = choose(path, "filter", &filters, opts.filter.as_deref(), "--filter")?;
    let metric = choose(path, "metric", &metrics, opts.measure.as_deref(), "--measure")?;
    let system = system_of(path, opts);
    let mut b = Builder::default();
    b.system(&system);
    for (line, doc, f, v) in recs {
        if f != filter {
            continue;
        }
        let x = match v.get(&metric) {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(Value::Bool(t)) => f64::from(u8::from(*t)),
            Some(Value::String(s)) => parse_value(s, opts).map_err(|m| Error::at(path, line, m))?,
            Some(other) => {
                return Err(Error::at(
                    path,
                    line,
                    format!(
                        "metric `{}` is {} here, not a per-document number (a corpus-level metric such as bleu cannot be paired per document)",
                        metric,
                        if other.is_array() { "a list" } else { "not a number" }
                    ),
                ))
            }
            None => {
                return Err(Error::at(
                    path,
                    line,
                    format!("document `{}` (filter `{}`) has no `{}` field", doc, f, metric),
                ))
            }
        };
        if !x.is_finite() {
            return Err(Error::at(path, line, format!("`{}` is not a finite number", metric)));
        }
        b.set(&doc, &system, x).map_err(|_| {
            Error::at(
                path,
                line,
                format!("document `{}` appears twice for filter `{}`", doc, f),
            )
        })?;
    }
    Ok(b.finish())
}
