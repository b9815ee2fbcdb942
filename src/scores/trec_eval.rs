//! `trec_eval -q` output: `measure<TAB>topic<TAB>value`.

use super::{check_summary, duplicate, system_name_from_path, value::is_number, Builder, ReadOptions, ScoreTable};
use crate::error::{Error, Result};
use std::path::Path;

/// `P.10` and `P_10` name the same measure (trec_eval prints `P_10` for `-m P.10`).
fn canon(m: &str) -> String {
    m.trim().replace('.', "_")
}

/// Reads `trec_eval -q` output (see the module docs of [`crate::scores`]).
pub(super) fn read(path: &Path, text: &str, opts: &ReadOptions) -> Result<ScoreTable> {
    let mut rows = Vec::new();
    let mut runid = None;
    let mut measures: Vec<String> = Vec::new();
    for (line, l) in crate::io::lines(text) {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 3 {
            return Err(Error::at(path, line, "expected `measure<TAB>topic<TAB>value` (trec_eval -q output)"));
        }
        let (m, t, v) = (f[0].trim(), f[1].trim(), f[2].trim());
        if m == "runid" {
            runid = Some(v.to_string());
            continue;
        }
        if !measures.iter().any(|x| canon(x) == canon(m)) {
            measures.push(m.to_string());
        }
        rows.push((line, m, t, v));
    }
    let measure = match &opts.measure {
        Some(want) => {
            if !measures.iter().any(|x| canon(x) == canon(want)) {
                return Err(Error::in_file(
                    path,
                    format!("measure `{}` is not in the file (it has: {})", want, measures.join(", ")),
                ));
            }
            canon(want)
        }
        None if measures.len() == 1 => canon(&measures[0]),
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
        if canon(m) != measure {
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
        return Err(Error::in_file(path, format!("no per-topic values of `{}` (was trec_eval run with -q?)", measure)));
    }
    if let Some(a) = all {
        if let Some(n) = check_summary(path, &format!("the `{} all` row", measure), &a, &vals) {
            b.note(n);
        }
    }
    Ok(b.finish())
}
