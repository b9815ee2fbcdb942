//! The self-contained static HTML report: the Markdown report (rendered from the same
//! [`ReportData`](super::model::ReportData)) converted by pulldown-cmark with GitHub's table
//! extension, each picture the Markdown links to inlined as its SVG, and a small style sheet.
//! No script, no external file: the page reads the same offline, in a browser or an archive.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};
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
/// alt text becomes the SVG's accessible name. Other images stay links. Every fenced `mermaid`
/// block whose text (trimmed) is a key of `diagrams` (Mermaid source → SVG text) is replaced by
/// that SVG, so the page shows the drawn diagram, never its source; another Mermaid block (a
/// custom template's) stays a code block.
///
/// The conversion follows CommonMark with GitHub's tables (pulldown-cmark); text is HTML-escaped
/// by it, so a name cannot inject markup.
pub fn to_html(
    markdown: &str,
    title: &str,
    svgs: &BTreeMap<String, String>,
    diagrams: &BTreeMap<String, String>,
) -> String {
    let parser = Parser::new_ext(markdown, Options::ENABLE_TABLES);
    let events = inline_diagrams(inline_images(parser, svgs), diagrams);
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

/// `svg` with `role="img"` and the accessible name `label` on its root element.
fn labelled(svg: &str, label: &str) -> String {
    svg.replacen(
        "<svg ",
        &format!("<svg role=\"img\" aria-label=\"{}\" ", escape_html(label)),
        1,
    )
}

/// The events of `parser` with each image whose link is a key of `svgs` replaced by its SVG.
fn inline_images<'a>(parser: Parser<'a>, svgs: &BTreeMap<String, String>) -> Vec<Event<'a>> {
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
                    events.push(Event::InlineHtml(CowStr::from(labelled(&svgs[&url], &alt))));
                }
            }
            (Some(_), _) => {}
            (None, ev) => events.push(ev),
        }
    }
    events
}

/// `events` with each fenced `mermaid` block whose trimmed text is a key of `diagrams` replaced
/// by that SVG (as an HTML block); other code blocks are kept as they are.
fn inline_diagrams<'a>(events: Vec<Event<'a>>, diagrams: &BTreeMap<String, String>) -> Vec<Event<'a>> {
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    // The Mermaid block being read: its events so far and its text.
    let mut block: Option<(Vec<Event>, String)> = None;
    for ev in events {
        match (&mut block, ev) {
            (None, Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))) if lang.as_ref() == "mermaid" => {
                block = Some((
                    vec![Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))],
                    String::new(),
                ));
            }
            (Some((held, text)), Event::Text(t)) => {
                text.push_str(&t);
                held.push(Event::Text(t));
            }
            (Some(_), Event::End(TagEnd::CodeBlock)) => {
                if let Some((mut held, text)) = block.take() {
                    match diagrams.get(text.trim()) {
                        Some(svg) => out.push(Event::Html(CowStr::from(labelled(svg, "diagram")))),
                        None => {
                            held.push(Event::End(TagEnd::CodeBlock));
                            out.append(&mut held);
                        }
                    }
                }
            }
            (Some((held, _)), ev) => held.push(ev),
            (None, ev) => out.push(ev),
        }
    }
    if let Some((mut held, _)) = block {
        out.append(&mut held);
    }
    out
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
        let html = to_html(md, "T <1>", &svgs, &BTreeMap::new());
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

    #[test]
    fn known_mermaid_blocks_become_their_svg_and_others_stay_code() {
        let mut diagrams = BTreeMap::new();
        diagrams.insert(
            "flowchart TB\n  R0[\"a\"]".to_string(),
            "<svg width=\"2\"></svg>\n".to_string(),
        );
        let md = "x\n\n```mermaid\nflowchart TB\n  R0[\"a\"]\n```\n\n```mermaid\ngraph LR\n```\n\n```sh\nls\n```\n";
        let html = to_html(md, "T", &BTreeMap::new(), &diagrams);
        assert!(
            html.contains("<svg role=\"img\" aria-label=\"diagram\" width=\"2\"></svg>"),
            "{}",
            html
        );
        assert!(!html.contains("R0["), "{}", html);
        assert!(
            html.contains("<code class=\"language-mermaid\">graph LR\n</code>"),
            "{}",
            html
        );
        assert!(html.contains("<code class=\"language-sh\">ls\n</code>"), "{}", html);
    }
}
