//! Pictures for the report, drawn with plotters' SVG backend (no system fonts: plotters' naive
//! text layout, so the SVG text is deterministic): the bootstrap distribution of a difference
//! with its percentile interval marked, and the distribution of component sizes.

use crate::error::{Error, Result};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// Tick-label and legend font size as plotters takes it. plotters' SVG backend writes
/// `font-size` as the requested size / 1.24, so 15 gives 12.1 px: no text of a chart is
/// smaller than 12 px.
const LABEL_PX: u32 = 15;
/// Axis-description font size (12.9 px in the SVG).
const AXIS_PX: u32 = 16;

/// Caption font size (see [`LABEL_PX`] for the scale): smaller for long titles so they fit the
/// 640-pixel width, never below 12 px.
fn caption_size(title: &str) -> u32 {
    match title.chars().count() {
        0..=56 => 20,
        57..=72 => 17,
        _ => 15,
    }
}

/// A histogram: `edges.len() == counts.len() + 1`, bins `[edges[i], edges[i+1])`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Bin edges, increasing.
    pub edges: Vec<f64>,
    /// Counts per bin.
    pub counts: Vec<u64>,
}

fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::internal("drawing an SVG chart").caused_by(format!("{:?}", e))
}

/// What a legend entry shows before its label: a line of a colour and width, or a filled
/// swatch.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mark {
    /// A line, as the series is drawn.
    Line(RGBColor, u32),
    /// A filled box (a shaded band).
    Band(RGBAColor),
}

/// The legend frame's fill. Nothing else in a chart has it, so a test finds the frame by it.
pub(crate) const LEGEND_BG: RGBColor = RGBColor(250, 250, 251);
/// Height of one row of legend entries, and the padding around the rows inside the frame.
const LEGEND_ROW: i32 = 22;
const LEGEND_PAD: i32 = 6;
/// The swatch's length, the space between it and its label, and between two entries.
const SWATCH: i32 = 18;
const SWATCH_GAP: i32 = 6;
const ENTRY_GAP: i32 = 20;
/// The width assumed per character of a label at [`LABEL_PX`] (12.1 px in the SVG; a little over
/// a sans-serif face's average advance, so a label stays inside the frame).
const LABEL_CHAR: f64 = 7.5;

/// The width of one legend entry: swatch, gap and label.
fn entry_width(label: &str) -> i32 {
    SWATCH + SWATCH_GAP + (label.chars().count() as f64 * LABEL_CHAR).ceil() as i32
}

/// Lays the legend `items` out left to right in rows no wider than `width` (less the frame's
/// padding and a margin): each entry's x offset inside the frame and its row, the frame's
/// width and the strip's height (frame and margin).
fn legend_layout(items: &[(String, Mark)], width: i32) -> (Vec<(i32, i32)>, i32, i32) {
    let room = width - 2 * LEGEND_PAD - 24;
    let (mut x, mut row, mut widest) = (0, 0, 0);
    let mut at = Vec::with_capacity(items.len());
    for (label, _) in items {
        let w = entry_width(label);
        if x > 0 && x + w > room {
            (x, row) = (0, row + 1);
        }
        at.push((x, row));
        x += w + ENTRY_GAP;
        widest = widest.max(x - ENTRY_GAP);
    }
    if items.is_empty() {
        return (at, 0, 0);
    }
    (at, widest + 2 * LEGEND_PAD, (row + 1) * LEGEND_ROW + 2 * LEGEND_PAD + 8)
}

/// The height of the strip [`legend_below`] takes under a chart `width` pixels wide.
pub(crate) fn legend_height(items: &[(String, Mark)], width: i32) -> i32 {
    legend_layout(items, width).2
}

/// Splits `area` into the plot above and a strip of [`legend_height`] below it, and draws the
/// legend of `items` in the strip: a framed row (or rows) of entries, centred. The legend is
/// outside the plot area, so it never covers data. Returns the area for the plot.
///
/// Errors: a drawing failure (internal).
pub(crate) fn legend_below<'a>(
    area: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    items: &[(String, Mark)],
) -> Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>> {
    let (w, h) = area.dim_in_pixel();
    let (at, frame_w, strip) = legend_layout(items, w as i32);
    let (plot, strip_area) = area.split_vertically(h as i32 - strip);
    if items.is_empty() {
        return Ok(plot);
    }
    let x0 = (w as i32 - frame_w) / 2;
    let y0 = 4;
    let frame = [(x0, y0), (x0 + frame_w, strip - 4)];
    strip_area
        .draw(&Rectangle::new(frame, LEGEND_BG.filled()))
        .map_err(plot_err)?;
    strip_area
        .draw(&Rectangle::new(frame, BLACK.stroke_width(1)))
        .map_err(plot_err)?;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let style = TextStyle::from(("sans-serif", LABEL_PX).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for ((label, mark), &(x, row)) in items.iter().zip(&at) {
        let (ex, cy) = (x0 + LEGEND_PAD + x, y0 + LEGEND_PAD + row * LEGEND_ROW + LEGEND_ROW / 2);
        match *mark {
            Mark::Line(c, width) => strip_area
                .draw(&PathElement::new(
                    vec![(ex, cy), (ex + SWATCH, cy)],
                    c.stroke_width(width),
                ))
                .map_err(plot_err)?,
            Mark::Band(c) => strip_area
                .draw(&Rectangle::new([(ex, cy - 6), (ex + SWATCH, cy + 6)], c.filled()))
                .map_err(plot_err)?,
        }
        let text = Text::new(label.clone(), (ex + SWATCH + SWATCH_GAP, cy), style.clone());
        strip_area.draw(&text).map_err(plot_err)?;
    }
    Ok(plot)
}

/// The bootstrap chart's bars' colour.
const BAR: RGBColor = RGBColor(70, 110, 170);

/// SVG of a bootstrap distribution of differences (units of the metric) with the percentile
/// interval `[lo, hi]` shaded, the observed difference and zero marked; the legend sits in a
/// strip below the plot, never over the bars.
///
/// Errors: a histogram with mismatched edges and counts (internal).
pub fn bootstrap_svg(title: &str, h: &Histogram, lo: f64, hi: f64, observed: f64) -> Result<String> {
    if h.edges.len() != h.counts.len() + 1 || h.counts.is_empty() {
        return Err(Error::internal("bootstrap histogram has mismatched edges and counts"));
    }
    let x0 = h.edges[0].min(0.0).min(lo);
    let x1 = h.edges[h.edges.len() - 1].max(0.0).max(hi);
    let pad = ((x1 - x0) * 0.05).max(1e-9);
    let ymax = h.counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let band = RGBColor(255, 214, 153).mix(0.6);
    let legend = [
        (format!("observed {:.4}", observed), Mark::Line(RED, 2)),
        (format!("interval [{:.4}, {:.4}]", lo, hi), Mark::Band(band)),
    ];
    let mut out = String::new();
    {
        let height = 360 + legend_height(&legend, 640) as u32;
        let root = SVGBackend::with_string(&mut out, (640, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let plot = legend_below(&root, &legend)?;
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", caption_size(title)))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..ymax)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .label_style(("sans-serif", LABEL_PX))
            .axis_desc_style(("sans-serif", AXIS_PX))
            .x_desc("difference (first − second)")
            .y_desc("resamples")
            .x_label_formatter(&|v| format!("{:.3}", if v.abs() < 5e-4 { 0.0 } else { *v }))
            .y_label_formatter(&|v| format!("{:.0}", v))
            .draw()
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo, 0.0), (hi, ymax)], band.filled())))
            .map_err(plot_err)?;
        chart
            .draw_series(
                h.counts
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c > 0)
                    .map(|(i, &c)| Rectangle::new([(h.edges[i], 0.0), (h.edges[i + 1], c as f64)], BAR.filled())),
            )
            .map_err(plot_err)?;
        chart
            .draw_series(LineSeries::new(vec![(0.0, 0.0), (0.0, ymax)], BLACK.stroke_width(1)))
            .map_err(plot_err)?;
        chart
            .draw_series(LineSeries::new(
                vec![(observed, 0.0), (observed, ymax)],
                RED.stroke_width(2),
            ))
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

/// SVG bar chart of component sizes: `sizes` holds `(smallest size in the bin, how many
/// components fall in the bin)`, sorted by size; `labels` names each bin (e.g. `1`, `2–3`).
///
/// Errors: none in practice (internal on a drawing failure).
pub fn component_sizes_svg(title: &str, sizes: &[(u64, u64)], labels: &[String]) -> Result<String> {
    let n = sizes.len().max(1);
    let ymax = sizes.iter().map(|s| s.1).max().unwrap_or(1).max(1) as f64 * 1.15;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (640, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", caption_size(title)))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0.0..ymax)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .label_style(("sans-serif", LABEL_PX))
            .axis_desc_style(("sans-serif", AXIS_PX))
            .x_desc("questions in the component")
            .y_desc("components")
            .x_labels(n + 1)
            .x_label_formatter(&|v| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| format!("{:.0}", v))
            .draw()
            .map_err(plot_err)?;
        chart
            .draw_series(
                sizes.iter().enumerate().map(|(i, &(_, c))| {
                    Rectangle::new([(i as f64 - 0.4, 0.0), (i as f64 + 0.4, c as f64)], BAR.filled())
                }),
            )
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `<rect>`s of `svg` (parsed as XML) whose fill is `fill`, as `[x0, y0, x1, y1]`.
    pub(crate) fn rects(svg: &str, fill: RGBColor) -> Vec<[f64; 4]> {
        let hex = format!("#{:02X}{:02X}{:02X}", fill.0, fill.1, fill.2);
        let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(hex.as_str()))
            .map(|n| {
                let a = |k: &str| n.attribute(k).unwrap().parse::<f64>().unwrap();
                [a("x"), a("y"), a("x") + a("width"), a("y") + a("height")]
            })
            .collect()
    }

    /// Whether two rectangles share interior area.
    pub(crate) fn overlap(a: [f64; 4], b: [f64; 4]) -> bool {
        a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
    }

    #[test]
    fn the_legend_is_below_the_plot_and_covers_no_bar() {
        // The tallest bars at the left and the right edges, where a legend inside the plot sat.
        let h = Histogram {
            edges: (0..=12).map(|i| -0.3 + 0.05 * i as f64).collect(),
            counts: vec![900, 800, 0, 10, 20, 40, 40, 20, 10, 5, 700, 950],
        };
        let svg = bootstrap_svg("a − b (topic bootstrap)", &h, -0.25, 0.25, 0.01).unwrap();
        let frames = rects(&svg, LEGEND_BG);
        assert_eq!(frames.len(), 1, "{}", svg);
        let frame = frames[0];
        let bars = rects(&svg, BAR);
        assert_eq!(bars.len(), 11, "one rectangle per non-empty bin: {}", svg);
        let lowest = bars.iter().map(|b| b[3]).fold(0.0, f64::max);
        for b in &bars {
            assert!(!overlap(*b, frame), "bar {:?} under the legend {:?}", b, frame);
        }
        assert!(
            frame[1] > lowest,
            "the legend {:?} starts below the bars (to {})",
            frame,
            lowest
        );
        let text = roxmltree::Document::parse(&svg).unwrap();
        let labels: Vec<&str> = text
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(labels.contains(&"observed 0.0100"), "{:?}", labels);
        assert!(labels.contains(&"interval [-0.2500, 0.2500]"), "{:?}", labels);
    }

    #[test]
    fn long_legends_wrap_into_rows_inside_the_chart_width() {
        let items: Vec<(String, Mark)> = (0..9)
            .map(|i| (format!("shingle size {} with a long label", i), Mark::Line(BLACK, 1)))
            .collect();
        let (at, frame_w, strip) = legend_layout(&items, 640);
        assert!(frame_w <= 640 - 24, "{}", frame_w);
        let rows = at.iter().map(|p| p.1).max().unwrap() + 1;
        assert!(rows > 1);
        assert_eq!(strip, rows * LEGEND_ROW + 2 * LEGEND_PAD + 8);
        assert_eq!(legend_layout(&[], 640).2, 0);
    }

    #[test]
    fn svgs_are_deterministic_and_well_formed() {
        let h = Histogram {
            edges: vec![-0.1, 0.0, 0.1, 0.2],
            counts: vec![5, 50, 20],
        };
        let a = bootstrap_svg("gpt-4 − gpt-3.5", &h, -0.05, 0.15, 0.11).unwrap();
        let b = bootstrap_svg("gpt-4 − gpt-3.5", &h, -0.05, 0.15, 0.11).unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with("<svg") && a.trim_end().ends_with("</svg>"));
        assert!(a.contains("interval [-0.0500, 0.1500]"), "{}", a);
        let c = component_sizes_svg("sizes", &[(1, 90), (2, 5)], &["1".into(), "2".into()]).unwrap();
        assert!(c.contains("<rect"));
        let long = bootstrap_svg(&"x".repeat(90), &h, -0.05, 0.15, 0.11).unwrap();
        for svg in [&a, &c, &long] {
            let sizes: Vec<f64> = svg
                .split("font-size=\"")
                .skip(1)
                .map(|t| t.split('"').next().unwrap().parse().unwrap())
                .collect();
            assert!(!sizes.is_empty());
            assert!(sizes.iter().all(|&px| px >= 12.0), "{:?}", sizes);
        }
        assert!(bootstrap_svg(
            "x",
            &Histogram {
                edges: vec![0.0],
                counts: vec![1]
            },
            0.0,
            0.0,
            0.0
        )
        .is_err());
    }
}
