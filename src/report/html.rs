//! The self-contained static HTML report: the Markdown report (rendered from the same
//! [`ReportData`](super::model::ReportData)) converted by pulldown-cmark with GitHub's table
//! extension, each picture the Markdown links to inlined as its SVG, and a small style sheet.
//! No script, no external file: the page reads the same offline, in a browser or an archive.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use std::collections::BTreeMap;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.5;\
max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}\
table{border-collapse:collapse;margin:1rem 0;display:block;overflow-x:auto}\
th,td{border:1px solid #d0d7de;padding:.3rem .6rem;vertical-align:top}\
th{background:#f6f8fa}code,pre{font-family:ui-monospace,monospace;font-size:.9em}\
pre{background:#f6f8fa;padding:.8rem;overflow-x:auto}\
blockquote{border-left:.25rem solid #d1242f;margin:0;padding:0 1rem;color:#59636e}\
svg{max-width:100%;height:auto;display:block;margin:1rem 0}";

/// Converts the Markdown report `markdown` into one HTML page titled `title`, with every image
/// whose link is a key of `svgs` (file name → SVG text) replaced by the SVG itself; the image's
/// alt text becomes the SVG's accessible name. Other images stay links.
///
/// The conversion follows CommonMark with GitHub's tables (pulldown-cmark); text is HTML-escaped
/// by it, so a name cannot inject markup.
pub fn to_html(markdown: &str, title: &str, svgs: &BTreeMap<String, String>) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES);
    let mut events: Vec<Event> = Vec::new();
    let mut inlining: Option<(String, String)> = None;
    for ev in parser {
        match (&mut inlining, ev) {
            (None, Event::Start(Tag::Image { dest_url, .. })) if svgs.contains_key(dest_url.as_ref()) => {
                inlining = Some((dest_url.to_string(), String::new()));
            }
            (Some((_, alt)), Event::Text(t) | Event::Code(t)) => alt.push_str(&t),
            (Some(_), Event::End(TagEnd::Image)) => {
                if let Some((url, alt)) = inlining.take() {
                    let svg = &svgs[&url];
                    let labelled = svg.replacen(
                        "<svg ",
                        &format!("<svg role=\"img\" aria-label=\"{}\" ", escape_html(&alt)),
                        1,
                    );
                    events.push(Event::InlineHtml(CowStr::from(labelled)));
                }
            }
            (Some(_), _) => {}
            (None, ev) => events.push(ev),
        }
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta name=\"generator\" content=\"pledge\">\n<title>{}</title>\n<style>{}</style>\n</head>\n\
<body>\n<main>\n{}</main>\n</body>\n</html>\n",
        escape_html(title),
        STYLE,
        body
    )
}

/// Escapes text for an HTML attribute or element: `&`, `<`, `>`, `"`, `'`.
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svgs_are_inlined_and_text_is_escaped() {
        let mut svgs = BTreeMap::new();
        svgs.insert("a.svg".to_string(), "<svg width=\"1\"></svg>".to_string());
        let md = "# T\n\n| x | y |\n|---|---|\n| a\\|b | \\<script> |\n\n![pic of a\\_b](a.svg)\n\n![other](b.svg)\n";
        let html = to_html(md, "T <1>", &svgs);
        assert!(html.contains("<title>T &lt;1&gt;</title>"), "{}", html);
        assert!(html.contains("<td>a|b</td>"), "{}", html);
        assert!(html.contains("<td>&lt;script&gt;</td>"), "{}", html);
        assert!(
            html.contains("<svg role=\"img\" aria-label=\"pic of a_b\" width=\"1\"></svg>"),
            "{}",
            html
        );
        assert!(!html.contains("src=\"a.svg\""), "{}", html);
        assert!(html.contains("<img src=\"b.svg\" alt=\"other\""), "{}", html);
    }
}
