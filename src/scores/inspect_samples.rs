//! inspect_ai's sample data frame saved as a table (`inspect_ai.analysis.samples_df(logs)` then
//! `to_csv` / `to_parquet`): one row per sample and epoch, with `sample_id`, `id`, `epoch`, one
//! `score_SCORER` column per scorer, and the eval's `model` when the frame was made with
//! `columns=EvalModel + SampleSummary` (or `EvalInfo`).
//!
//! Topic = `id`; system = [`ReadOptions::system`], else `model`, else the log file the row came
//! from (`log`, without directories and extension), else the file name. One scorer is read
//! ([`ReadOptions::measure`] as `SCORER` or `score_SCORER`, else the only one); values map as
//! inspect_ai's default `value_to_float` does (`C` = 1, `P` = 0.5, `I`/`N` = 0, numbers). Each
//! epoch is kept as a sample (key: the `epoch` value) and a sample's epochs are reduced with
//! [`ReadOptions::sample_aggregation`] (default `mean`, as inspect_ai's default reducer); the
//! epoch counts are said in the notes.

use super::{choose, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use crate::tabular::Table;
use std::collections::HashMap;

/// Whether a table is a `samples_df` frame: `sample_id`, `id`, `epoch` and a `score_` column.
pub(super) fn is_samples(t: &Table) -> bool {
    t.column("sample_id").is_some()
        && t.column("id").is_some()
        && t.column("epoch").is_some()
        && t.headers.iter().any(|h| h.starts_with("score_"))
}

/// Reads a `samples_df` table (see the module docs).
pub(super) fn read_table(t: &Table, opts: &ReadOptions) -> Result<ScoreTable> {
    let scorers: Vec<String> = t
        .headers
        .iter()
        .filter_map(|h| h.strip_prefix("score_"))
        .map(str::to_string)
        .collect();
    let want = opts.measure.as_deref().map(|m| m.strip_prefix("score_").unwrap_or(m));
    let scorer = choose(&t.path, "scorer", &scorers, want, "--measure")?;
    let col = t.column(&format!("score_{}", scorer)).unwrap_or(0);
    let (id, epoch) = (t.column("id").unwrap_or(0), t.column("epoch").unwrap_or(0));
    let (model, log) = (t.column("model"), t.column("log"));
    let fallback = opts.system_name(&t.path);
    // (system, topic) -> values over epochs, in first-seen order.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut per: HashMap<(String, String), Vec<(String, f64)>> = HashMap::new();
    for r in t.records.iter().filter(|r| !r.is_blank()) {
        let system = match (&opts.system, model, log) {
            (Some(s), _, _) => s.clone(),
            (None, Some(m), _) if !r.get(m).is_empty() => r.get(m).to_string(),
            (None, _, Some(l)) if !r.get(l).is_empty() => {
                crate::input::system_name_from_path(std::path::Path::new(r.get(l)))
            }
            _ => fallback.clone(),
        };
        let cell = r.get(col);
        if cell.is_empty() {
            continue;
        }
        let x = super::inspect::to_float(&serde_json::Value::String(cell.to_string()), opts)
            .map_err(|m| t.err(r, format!("sample `{}` scorer `{}`: {}", r.get(id), scorer, m)))?;
        let key = (system, r.get(id).to_string());
        if key.1.is_empty() {
            return Err(t.err(r, "empty sample `id`"));
        }
        let epochs = per.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            Vec::new()
        });
        let e = r.get(epoch).to_string();
        if epochs.iter().any(|(x, _)| *x == e) {
            return Err(t.err(
                r,
                format!("sample `{}` epoch {} of `{}` appears twice", key.1, e, key.0),
            ));
        }
        epochs.push((e, x));
    }
    let mut b = Builder::default();
    for key in order {
        let mut epochs = per[&key].clone();
        epochs.sort_by(|a, b| super::samples::by_epoch(&a.0, &b.0));
        for (e, x) in &epochs {
            let _ = b.sample("epoch", &key.1, &key.0, e, *x);
        }
    }
    if b.is_empty_of_samples() {
        return Err(t.header_err(format!("no sample has a `score_{}` value", scorer)));
    }
    b.aggregate(opts.aggregation())
        .map_err(|m| Error::in_file(&t.path, m))?;
    Ok(super::samples::noted(&t.path, b.finish()))
}
