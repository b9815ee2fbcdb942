//! Strata of topics for the stratified bootstrap.
//!
//! The stratum of each topic comes from a column named by the protocol's `analysis.strata-field`
//! in a CSV/TSV file with a header (delimiter detected by [`crate::tabular`]): `--strata FILE`,
//! or else the score file itself when it is delimited and has that column (long layout: the
//! value must agree on every row of a topic). The topic column is `topic` (or the first id-like
//! column: `topic_id`, `qid`, `query_id`, `question_id`, `id`, `_id`, `index`; else the first).

use crate::error::Result;
use crate::tabular::Table;
use std::collections::BTreeMap;
use std::path::Path;

/// Reads topic → stratum from `path`'s column `field`.
///
/// Errors (exit 2): no such column, an empty topic or stratum, a topic with two strata (naming
/// file and line).
pub fn read_strata(path: &Path, field: &str) -> Result<BTreeMap<String, String>> {
    let text = crate::io::read_text(path)?;
    strata_from_text(path, &text, field)
}

/// Reads topic → stratum from delimited `text` (see [`read_strata`]); `path` names it in messages.
///
/// Errors: as [`read_strata`].
pub fn strata_from_text(path: &Path, text: &str, field: &str) -> Result<BTreeMap<String, String>> {
    let table = Table::parse(path, text, None)?;
    let f = table.require(field, "strata")?;
    let t = table.id_column().unwrap_or(0);
    let mut out = BTreeMap::new();
    for rec in &table.records {
        let (topic, stratum) = (rec.get(t), rec.get(f));
        if topic.is_empty() {
            continue;
        }
        if stratum.is_empty() {
            return Err(table.err(rec, format!("topic `{}` has an empty `{}`", topic, field)));
        }
        match out.get(topic) {
            Some(s) if s != stratum => {
                return Err(table.err(
                    rec,
                    format!("topic `{}` is in two strata (`{}` and `{}`)", topic, s, stratum),
                ))
            }
            _ => {
                out.insert(topic.to_string(), stratum.to_string());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_and_rejects_conflicts() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.csv");
        std::fs::write(&p, "topic,system,score,kind\n1,A,0.5,nav\n1,B,0.1,nav\n2,A,1,info\n").unwrap();
        let m = super::read_strata(&p, "kind").unwrap();
        assert_eq!(m.get("2").map(String::as_str), Some("info"));
        std::fs::write(&p, "topic,kind\n1,nav\n1,info\n").unwrap();
        assert!(super::read_strata(&p, "kind").unwrap_err().message.contains("s.csv:3:"));
        assert!(super::read_strata(&p, "nope").unwrap_err().message.contains("s.csv:1:"));
    }
}
