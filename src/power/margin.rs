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
pub use crate::stats::sizing::{solve_n, tost_normal_power, tost_power};
use serde::{Deserialize, Serialize};

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
