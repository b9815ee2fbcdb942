//! HELM `per_instance_stats.json` (written by `helm-run` into
//! `benchmark_output/runs/SUITE/RUN/`): a JSON array of `{instance_id, train_trial_index,
//! stats: [{name: {name, split, perturbation?}, count, sum, mean, ...}]}`.
//!
//! Topic = `instance_id`; one stat is read ([`ReadOptions::measure`], e.g. `exact_match`, else
//! an error listing them) on one split ([`ReadOptions::filter`], else the only one); perturbed
//! instances (a `perturbation` on the entry or in the stat's name) are left out; the value is
//! the stat's `mean` (`sum / count`), averaged over train trials as HELM's aggregation does.
//! The system is [`ReadOptions::system`], else the run directory's name (HELM names it after the
//! run spec, e.g. `mmlu:subject=anatomy,model=openai_gpt2`), else the file name.

use super::{choose, push_unique, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn system_of(path: &Path, opts: &ReadOptions) -> String {
    if let Some(s) = &opts.system {
        return s.clone();
    }
    if path.file_name().is_some_and(|n| n == "per_instance_stats.json") {
        if let Some(d) = path.parent().and_then(Path::file_name) {
            return d.to_string_lossy().into_owned();
        }
    }
    crate::input::system_name_from_path(path)
}

/// Reads HELM per-instance stats (see the module docs).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let doc: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        Error::at(
            path,
            e.line(),
            "malformed JSON (expected HELM per_instance_stats: an array)",
        )
        .caused_by(e)
    })?;
    let (mut names, mut splits) = (Vec::new(), Vec::new());
    for inst in &doc {
        if inst.get("perturbation").is_some_and(|p| !p.is_null()) {
            continue;
        }
        for st in inst.get("stats").and_then(Value::as_array).into_iter().flatten() {
            let n = st.get("name");
            if n.and_then(|n| n.get("perturbation")).is_some_and(|p| !p.is_null()) {
                continue;
            }
            if let Some(x) = n.and_then(|n| n.get("name")).and_then(Value::as_str) {
                push_unique(&mut names, x);
            }
            if let Some(x) = n.and_then(|n| n.get("split")).and_then(Value::as_str) {
                push_unique(&mut splits, x);
            }
        }
    }
    let stat = choose(path, "stat", &names, opts.measure.as_deref(), "--measure")?;
    let split = if splits.is_empty() {
        None
    } else {
        Some(choose(path, "split", &splits, opts.filter.as_deref(), "--filter")?)
    };
    let system = system_of(path, opts);
    // instance → (first-seen position, values over train trials)
    let mut per: BTreeMap<String, (usize, Vec<f64>)> = BTreeMap::new();
    for (i, inst) in doc.iter().enumerate() {
        if inst.get("perturbation").is_some_and(|p| !p.is_null()) {
            continue;
        }
        let id = match inst.get("instance_id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => {
                return Err(Error::in_file(
                    path,
                    format!("record {}: missing `instance_id` (HELM per-instance stats)", i + 1),
                ))
            }
        };
        for st in inst.get("stats").and_then(Value::as_array).into_iter().flatten() {
            let Some(n) = st.get("name") else { continue };
            if n.get("perturbation").is_some_and(|p| !p.is_null())
                || n.get("name").and_then(Value::as_str) != Some(&stat)
            {
                continue;
            }
            if split.is_some() && n.get("split").and_then(Value::as_str) != split.as_deref() {
                continue;
            }
            let mean = st.get("mean").and_then(Value::as_f64).or_else(|| {
                let (s, c) = (st.get("sum")?.as_f64()?, st.get("count")?.as_f64()?);
                (c > 0.0).then_some(s / c)
            });
            let x = mean
                .filter(|x| x.is_finite())
                .ok_or_else(|| Error::in_file(path, format!("record {}: stat `{}` has no finite mean", i + 1, stat)))?;
            let k = per.len();
            per.entry(id.clone()).or_insert((k, Vec::new())).1.push(x);
        }
    }
    let mut b = Builder::default();
    b.system(&system);
    let mut ordered: Vec<(String, (usize, Vec<f64>))> = per.into_iter().collect();
    ordered.sort_by_key(|(_, (k, _))| *k);
    for (id, (_, xs)) in ordered {
        let _ = b.set(&id, &system, xs.iter().sum::<f64>() / xs.len() as f64);
    }
    if b.is_empty() {
        return Err(Error::in_file(path, format!("no instance has the stat `{}`", stat)));
    }
    Ok(b.finish())
}
