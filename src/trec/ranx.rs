//! ranx runs and qrels as saved by `Run.save` / `Qrels.save`: JSON `{query: {doc: number}}`
//! and Parquet with the columns `q_id`, `doc_id`, `score` (pandas `to_parquet`).

use crate::error::{Error, Result};
use crate::input::Input;
use serde_json::Value;
use std::path::Path;

/// Per query (in file order): its (document, number) pairs.
pub(super) type Pairs = Vec<(String, Vec<(String, f64)>)>;

/// Reads ranx JSON; `what` (`run`, `qrels`) names the expectation in messages.
pub(super) fn json_pairs(path: &Path, text: &str, what: &str) -> Result<Pairs> {
    let expected = format!("a ranx {} as JSON: {{query: {{document: number}}}}", what);
    let doc: crate::tabular::OrderedObject = serde_json::from_str(text)
        .map_err(|e| Error::at(path, e.line(), format!("malformed JSON (expected {})", expected)).caused_by(e))?;
    let mut out = Vec::with_capacity(doc.0.len());
    for (q, v) in doc.0 {
        let Value::Object(docs) = v else {
            return Err(Error::in_file(
                path,
                format!("query `{}`: expected an object of documents ({})", q, expected),
            ));
        };
        let mut list = Vec::with_capacity(docs.len());
        for (d, x) in docs {
            let x = x.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                let hint = if x.is_object() {
                    " (an object of objects of objects: is this pytrec_eval output? pass it to --scores)"
                } else {
                    ""
                };
                Error::in_file(
                    path,
                    format!("query `{}` document `{}`: expected a finite number{}", q, d, hint),
                )
            })?;
            list.push((d, x));
        }
        out.push((q, list));
    }
    Ok(out)
}

/// Reads a ranx Parquet file (`q_id`, `doc_id`, `score`); `what` names the expectation.
pub(super) fn parquet_pairs(input: &Input, what: &str) -> Result<Pairs> {
    let path = input.path();
    let rows = crate::tabular::parquet_objects(input)?;
    let mut out: Pairs = Vec::new();
    let mut index = std::collections::HashMap::new();
    for (row, obj) in rows {
        let get = |k: &str| obj.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let (Some(q), Some(d), Some(x)) = (get("q_id"), get("doc_id"), get("score")) else {
            let cols: Vec<&str> = obj.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Error::in_file(
                path,
                format!(
                    "row {}: expected the columns q_id, doc_id, score of a ranx {} saved as Parquet, found {}",
                    row,
                    what,
                    cols.join(", ")
                ),
            ));
        };
        let text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let (Some(q), Some(d), Some(x)) = (text(q), text(d), x.as_f64().filter(|x| x.is_finite())) else {
            return Err(Error::in_file(
                path,
                format!("row {}: q_id and doc_id must be text and score a finite number", row),
            ));
        };
        let i = *index.entry(q.clone()).or_insert_with(|| {
            out.push((q, Vec::new()));
            out.len() - 1
        });
        out[i].1.push((d, x));
    }
    Ok(out)
}
