//! Escaping text for the Markdown report, so that a name (a system, a rule, a path) always
//! renders as the text it is: a `|` does not split a table cell, `*`, `_`, `` ` ``, `[`, `<`
//! do not start emphasis, code, links or HTML, and a leading `#`, `-` or `1.` does not start a
//! heading or a list. The rules are CommonMark's (backslash escapes, §2.4; emphasis flanking,
//! §6.2; raw HTML, §6.6) and GitHub Flavored Markdown's for pipes in table cells (GFM §4.10,
//! "include a pipe in a cell's content by escaping it, including inside other inline spans").

/// Escapes `s` for use inside a Markdown line: a paragraph, a list item or a table cell.
///
/// Newlines become spaces (a table row is one line). Every character that could start markup is
/// backslash-escaped; `[` and `]` only where they could make a link, `_` only where it could
/// open or close emphasis (not between two letters
/// or digits, as in `gpt_4_trial1`), `<` only where it could open raw HTML or an autolink
/// (before a letter, `/`, `!` or `?`), and `&` only where it starts an entity reference.
/// A leading block marker (`#`, `>`, `- `, `+ `, `1. `, a line of `=` or `-`) is escaped too.
pub fn escape_inline(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    escape_line(&flat)
}

/// Escapes a block of text (a study description): each line as [`escape_inline`] would, with
/// its indentation removed (four leading spaces would make a code block), line breaks kept.
pub fn escape_block(s: &str) -> String {
    s.lines()
        .map(|l| escape_line(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Markdown code span holding `s` literally: fenced with one backtick more than the longest
/// run of backticks in `s`, padded with a space where `s` starts or ends with a backtick, and
/// with `|` escaped so the span can sit in a table cell (GFM §4.10). Newlines become spaces.
pub fn code_span(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let mut longest = 0;
    let mut run = 0;
    for c in flat.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') || flat.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", flat.replace('|', "\\|"))
}

fn escape_line(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    let word = |i: Option<usize>| i.and_then(|i| chars.get(i)).is_some_and(|c| c.is_alphanumeric());
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let escape = match c {
            '\\' | '`' | '*' | '|' | '~' | '$' => true,
            // Every link, image, reference definition and footnote needs `](`, `][` or `]:`
            // (CommonMark §6.3, §4.7): escaping `]` there, and a leading `[ ]` or `[x]` (a GFM
            // task-list box),
            // leaves an interval such as `[+0.03, +0.19]` as it is.
            ']' => matches!(next, Some('(' | '[' | ':')),
            '[' => i == 0 && matches!((next, chars.get(i + 2)), (Some(' ' | 'x' | 'X'), Some(']'))),
            // An underscore between two alphanumerics can neither open nor close emphasis
            // (CommonMark §6.2, rules 2 and 4): only the others need the backslash.
            '_' => !(word(i.checked_sub(1)) && word(Some(i + 1))),
            '<' => next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')),
            // Only `&name;` or `&#123;` is an entity reference (CommonMark §2.5).
            '&' => {
                let tail: String = chars[i + 1..].iter().take(33).collect();
                let body: String = tail
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '#')
                    .collect();
                !body.is_empty() && tail[body.len()..].starts_with(';')
            }
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    escape_block_start(out)
}

/// Escapes a block marker at the start of an already escaped line.
fn escape_block_start(line: String) -> String {
    let mut chars = line.chars();
    let first = match chars.next() {
        Some(c) => c,
        None => return line,
    };
    let rest: String = chars.collect();
    let spaced = |r: &str| r.is_empty() || r.starts_with(' ') || r.starts_with('\t');
    match first {
        '#' | '>' => format!("\\{}", line),
        '-' | '+' if spaced(&rest) => format!("\\{}", line),
        '=' | '-' if rest.chars().all(|c| c == first || c == ' ') => format!("\\{}", line),
        d if d.is_ascii_digit() => {
            // An ordered-list marker: up to nine digits, then `.` or `)`, then a space or the end.
            let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
            let after = &line[digits..];
            let mut a = after.chars();
            match a.next() {
                Some(m @ ('.' | ')')) if digits <= 9 && spaced(a.as_str()) => {
                    format!("{}\\{}{}", &line[..digits], m, a.as_str())
                }
                _ => line,
            }
        }
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_render_as_text() {
        assert_eq!(escape_inline("a|b"), "a\\|b");
        assert_eq!(
            escape_inline("*bold* `x` [l](u) [r][d] [d]: u"),
            "\\*bold\\* \\`x\\` [l\\](u) [r\\][d] [d\\]: u"
        );
        assert_eq!(escape_inline("[x] a [+0.03, +0.19]"), "\\[x] a [+0.03, +0.19]");
        assert_eq!(escape_inline("[-0.27, +0.23]"), "[-0.27, +0.23]");
        assert_eq!(escape_inline("cot_context_gpt-4_trial1"), "cot_context_gpt-4_trial1");
        assert_eq!(escape_inline("_x_ a_ b"), "\\_x\\_ a\\_ b");
        assert_eq!(escape_inline("<script> < 0.0001 <= 3"), "\\<script> < 0.0001 <= 3");
        assert_eq!(escape_inline("Q&A &amp;"), "Q&A \\&amp;");
        assert_eq!(escape_inline("a\nb"), "a b");
        assert_eq!(escape_inline("# h"), "\\# h");
        assert_eq!(escape_inline("- item"), "\\- item");
        assert_eq!(escape_inline("-0.25"), "-0.25");
        assert_eq!(escape_inline("+0.1100"), "+0.1100");
        assert_eq!(escape_inline("1. first"), "1\\. first");
        assert_eq!(escape_inline("2026-11-30"), "2026-11-30");
        assert_eq!(escape_inline("==="), "\\===");
        assert_eq!(escape_inline(""), "");
        assert_eq!(escape_block("a\n    - b\n# c"), "a\n\\- b\n\\# c");
    }

    #[test]
    fn code_spans_hold_backticks_and_pipes() {
        assert_eq!(code_span("abc"), "`abc`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`a"), "`` `a ``");
        assert_eq!(code_span("a|b"), "`a\\|b`");
    }
}
