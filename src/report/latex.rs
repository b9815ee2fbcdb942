//! The results as a LaTeX table for a paper, rendered from the same
//! [`super::model::ReportData`] as the Markdown report: the per-system means, then
//! each comparison's difference, paired-resampling interval, reversal rate, adjusted p and
//! effect size. It uses `booktabs` rules (`\toprule`, `\midrule`, `\bottomrule`) and plain
//! LaTeX otherwise, and compiles with pdfLaTeX, XeLaTeX or LuaLaTeX.

use super::model::ReportData;

/// The LaTeX `table` of `data`'s results; the preamble needs `\usepackage{booktabs}`.
/// With no analysis in the ledger the table says so in one row.
pub fn results_table(data: &ReportData) -> String {
    let r = &data.results;
    let mut t = String::new();
    t.push_str(&format!(
        "% Results of study {} as recorded in the pledge ledger; needs \\usepackage{{booktabs}}.\n",
        data.study.id.replace(['\n', '\r'], " ")
    ));
    t.push_str("\\begin{table}[t]\n\\centering\n");
    t.push_str(&format!("\\caption{{{}}}\n", escape(&caption(data))));
    t.push_str(&format!("\\label{{tab:{}}}\n", label(&data.study.id)));
    if !r.present {
        t.push_str("\\begin{tabular}{l}\n\\toprule\nNo analysis is recorded in the ledger.\\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n");
        return t;
    }
    let filtered = !r.filter.is_empty();
    if filtered {
        t.push_str("\\begin{tabular}{lrrrr}\n\\toprule\nSystem & Mean (filtered) & Mean (all topics) & Topics & Components \\\\\n\\midrule\n");
    } else {
        t.push_str("\\begin{tabular}{lrrr}\n\\toprule\nSystem & Mean & Topics & Components \\\\\n\\midrule\n");
    }
    for s in &r.systems {
        let mut cells = vec![escape(&s.name), escape(&s.mean)];
        if filtered {
            cells.push(escape(&s.unfiltered_mean));
        }
        cells.push(escape(&s.topics));
        cells.push(escape(&s.components));
        t.push_str(&row(&cells));
    }
    t.push_str("\\bottomrule\n\\end{tabular}\n");
    if !r.comparisons.is_empty() {
        t.push_str("\n\\medskip\n");
        t.push_str(&format!(
            "\\begin{{tabular}}{{lrlrrl}}\n\\toprule\nComparison & Difference & Paired interval & Reversal & Adjusted $p$ ({}) & $d_z$ [interval] \\\\\n\\midrule\n",
            escape(&r.adjust)
        ));
        for c in &r.comparisons {
            t.push_str(&row(&[
                escape(&c.name),
                escape(&c.diff),
                escape(&c.paired_ci),
                escape(&c.reversal),
                escape(&c.adj_p),
                escape(&c.effect),
            ]));
        }
        t.push_str("\\bottomrule\n\\end{tabular}\n");
    }
    if !r.names.is_empty() {
        t.push_str("\n\\medskip\n\\begin{tabular}{ll}\n\\toprule\nShort name & System \\\\\n\\midrule\n");
        for n in &r.names {
            t.push_str(&row(&[escape(&n.short), escape(&n.full)]));
        }
        t.push_str("\\bottomrule\n\\end{tabular}\n");
    }
    t.push_str("\\end{table}\n");
    t
}

fn caption(data: &ReportData) -> String {
    let r = &data.results;
    let title = data.study.title.trim_end_matches('.');
    if !r.present {
        return format!("{}.", title);
    }
    // The interval sentence's first clause: level, percentile method and trial count.
    let intervals = r
        .interval_desc
        .split(';')
        .next()
        .unwrap_or_default()
        .trim_end_matches('.');
    let split = if r.split.is_empty() {
        String::new()
    } else {
        format!(" Split: {}.", r.split)
    };
    format!(
        "{}. Metric: {}.{} {}. Reversal: share of resamples whose difference has the opposite sign.",
        title, r.metric, split, intervals
    )
}

fn row(cells: &[String]) -> String {
    format!("{} \\\\\n", cells.join(" & "))
}

/// A label made of the study id's letters, digits and `-`, `:`, `.`.
fn label(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | ':' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Escapes text for LaTeX's text mode: the ten special characters, brackets (a cell starting
/// with `[` would be read as the optional argument of `\\`), and the few non-ASCII signs the
/// report's numbers use (minus, dashes, comparison signs, α), so pdfLaTeX needs no extra package.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '[' => out.push_str("{[}"),
            ']' => out.push_str("{]}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '"' => out.push_str("\\textquotedbl{}"),
            '−' => out.push_str("$-$"),
            '–' => out.push_str("--"),
            '—' => out.push_str("---"),
            '≥' => out.push_str("$\\geq$"),
            '≤' => out.push_str("$\\leq$"),
            'α' => out.push_str("$\\alpha$"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_are_escaped() {
        assert_eq!(escape("a_b & 5% #1"), "a\\_b \\& 5\\% \\#1");
        assert_eq!(escape("[+0.03, +0.19]"), "{[}+0.03, +0.19{]}");
        assert_eq!(escape("x − y"), "x $-$ y");
        assert_eq!(escape("< 0.0001"), "\\textless{} 0.0001");
        assert_eq!(
            escape("\\{}~^"),
            "\\textbackslash{}\\{\\}\\textasciitilde{}\\textasciicircum{}"
        );
        assert_eq!(label("my study/1"), "my-study-1");
    }
}
