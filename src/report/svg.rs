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

/// SVG of a bootstrap distribution of differences (units of the metric) with the percentile
/// interval `[lo, hi]` shaded, the observed difference and zero marked.
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
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (640, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
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
        let band = RGBColor(255, 214, 153).mix(0.6);
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo, 0.0), (hi, ymax)], band.filled())))
            .map_err(plot_err)?;
        let bar = RGBColor(70, 110, 170);
        chart
            .draw_series(
                h.counts
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| Rectangle::new([(h.edges[i], 0.0), (h.edges[i + 1], c as f64)], bar.filled())),
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
            .map_err(plot_err)?
            .label(format!("observed {:.4}", observed))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED));
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo, 0.0), (lo, 0.0)], band.filled())))
            .map_err(plot_err)?
            .label(format!("interval [{:.4}, {:.4}]", lo, hi))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], band.filled()));
        chart
            .configure_series_labels()
            .label_font(("sans-serif", LABEL_PX))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
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
        let bar = RGBColor(70, 110, 170);
        chart
            .draw_series(
                sizes.iter().enumerate().map(|(i, &(_, c))| {
                    Rectangle::new([(i as f64 - 0.4, 0.0), (i as f64 + 0.4, c as f64)], bar.filled())
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
