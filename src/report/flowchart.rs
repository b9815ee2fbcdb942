//! A flowchart of boxes and arrows, drawn top to bottom: the report's picture of the link rules
//! applied one after another. The same chart is written two ways: as Mermaid source
//! ([`Flowchart::mermaid`]) for the Markdown report, which GitHub and GitLab draw, and as an SVG
//! drawn here ([`Flowchart::svg`]) for the HTML page, so that the page shows a drawn diagram with
//! no script and nothing downloaded when it is viewed.
//!
//! The layout is deterministic: each node sits in the layer one below the deepest node with an
//! edge into it (a longest-path layering, as in Sugiyama et al., "Methods for visual understanding
//! of hierarchical system structures", 1981, without the crossing reduction a chain does not
//! need), nodes of a layer side by side in the order they were added, and box widths from the
//! character count of the longest line (no font is measured), so the same chart always gives the
//! same bytes.

use super::html::escape_html;

/// Node text size in pixels.
const FONT_PX: f64 = 13.0;
/// The width assumed for one character at [`FONT_PX`] (a little over the average advance of a
/// sans-serif face, so text stays inside its box).
const CHAR_PX: f64 = 7.6;
/// Height of one line of node text.
const LINE_PX: f64 = 18.0;
/// Padding inside a box, left/right and top/bottom.
const PAD_X: f64 = 12.0;
const PAD_Y: f64 = 8.0;
/// Space between layers (the arrows' length) and between boxes of one layer.
const GAP_Y: f64 = 34.0;
const GAP_X: f64 = 24.0;
/// Space around the drawing.
const MARGIN: f64 = 8.0;
/// Line and arrow colour; box fill.
const INK: &str = "#57606a";
const FILL: &str = "#f6f8fa";

/// A flowchart: nodes (each one or more lines of plain text) and directed edges between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flowchart {
    nodes: Vec<Vec<String>>,
    edges: Vec<(usize, usize)>,
}

/// Where a node is drawn: its box's top-left corner and size, in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placed {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Flowchart {
    /// An empty chart.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node showing `lines` (plain text, one box line each) and returns its index.
    pub fn node(&mut self, lines: Vec<String>) -> usize {
        self.nodes.push(lines);
        self.nodes.len() - 1
    }

    /// Adds an arrow from node `from` to node `to` (indices [`Flowchart::node`] returned; an
    /// index past the last node is ignored when drawing).
    pub fn edge(&mut self, from: usize, to: usize) {
        self.edges.push((from, to));
    }

    /// The chart as Mermaid source (`flowchart TB`): nodes `R0`, `R1`, …, each defined with its
    /// label where it first appears, lines joined by `<br/>`; quotes and angle brackets written as
    /// Mermaid's entity codes (`#quot;`, `#lt;`, `#gt;`) and backticks as `'`, so a label cannot
    /// end itself, open an HTML tag or close the code fence.
    pub fn mermaid(&self) -> String {
        let label = |i: usize| {
            let lines: Vec<String> = self.nodes[i].iter().map(|l| mermaid_text(l)).collect();
            format!("R{}[\"{}\"]", i, lines.join("<br/>"))
        };
        let mut defined = vec![false; self.nodes.len()];
        let mut out = vec!["flowchart TB".to_string()];
        let mention = |i: usize, defined: &mut [bool]| {
            if std::mem::replace(&mut defined[i], true) {
                format!("R{}", i)
            } else {
                label(i)
            }
        };
        if !self.nodes.is_empty() {
            out.push(format!("  {}", mention(0, &mut defined)));
        }
        for &(a, b) in self.edges.iter().filter(|&&(a, b)| a.max(b) < self.nodes.len()) {
            let from = mention(a, &mut defined);
            let to = mention(b, &mut defined);
            out.push(format!("  {} --> {}", from, to));
        }
        let unmentioned: Vec<usize> = (0..self.nodes.len()).filter(|&i| !defined[i]).collect();
        for i in unmentioned {
            out.push(format!("  {}", mention(i, &mut defined)));
        }
        out.join("\n")
    }

    /// Each node's layer: 0 for a node no edge enters, else one more than the deepest node with an
    /// edge into it (edges that would close a cycle stop raising layers after `n` rounds).
    fn layers(&self) -> Vec<usize> {
        let n = self.nodes.len();
        let mut layer = vec![0usize; n];
        for _ in 0..n {
            let mut moved = false;
            for &(a, b) in self.edges.iter().filter(|&&(a, b)| a.max(b) < n && a != b) {
                if layer[b] <= layer[a] && layer[a] + 1 < n {
                    layer[b] = layer[a] + 1;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        layer
    }

    /// Where each node is drawn, and the drawing's width and height.
    fn place(&self) -> (Vec<Placed>, f64, f64) {
        let layer = self.layers();
        let depth = layer.iter().max().map_or(0, |m| m + 1);
        let size = |lines: &Vec<String>| {
            let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            (
                chars as f64 * CHAR_PX + 2.0 * PAD_X,
                lines.len().max(1) as f64 * LINE_PX + 2.0 * PAD_Y,
            )
        };
        let rows: Vec<Vec<usize>> = (0..depth)
            .map(|d| (0..self.nodes.len()).filter(|&i| layer[i] == d).collect())
            .collect();
        let row_width = |row: &Vec<usize>| {
            let boxes: f64 = row.iter().map(|&i| size(&self.nodes[i]).0).sum();
            boxes + GAP_X * row.len().saturating_sub(1) as f64
        };
        let width = rows.iter().map(row_width).fold(0.0, f64::max) + 2.0 * MARGIN;
        let mut placed = vec![
            Placed {
                x: 0.0,
                y: 0.0,
                w: 0.0,
                h: 0.0
            };
            self.nodes.len()
        ];
        let mut y = MARGIN;
        for row in &rows {
            let mut x = (width - row_width(row)) / 2.0;
            let tallest = row.iter().map(|&i| size(&self.nodes[i]).1).fold(0.0, f64::max);
            for &i in row {
                let (w, h) = size(&self.nodes[i]);
                placed[i] = Placed { x, y, w, h };
                x += w + GAP_X;
            }
            y += tallest + GAP_Y;
        }
        let height = if rows.is_empty() {
            2.0 * MARGIN
        } else {
            y - GAP_Y + MARGIN
        };
        (placed, width.max(2.0 * MARGIN), height)
    }

    /// The chart as a standalone SVG document: a `<g class="node">` (a rounded box and its text)
    /// per node and a `<g class="edge">` (a line ending in an arrowhead, from the bottom centre of
    /// one box to the top centre of the other) per edge between existing nodes. Text is
    /// XML-escaped.
    pub fn svg(&self) -> String {
        let (placed, width, height) = self.place();
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\" font-size=\"{f}\">\n\
<defs><marker id=\"pledge-flow-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{INK}\"/></marker></defs>\n",
            w = width.ceil(),
            h = height.ceil(),
            f = FONT_PX
        );
        for &(a, b) in self
            .edges
            .iter()
            .filter(|&&(a, b)| a.max(b) < self.nodes.len() && a != b)
        {
            let (p, q) = (placed[a], placed[b]);
            let (x1, y1, x2, y2) = if q.y > p.y {
                (p.x + p.w / 2.0, p.y + p.h, q.x + q.w / 2.0, q.y)
            } else {
                (p.x + p.w / 2.0, p.y, q.x + q.w / 2.0, q.y + q.h)
            };
            out.push_str(&format!(
                "<g class=\"edge\"><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{INK}\" stroke-width=\"1.5\" marker-end=\"url(#pledge-flow-arrow)\"/></g>\n",
                x1, y1, x2, y2
            ));
        }
        for (lines, p) in self.nodes.iter().zip(&placed) {
            out.push_str(&format!(
                "<g class=\"node\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"{FILL}\" stroke=\"{INK}\"/><text text-anchor=\"middle\" fill=\"#1f2328\">",
                p.x, p.y, p.w, p.h
            ));
            for (k, line) in lines.iter().enumerate() {
                // The baseline of line k: the box's top, its padding, then k lines and most of one.
                let baseline = p.y + PAD_Y + LINE_PX * (k as f64 + 0.75);
                out.push_str(&format!(
                    "<tspan x=\"{:.1}\" y=\"{:.1}\">{}</tspan>",
                    p.x + p.w / 2.0,
                    baseline,
                    escape_html(line)
                ));
            }
            out.push_str("</text></g>\n");
        }
        out.push_str("</svg>\n");
        out
    }
}

/// A line of node text as Mermaid label text (see [`Flowchart::mermaid`]).
fn mermaid_text(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Flowchart {
        let mut f = Flowchart::new();
        let a = f.node(vec!["100 candidate questions".into(), "900 units (passage)".into()]);
        let b = f.node(vec![
            "identical <paragraphs> & \"quotes\"".into(),
            "899 components".into(),
        ]);
        let c = f.node(vec!["plus shared distractors".into()]);
        f.edge(a, b);
        f.edge(b, c);
        f
    }

    /// Parses `svg` as XML and returns the `class` attribute of every `g` element.
    fn groups(svg: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        doc.descendants()
            .filter(|n| n.has_tag_name("g"))
            .map(|n| n.attribute("class").unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn svg_is_well_formed_xml_with_one_group_per_node_and_edge() {
        let f = chain();
        let svg = f.svg();
        let classes = groups(&svg);
        assert_eq!(classes.iter().filter(|c| *c == "node").count(), 3);
        assert_eq!(classes.iter().filter(|c| *c == "edge").count(), 2);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("tspan"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(
            texts,
            [
                "100 candidate questions",
                "900 units (passage)",
                "identical <paragraphs> & \"quotes\"",
                "899 components",
                "plus shared distractors"
            ]
        );
        assert_eq!(svg, chain().svg(), "deterministic");
    }

    #[test]
    fn a_chain_is_drawn_top_to_bottom_with_arrows_between_boxes() {
        let (placed, width, height) = chain().place();
        // Layer by layer: each box below the one before, the gap between them the arrow.
        assert!(placed[0].y + placed[0].h + GAP_Y - placed[1].y < 1e-9);
        assert!(placed[1].y + placed[1].h + GAP_Y - placed[2].y < 1e-9);
        // The widest box (33 characters) sets the width; every box is centred and inside.
        assert_eq!("identical <paragraphs> & \"quotes\"".chars().count(), 33);
        let widest = 33.0 * CHAR_PX + 2.0 * PAD_X;
        assert!((width - (widest + 2.0 * MARGIN)).abs() < 1e-9);
        for p in &placed {
            assert!(p.x >= MARGIN - 1e-9 && p.x + p.w <= width - MARGIN + 1e-9);
            assert!(((p.x + p.w / 2.0) - width / 2.0).abs() < 1e-9);
        }
        assert!((height - (placed[2].y + placed[2].h + MARGIN)).abs() < 1e-9);
    }

    #[test]
    fn branches_sit_side_by_side_and_bad_edges_are_skipped() {
        let mut f = Flowchart::new();
        let root = f.node(vec!["root".into()]);
        let l = f.node(vec!["left".into()]);
        let r = f.node(vec!["right".into()]);
        f.edge(root, l);
        f.edge(root, r);
        f.edge(r, 9);
        f.edge(l, l);
        let (placed, _, _) = f.place();
        assert_eq!(placed[1].y, placed[2].y);
        assert!(placed[1].x + placed[1].w + GAP_X - placed[2].x < 1e-9);
        let classes = groups(&f.svg());
        assert_eq!(classes.iter().filter(|c| *c == "edge").count(), 2);
        assert_eq!(
            f.mermaid(),
            "flowchart TB\n  R0[\"root\"]\n  R0 --> R1[\"left\"]\n  R0 --> R2[\"right\"]\n  R1 --> R1"
        );
        assert_eq!(groups(&Flowchart::new().svg()), Vec::<String>::new());
    }

    #[test]
    fn mermaid_labels_cannot_break_out() {
        assert_eq!(
            chain().mermaid(),
            "flowchart TB\n  R0[\"100 candidate questions<br/>900 units (passage)\"]\n  \
R0 --> R1[\"identical #lt;paragraphs#gt; & #quot;quotes#quot;<br/>899 components\"]\n  \
R1 --> R2[\"plus shared distractors\"]"
        );
    }
}
