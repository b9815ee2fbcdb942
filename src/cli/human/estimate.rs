//! Human-readable text of `pledge compare --estimator ratio | corpus-bleu | quantile`: every
//! number is the estimator's, and the method is named on its line.

use super::Human;
use crate::ops::estimate::EstimateOutcome;
use crate::protocol::Scale;
use std::fmt::Write;

/// A value in the scale's unit: `0.712500` or `31.25 points`.
fn val(v: f64, s: Scale) -> String {
    format!("{:.6}{}", v, s.unit())
}

/// A difference with its sign.
fn diff(v: f64, s: Scale) -> String {
    format!("{:+.6}{}", v, s.unit())
}

impl Human for EstimateOutcome {
    fn human(&self) -> String {
        let r = &self.result;
        let s = self.scale;
        let mut o = String::new();
        let _ = writeln!(o, "estimator: {} ({})", self.estimator_kind, r.estimator);
        let units = match r.unit.as_str() {
            "topic" => format!("{} topics", r.topics),
            u => format!("{} topics in {} {}s", r.topics, r.units, u),
        };
        let _ = writeln!(
            o,
            "{} resampled with replacement; B = {} bootstrap trials, seed {} ({}, {}); scale {}",
            units,
            r.trials,
            self.rng.seed,
            self.rng.name,
            self.rng.version,
            s.describe()
        );
        let _ = writeln!(o);
        let level = format!("{}% interval", r.level * 100.0);
        let _ = writeln!(
            o,
            "systems ({}, every replicate recomputed from the resampled {}s):",
            r.estimator, r.unit
        );
        for e in &r.systems {
            let _ = write!(
                o,
                "  {:<16} {}  {} [{}, {}]  bootstrap SE {}  ({}: {})",
                e.name,
                val(e.estimate, s),
                level,
                val(e.interval[0], s),
                val(e.interval[1], s),
                val(e.se, s),
                self.estimator_kind,
                e.method
            );
            if e.undefined > 0 {
                let _ = write!(o, "; {} replicates undefined (denominator 0) left out", e.undefined);
            }
            let _ = writeln!(o);
        }
        if !r.comparisons.is_empty() {
            let _ = writeln!(o);
            let _ = writeln!(
                o,
                "differences (the estimator's difference; paired: both systems on the same resamples):"
            );
        }
        for c in &r.comparisons {
            let b = &c.bootstrap;
            let rev = b.reversal_rate.map_or("-".to_string(), |x| format!("{:.4}", x));
            let _ = write!(
                o,
                "  {} − {}: {}  {} [{}, {}]  reversal rate {}  ({} difference: {})",
                c.system,
                c.baseline,
                diff(b.observed, s),
                level,
                diff(b.interval[0], s),
                diff(b.interval[1], s),
                rev,
                self.estimator_kind,
                c.method
            );
            if c.undefined > 0 {
                let _ = write!(o, "; {} replicates undefined left out", c.undefined);
            }
            let _ = writeln!(o);
        }
        o
    }
}
