//! `trec_eval -q` output: `measure<TAB>topic<TAB>value`.

use super::{check_summary, duplicate, measure_key, value::is_number, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use crate::input::system_name_from_path;
use std::collections::HashMap;
use std::path::Path;

/// Reads `trec_eval -q` output (see the module docs of [`crate::scores`]).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let mut rows = Vec::new();
    let mut runid = None;
    let mut measures: Vec<String> = Vec::new();
    // Raw name -> canonical name, computed once per distinct name.
    let mut canonical: HashMap<&str, String> = HashMap::new();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 3 {
            return Err(Error::at(
                path,
                line,
                "expected `measure<TAB>topic<TAB>value` (trec_eval -q output)",
            ));
        }
        let (m, t, v) = (f[0].trim(), f[1].trim(), f[2].trim());
        if m == "runid" {
            runid = Some(v.to_string());
            continue;
        }
        if !canonical.contains_key(m) {
            let c = measure_key(m);
            if !canonical.values().any(|x| *x == c) {
                measures.push(m.to_string());
            }
            canonical.insert(m, c);
        }
        rows.push((line, m, t, v));
    }
    let measure = match &opts.measure {
        Some(want) => {
            let want_c = measure_key(want);
            if !canonical.values().any(|x| *x == want_c) {
                return Err(super::not_in_file(path, "measure", want, &measures));
            }
            want_c
        }
        None if measures.len() == 1 => measure_key(&measures[0]),
        None => {
            return Err(Error::in_file(
                path,
                format!("the file holds several measures ({}); choose one", measures.join(", ")),
            )
            .with_hint("pass --measure NAME"))
        }
    };
    let system = runid.unwrap_or_else(|| system_name_from_path(path));
    let mut b = Builder::default();
    b.system(&system);
    let mut all = None;
    let mut vals = Vec::new();
    for (line, m, t, v) in rows {
        if canonical.get(m) != Some(&measure) {
            continue;
        }
        if t == "all" {
            all = Some(v.to_string());
            continue;
        }
        if !is_number(v) {
            return Err(Error::at(path, line, format!("value `{}` is not a finite number", v)));
        }
        let x: f64 = v.parse().unwrap_or(0.0);
        vals.push(x);
        b.set(t, &system, x).map_err(|_| duplicate(path, line, t, &system))?;
    }
    if b.is_empty() {
        return Err(Error::in_file(
            path,
            format!("no per-topic values of `{}` (was trec_eval run with -q?)", measure),
        ));
    }
    if let Some(a) = all {
        if let Some(n) = check_summary(path, &format!("the `{} all` row", measure), &a, &vals) {
            b.note(n);
        }
    }
    Ok(b.finish())
}
