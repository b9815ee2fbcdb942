//! Topic set size design for comparing k systems at once: the number of topics a one-way ANOVA
//! needs to detect a minimum range D between the best and the worst of k system means (Sakai,
//! "Topic set size design", Information Retrieval Journal 19(3), 256–283, 2016, §5, after Nagata
//! 2003; the same design as statsmodels `FTestAnovaPower`).
//!
//! With n topics per system (every system is run on the same topics), the one-way ANOVA F test
//! has φ_A = k − 1 and φ_E = k(n − 1) degrees of freedom. When the means differ by at least D,
//! the least favourable configuration puts two systems at ±D/2 around the grand mean and the
//! others at it, so Δ = Σ(μ_i − μ̄)²/σ² ≥ D²/(2σ²), with σ² the within-system (residual)
//! variance of a score; the power at n is P(F'(φ_A, φ_E; λ = nΔ) > F_{1−α}(φ_A, φ_E)) with the
//! non-central F of [`crate::stats::dist::ncf_sf`]. In statsmodels' terms Cohen's
//! f = D/(σ·√(2k)) and nobs = k·n. The required n is the smallest integer with at least the
//! target power; the real-valued root (what statsmodels `solve_power` returns, divided by k) is
//! reported too.
//!
//! Units: D and σ are in the metric's scale (fraction or points), σ² in its square; Δ, λ, f
//! and the F statistics are unitless.

// `!(x > 0.0)` is deliberate: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::inputs::{check_mde, check_sd, Design};
use crate::error::{Error, Result};
use crate::protocol::Scale;
use crate::stats::dist::{f_isf, ncf_sf};
use serde::{Deserialize, Serialize};

/// Most topics [`topics_for_systems`] searches.
pub const MAX_TOPICS: u64 = 1_000_000_000;

/// What the design is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnovaSpec {
    /// Number of systems k ≥ 2.
    pub systems: u32,
    /// Minimum detectable range D > 0 between the best and the worst system mean, in the
    /// metric's scale.
    pub min_range: f64,
    /// Within-system (residual) variance σ² > 0 of a topic's score, in the metric's scale
    /// squared (e.g. the residual mean square of a one-way ANOVA of past runs, Sakai's σ̂²).
    pub variance: f64,
    /// Significance level α in (0, 1).
    pub alpha: f64,
    /// Target power 1 − β in (α, 1).
    pub power: f64,
}

/// Topics needed to separate k systems (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnovaRequirement {
    /// Method, in words.
    pub method: String,
    /// k.
    pub systems: u32,
    /// D, in the metric's scale.
    pub min_range: f64,
    /// σ², in the metric's scale squared.
    pub variance: f64,
    /// α.
    pub alpha: f64,
    /// Target power 1 − β.
    pub power: f64,
    /// Δ = D²/(2σ²), the minimum Σ(μ_i − μ̄)²/σ² (unitless).
    pub delta: f64,
    /// Cohen's f = D/(σ·√(2k)) (statsmodels' effect size).
    pub effect_size_f: f64,
    /// Required topics n: the smallest integer n ≥ 2 with power ≥ the target.
    pub topics: u64,
    /// The real-valued n at which the power equals the target (statsmodels `solve_power` nobs / k).
    pub unrounded: f64,
    /// Power at `topics`.
    pub achieved_power: f64,
    /// Power at `topics` − 1 (below the target, which shows that `topics` is the smallest), when
    /// `topics` > 2.
    pub power_below: Option<f64>,
    /// φ_A = k − 1.
    pub df_between: f64,
    /// φ_E = k(n − 1) at `topics`.
    pub df_within: f64,
    /// λ = n·Δ at `topics`.
    pub noncentrality: f64,
    /// Critical value F_{1−α}(φ_A, φ_E) at `topics`.
    pub critical_f: f64,
}

/// Power of the one-way ANOVA F test with k systems and n (real, ≥ 2) topics per system at
/// Δ = Σ(μ_i − μ̄)²/σ² (statsmodels `FTestAnovaPower().power(f, k·n, α, k)` with Δ = k·f²); NaN
/// on invalid arguments.
pub fn anova_power(systems: u32, topics: f64, delta: f64, alpha: f64) -> f64 {
    let k = f64::from(systems);
    if systems < 2 || !(topics > 1.0) || !(delta >= 0.0) || !(alpha > 0.0 && alpha < 1.0) {
        return f64::NAN;
    }
    let (d1, d2) = (k - 1.0, k * (topics - 1.0));
    ncf_sf(f_isf(alpha, d1, d2), d1, d2, topics * delta)
}

/// Topics per system needed to detect a range of `spec.min_range` between k systems with a
/// one-way ANOVA at `spec.alpha` with `spec.power` (Sakai 2016's ANOVA-based design; the
/// module docs give the formulas). D and σ = √σ² are checked against `scale` (at most its
/// maximum).
///
/// Errors (exit 2): k < 2; α or power outside (0, 1) or power ≤ α; D or σ² not positive, or D
/// or σ above the scale's maximum; a requirement above [`MAX_TOPICS`] topics.
pub fn topics_for_systems(spec: &AnovaSpec, scale: Scale) -> Result<AnovaRequirement> {
    if spec.systems < 2 {
        return Err(Error::input(format!(
            "comparing systems needs at least 2, got {}",
            spec.systems
        )));
    }
    Design::new(spec.alpha, spec.power, 2)?;
    let d = check_mde(spec.min_range, scale)?;
    if !(spec.variance > 0.0) || !spec.variance.is_finite() {
        return Err(Error::input(format!(
            "the within-system variance must be > 0, got {}",
            spec.variance
        )));
    }
    check_sd(spec.variance.sqrt(), scale)?;
    let k = spec.systems;
    let delta = d * d / (2.0 * spec.variance);
    let f = |n: f64| anova_power(k, n, delta, spec.alpha) - spec.power;
    // Smallest integer n ≥ 2 with power ≥ target: expand, then bisect on integers.
    let mut hi: u64 = 2;
    loop {
        let v = f(hi as f64);
        if !v.is_finite() {
            return Err(Error::internal("the ANOVA power could not be evaluated"));
        }
        if v >= 0.0 {
            break;
        }
        if hi >= MAX_TOPICS {
            return Err(Error::input(format!(
                "no feasible topic set size: detecting a range of {} between {} systems with variance {} needs \
                 more than {} topics",
                d, k, spec.variance, MAX_TOPICS
            )));
        }
        hi = (hi * 2).min(MAX_TOPICS);
    }
    let mut lo = (hi / 2).max(1); // f(lo) < 0, or lo = 1 (no test below 2)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if f(mid as f64) >= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let n = hi;
    let unrounded = if n == 2 && f(2.0) >= 0.0 {
        2.0
    } else {
        real_root(&f, (n - 1).max(2) as f64, n as f64)
    };
    let nf = n as f64;
    let (d1, d2) = (f64::from(k) - 1.0, f64::from(k) * (nf - 1.0));
    Ok(AnovaRequirement {
        method: "one-way ANOVA, non-central F (Sakai 2016 topic set size design)".into(),
        systems: k,
        min_range: d,
        variance: spec.variance,
        alpha: spec.alpha,
        power: spec.power,
        delta,
        effect_size_f: d / (2.0 * f64::from(k) * spec.variance).sqrt(),
        topics: n,
        unrounded,
        achieved_power: anova_power(k, nf, delta, spec.alpha),
        power_below: (n > 2).then(|| anova_power(k, nf - 1.0, delta, spec.alpha)),
        df_between: d1,
        df_within: d2,
        noncentrality: nf * delta,
        critical_f: f_isf(spec.alpha, d1, d2),
    })
}

/// Bisection for the increasing `f` with f(lo) < 0 ≤ f(hi), to a relative 1e-13 (the power's own
/// accuracy is about 1e-14).
fn real_root(f: &impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo <= 1e-13 * hi {
            break;
        }
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests;
