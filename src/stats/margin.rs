//! Hypotheses with a margin M > 0 (in the metric's unit) on the paired difference Δ =
//! `system − comparator`: non-inferiority (H0: Δ ≤ −M), superiority by a margin (H0: Δ ≤ M) and
//! equivalence (H0: |Δ| ≥ M), written here for the direction `greater`; for `less` the bounds
//! and alternatives are mirrored.
//!
//! Each is tested with one-sided paired t-tests of the unit-level differences against the null
//! bound, t = (mean − bound)/SE on the t-test's degrees of freedom: the paired t-test shifted by
//! the margin (scipy `ttest_rel(a ± M, b, alternative=...)`), and for equivalence the two
//! one-sided tests (TOST, Schuirmann 1987, J. Pharmacokinetics and Biopharmaceutics 15(6)),
//! p = the larger of the two (statsmodels `ttost_paired`). With the cluster-robust SE of the
//! question-weighted estimator the same shifted t uses G − 1 degrees of freedom. Each test is at
//! level α, so its interval is the (1 − 2α) one (90% at α = 0.05): the test rejects exactly when
//! the t interval lies beyond the bound (Westlake 1981; Berger & Hsu 1996, Statistical Science
//! 11(4)). The bootstrap percentile interval at the same level is given beside it.

use super::bootstrap::interval_at;
use super::describe::Maybe;
use super::dist::{t_cdf, t_isf, t_sf};
use super::ttest::TTest;
use crate::protocol::{Direction, Percentile};
use serde::{Deserialize, Serialize};

/// What a hypothesis claims (the protocol's `[[hypotheses]] kind`, and `compare --kind`).
pub use crate::protocol::HypothesisKind;

/// One one-sided t-test against a null bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneSided {
    /// The null bound b (H0: Δ ≤ b for `greater`, Δ ≥ b for `less`).
    pub bound: f64,
    /// The alternative: Δ above (`greater`) or below (`less`) the bound.
    pub alternative: Direction,
    /// t = (mean − b)/SE; `None` when the SE is undefined or 0.
    pub t: Option<f64>,
    /// One-sided p; `None` when `t` is.
    pub p: Option<f64>,
}

/// The test of one margin hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarginTest {
    /// The kind (never superiority).
    pub kind: HypothesisKind,
    /// The margin M, in the metric's unit.
    pub margin: f64,
    /// Which way is better (`None` for equivalence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// The estimate of Δ the tests use (the t-test's mean).
    pub estimate: f64,
    /// Its standard error.
    pub se: Maybe,
    /// Degrees of freedom (n − 1, or G − 1).
    pub df: usize,
    /// The one-sided tests: one, or two for equivalence (lower bound first).
    pub tests: Vec<OneSided>,
    /// The hypothesis' p: the one test's, or the larger of the two; `None` when undefined.
    pub p: Option<f64>,
    /// Level of the intervals: 1 − 2α.
    pub level: f64,
    /// The t interval at `level`, mean ± t_{1−α, df}·SE.
    pub t_interval: Option<[f64; 2]>,
    /// The bootstrap percentile interval at `level` over the primary units.
    pub bootstrap_interval: [f64; 2],
    /// The method in words.
    pub method: String,
    /// Why `p` is undefined, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
}

/// The null bounds and alternatives of a margin kind: (bound, alternative) per one-sided test.
pub fn null_bounds(kind: HypothesisKind, margin: f64, direction: Option<Direction>) -> Vec<(f64, Direction)> {
    let s = match direction {
        Some(Direction::Less) => -1.0,
        _ => 1.0,
    };
    let alt = direction.unwrap_or(Direction::Greater);
    match kind {
        HypothesisKind::Superiority => vec![(0.0, alt)],
        HypothesisKind::NonInferiority => vec![(-s * margin, alt)],
        HypothesisKind::SuperiorityByMargin => vec![(s * margin, alt)],
        HypothesisKind::Equivalence => vec![(-margin, Direction::Greater), (margin, Direction::Less)],
    }
}

/// One-sided t-test of `mean` (SE `se`, `df` degrees of freedom) against `bound`.
pub fn one_sided(mean: f64, se: Option<f64>, df: usize, bound: f64, alternative: Direction) -> OneSided {
    let t = se
        .filter(|&s| s > 0.0 && s.is_finite() && df >= 1)
        .map(|s| (mean - bound) / s);
    let p = t.map(|t| match alternative {
        Direction::Greater => t_sf(t, df as f64),
        Direction::Less => t_cdf(t, df as f64),
    });
    OneSided {
        bound,
        alternative,
        t,
        p: p.filter(|p| p.is_finite()),
    }
}

/// What a margin test is computed from.
#[derive(Debug, Clone, Copy)]
pub struct MarginSpec {
    /// The kind (a margin kind).
    pub kind: HypothesisKind,
    /// M > 0.
    pub margin: f64,
    /// Which way is better (`None` for equivalence).
    pub direction: Option<Direction>,
    /// α of each one-sided test.
    pub alpha: f64,
    /// Percentile definition of the bootstrap interval.
    pub percentile: Percentile,
}

/// Tests a margin hypothesis from the paired t-test `t` of the primary units (or the
/// cluster-robust one) and the sorted bootstrap draws of the same estimate.
pub fn margin_test(t: &TTest, draws: &[f64], spec: &MarginSpec) -> MarginTest {
    let se = t.se.get();
    let tests: Vec<OneSided> = null_bounds(spec.kind, spec.margin, spec.direction)
        .into_iter()
        .map(|(b, alt)| one_sided(t.mean, se, t.df, b, alt))
        .collect();
    let p = tests
        .iter()
        .map(|x| x.p)
        .try_fold(0.0f64, |acc, p| p.map(|p| acc.max(p)));
    let level = 1.0 - 2.0 * spec.alpha;
    let q = t_isf(spec.alpha, t.df as f64);
    let t_interval = se
        .filter(|&s| s > 0.0 && t.df >= 1 && q.is_finite())
        .map(|s| [t.mean - q * s, t.mean + q * s]);
    let flag = p.is_none().then(|| {
        t.flag
            .clone()
            .unwrap_or_else(|| "the standard error is undefined or 0: no margin test".into())
    });
    MarginTest {
        kind: spec.kind,
        margin: spec.margin,
        direction: spec.direction,
        estimate: t.mean,
        se: t.se,
        df: t.df,
        method: method_name(spec.kind, t.df),
        tests,
        p,
        level,
        t_interval,
        bootstrap_interval: interval_at(draws, level, spec.percentile),
        flag,
    }
}

fn method_name(kind: HypothesisKind, df: usize) -> String {
    match kind {
        HypothesisKind::Equivalence => format!(
            "two one-sided paired t-tests (TOST) against ±margin, df = {}; p = the larger p",
            df
        ),
        _ => format!("one-sided paired t-test against the margin bound, df = {}", df),
    }
}

#[cfg(test)]
mod tests;
