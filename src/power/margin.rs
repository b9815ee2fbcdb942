//! Power and sample size of the hypotheses with a margin M > 0 (in the metric's unit) on the
//! paired difference Δ, at an assumed true difference Δ₀ (`expected`) and SD σ of the paired
//! difference of one independent unit.
//!
//! - Non-inferiority (H0: Δ ≤ −M) and superiority by a margin (H0: Δ ≤ M) are one-sided paired
//!   t-tests shifted by the margin, so their power is the paired t-test's
//!   ([`super::paired::t_power`], statsmodels `TTestPower` with alternative "larger") at the
//!   shifted effect size d = (Δ₀ + M)/σ and d = (Δ₀ − M)/σ, one-sided at α.
//! - Equivalence (H0: |Δ| ≥ M), the paired TOST (Schuirmann 1987) at level α: both one-sided
//!   tests reject when −M + t_c·s/√n < x̄ < M − t_c·s/√n, t_c = t_{1−α, n−1}. Given the sample
//!   SD s, x̄ ~ N(Δ₀, σ²/n), so the exact power is the integral over s of the normal probability
//!   of that window times the density of s, (n − 1)s²/σ² ~ χ²_{n−1} (Phillips 1990, J.
//!   Pharmacokinetics and Biopharmaceutics 18(2); the power of statsmodels' `ttost_paired`),
//!   computed by adaptive Gauss–Kronrod quadrature over w = √((n − 1)s²/σ²). The normal
//!   approximation replaces s by σ and t_c by z_{1−α}: Φ((M − Δ₀)√n/σ − z) + Φ((M + Δ₀)√n/σ −
//!   z) − 1 (at least 0).
//!
//! Sample sizes are the real n at which the power reaches its target, found by bisection, as
//! for superiority; with clustering the components needed are n·DEFF/m.

// `!(x > 0.0)` is deliberate: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::paired;
use super::sample_size::Clustering;
use crate::error::{Error, Result};
use crate::protocol::HypothesisKind;
use crate::stats::dist::{norm_cdf, t_isf, z_isf};
use serde::{Deserialize, Serialize};
use statrs::function::gamma::ln_gamma;

/// The effect size d = (Δ₀ ± M)/σ a shifted one-sided test of `kind` detects: (Δ₀ + M)/σ for
/// non-inferiority, (Δ₀ − M)/σ for superiority by a margin; `None` for superiority and
/// equivalence (not a shifted one-sided test).
pub fn shifted_effect(kind: HypothesisKind, margin: f64, expected: f64, sd: f64) -> Option<f64> {
    match kind {
        HypothesisKind::NonInferiority => Some((expected + margin) / sd),
        HypothesisKind::SuperiorityByMargin => Some((expected - margin) / sd),
        _ => None,
    }
}

/// Exact power of the paired TOST with margin M at true difference Δ₀ (`expected`), SD `sd`,
/// `n` ≥ 2 pairs (real) and level α (each one-sided test at α); see the module docs. 0 when the
/// rejection window is empty for every sample SD (|Δ₀| ≥ M does not make it empty: the power is
/// then at most α).
pub fn tost_power(margin: f64, expected: f64, sd: f64, n: f64, alpha: f64) -> f64 {
    let nu = n - 1.0;
    if !(nu > 0.0) || !(sd > 0.0) || !(margin > 0.0) {
        return 0.0;
    }
    let tc = t_isf(alpha, nu);
    let a = margin * n.sqrt() / sd;
    let b = expected * n.sqrt() / sd;
    // The window is non-empty while t_c·s/√n < M, i.e. w = √((n−1)s²/σ²) < √ν·a/t_c.
    let w_max = nu.sqrt() * a / tc;
    // ln of the density of w: 2w·χ²_ν(w²) = w^{ν−1} e^{−w²/2} / (2^{ν/2−1} Γ(ν/2)).
    let ln_c = -(0.5 * nu - 1.0) * std::f64::consts::LN_2 - ln_gamma(0.5 * nu);
    let f = |w: f64| {
        if w <= 0.0 {
            return 0.0;
        }
        let shift = tc * w / nu.sqrt();
        let p = norm_cdf(a - b - shift) - norm_cdf(-a - b + shift);
        let dens = ((nu - 1.0) * w.ln() - 0.5 * w * w + ln_c).exp();
        p.max(0.0) * dens
    };
    // The density of w is negligible beyond 40 of its SDs (about 1/√2) from its mode √(ν − 1).
    let mode = (nu - 1.0).max(0.0).sqrt();
    let lo = (mode - 40.0).max(0.0);
    let hi = w_max.min(mode + 40.0);
    if hi <= lo {
        return 0.0;
    }
    let pieces = 64;
    let h = (hi - lo) / pieces as f64;
    (0..pieces)
        .map(|i| {
            let (x0, x1) = (lo + h * i as f64, lo + h * (i + 1) as f64);
            adaptive_gk(&f, x0, x1, 1e-15, 12)
        })
        .sum::<f64>()
        .clamp(0.0, 1.0)
}

/// Normal-approximation power of the paired TOST: Φ((M − Δ₀)√n/σ − z_{1−α}) + Φ((M + Δ₀)√n/σ −
/// z_{1−α}) − 1, at least 0.
pub fn tost_normal_power(margin: f64, expected: f64, sd: f64, n: f64, alpha: f64) -> f64 {
    let z = z_isf(alpha);
    let se = sd / n.sqrt();
    (norm_cdf((margin - expected) / se - z) + norm_cdf((margin + expected) / se - z) - 1.0).max(0.0)
}

/// The real n ≥ 2 at which `power_at(n)` (increasing in n) reaches `power`, by bisection to
/// machine precision; `Some(2.0)` when 2 pairs suffice, `None` when no n ≤ [`paired::MAX_N`]
/// does.
pub fn solve_n(power_at: impl Fn(f64) -> f64, power: f64) -> Option<f64> {
    if power_at(2.0) >= power {
        return Some(2.0);
    }
    let mut hi = 4.0;
    while power_at(hi) < power {
        hi *= 2.0;
        if hi > paired::MAX_N {
            return None;
        }
    }
    let (mut lo, mut hi) = (hi / 2.0, hi);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || (hi - lo) <= 1e-15 * hi {
            break;
        }
        if power_at(mid) < power {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// What the power of a margin hypothesis is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarginSpec {
    /// The kind (not superiority).
    pub kind: HypothesisKind,
    /// M > 0, in the metric's scale.
    pub margin: f64,
    /// The assumed true difference Δ₀, in the metric's scale.
    pub expected: f64,
    /// σ > 0 of the paired difference of one independent unit (per component, or per question
    /// with `clustering`).
    pub sd: f64,
    /// α of each one-sided test.
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// m and ρ, if questions are clustered in components.
    pub clustering: Option<Clustering>,
}

/// Components one method needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginNeed {
    /// Components required: `unrounded` rounded up, at least 2.
    pub components: u64,
    /// Unrounded components: n_iid·DEFF/m.
    pub unrounded: f64,
    /// Unrounded independent units n_iid at which the power reaches its target.
    pub independent_n: f64,
    /// 2 pairs already reach the power (n_iid = 2 is a floor, not a root).
    pub at_minimum: bool,
}

/// The power of both methods at a number of components.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginAt {
    /// Components n.
    pub components: u64,
    /// Independent units they are worth: n·m/DEFF.
    pub effective_n: f64,
    /// Exact power: the non-central t (shifted kinds) or the TOST integral (equivalence).
    pub power_t: f64,
    /// Normal-approximation power.
    pub power_normal: f64,
}

/// Power and sample size of one margin hypothesis ([`margin_power`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginPower {
    /// The kind.
    pub kind: HypothesisKind,
    /// M, in the metric's scale.
    pub margin: f64,
    /// Δ₀, the assumed true difference, in the metric's scale.
    pub expected: f64,
    /// σ, in the metric's scale.
    pub sd: f64,
    /// α of each one-sided test.
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// The shifted effect size (Δ₀ ± M)/σ of a one-sided shifted test; `None` for equivalence.
    pub effect_size: Option<f64>,
    /// What the exact method is: `non-central t (statsmodels TTestPower, shifted effect)` or
    /// `exact paired TOST power (integral over the sample SD)`.
    pub exact_method: String,
    /// m, when clustered.
    pub per_component: Option<u32>,
    /// ρ, when clustered.
    pub icc: Option<f64>,
    /// 1 + (m − 1)ρ; 1 without clustering.
    pub design_effect: f64,
    /// Components needed by the exact method (`None` when a number of components was given).
    pub t: Option<MarginNeed>,
    /// Components needed by the normal approximation.
    pub normal: Option<MarginNeed>,
    /// The power at the components given.
    pub at: Option<MarginAt>,
}

/// Power of a margin hypothesis at `n` independent units, by the exact method and by the normal
/// approximation.
fn powers(s: &MarginSpec, n: f64) -> (f64, f64) {
    match shifted_effect(s.kind, s.margin, s.expected, s.sd) {
        Some(d) => (
            paired::t_power(d, n, s.alpha, 1),
            paired::normal_power(d, n, s.alpha, 1),
        ),
        None => (
            tost_power(s.margin, s.expected, s.sd, n, s.alpha),
            tost_normal_power(s.margin, s.expected, s.sd, n, s.alpha),
        ),
    }
}

/// Components a margin hypothesis needs (`components = None`), or its power at `components`;
/// both methods (see the module docs). With clustering, n_iid·DEFF/m components (Kish).
///
/// Errors (exit 2): superiority (no margin: see [`super::sample_size::requirement`]); an assumed
/// difference at which no sample size reaches the power (non-inferiority: Δ₀ ≤ −M; superiority
/// by a margin: Δ₀ ≤ M; equivalence: |Δ₀| ≥ M); a requirement beyond [`paired::MAX_N`]; fewer
/// than 2 effective units.
pub fn margin_power(s: &MarginSpec, components: Option<u64>) -> Result<MarginPower> {
    let effect_size = shifted_effect(s.kind, s.margin, s.expected, s.sd);
    let feasible = match s.kind {
        HypothesisKind::Superiority => {
            return Err(Error::input(
                "a superiority hypothesis has no margin: size it with --mde",
            ))
        }
        HypothesisKind::Equivalence => s.expected.abs() < s.margin,
        _ => effect_size.is_some_and(|d| d > 0.0),
    };
    if !feasible {
        let bound = match s.kind {
            HypothesisKind::NonInferiority => format!("above −{}", s.margin),
            HypothesisKind::SuperiorityByMargin => format!("above {}", s.margin),
            _ => format!("within ±{}", s.margin),
        };
        return Err(Error::input(format!(
            "no sample size gives {} power at the expected difference {}: it must lie {} (the power there is at most α)",
            s.kind, s.expected, bound
        ))
        .with_hint("give the true difference you expect with --expected D"));
    }
    let (deff, m) = match s.clustering {
        Some(c) => (
            super::inputs::design_effect(c.per_component, c.icc)?,
            f64::from(c.per_component),
        ),
        None => (1.0, 1.0),
    };
    let mut out = MarginPower {
        kind: s.kind,
        margin: s.margin,
        expected: s.expected,
        sd: s.sd,
        alpha: s.alpha,
        power: s.power,
        effect_size,
        exact_method: match effect_size {
            Some(_) => "non-central t (statsmodels TTestPower, one-sided, shifted effect)".into(),
            None => "exact paired TOST power (integral over the sample SD)".into(),
        },
        per_component: s.clustering.map(|c| c.per_component),
        icc: s.clustering.map(|c| c.icc),
        design_effect: deff,
        t: None,
        normal: None,
        at: None,
    };
    if let Some(n) = components {
        let effective_n = n as f64 * m / deff;
        if effective_n < 2.0 {
            return Err(Error::input(format!(
                "{} components are worth {:.4} independent units; a paired test needs at least 2",
                n, effective_n
            )));
        }
        let (power_t, power_normal) = powers(s, effective_n);
        out.at = Some(MarginAt {
            components: n,
            effective_n,
            power_t,
            power_normal,
        });
        return Ok(out);
    }
    let need = |exact: bool| -> Result<MarginNeed> {
        let n = solve_n(
            |n| {
                let (t, z) = powers(s, n);
                if exact {
                    t
                } else {
                    z
                }
            },
            s.power,
        )
        .ok_or_else(|| {
            Error::input(format!(
                "no feasible sample size: {} with margin {} at SD {} needs more than {:e} units",
                s.kind,
                s.margin,
                s.sd,
                paired::MAX_N
            ))
        })?;
        let unrounded = n * deff / m;
        Ok(MarginNeed {
            components: super::sample_size::ceil_count(unrounded).max(2),
            unrounded,
            independent_n: n,
            at_minimum: n <= 2.0,
        })
    };
    out.t = Some(need(true)?);
    out.normal = Some(need(false)?);
    Ok(out)
}

/// Gauss–Kronrod (7, 15) nodes on [−1, 1] (the non-negative half) and weights.
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_2,
    0.140_653_259_715_525_9,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_8,
];
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

/// The 15-point Kronrod estimate of ∫ f over [a, b] and its difference from the embedded 7-point
/// Gauss estimate.
fn gk15(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let c = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let fc = f(c);
    let mut k = WGK[7] * fc;
    let mut g = WG[3] * fc;
    for (j, (&node, &weight)) in XGK.iter().zip(&WGK).take(7).enumerate() {
        let x = h * node;
        let s = f(c - x) + f(c + x);
        k += weight * s;
        if j % 2 == 1 {
            g += WG[j / 2] * s;
        }
    }
    (k * h, ((k - g) * h).abs())
}

/// ∫ f over [a, b] by adaptive bisection until the Gauss–Kronrod error estimate is below `tol`
/// (absolute, or 1e-13 relative to the estimate) or after `depth` halvings (at most 2^depth
/// pieces).
fn adaptive_gk(f: &impl Fn(f64) -> f64, a: f64, b: f64, tol: f64, depth: u32) -> f64 {
    let (v, err) = gk15(f, a, b);
    if err <= tol.max(1e-13 * v.abs()) || depth == 0 {
        return v;
    }
    let m = 0.5 * (a + b);
    adaptive_gk(f, a, m, tol * 0.5, depth - 1) + adaptive_gk(f, m, b, tol * 0.5, depth - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t_n(d: f64) -> f64 {
        paired::t_n(d, 0.05, 0.8, 1).unwrap()
    }

    /// Oracle: `tests/data/oracles/margins.md`, statsmodels `TTestPower` with the shifted effect.
    #[test]
    fn shifted_kinds_are_the_one_sided_t_test_at_the_shifted_effect() {
        use HypothesisKind::*;
        // (kind, Δ₀, M, σ, solve_power's n, the root to machine precision, power at 50).
        let cases = [
            (
                NonInferiority,
                0.0,
                0.02,
                0.1,
                155.92567158567618,
                155.92567158568062,
                0.40122150499319487,
            ),
            (
                NonInferiority,
                0.0,
                0.05,
                0.2,
                100.28766216704962,
                100.28766216584387,
                0.5392054459212425,
            ),
            (
                NonInferiority,
                -0.01,
                0.03,
                0.1,
                155.92567158567624,
                155.92567158568073,
                0.40122150499319487,
            ),
            (
                SuperiorityByMargin,
                0.05,
                0.02,
                0.1,
                70.06790408991661,
                70.06790520007296,
                0.6725739831252316,
            ),
        ];
        for (kind, expected, margin, sd, n, root, power50) in cases {
            let d = shifted_effect(kind, margin, expected, sd).unwrap();
            assert!((t_n(d) - root).abs() < 1e-9 * root, "{:?} {} vs {}", kind, t_n(d), root);
            assert!((t_n(d) - n).abs() < 1e-5, "{:?} {} vs {}", kind, t_n(d), n);
            let p = paired::t_power(d, 50.0, 0.05, 1);
            assert!((p - power50).abs() < 1e-9, "{} vs {}", p, power50);
        }
        assert_eq!(shifted_effect(Equivalence, 0.1, 0.0, 0.1), None);
    }

    /// Oracle: `tests/data/oracles/margins.md`, the exact paired TOST power (scipy `quad`) and its
    /// normal approximation.
    #[test]
    fn tost_power_matches_the_exact_integral_and_the_normal_approximation() {
        let cases = [
            (0.0, 0.05, 0.1, 20.0, 0.3934630508298377, 0.4456231913784028),
            (0.0, 0.05, 0.1, 40.0, 0.8562117624662349, 0.8708403400954803),
            (0.01, 0.05, 0.1, 40.0, 0.7811065018149467, 0.796130818663213),
            (0.0, 0.1, 0.2, 10.0, 0.06545825672304967, 0.0),
            (0.0, 0.02, 0.1, 300.0, 0.9299202755841622, 0.9311263954301139),
            (0.02, 0.05, 0.2, 150.0, 0.5685909782418114, 0.572108262770072),
            (0.0, 0.3, 0.2, 2.0, 0.16693342927617608, 0.36625808616001465),
        ];
        for (expected, margin, sd, n, exact, normal) in cases {
            let p = tost_power(margin, expected, sd, n, 0.05);
            assert!((p - exact).abs() < 1e-9, "n {}: {} vs {}", n, p, exact);
            let q = tost_normal_power(margin, expected, sd, n, 0.05);
            assert!((q - normal).abs() < 1e-12, "n {}: {} vs {}", n, q, normal);
        }
        let cases = [
            (0.0, 0.05, 0.1, 35.65267690294304, 34.25538940267192),
            (0.01, 0.05, 0.1, 41.76482729702548, 40.37564445465349),
            (0.0, 0.02, 0.1, 215.45620249231462, 214.0961837666992),
        ];
        for (expected, margin, sd, exact, normal) in cases {
            let n = solve_n(|n| tost_power(margin, expected, sd, n, 0.05), 0.8).unwrap();
            assert!((n - exact).abs() < 1e-7, "{} vs {}", n, exact);
            let m = solve_n(|n| tost_normal_power(margin, expected, sd, n, 0.05), 0.8).unwrap();
            assert!((m - normal).abs() < 1e-9, "{} vs {}", m, normal);
        }
    }
}
