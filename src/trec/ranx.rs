//! ranx runs and qrels as saved by `Run.save` / `Qrels.save`: JSON `{query: {doc: number}}`,
//! Parquet with the columns `q_id`, `doc_id`, `score` (pandas `to_parquet`), and a run's LZ4
//! file (`Run.save("run.lz4")`: the run as CBOR, LZ4-frame compressed twice, ranx's `io.save_lz4`).

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

/// Whether `bytes` begin an LZ4 frame.
fn is_lz4(bytes: &[u8]) -> bool {
    bytes.starts_with(&crate::input::LZ4_MAGIC)
}

/// Decompresses LZ4 frames (every frame in `bytes`) of the input `input`, in pieces checked
/// against the input's size and compression-ratio limits as they arrive.
fn unlz4(input: &Input, bytes: &[u8]) -> Result<Vec<u8>> {
    use std::io::Read;
    let (path, limits, raw) = (input.path(), input.limits(), input.raw().len() as u64);
    let mut decoder = lz4_flex::frame::FrameDecoder::new(bytes);
    let mut out = Vec::new();
    loop {
        let n = (&mut decoder)
            .take(1 << 20)
            .read_to_end(&mut out)
            .map_err(|e| Error::in_file(path, "is an LZ4 frame that cannot be decompressed").caused_by(e))?;
        limits.check_expansion(path, "LZ4", raw, out.len() as u64)?;
        if n == 0 {
            return Ok(out);
        }
    }
}

/// Reads a ranx LZ4 run (see the module docs): the frames are undone (twice, as ranx compresses
/// twice) and the CBOR map `{query: {document: number}}` read in order.
///
/// Errors (exit 2): frames that do not decompress; CBOR of another shape.
pub(super) fn lz4_pairs(input: &Input, what: &str) -> Result<Pairs> {
    let path = input.path();
    let mut bytes = unlz4(input, input.bytes())?;
    while is_lz4(&bytes) {
        bytes = unlz4(input, &bytes)?;
    }
    let expected = format!("a ranx {} saved as LZ4: CBOR {{query: {{document: number}}}}", what);
    let doc: ciborium::Value = ciborium::from_reader(bytes.as_slice())
        .map_err(|e| Error::in_file(path, format!("is not CBOR (expected {})", expected)).caused_by(e))?;
    let shape = || Error::in_file(path, format!("expected {}", expected));
    let mut out = Vec::new();
    for (q, docs) in doc.into_map().map_err(|_| shape())? {
        let q = cbor_text(q).ok_or_else(shape)?;
        let mut list = Vec::new();
        for (d, x) in docs.into_map().map_err(|_| shape())? {
            let d = cbor_text(d).ok_or_else(shape)?;
            let x = match x {
                ciborium::Value::Float(x) => x,
                ciborium::Value::Integer(i) => i128::from(i) as f64,
                _ => return Err(shape()),
            };
            if !x.is_finite() {
                return Err(Error::in_file(
                    path,
                    format!("query `{}` document `{}`: expected a finite number", q, d),
                ));
            }
            list.push((d, x));
        }
        out.push((q, list));
    }
    Ok(out)
}

/// A CBOR text or integer key as text.
fn cbor_text(v: ciborium::Value) -> Option<String> {
    match v {
        ciborium::Value::Text(s) => Some(s),
        ciborium::Value::Integer(i) => Some(i128::from(i).to_string()),
        _ => None,
    }
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
