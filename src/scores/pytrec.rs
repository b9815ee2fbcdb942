//! pytrec_eval results as JSON: `json.dump(evaluator.evaluate(run), f)` gives
//! `{query_id: {measure: value}}` (measure names as trec_eval prints them: `map`, `P_10`,
//! `ndcg_cut_10`). The system is named by the file ([`ReadOptions::system_name`]).

use super::{choose, push_unique, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// Reads pytrec_eval JSON (see the module docs); one measure is used ([`ReadOptions::measure`],
/// else the only one).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let doc: serde_json::Map<String, Value> = serde_json::from_str(text).map_err(|e| {
        Error::at(
            path,
            e.line(),
            "malformed JSON (expected pytrec_eval's {query: {measure: value}})",
        )
        .caused_by(e)
    })?;
    let mut found = Vec::new();
    for v in doc.values() {
        if let Some(o) = v.as_object() {
            for k in o.keys() {
                push_unique(&mut found, k);
            }
        }
    }
    let measure = choose(path, "measure", &found, opts.measure.as_deref(), "--measure")?;
    let system = opts.system_name(path);
    let mut b = Builder::default();
    b.system(&system);
    for (q, v) in &doc {
        let Some(o) = v.as_object() else {
            return Err(Error::in_file(
                path,
                format!("query `{}`: expected an object of measures (pytrec_eval JSON)", q),
            ));
        };
        let Some((_, x)) = o.iter().find(|(k, _)| super::same_measure(k, &measure)) else {
            continue;
        };
        let x = x
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| Error::in_file(path, format!("query `{}`: `{}` is not a finite number", q, measure)))?;
        let _ = b.set(q, &system, x);
    }
    if b.is_empty() {
        return Err(Error::in_file(path, format!("no query has a value of `{}`", measure)));
    }
    Ok(b.finish())
}

/// Reads ranx's per-query scores saved as JSON (`json.dump(run.scores, f)` after
/// `evaluate(qrels, run, metrics)`): `{metric: {query_id: value}}`, metric names as ranx
/// writes them (`ndcg@10`, `map`, `precision@10`). One metric is used
/// ([`ReadOptions::measure`], under any tool's name of it, else the only one); the system is
/// named by the file ([`ReadOptions::system_name`]).
pub(super) fn read_ranx_scores(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let doc: crate::tabular::OrderedObject = serde_json::from_str(text).map_err(|e| {
        Error::at(
            path,
            e.line(),
            "malformed JSON (expected ranx's run.scores: {metric: {query: value}})",
        )
        .caused_by(e)
    })?;
    let found: Vec<String> = doc.0.iter().map(|(k, _)| k.clone()).collect();
    let measure = choose(path, "measure", &found, opts.measure.as_deref(), "--measure")?;
    let system = opts.system_name(path);
    let mut b = Builder::default();
    b.system(&system);
    let Some((_, Value::Object(per))) = doc.0.iter().find(|(k, _)| *k == measure) else {
        return Err(Error::in_file(
            path,
            format!("metric `{}`: expected an object of queries (ranx run.scores)", measure),
        ));
    };
    for (q, x) in per {
        let x = x
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| Error::in_file(path, format!("query `{}`: `{}` is not a finite number", q, measure)))?;
        let _ = b.set(q, &system, x);
    }
    if b.is_empty() {
        return Err(Error::in_file(path, format!("no query has a value of `{}`", measure)));
    }
    Ok(b.finish())
}
