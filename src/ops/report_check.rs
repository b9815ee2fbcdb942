//! `pledge verify --report DIR|FILE`: a report is checked against the ledger. Its stamp
//! ([`crate::report::stamp`]) states the study, the ledger tip and the template it was rendered
//! from; the report is rendered again from the ledger at that tip with that template and
//! compared, byte for byte (line endings aside): Markdown (`report.md`, and in a directory every
//! picture, HTML page and LaTeX table beside it), the HTML page (`.html`, `.htm`) or the LaTeX
//! table (`.tex`).
//!
//! Each problem is a finding (exit 1): `report-unstamped` (no stamp), `report-tip-unknown` (the
//! tip is not a commit of this ledger), `report-template` (not pledge's built-in template, or
//! the built-in template of another pledge), `report-edited` (the text or a picture differs,
//! the first differing line named). A report that is what the ledger gives is the note
//! `report-matches`.

use crate::error::Result;
use crate::ledger::{Finding, FindingCode, Ledger, StoredEntry, VerifyReport};
use crate::report::stamp::Stamp;
use crate::report::{Produced, Request, Template};
use std::path::{Path, PathBuf};

/// The kinds of file a report is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A report directory: its `report.md` and the pictures beside it.
    Dir,
    /// `report.md` (or any other file that is not HTML or LaTeX).
    Markdown,
    /// The `--html` page.
    Html,
    /// The `--latex` table.
    Latex,
}

impl Kind {
    fn of(path: &Path) -> Kind {
        if path.is_dir() {
            return Kind::Dir;
        }
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "html" | "htm" => Kind::Html,
            "tex" => Kind::Latex,
            _ => Kind::Markdown,
        }
    }
}

/// Checks each report of `paths` (absolute) against the ledger and adds findings and notes to
/// `report`.
///
/// Errors (exit 2): a report file that cannot be read, or is not UTF-8; the ledger cannot be
/// read whole (exit 2, as [`Ledger::entries`]).
pub fn check_reports(ledger: &Ledger, paths: &[PathBuf], report: &mut VerifyReport) -> Result<()> {
    if paths.is_empty() {
        return Ok(());
    }
    let entries = ledger.entries()?;
    for p in with_pages(paths) {
        let found = check_one(ledger, &entries, &p)?;
        for f in found {
            if f.code == FindingCode::ReportMatches {
                report.notes.push(f);
            } else {
                report.ok = false;
                report.findings.push(f);
            }
        }
    }
    Ok(())
}

/// `paths`, each directory followed by the HTML pages and LaTeX tables directly inside it (in
/// name order): `report --out DIR --html DIR/report.html` writes them beside `report.md`, and a
/// check of the directory covers every rendering in it, not only the Markdown.
fn with_pages(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        out.push(p.clone());
        if Kind::of(p) != Kind::Dir {
            continue;
        }
        let mut pages: Vec<PathBuf> = std::fs::read_dir(p)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| f.is_file() && matches!(Kind::of(f), Kind::Html | Kind::Latex))
            .collect();
        pages.sort();
        out.extend(pages);
    }
    out
}

/// The findings (and the `report-matches` note) of one report.
fn check_one(ledger: &Ledger, entries: &[StoredEntry], path: &Path) -> Result<Vec<Finding>> {
    let kind = Kind::of(path);
    let file = if kind == Kind::Dir {
        path.join("report.md")
    } else {
        path.to_path_buf()
    };
    let shown = ledger.relative(&file);
    let text = crate::io::read_text(&file)?.replace("\r\n", "\n");
    let finding = |code: FindingCode, msg: String| Finding::new(code, None, msg);
    let stamp = match Stamp::find(&text) {
        None => {
            return Ok(vec![finding(
                FindingCode::ReportUnstamped,
                format!(
                    "{} carries no pledge report stamp: it is not a report pledge rendered, or its stamp was removed",
                    shown
                ),
            )])
        }
        Some(Err(why)) => {
            return Ok(vec![finding(
                FindingCode::ReportUnstamped,
                format!("{}: its pledge report stamp cannot be read ({})", shown, why),
            )])
        }
        Some(Ok(s)) => s,
    };
    let Some(tip) = entries.iter().find(|e| e.commit == stamp.tip) else {
        return Ok(vec![finding(
            FindingCode::ReportTipUnknown,
            format!(
                "{} states the ledger tip {}, which is not a commit of this ledger ({} entries, tip {}): it was rendered from another ledger, or this one was rewritten since",
                shown,
                stamp.tip,
                entries.len(),
                entries.last().map(|e| e.commit.as_str()).unwrap_or("none")
            ),
        )]);
    };
    let mut out = Vec::new();
    let Some(template) = template_of(ledger, &stamp, &shown, &mut out) else {
        return Ok(out);
    };
    let oid = git2::Oid::from_str(&tip.commit).map_err(|e| crate::error::Error::git("reading the report's tip", e))?;
    let req = Request {
        study: Some(&stamp.study),
        tip: Some(oid),
        template: &template,
        report_dir: stamp.report_dir.clone(),
    };
    let produced = match crate::report::produce(ledger, &req) {
        Ok(p) => p,
        Err(e) => {
            out.push(finding(
                FindingCode::ReportEdited,
                format!(
                    "{}: the ledger at its tip {} gives no report of study `{}` ({})",
                    shown, stamp.tip, stamp.study, e.message
                ),
            ));
            return Ok(out);
        }
    };
    let differences = differences(&produced, kind, path, &text, &shown);
    let version = if stamp.tool == produced.data.rendered.tool {
        String::new()
    } else {
        format!(
            " (it was rendered by {}; this is {})",
            stamp.tool, produced.data.rendered.tool
        )
    };
    if differences.is_empty() {
        let with = if template == Template::BuiltIn {
            "pledge's built-in template".to_string()
        } else {
            format!("the template {}", stamp.template)
        };
        out.push(finding(
            FindingCode::ReportMatches,
            format!(
                "{} is the report the ledger gives at its tip {} (entry #{}) with {}",
                shown, stamp.tip, tip.entry.seq, with
            ),
        ));
    }
    for d in differences {
        out.push(finding(FindingCode::ReportEdited, format!("{}{}", d, version)));
    }
    Ok(out)
}

/// The template the stamp names, ready to render with; `None` when it cannot be had, with the
/// finding that says why in `out`. A template other than the built-in one is a finding in
/// itself.
fn template_of(ledger: &Ledger, stamp: &Stamp, shown: &str, out: &mut Vec<Finding>) -> Option<Template> {
    let finding = |msg: String| Finding::new(FindingCode::ReportTemplate, None, msg);
    if stamp.built_in() {
        let ours = Template::BuiltIn.sha256();
        if stamp.template_sha256 == ours {
            return Some(Template::BuiltIn);
        }
        out.push(finding(format!(
            "{} was rendered by {} with its built-in template (SHA-256 {}), which is not this pledge's (SHA-256 {}): check it with that version",
            shown, stamp.tool, stamp.template_sha256, ours
        )));
        return None;
    }
    let mut msg = format!(
        "{} was rendered with the template {} (SHA-256 {}), not pledge's built-in one: its wording is the author's, not pledge's",
        shown, stamp.template, stamp.template_sha256
    );
    let file = Path::new(&stamp.template);
    let file = if file.is_absolute() {
        file.to_path_buf()
    } else {
        ledger.root().join(file)
    };
    let text = std::fs::read(&file).ok().and_then(|b| String::from_utf8(b).ok());
    let template = match text {
        Some(t) if crate::io::sha256_hex(t.as_bytes()) == stamp.template_sha256 => Some(Template::File {
            name: stamp.template.clone(),
            text: t,
        }),
        Some(t) => {
            msg.push_str(&format!(
                "; the file there now has SHA-256 {}, so the report cannot be rendered again",
                crate::io::sha256_hex(t.as_bytes())
            ));
            None
        }
        None => {
            msg.push_str("; the template is not in the repository, so the report cannot be rendered again");
            None
        }
    };
    out.push(finding(msg));
    template
}

/// What differs between the report on disk and the one `produced` from the ledger: the text
/// (its first differing line), and in a directory each picture missing or different.
fn differences(produced: &Produced, kind: Kind, path: &Path, text: &str, shown: &str) -> Vec<String> {
    let expected = match kind {
        Kind::Dir | Kind::Markdown => produced.markdown.clone(),
        Kind::Html => produced.html(),
        Kind::Latex => produced.latex(),
    };
    let mut out: Vec<String> = first_difference(text, &expected)
        .map(|d| format!("{} differs from the report the ledger gives: {}", shown, d))
        .into_iter()
        .collect();
    if kind == Kind::Dir {
        for (name, svg) in &produced.svgs {
            let p = path.join(name);
            let shown = format!("{}/{}", shown.trim_end_matches("report.md").trim_end_matches('/'), name);
            match std::fs::read(&p) {
                Ok(b) if b == svg.as_bytes() => {}
                Ok(_) => out.push(format!("{} differs from the picture the ledger gives", shown)),
                Err(_) => out.push(format!("{} is missing: the report shows it", shown)),
            }
        }
    }
    out
}

/// The first line where `found` and `expected` differ, both quoted from a little before their
/// first differing character, and how many lines differ; `None` when they are the same.
fn first_difference(found: &str, expected: &str) -> Option<String> {
    if found == expected {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (found.lines().collect(), expected.lines().collect());
    let n = a.len().max(b.len());
    let differing: Vec<usize> = (0..n).filter(|&i| a.get(i) != b.get(i)).collect();
    let Some(&i) = differing.first() else {
        return Some("the same lines, but not the same bytes (a final line break?)".into());
    };
    let (x, y) = (a.get(i).copied(), b.get(i).copied());
    // The characters both lines share, less some context, are left out of the quotes.
    let same = match (x, y) {
        (Some(x), Some(y)) => x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count(),
        _ => 0,
    };
    let from = same.saturating_sub(24);
    let quote = |l: Option<&str>| match l {
        Some(l) => {
            let tail: String = l.chars().skip(from).collect();
            format!("\"{}{}\"", if from > 0 { "…" } else { "" }, crate::text::cut(&tail, 72))
        }
        None => "nothing (the text ends)".to_string(),
    };
    Some(format!(
        "line {} reads {} where the ledger gives {}{}",
        i + 1,
        quote(x),
        quote(y),
        match differing.len() {
            1 => String::new(),
            k => format!(" ({} lines differ)", k),
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_is_named() {
        let long = "| gpt-4 beats gpt-3.5-turbo (cot_context_gpt-4_trial1 − cot_context_gpt-3.5-turbo_trial1) | **supported** at α";
        let edited = long.replace("**supported**", "**strongly supported**");
        assert_eq!(
            first_difference(&edited, long).unwrap(),
            "line 1 reads \"…-3.5-turbo_trial1) | **strongly supported** at α\" where the ledger gives \"…-3.5-turbo_trial1) | **supported** at α\""
        );
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            first_difference("a\nB\nc\n", "a\nb\nC\n").unwrap(),
            "line 2 reads \"B\" where the ledger gives \"b\" (2 lines differ)"
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n").unwrap(),
            "line 2 reads nothing (the text ends) where the ledger gives \"b\""
        );
        assert_eq!(
            first_difference("a", "a\n").unwrap(),
            "the same lines, but not the same bytes (a final line break?)"
        );
    }
}
