//! `pledge report`: the reviewer-facing Markdown report, built from the ledger alone.

use super::{Note, Notes};
use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::report::model::ReportData;
use std::path::PathBuf;

/// What `pledge report` is asked. Paths are absolute.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The study (default: the only study in the ledger).
    pub study: Option<String>,
    /// Directory for `report.md` and its pictures.
    pub out: PathBuf,
    /// A minijinja template instead of the built-in one.
    pub template: Option<PathBuf>,
    /// Only build the data (for `--format json`); write nothing.
    pub data_only: bool,
}

/// What `report` did.
#[derive(Debug)]
pub struct ReportOutcome {
    /// The data the template saw.
    pub data: ReportData,
    /// The Markdown file written (`None` with `data_only`).
    pub path: Option<PathBuf>,
    /// Whether the ledger verified (a failed verification is shown at the top of the report).
    pub verified: bool,
    /// Notes for people.
    pub notes: Notes,
}

/// Builds the report of a study and writes `report.md` and its SVG pictures into `out`.
///
/// Errors: no such study, no analysis to report, an unreadable stored record (exit 2, naming the
/// entry and field); a bad template (exit 2, with its line); an unwritable directory (exit 2).
pub fn report(ledger: &Ledger, o: &ReportOptions) -> Result<ReportOutcome> {
    let template = match &o.template {
        Some(p) => Some((p.display().to_string(), crate::io::read_text(p)?)),
        None => None,
    };
    let built = crate::report::build(ledger, o.study.as_deref())?;
    let verified = built.data.verification.ok;
    let mut notes = Notes::new();
    if !verified {
        notes.push(Note::warning(
            "the ledger failed verification; the report says so at the top",
        ));
    }
    if o.data_only {
        return Ok(ReportOutcome {
            data: built.data,
            path: None,
            verified,
            notes,
        });
    }
    let md = crate::report::render(&built.data, template.as_ref().map(|(n, t)| (n.as_str(), t.as_str())))?;
    std::fs::create_dir_all(&o.out).map_err(|e| Error::io("creating", &o.out, e))?;
    for (name, svg) in &built.svgs {
        crate::io::write_atomic(&o.out.join(name), svg.as_bytes())?;
    }
    let path = o.out.join("report.md");
    crate::io::write_atomic(&path, md.as_bytes())?;
    Ok(ReportOutcome {
        data: built.data,
        path: Some(path),
        verified,
        notes,
    })
}
