//! `pledge report`: the reviewer-facing Markdown report, built from the ledger alone, and from
//! the same data a self-contained HTML page and a LaTeX table of the results.

use super::{Note, Notes};
use crate::error::{Error, Result};
use crate::ledger::{InputKey, Ledger};
use crate::report::model::ReportData;
use crate::report::{Request, Template};
use std::path::{Path, PathBuf};

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
/// written. Warns about the inputs of the reported analysis and count, and a template, that a
/// reviewer's clone would not hold as they were read (see [`super::inputs::untracked_warning`]).
///
/// Errors: no such study, no analysis to report, an unreadable stored record (exit 2, naming the
/// entry and field); a bad template (exit 2, with its line); an unwritable directory (exit 2).
pub fn report(ledger: &Ledger, o: &ReportOptions) -> Result<ReportOutcome> {
    let template = match &o.template {
        Some(p) => Template::File {
            name: ledger.relative(p),
            text: crate::io::read_text(p)?,
        },
        None => Template::BuiltIn,
    };
    let req = Request {
        study: o.study.as_deref(),
        tip: None,
        template: &template,
        report_dir: report_dir(ledger, &o.out),
    };
    let mut notes = Notes::new();
    if o.data_only {
        if o.html.is_some() || o.latex.is_some() {
            return Err(
                Error::input("--html and --latex write files, but --format json writes none")
                    .with_hint("run `pledge report --html FILE` without --format json"),
            );
        }
        let built = crate::report::build(ledger, &req)?;
        let verified = built.data.verification.ok;
        return Ok(ReportOutcome {
            data: built.data,
            path: None,
            also: Vec::new(),
            verified,
            notes,
        });
    }
    let produced = crate::report::produce(ledger, &req)?;
    let verified = produced.data.verification.ok;
    if !verified {
        notes.push(Note::warning(
            "the ledger failed verification; the report says so at the top",
        ));
    }
    notes.extend(untracked(ledger, &produced.data, &template));
    let also = write(o, &produced)?;
    let dir = &produced.data.rendered.report_dir;
    let md = if dir == "." {
        "report.md".to_string()
    } else {
        format!("{}/report.md", dir)
    };
    if super::inputs::tracking(ledger.repo(), &md).is_some_and(|t| t != super::inputs::Tracking::Outside) {
        notes.push(Note::info(format!(
            "commit the report so that a reviewer's clone has it: git add {} && git commit (then pledge verify --report {} checks it against the ledger)",
            crate::text::shell_word(dir),
            crate::text::shell_word(dir)
        )));
    }
    Ok(ReportOutcome {
        data: produced.data,
        path: Some(o.out.join("report.md")),
        also,
        verified,
        notes,
    })
}

/// Writes the report's files; returns the HTML and LaTeX files written.
fn write(o: &ReportOptions, produced: &crate::report::Produced) -> Result<Vec<PathBuf>> {
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
    for (name, svg) in &produced.svgs {
        crate::io::write_atomic(&o.out.join(name), svg.as_bytes())?;
    }
    crate::io::write_atomic(&o.out.join("report.md"), produced.markdown.as_bytes())?;
    let mut also = Vec::new();
    if let Some(h) = &o.html {
        crate::io::write_atomic(h, produced.html().as_bytes())?;
        also.push(h.clone());
    }
    if let Some(l) = &o.latex {
        crate::io::write_atomic(l, produced.latex().as_bytes())?;
        also.push(l.clone());
    }
    Ok(also)
}

/// `dir` as the report's commands name it: relative to the repository root when inside it
/// (resolved through its nearest existing ancestor, since it may not exist yet), else absolute.
pub fn report_dir(ledger: &Ledger, dir: &Path) -> String {
    let mut existing = dir.to_path_buf();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut rel = ledger.relative(&existing);
    for name in rest.iter().rev() {
        if !rel.is_empty() && !rel.ends_with('/') {
            rel.push('/');
        }
        rel.push_str(&name.to_string_lossy());
    }
    if rel.is_empty() {
        ".".into()
    } else {
        rel
    }
}

/// The warning for the reported analysis's and count's inputs and a template file that a
/// reviewer's clone would not hold as read.
fn untracked(ledger: &Ledger, data: &ReportData, template: &Template) -> Option<Note> {
    let r = &data.reproduce;
    let keys: Vec<InputKey> = r
        .inputs
        .iter()
        .chain(&r.count_inputs)
        .filter_map(|i| i.name.parse().ok())
        .collect();
    let template = match template {
        Template::File { name, .. } => Some(name.as_str()),
        Template::BuiltIn => None,
    };
    let paths = keys.iter().map(|k| k.path.as_str()).chain(template);
    super::inputs::untracked_warning(ledger, paths)
}
