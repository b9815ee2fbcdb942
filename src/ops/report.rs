//! `pledge report`: the reviewer-facing Markdown report, built from the ledger alone, and from
//! the same data a self-contained HTML page and a LaTeX table of the results.

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
    /// Also write the self-contained HTML report (SVGs inlined) to this file.
    pub html: Option<PathBuf>,
    /// Also write the results as a LaTeX table to this file.
    pub latex: Option<PathBuf>,
}

/// What `report` did.
#[derive(Debug)]
pub struct ReportOutcome {
    /// The data the template saw.
    pub data: ReportData,
    /// The Markdown file written (`None` with `data_only`).
    pub path: Option<PathBuf>,
    /// The other files written: the HTML report and the LaTeX table, when asked for.
    pub also: Vec<PathBuf>,
    /// Whether the ledger verified (a failed verification is shown at the top of the report).
    pub verified: bool,
    /// Notes for people.
    pub notes: Notes,
}

/// Builds the report of a study and writes `report.md` and its SVG pictures into `out`, and
/// the HTML report and the LaTeX table where `html` and `latex` ask for them. Missing
/// directories (`out`, and those of `html` and `latex`) are created first, before any file is
/// written.
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
        if o.html.is_some() || o.latex.is_some() {
            return Err(
                Error::input("--html and --latex write files, but --format json writes none")
                    .with_hint("run `pledge report --html FILE` without --format json"),
            );
        }
        return Ok(ReportOutcome {
            data: built.data,
            path: None,
            also: Vec::new(),
            verified,
            notes,
        });
    }
    let md = crate::report::render(&built.data, template.as_ref().map(|(n, t)| (n.as_str(), t.as_str())))?;
    // Every directory written to exists (or is made) before the first file is written, so a bad
    // --html or --latex path fails with nothing written.
    let named_dirs = [&o.html, &o.latex]
        .into_iter()
        .flatten()
        .filter_map(|p| p.parent())
        .filter(|d| !d.as_os_str().is_empty());
    for dir in named_dirs.chain(std::iter::once(o.out.as_path())) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("creating the directory", dir, e))?;
    }
    for (name, svg) in &built.svgs {
        crate::io::write_atomic(&o.out.join(name), svg.as_bytes())?;
    }
    let path = o.out.join("report.md");
    crate::io::write_atomic(&path, md.as_bytes())?;
    let mut also = Vec::new();
    if let Some(h) = &o.html {
        let page = crate::report::html::to_html(&md, &built.data.study.title, &built.svgs);
        crate::io::write_atomic(h, page.as_bytes())?;
        also.push(h.clone());
    }
    if let Some(l) = &o.latex {
        crate::io::write_atomic(l, crate::report::latex::results_table(&built.data).as_bytes())?;
        also.push(l.clone());
    }
    Ok(ReportOutcome {
        data: built.data,
        path: Some(path),
        also,
        verified,
        notes,
    })
}
