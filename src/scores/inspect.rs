//! inspect_ai evaluation logs: the `.eval` format (a ZIP archive holding `header.json`,
//! `samples/ID_epoch_N.json` and `reductions.json`) and the `.json` format (one `EvalLog` object
//! with `eval`, `results`, `samples` and `reductions`).
//!
//! Topic = sample `id`; system = [`ReadOptions::system`], else the log's `eval.model` (e.g.
//! `openai/gpt-4o`). One scorer is read ([`ReadOptions::measure`], else the only one).
//! Per-sample values are the log's own reduced scores (`reductions`: inspect_ai's epoch
//! reducer, default `mean`, applied to values already mapped to numbers by the scorer's
//! `value_to_float`) when they are the `mean` of the epochs and [`ReadOptions::sample_aggregation`]
//! is `mean`. Otherwise (`first`, `majority`, another reducer, `--label`s, a log without
//! reductions) each sample's score value is mapped as inspect_ai's default `value_to_float` does
//! (`C` = 1, `P` = 0.5, `I` and `N` = 0, `yes`/`true` = 1, `no`/`false` = 0, numbers and numeric
//! strings as such; labels given with [`ReadOptions::labels`] first) and its epochs are reduced
//! with the aggregation (`first` is the lowest epoch). Every epoch's score is kept as a sample
//! (key: its `epoch`), and the notes say how many epochs each sample has. The mean of the values read is
//! checked against the log's own `accuracy` or `mean` metric of that scorer; a difference is
//! reported in the notes.

use super::{aggregate, choose, push_unique, Builder, ReadOptions, Sample, ScoreTable};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::protocol::SampleAggregation;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Reads a `.eval` log (ZIP).
pub(super) fn read_eval(input: &Input, opts: &ReadOptions) -> Result<ScoreTable> {
    let path = input.path();
    let bad = |e: zip::result::ZipError| {
        Error::in_file(path, "is a ZIP archive but cannot be read as an inspect_ai .eval log").caused_by(e)
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(input.bytes())).map_err(bad)?;
    let mut members = crate::input::Members::new(input);
    let names: Vec<String> = zip
        .file_names()
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(str::to_string)
        .collect();
    let mut member = |name: &str| -> Result<Option<Value>> {
        let f = match zip.by_name(name) {
            Ok(f) => f,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(bad(e)),
        };
        let size = f.size();
        let s = String::from_utf8(members.read(name, size, f)?)
            .map_err(|e| Error::in_file(path, format!("member `{}` cannot be read", name)).caused_by(e))?;
        serde_json::from_str(&s)
            .map(Some)
            .map_err(|e| Error::in_file(path, format!("member `{}` is not valid JSON", name)).caused_by(e))
    };
    let header = member("header.json")?.ok_or_else(|| {
        Error::in_file(
            path,
            "is a ZIP archive without `header.json`: expected an inspect_ai .eval log",
        )
    })?;
    let reductions = member("reductions.json")?;
    let mut samples = Vec::with_capacity(names.len());
    for n in names {
        if let Some(v) = member(&n)? {
            samples.push(v);
        }
    }
    scores(path, &header, reductions.as_ref(), &samples, opts)
}

/// Reads a `.json` log.
pub(super) fn read_json(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let log: Value = serde_json::from_str(text)
        .map_err(|e| Error::at(path, e.line(), "malformed JSON (expected an inspect_ai log)").caused_by(e))?;
    let samples = log
        .get("samples")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    scores(path, &log, log.get("reductions"), &samples, opts)
}

fn scores(
    path: &Path,
    header: &Value,
    reductions: Option<&Value>,
    samples: &[Value],
    opts: &ReadOptions,
) -> Result<ScoreTable> {
    let status = header.get("status").and_then(Value::as_str).unwrap_or("");
    let model = header
        .pointer("/eval/model")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::in_file(path, "inspect_ai log without `eval.model`"))?;
    let mut scorers = Vec::new();
    if let Some(Value::Array(rs)) = header.pointer("/results/scores") {
        for r in rs {
            if let Some(n) = r.get("name").and_then(Value::as_str) {
                push_unique(&mut scorers, n);
            }
        }
    }
    for s in samples {
        if let Some(Value::Object(sc)) = s.get("scores") {
            for k in sc.keys() {
                push_unique(&mut scorers, k);
            }
        }
    }
    if scorers.is_empty() {
        return Err(Error::in_file(
            path,
            format!("inspect_ai log (status `{}`) holds no scores", status),
        ));
    }
    let scorer = choose(path, "scorer", &scorers, opts.measure.as_deref(), "--measure")?;
    let system = opts.system.clone().unwrap_or_else(|| model.to_string());
    let mut b = Builder::default();
    b.system(&system);
    let reduced = reductions.and_then(Value::as_array).and_then(|rs| {
        rs.iter()
            .find(|r| r.get("scorer").and_then(Value::as_str) == Some(scorer.as_str()))
    });
    let epochs = sample_values(path, samples, &scorer, opts)?;
    let agg = opts.aggregation();
    if epochs.is_empty() && reduced.is_some() && agg != SampleAggregation::Mean {
        return Err(Error::in_file(
            path,
            format!(
                "the log holds only its reduced scores of `{}`, no per-epoch sample scores: `{}` needs them",
                scorer, agg
            ),
        )
        .with_hint("use --sample-aggregation mean (the log's own reduction), or a log with its samples"));
    }
    let (values, source) = match reduced.filter(|r| use_reductions(r, agg, opts, &epochs)) {
        Some(r) => (
            reduced_values(path, r, &scorer, &system, &mut b)?,
            "the log's reductions",
        ),
        None => (aggregated(path, &epochs, &system, agg, &mut b)?, "the sample scores"),
    };
    for (id, xs) in &epochs {
        for (e, x) in xs {
            let _ = b.sample("epoch", id, &system, e, *x);
        }
    }
    b.aggregate(agg).map_err(|m| Error::in_file(path, m))?;
    if b.is_empty() {
        return Err(Error::in_file(
            path,
            format!(
                "inspect_ai log (status `{}`): no sample has a `{}` score",
                status, scorer
            ),
        ));
    }
    if let Some(stated) = stated_metric(header, &scorer) {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        if (mean - stated).abs() > 1e-9 {
            b.note(format!(
                "{}: the log states {} for scorer `{}` but the mean of the {} per-sample values from {} is {:.6}",
                path.display(),
                stated,
                scorer,
                values.len(),
                source,
                mean
            ));
        }
    }
    Ok(super::samples::noted(path, b.finish()))
}

/// Whether the log's own reductions give the values: only for the `mean` aggregation, when no
/// `--label` maps the sample scores, the reducer is inspect_ai's `mean` (or unnamed), and the
/// samples hold no scores of their own or the reduction covers them.
fn use_reductions(r: &Value, agg: SampleAggregation, opts: &ReadOptions, epochs: &Epochs) -> bool {
    let reducer = r.get("reducer").and_then(Value::as_str).unwrap_or("mean");
    let covered = r.get("samples").and_then(Value::as_array).map_or(0, Vec::len) >= epochs.len();
    agg == SampleAggregation::Mean && opts.labels.is_empty() && reducer == "mean" && covered
}

/// Each sample's values over epochs, reduced with `agg` and set in `b`.
fn aggregated(path: &Path, epochs: &Epochs, system: &str, agg: SampleAggregation, b: &mut Builder) -> Result<Vec<f64>> {
    let mut values = Vec::with_capacity(epochs.len());
    for (id, xs) in epochs {
        let cell: Vec<Sample> = xs
            .iter()
            .map(|(e, x)| Sample {
                key: e.clone(),
                value: *x,
            })
            .collect();
        let x = aggregate(&cell, agg)
            .map_err(|m| Error::in_file(path, format!("system `{}`, topic `{}`: {}", system, id, m)))?;
        values.push(x);
        let _ = b.set(id, system, x);
    }
    Ok(values)
}

/// The log's reduced value of each sample for `scorer` (inspect_ai's epoch reducer), set in `b`.
fn reduced_values(path: &Path, r: &Value, scorer: &str, system: &str, b: &mut Builder) -> Result<Vec<f64>> {
    let mut values = Vec::new();
    for s in r.get("samples").and_then(Value::as_array).into_iter().flatten() {
        let id = id_text(s.get("sample_id"))
            .ok_or_else(|| Error::in_file(path, format!("a reduction of scorer `{}` has no `sample_id`", scorer)))?;
        let x = s.get("value").and_then(Value::as_f64).ok_or_else(|| {
            Error::in_file(
                path,
                format!("sample `{}`: reduced value of `{}` is not a number", id, scorer),
            )
        })?;
        values.push(x);
        let _ = b.set(&id, system, x);
    }
    Ok(values)
}

/// Each sample's scores over epochs, in first-seen order of the samples, the epochs in order.
type Epochs = Vec<(String, Vec<(String, f64)>)>;

/// Each sample's scores for `scorer` mapped to numbers, by epoch (a sample without `epoch` is
/// epoch 1).
///
/// Errors (exit 2): a sample without `id`, a score that does not map to a number, a sample and
/// epoch given twice.
fn sample_values(path: &Path, samples: &[Value], scorer: &str, opts: &ReadOptions) -> Result<Epochs> {
    let mut per: BTreeMap<String, (usize, Vec<(String, f64)>)> = BTreeMap::new();
    for (i, s) in samples.iter().enumerate() {
        let Some(id) = id_text(s.get("id")) else {
            return Err(Error::in_file(path, format!("sample {} has no `id`", i + 1)));
        };
        let Some(score) = s.get("scores").and_then(|sc| sc.get(scorer)) else {
            continue;
        };
        let x = to_float(score.get("value").unwrap_or(&Value::Null), opts)
            .map_err(|m| Error::in_file(path, format!("sample `{}` scorer `{}`: {}", id, scorer, m)))?;
        let epoch = id_text(s.get("epoch")).unwrap_or_else(|| "1".to_string());
        let n = per.len();
        let xs = &mut per.entry(id.clone()).or_insert((n, Vec::new())).1;
        if xs.iter().any(|(e, _)| *e == epoch) {
            return Err(Error::in_file(
                path,
                format!("sample `{}` epoch {} appears twice", id, epoch),
            ));
        }
        xs.push((epoch, x));
    }
    let mut ordered: Vec<_> = per.into_iter().collect();
    ordered.sort_by_key(|(_, (n, _))| *n);
    Ok(ordered
        .into_iter()
        .map(|(id, (_, mut xs))| {
            xs.sort_by(|a, b| super::samples::by_epoch(&a.0, &b.0));
            (id, xs)
        })
        .collect())
}

fn id_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The log's `accuracy` (or `mean`) metric of `scorer`.
fn stated_metric(header: &Value, scorer: &str) -> Option<f64> {
    let rs = header.pointer("/results/scores")?.as_array()?;
    let r = rs
        .iter()
        .find(|r| r.get("name").and_then(Value::as_str) == Some(scorer))?;
    let m: &Map<String, Value> = r.get("metrics")?.as_object()?;
    ["accuracy", "mean"]
        .iter()
        .find_map(|k| m.get(*k).and_then(|x| x.get("value")).and_then(Value::as_f64))
}

/// inspect_ai's default `value_to_float` (see the module docs), after the user's labels.
pub(super) fn to_float(v: &Value, opts: &ReadOptions) -> std::result::Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::Bool(t) => Ok(f64::from(u8::from(*t))),
        Value::String(s) => {
            let t = s.trim();
            if let Some((_, x)) = opts.labels.iter().find(|(l, _)| l.eq_ignore_ascii_case(t)) {
                return Ok(*x);
            }
            match t {
                "C" => Ok(1.0),
                "P" => Ok(0.5),
                "I" | "N" => Ok(0.0),
                _ => match t.to_ascii_lowercase().as_str() {
                    "yes" | "true" => Ok(1.0),
                    "no" | "false" => Ok(0.0),
                    other => other.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
                        format!(
                            "score value `{}` is not C/I/P/N, yes/no, true/false or a number; map it with --label {}=VALUE",
                            t, t
                        )
                    }),
                },
            }
        }
        other => Err(format!(
            "score value {} is not a scalar (a dict or list value needs its own reduction)",
            other
        )),
    }
}
