//! The report's diagnostics section (a count run with `--sensitivity` or `--bridges`): the
//! sensitivity curve of the count with its plot, and the top bridges. Both are diagnostics and
//! the section says so: the registered decision rests on the registered rules alone.

use super::model::fmt_count;
use crate::error::{Error, Result};
use crate::ledger::{EntryKind, StoredEntry};
use crate::records::count::{BridgeKind, Bridges, Sensitivity};
use crate::records::{self, CountRecord};
use plotters::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// `diagnostics.*`: present when a count of the study was run with diagnostics.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiagnosticsView {
    pub present: bool,
    pub when: String,
    pub statement: String,
    pub sensitivity: Vec<SensitivityRow>,
    pub sensitivity_rule: String,
    pub sensitivity_svg: String,
    pub bridges: Vec<BridgeRow>,
    pub bridges_total: String,
    pub largest: String,
}

/// One row of the sensitivity table.
#[derive(Debug, Clone, Serialize)]
pub struct SensitivityRow {
    pub shingle_size: String,
    pub jaccard: String,
    pub pairs: String,
    pub components: String,
    pub with_candidates: String,
    pub largest: String,
    pub registered: bool,
}

/// One row of the bridges table.
#[derive(Debug, Clone, Serialize)]
pub struct BridgeRow {
    pub kind: String,
    pub label: String,
    pub excerpt: String,
    pub units: String,
    pub questions: String,
    pub largest_without: String,
}

/// The statement every diagnostic output carries.
pub const STATEMENT: &str =
    "Diagnostics: they do not change the registered count or the stop rule's decision, which rest on the registered link rules alone.";

/// The diagnostics of the latest count entry of `mine` that carries any (default when none
/// does); the plot goes into `svgs` as `sensitivity.svg`.
///
/// Errors (exit 2): a stored count record that cannot be read; a drawing failure (internal).
pub fn diagnostics_view(mine: &[&StoredEntry], svgs: &mut BTreeMap<String, String>) -> Result<DiagnosticsView> {
    for e in mine.iter().rev() {
        if !matches!(e.entry.kind, EntryKind::Stop | EntryKind::Go | EntryKind::Count) {
            continue;
        }
        let r: CountRecord = records::read_result(e, "count")?;
        let Some(d) = r.diagnostics else { continue };
        let mut v = DiagnosticsView {
            present: true,
            when: format!("at {} (ledger entry #{})", e.entry.time, e.entry.seq),
            statement: STATEMENT.into(),
            ..Default::default()
        };
        if let Some(s) = &d.sensitivity {
            v.sensitivity_rule = format!(
                "`{}` (registered: shingle size {}, Jaccard ≥ {})",
                s.rule, s.registered_shingle_size, s.registered_jaccard
            );
            v.sensitivity = s
                .points
                .iter()
                .map(|p| SensitivityRow {
                    shingle_size: p.shingle_size.to_string(),
                    jaccard: format!("{:.2}", p.jaccard),
                    pairs: fmt_count(p.pairs as u64),
                    components: fmt_count(p.counts.components as u64),
                    with_candidates: fmt_count(p.counts.with_candidates as u64),
                    largest: format!(
                        "{} units, {} questions",
                        fmt_count(p.counts.largest_units as u64),
                        fmt_count(p.counts.largest_questions as u64)
                    ),
                    registered: p.registered,
                })
                .collect();
            let name = "sensitivity.svg".to_string();
            svgs.insert(name.clone(), sensitivity_svg(s)?);
            v.sensitivity_svg = name;
        }
        if let Some(b) = &d.bridges {
            v.bridges_total = fmt_count(b.total as u64);
            v.largest = format!(
                "{} units, {} questions",
                fmt_count(b.largest_units as u64),
                fmt_count(b.largest_questions as u64)
            );
            v.bridges = bridge_rows(b);
        }
        return Ok(v);
    }
    Ok(DiagnosticsView::default())
}

fn bridge_rows(b: &Bridges) -> Vec<BridgeRow> {
    b.top
        .iter()
        .map(|x| BridgeRow {
            kind: match x.kind {
                BridgeKind::Passage if x.passages > 1 => {
                    format!("passage group ({} passages)", fmt_count(x.passages as u64))
                }
                k => k.as_str().to_string(),
            },
            label: x.label.clone(),
            excerpt: x.excerpt.clone(),
            units: fmt_count(x.units as u64),
            questions: fmt_count(x.questions as u64),
            largest_without: format!(
                "{} units, {} questions (−{} units)",
                fmt_count(x.largest_units_without as u64),
                fmt_count(x.largest_questions_without as u64),
                fmt_count(b.largest_units.saturating_sub(x.largest_units_without) as u64)
            ),
        })
        .collect()
}

/// Text safe in a Markdown table cell: `|` escaped, line breaks as spaces.
fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::internal("drawing the sensitivity chart").caused_by(format!("{:?}", e))
}

/// The colours of the shingle sizes' lines, in order.
const PALETTE: [RGBColor; 6] = [
    RGBColor(70, 110, 170),
    RGBColor(230, 140, 40),
    RGBColor(60, 150, 80),
    RGBColor(150, 80, 160),
    RGBColor(120, 120, 120),
    RGBColor(200, 60, 60),
];

/// Which count a panel plots.
type Get = fn(&crate::records::count::Snapshot) -> usize;

/// SVG (960 × 400, and a legend strip below) of a sensitivity curve: components in all (left)
/// and components holding candidates (right) against the Jaccard threshold, one line per shingle
/// size (log scale), the registered rule marked by a vertical line and a ring; one legend for
/// both panels, under them. Text is 12 px or larger.
///
/// Errors: a drawing failure (internal).
pub fn sensitivity_svg(s: &Sensitivity) -> Result<String> {
    let mut sizes: Vec<usize> = s.points.iter().map(|p| p.shingle_size).collect();
    sizes.dedup();
    let (j0, j1) = s
        .points
        .iter()
        .fold((1.0f64, 0.0f64), |(lo, hi), p| (lo.min(p.jaccard), hi.max(p.jaccard)));
    let pad = ((j1 - j0) * 0.04).max(0.01);
    let mut out = String::new();
    {
        let legend = sensitivity_legend(s, &sizes);
        let height = 400 + super::svg::legend_height(&legend, 960) as u32;
        let root = SVGBackend::with_string(&mut out, (960, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let root = super::svg::legend_below(&root, &legend)?;
        let root = root
            .titled(
                "Components under the near-duplicate rule's threshold (diagnostic)",
                ("sans-serif", 20),
            )
            .map_err(plot_err)?;
        let panels = root.split_evenly((1, 2));
        let what: [(&str, Get); 2] = [
            ("components (all)", |c| c.components),
            ("components with candidates", |c| c.with_candidates),
        ];
        for (area, (title, get)) in panels.iter().zip(what) {
            draw_panel(area, title, get, s, &sizes, (j0 - pad, j1 + pad))?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// The legend the two panels of [`sensitivity_svg`] share: the registered rule's line, then one
/// line per shingle size, in the panels' colours and widths.
fn sensitivity_legend(s: &Sensitivity, sizes: &[usize]) -> Vec<(String, super::svg::Mark)> {
    use super::svg::Mark;
    let mut items = vec![(
        format!(
            "registered: n = {}, J ≥ {}",
            s.registered_shingle_size, s.registered_jaccard
        ),
        Mark::Line(RED, 1),
    )];
    for (i, &n) in sizes.iter().enumerate() {
        let width = if n == s.registered_shingle_size { 3 } else { 1 };
        items.push((
            format!("shingle size {}", n),
            Mark::Line(PALETTE[i % PALETTE.len()], width),
        ));
    }
    items
}

/// One panel of [`sensitivity_svg`]: the count `get` picks against the Jaccard threshold over
/// `x`, one line per shingle size of `sizes`, the registered rule marked.
fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    get: Get,
    s: &Sensitivity,
    sizes: &[usize],
    x: (f64, f64),
) -> Result<()> {
    let ymax = s.points.iter().map(|p| get(&p.counts)).max().unwrap_or(1).max(1) as f64 * 2.0;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 17))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x.0..x.1, (0.7f64..ymax).log_scale())
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("Jaccard threshold")
        .y_desc("components (log scale)")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15))
        .x_label_formatter(&|v| format!("{:.2}", v))
        .y_label_formatter(&|v| format!("{:.0}", v))
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(LineSeries::new(
            vec![(s.registered_jaccard, 0.7), (s.registered_jaccard, ymax)],
            RED.stroke_width(1),
        ))
        .map_err(plot_err)?;
    for (i, &n) in sizes.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let line: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.shingle_size == n)
            .map(|p| (p.jaccard, get(&p.counts) as f64))
            .collect();
        let width = if n == s.registered_shingle_size { 3 } else { 1 };
        chart
            .draw_series(LineSeries::new(line.clone(), color.stroke_width(width)))
            .map_err(plot_err)?;
        chart
            .draw_series(line.iter().map(|&p| Circle::new(p, 2, color.filled())))
            .map_err(plot_err)?;
    }
    chart
        .draw_series(
            s.points
                .iter()
                .filter(|p| p.registered)
                .map(|p| Circle::new((p.jaccard, get(&p.counts) as f64), 7, RED.stroke_width(2))),
        )
        .map_err(plot_err)?;
    Ok(())
}
