//! The stamp every rendered report carries: the study, the ledger tip (commit id) and the
//! template it was rendered from, the pledge that rendered it and the report directory its
//! commands name. It is written by pledge after the template's output, whatever the template
//! (a custom template cannot leave it out), as one visible sentence and one machine-readable
//! line: an HTML comment in Markdown and HTML (invisible once rendered), a `%` comment in
//! LaTeX. `pledge verify --report` reads it back, renders the report again from the ledger at
//! that tip with that template, and compares.

use super::markdown::code_span;
use super::model::RenderedFrom;
use serde::{Deserialize, Serialize};

/// The stamp's format version.
pub const STAMP_FORMAT: u32 = 1;

/// The name of the built-in template in a stamp.
pub const BUILT_IN: &str = "built-in";

/// What a report's machine-readable line states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Stamp {
    /// [`STAMP_FORMAT`].
    pub format: u32,
    /// The study reported on.
    pub study: String,
    /// The ledger tip's commit id (hex).
    pub tip: String,
    /// [`BUILT_IN`], or the template's path (relative to the repository root when inside it).
    pub template: String,
    /// SHA-256 of the template's text (hex).
    pub template_sha256: String,
    /// The directory the report's commands name (`pledge verify --report DIR`).
    pub report_dir: String,
    /// The pledge that rendered it, e.g. `pledge 0.1.0`.
    pub tool: String,
}

/// The tag that starts the machine-readable line.
const TAG: &str = "pledge-report ";

impl Stamp {
    /// The stamp of a report rendered from `r` for `study`.
    pub fn of(study: &str, r: &RenderedFrom) -> Stamp {
        Stamp {
            format: STAMP_FORMAT,
            study: study.to_string(),
            tip: r.tip_commit.clone(),
            template: r.template.clone(),
            template_sha256: r.template_sha256.clone(),
            report_dir: r.report_dir.clone(),
            tool: r.tool.clone(),
        }
    }

    /// The stamp as one line of JSON, with `<`, `>` and `&` written as `\u` escapes so that it
    /// can sit in an HTML comment whatever a path holds.
    pub fn json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_default()
            .replace('<', "\\u003c")
            .replace('>', "\\u003e")
            .replace('&', "\\u0026")
    }

    /// The machine-readable line for a Markdown or HTML report.
    pub fn comment(&self) -> String {
        format!("<!-- {}{} -->", TAG, self.json())
    }

    /// The machine-readable line for a LaTeX file.
    pub fn latex_comment(&self) -> String {
        format!("% {}{}", TAG, self.json())
    }

    /// The last stamp in `text`: `None` when there is none, `Some(Err(why))` when its line does
    /// not parse.
    pub fn find(text: &str) -> Option<Result<Stamp, String>> {
        let at = text.rfind(TAG)?;
        let rest = &text[at + TAG.len()..];
        let line = rest.lines().next().unwrap_or("");
        let json = line.trim_end().trim_end_matches("-->").trim_end();
        Some(serde_json::from_str(json).map_err(|e| e.to_string()))
    }

    /// Whether the template is pledge's built-in one.
    pub fn built_in(&self) -> bool {
        self.template == BUILT_IN
    }
}

/// The visible sentence: rendered by which pledge, from which tip, with which template, and the
/// command that checks it. Markdown (`html` false) or HTML.
fn sentence(r: &RenderedFrom, html: bool) -> String {
    let code = |s: &str| {
        if html {
            format!("<code>{}</code>", super::html::escape_html(s))
        } else {
            code_span(s)
        }
    };
    let template = if r.template == BUILT_IN {
        format!("pledge's built-in template (SHA-256 {})", code(&r.template_sha256))
    } else {
        format!(
            "the template {} (SHA-256 {}), not pledge's built-in one: its wording is the author's",
            code(&r.template),
            code(&r.template_sha256)
        )
    };
    format!(
        "Rendered by {} from the ledger at commit {} (entry #{}) with {}. {} renders it again from the ledger and says whether this text is what the ledger gives.",
        r.tool,
        code(&r.tip_commit),
        r.tip_seq,
        template,
        code(&format!(
            "pledge verify --report {}",
            crate::text::shell_word(if r.report_dir.is_empty() { "DIR" } else { &r.report_dir })
        ))
    )
}

/// The notice a report rendered with a custom template opens with.
fn custom_notice(r: &RenderedFrom, html: bool) -> String {
    if html {
        format!(
            "<p><strong>Rendered with the template <code>{}</code>, not pledge's built-in one.</strong> Its wording is the author's; <code>pledge verify --report</code> reports it.</p>\n",
            super::html::escape_html(&r.template)
        )
    } else {
        format!(
            "> **Rendered with the template {}, not pledge's built-in one.** Its wording is the author's; `pledge verify --report` reports it.\n\n",
            code_span(&r.template)
        )
    }
}

/// `body` (a template's output) with the stamp: the notice first for a custom template, the
/// sentence and the machine-readable line last. `html` is whether the template writes HTML.
pub fn finish(body: &str, study: &str, r: &RenderedFrom, html: bool) -> String {
    let mut out = String::with_capacity(body.len() + 600);
    if r.template != BUILT_IN {
        let notice = custom_notice(r, html);
        // An HTML page keeps its doctype and head first: the notice opens the body.
        match body.find("<body").and_then(|i| body[i..].find('>').map(|j| i + j + 1)) {
            Some(at) if html => {
                out.push_str(&body[..at]);
                out.push('\n');
                out.push_str(&notice);
                out.push_str(&body[at..]);
            }
            _ => {
                out.push_str(&notice);
                out.push_str(body);
            }
        }
    } else {
        out.push_str(body);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if html {
        out.push_str(&format!("<p><small>{}</small></p>\n", sentence(r, true)));
    } else {
        out.push_str(&format!("\n---\n\n*{}*\n", sentence(r, false)));
    }
    out.push_str(&format!("\n{}\n", Stamp::of(study, r).comment()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(template: &str) -> RenderedFrom {
        RenderedFrom {
            tool: "pledge 0.1.0".into(),
            tip_commit: "9c8f5e054221aa".into(),
            tip_seq: 3,
            template: template.into(),
            template_sha256: "ab".into(),
            report_dir: "report".into(),
        }
    }

    #[test]
    fn a_stamp_reads_back_from_the_text_it_ends() {
        let r = rendered("t/my <odd> -->.j2");
        let text = finish("# Title\n\nbody\n", "s-1", &r, false);
        let s = Stamp::find(&text).unwrap().unwrap();
        assert_eq!(s, Stamp::of("s-1", &r));
        assert!(!s.built_in());
        assert!(
            text.starts_with("> **Rendered with the template `t/my <odd> -->.j2`"),
            "{}",
            text
        );
        // The path's `-->` cannot end the comment early.
        assert!(!s.json().contains('>') && text.ends_with(" -->\n"), "{}", text);
        assert!(Stamp::find("no stamp here").is_none());
        assert!(Stamp::find("<!-- pledge-report {\"format\": -->").unwrap().is_err());
    }

    #[test]
    fn the_built_in_template_gets_no_notice_and_an_html_page_keeps_its_head() {
        let text = finish("# T\n", "s", &rendered(BUILT_IN), false);
        assert!(text.starts_with("# T\n\n---\n\n*Rendered by pledge 0.1.0 from the ledger at commit `9c8f5e054221aa` (entry #3) with pledge's built-in template (SHA-256 `ab`). `pledge verify --report report` renders it again"), "{}", text);
        let page = finish(
            "<!DOCTYPE html><html><body class=x>hi</body></html>",
            "s",
            &rendered("p.html"),
            true,
        );
        assert!(
            page.starts_with(
                "<!DOCTYPE html><html><body class=x>\n<p><strong>Rendered with the template <code>p.html</code>"
            ),
            "{}",
            page
        );
    }
}
