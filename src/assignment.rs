//! The question → component assignment file written by `pledge components` and read by
//! `pledge analyze` and `pledge power --pilot`.
//!
//! Format: CSV, UTF-8, LF line endings, header `question,component,unit,split,counted`, one row
//! per candidate question, rows sorted by question id (byte order):
//! - `question`: the question (topic) id;
//! - `component`: the component id (an opaque string, stable for the same inputs and rules);
//! - `unit`: the component node the question belongs to (the question id itself when the unit is
//!   `question`, else the value of the unit field, e.g. the law's `doc`);
//! - `split`: the split the component was assigned to by `--assign`, empty otherwise;
//! - `counted`: `1` if the question is among the at most m counted for its component, `0` if the
//!   per-component cap left it out, empty when no cap was applied (no `--assign`).
//!
//! The file's SHA-256 (raw bytes) is recorded in the ledger's count/stop/go/assign entry; analyze
//! refuses an assignment whose hash differs from the recorded one.

use crate::error::Result;
use crate::tabular::{Delimiter, Table};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One row of the assignment file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignmentRow {
    /// Question (topic) id.
    pub question: String,
    /// Component id.
    pub component: String,
    /// Component node (unit) of the question.
    pub unit: String,
    /// Split name, if assigned.
    pub split: Option<String>,
    /// Whether the question is counted under the per-component cap, if a cap was applied.
    pub counted: Option<bool>,
}

/// Serializes rows (sorted by question id) to the CSV bytes described above.
pub fn to_csv(rows: &[AssignmentRow]) -> Vec<u8> {
    let mut rows: Vec<&AssignmentRow> = rows.iter().collect();
    rows.sort_by(|a, b| a.question.cmp(&b.question));
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let _ = w.write_record(["question", "component", "unit", "split", "counted"]);
    for r in rows {
        let counted = match r.counted {
            Some(true) => "1",
            Some(false) => "0",
            None => "",
        };
        let _ = w.write_record([
            r.question.as_str(),
            r.component.as_str(),
            r.unit.as_str(),
            r.split.as_deref().unwrap_or(""),
            counted,
        ]);
    }
    w.into_inner().unwrap_or_default()
}

/// Reads an assignment file (compressed input and a BOM accepted; records read by
/// [`crate::tabular`]).
///
/// Errors (exit 2): missing file, wrong header, a row with the wrong number of fields, a
/// `counted` value other than `0`, `1` or empty, a question listed twice; each names file and line.
pub fn read(path: &Path) -> Result<Vec<AssignmentRow>> {
    let text = crate::io::read_text(path)?;
    from_text(path, &text)
}

/// Parses the assignment CSV `text` (see [`read`]); `path` names it in messages.
///
/// Errors: as [`read`].
pub fn from_text(path: &Path, text: &str) -> Result<Vec<AssignmentRow>> {
    let table = Table::parse(path, text, Some(Delimiter::Comma))?;
    let want = ["question", "component", "unit", "split", "counted"];
    if table.headers != want {
        return Err(table.header_err(format!("expected the header `{}`", want.join(","))));
    }
    let mut out = Vec::with_capacity(table.records.len());
    let mut seen = std::collections::HashSet::new();
    for rec in &table.records {
        let counted = match rec.get(4) {
            "" => None,
            "1" => Some(true),
            "0" => Some(false),
            other => {
                return Err(table.err(rec, format!("counted must be 0, 1 or empty, got `{}`", other)));
            }
        };
        let (question, component) = (rec.get(0), rec.get(1));
        if question.is_empty() || component.is_empty() {
            return Err(table.err(rec, "question and component must not be empty"));
        }
        if !seen.insert(question.to_string()) {
            return Err(table.err(rec, format!("question `{}` is listed twice", question)));
        }
        let split = rec.get(3);
        out.push(AssignmentRow {
            question: question.to_string(),
            component: component.to_string(),
            unit: rec.get(2).to_string(),
            split: (!split.is_empty()).then(|| split.to_string()),
            counted,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let rows = vec![
            AssignmentRow {
                question: "q2".into(),
                component: "C1".into(),
                unit: "d1".into(),
                split: Some("final".into()),
                counted: Some(false),
            },
            AssignmentRow {
                question: "q1".into(),
                component: "C1".into(),
                unit: "d1".into(),
                split: None,
                counted: None,
            },
        ];
        let bytes = to_csv(&rows);
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            "question,component,unit,split,counted\nq1,C1,d1,,\nq2,C1,d1,final,0\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        std::fs::write(&p, &bytes).unwrap();
        let back = read(&p).unwrap();
        assert_eq!(back[0], rows[1]);
        assert_eq!(back[1], rows[0]);
        std::fs::write(&p, "question,component,unit,split,counted\nq1,C1,d1,,2\n").unwrap();
        assert!(read(&p).unwrap_err().message.contains(":2:"));
    }
}
