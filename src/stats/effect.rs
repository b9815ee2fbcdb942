//! Standardized effect size of a paired comparison: d_z = mean(d)/sd(d) of the unit-level
//! differences (Cohen 1988, §2.3.5: the paired "d_z"; Lakens 2013, Frontiers in Psychology 4:863),
//! with an exact confidence interval by inverting the non-central t distribution (Steiger & Fouladi
//! 1997; Cumming & Finch 2001, Educational and Psychological Measurement 61(4), 532–574; Algina &
//! Keselman 2003, Educational and Psychological Measurement 63(4), 537–553), as MBESS `ci.sm` /
//! `conf.limits.nct` compute it.
//!
//! With n differences, t = d_z·√n follows a non-central t with n − 1 degrees of freedom and
//! non-centrality δ·√n, δ the population d_z. The level-(1 − α) interval is [λ_L, λ_U]/√n with
//! P(T ≤ t; n − 1, λ_L) = 1 − α/2 and P(T ≤ t; n − 1, λ_U) = α/2 (P decreases in λ), both found
//! by bisection on [`super::dist::nct_cdf`] to a relative 1e-12.

// `!(x > 0.0)` is deliberate: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::describe;
use super::dist::nct_cdf;
use serde::{Deserialize, Serialize};

/// The standardized paired difference d_z with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectSize {
    /// `d_z`: mean of the unit-level differences divided by their SD (ddof 1); unitless.
    pub measure: String,
    /// Unit the differences are taken over (`topic` or `component`).
    pub unit: String,
    /// Number of differences n.
    pub n: usize,
    /// d_z; `None` when undefined (fewer than 2 units, or zero SD: see `flag`).
    pub estimate: Option<f64>,
    /// Exact interval for the population d_z at `level`; `None` when undefined.
    pub ci: Option<[f64; 2]>,
    /// Level of `ci`, e.g. 0.95.
    pub level: f64,
    /// How the interval is computed.
    pub method: String,
    /// Why a value is missing.
    pub flag: Option<String>,
}

/// d_z of the differences `d` (unit-level, in any unit: d_z is unitless) over `unit`, with its
/// exact `level` interval. Undefined (with a flag, never NaN) below 2 differences or when every
/// difference is the same (SD 0).
pub fn d_z(d: &[f64], unit: &str, level: f64) -> EffectSize {
    let n = d.len();
    let mut out = EffectSize {
        measure: "d_z".into(),
        unit: unit.into(),
        n,
        estimate: None,
        ci: None,
        level,
        method: "mean/sd (ddof 1); exact interval by inverting the non-central t (df = n - 1)".into(),
        flag: None,
    };
    let Some(sd) = describe::sd(d) else {
        out.flag = Some("fewer than 2 units: no effect size".into());
        return out;
    };
    if !(sd > 0.0) {
        out.flag = Some("all unit differences are equal (SD 0): d_z is undefined".into());
        return out;
    }
    let est = describe::mean(d) / sd;
    out.estimate = Some(est);
    out.ci = nct_interval(est * (n as f64).sqrt(), (n - 1) as f64, level).map(|[l, u]| {
        let r = (n as f64).sqrt();
        [l / r, u / r]
    });
    if out.ci.is_none() {
        out.flag = Some("the non-central t could not be inverted at this t statistic".into());
    }
    out
}

/// The confidence interval [λ_L, λ_U] for the non-centrality of a t statistic `t` with `df`
/// degrees of freedom at `level` (MBESS `conf.limits.nct`): P(T ≤ t; df, λ_L) = 1 − α/2 and
/// P(T ≤ t; df, λ_U) = α/2. `None` for a level outside (0, 1), df ≤ 0 or a non-finite t.
pub fn nct_interval(t: f64, df: f64, level: f64) -> Option<[f64; 2]> {
    if !(level > 0.0 && level < 1.0) || !(df > 0.0) || !t.is_finite() {
        return None;
    }
    let a = (1.0 - level) / 2.0;
    let lower = solve_nc(t, df, 1.0 - a)?;
    let upper = solve_nc(t, df, a)?;
    Some([lower, upper])
}

/// The λ with nct_cdf(t; df, λ) = `target` (the CDF decreases in λ).
fn solve_nc(t: f64, df: f64, target: f64) -> Option<f64> {
    let f = |nc: f64| nct_cdf(t, df, nc) - target;
    // Bracket around t: the CDF at λ = t is near ½; widen geometrically.
    let mut w = 1.0 + t.abs() * 0.1;
    let (mut lo, mut hi) = (t - w, t + w);
    for _ in 0..200 {
        let (fl, fh) = (f(lo), f(hi));
        if !fl.is_finite() || !fh.is_finite() {
            return None;
        }
        if fl >= 0.0 && fh <= 0.0 {
            break;
        }
        w *= 2.0;
        if fl < 0.0 {
            lo = t - w;
        }
        if fh > 0.0 {
            hi = t + w;
        }
    }
    if !(f(lo) >= 0.0 && f(hi) <= 0.0) {
        return None;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || (hi - lo) <= 1e-12 * mid.abs().max(1e-3) {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests;
