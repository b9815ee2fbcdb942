//! The text form of an analysis's repeated samples: the variance split and the two-level
//! bootstrap of each system and comparison.

use crate::stats::samples::{RepeatedSamples, SampleSummary};
use std::fmt::Write;

/// The repeated-samples block (nothing when the analysis has none).
pub(super) fn block(out: &mut String, r: Option<&RepeatedSamples>, level: f64) {
    let Some(r) = r else { return };
    let [lo, hi] = r.samples_per_topic;
    let k = if lo == hi {
        format!("{}", lo)
    } else {
        format!("{} to {}", lo, hi)
    };
    let _ = writeln!(
        out,
        "\nrepeated samples: {} {}s per topic, reduced with `{}`; {}",
        k, r.unit, r.aggregation, r.method
    );
    for s in r.systems.iter().chain(&r.comparisons) {
        line(out, s, &r.unit, level);
    }
}

/// One system's or difference's line: the two-level interval, then the variance split.
fn line(out: &mut String, s: &SampleSummary, unit: &str, level: f64) {
    let paired = match s.paired {
        Some(true) => format!(" (paired by {})", unit),
        Some(false) => format!(
            " ({}s paired by key where both systems have the same ones, resampled apart elsewhere)",
            unit
        ),
        None => String::new(),
    };
    let _ = write!(
        out,
        "  {}{}: two-level SE {:.4}, {:.0}% interval [{:.4}, {:.4}]",
        s.name,
        paired,
        s.two_level.se,
        100.0 * level,
        s.two_level.interval[0],
        s.two_level.interval[1]
    );
    match &s.split {
        Some(v) => {
            let _ = writeln!(
                out,
                "; SE {:.4}, of its variance {:.0}% comes from sampling within topics (σ²_within {:.4}, σ²_topic {:.4}); with {} {}s per topic it would be {:.4}, with unlimited {}s {:.4}",
                v.se,
                100.0 * v.within_share,
                v.within,
                v.between,
                count(2.0 * v.samples_per_topic),
                unit,
                v.se_double_samples,
                unit,
                v.se_unlimited_samples
            );
        }
        None => {
            let _ = writeln!(out, "; no topic has two {}s: no variance split", unit);
        }
    }
}

/// A sample count: whole when it is, else to one decimal.
fn count(k: f64) -> String {
    if (k - k.round()).abs() < 1e-9 {
        format!("{}", k.round())
    } else {
        format!("{:.1}", k)
    }
}
