//! Components required for a minimum detectable difference (with or without clustering), the
//! difference a given number of components can detect, and the variance of a paired binary
//! difference from discordant shares.
//!
//! Units: σ and δ are in the metric's scale (fraction 0–1 or points 0–100); the effect size
//! d = δ/σ, the design effect and ρ are unitless. Formulas: the power and sample-size section of
//! `tests/data/oracles/statistics.md`; the t-based answers reproduce statsmodels `TTestPower`.

// `!(x > 0.0)` is deliberate: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::inputs::{design_effect, Design};
use super::paired;
use super::Requirement;
use crate::error::{Error, Result};
use crate::protocol::{PowerMethod, Scale};
use serde::{Deserialize, Serialize};

/// Questions per component m and intra-component correlation ρ of the per-question paired
/// difference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clustering {
    /// m ≥ 1, questions counted per component.
    pub per_component: u32,
    /// ρ in [0, 1].
    pub icc: f64,
}

/// What a requirement is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// σ > 0: SD of the paired difference of one independent unit (a component without
    /// clustering; a question when `clustering` is given), in the metric's scale.
    pub sd: f64,
    /// δ > 0, in the metric's scale.
    pub mde: f64,
    /// α, power, sides.
    pub design: Design,
    /// m and ρ, if questions are clustered in components.
    pub clustering: Option<Clustering>,
}

/// Components required by `spec` with `method`.
///
/// First n_iid, the independent units needed for effect size d = δ/σ: normal
/// ((z_{1−α/s} + z_{power})/d)², or t: the real n solving power_t(n) = target (statsmodels
/// `solve_power`; at least 2). Without clustering the components needed are n_iid. With m and ρ,
/// σ is the per-question SD, DEFF = 1 + (m − 1)ρ and the components needed are n_iid·DEFF/m
/// (Kish's design effect: m correlated questions are worth m/DEFF independent ones). The count
/// is rounded up and at least 2.
///
/// Errors (exit 2): a requirement above [`paired::MAX_N`] (δ far too small relative to σ).
pub fn requirement(spec: &Spec, method: PowerMethod) -> Result<Requirement> {
    let Design { alpha, power, sides } = spec.design;
    let d = spec.mde / spec.sd;
    let (n_iid, at_minimum) = match method {
        PowerMethod::Normal => (paired::normal_n(d, alpha, power, sides), false),
        PowerMethod::T => match paired::t_n(d, alpha, power, sides) {
            Some(n) => (n, n <= 2.0),
            None => (f64::INFINITY, false),
        },
    };
    if !n_iid.is_finite() || n_iid > paired::MAX_N {
        return Err(Error::input(format!(
            "no feasible sample size: detecting {} with SD {} (effect size {:.3e}) needs more than {:e} units",
            spec.mde,
            spec.sd,
            d,
            paired::MAX_N
        )));
    }
    let (deff, m) = match spec.clustering {
        Some(c) => (design_effect(c.per_component, c.icc)?, f64::from(c.per_component)),
        None => (1.0, 1.0),
    };
    let unrounded = n_iid * deff / m;
    let components = ceil_count(unrounded).max(2);
    Ok(Requirement {
        components,
        unrounded,
        method,
        mde: spec.mde,
        sd: spec.sd,
        alpha,
        power,
        sides,
        effect_size: d,
        independent_n: n_iid,
        per_component: spec.clustering.map(|c| c.per_component),
        icc: spec.clustering.map(|c| c.icc),
        design_effect: deff,
        effective_n: components as f64 * m / deff,
        at_minimum,
        kind: None,
        margin: None,
        samples_per_topic: None,
        sd_within: None,
    })
}

/// Rounds up, tolerating the last bits of floating-point noise above an integer (an unrounded
/// 545.0000000000001 is 545, not 546).
pub(crate) fn ceil_count(x: f64) -> u64 {
    let r = x.round();
    if (x - r).abs() <= 1e-9 * x.max(1.0) {
        r as u64
    } else {
        x.ceil() as u64
    }
}

/// Power of both tests at one difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerAt {
    /// δ, in the metric's scale.
    pub mde: f64,
    /// δ/σ.
    pub effect_size: f64,
    /// Power of the paired t-test (statsmodels `TTestPower.power`).
    pub power_t: f64,
    /// Power under the normal approximation.
    pub power_normal: f64,
}

/// The difference a number of components can detect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detectable {
    /// Components n.
    pub components: u64,
    /// m, when clustered.
    pub per_component: Option<u32>,
    /// ρ, when clustered.
    pub icc: Option<f64>,
    /// 1 + (m − 1)ρ (1 without clustering).
    pub design_effect: f64,
    /// Independent units the components are worth: n·m/DEFF.
    pub effective_n: f64,
    /// σ used (per component, or per question when clustered), in the metric's scale.
    pub sd: f64,
    /// α.
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// 1 or 2.
    pub sides: u8,
    /// Minimum detectable difference, paired t-test, in the metric's scale.
    pub mde_t: f64,
    /// Minimum detectable difference, normal (z_{1−α/s} + z_{power})·σ/√n_eff.
    pub mde_normal: f64,
    /// Power at a given δ, when one was given.
    pub at_mde: Option<PowerAt>,
    /// Warnings for people, e.g. a detectable difference beyond the metric's scale (no difference
    /// the metric can show reaches the power); empty when there is nothing to say or no scale
    /// was given ([`detectable_on_scale`]).
    pub warnings: Vec<String>,
}

/// The minimum detectable difference for `components` components on the metric's `scale` (and
/// the power at `mde` if given); with clustering the effective sample size n·m/DEFF is used.
/// σ, `mde` and the results are in the scale's unit.
///
/// A detectable difference above the scale's maximum (1 for fractions, 100 for points: no
/// difference of two scores can be larger) is returned with a warning in
/// [`Detectable::warnings`]: with so few components nothing the metric can show is detected
/// with the target power (e.g. 2 components at σ = 0.5, α = 0.05, power 0.8 detect only a
/// difference of 5.77 on a 0–1 scale).
///
/// Errors (exit 2): an effective sample size below 2 (no paired t-test exists).
pub fn detectable_on_scale(
    scale: Scale,
    sd: f64,
    components: u64,
    design: Design,
    clustering: Option<Clustering>,
    mde: Option<f64>,
) -> Result<Detectable> {
    let mut d = detectable_impl(sd, components, design, clustering, mde)?;
    let max = scale.max();
    let name = scale.describe();
    for (method, v) in [("paired t-test", d.mde_t), ("normal approximation", d.mde_normal)] {
        if v > max {
            d.warnings.push(format!(
                "the detectable difference {:.4} ({}) exceeds {}, the largest difference on the {} scale: \
                 with {} components no difference the metric can show is detected with power {}",
                v, method, max, name, components, d.power
            ));
        }
    }
    Ok(d)
}

fn detectable_impl(
    sd: f64,
    components: u64,
    design: Design,
    clustering: Option<Clustering>,
    mde: Option<f64>,
) -> Result<Detectable> {
    let Design { alpha, power, sides } = design;
    let (deff, m) = match clustering {
        Some(c) => (design_effect(c.per_component, c.icc)?, f64::from(c.per_component)),
        None => (1.0, 1.0),
    };
    let n_eff = components as f64 * m / deff;
    if n_eff < 2.0 {
        return Err(Error::input(format!(
            "{} components are worth {:.4} independent units; a paired test needs at least 2",
            components, n_eff
        )));
    }
    let d_t = paired::t_mde_d(n_eff, alpha, power, sides)
        .ok_or_else(|| Error::internal("the t-based detectable difference did not converge"))?;
    let d_z = paired::normal_mde_d(n_eff, alpha, power, sides);
    let at_mde = mde.map(|delta| PowerAt {
        mde: delta,
        effect_size: delta / sd,
        power_t: paired::t_power(delta / sd, n_eff, alpha, sides),
        power_normal: paired::normal_power(delta / sd, n_eff, alpha, sides),
    });
    Ok(Detectable {
        components,
        per_component: clustering.map(|c| c.per_component),
        icc: clustering.map(|c| c.icc),
        design_effect: deff,
        effective_n: n_eff,
        sd,
        alpha,
        power,
        sides,
        mde_t: d_t * sd,
        mde_normal: d_z * sd,
        at_mde,
        warnings: Vec::new(),
    })
}

/// Paired binary accuracy: discordant shares and the variance they imply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Discordant {
    /// Share of questions only system A gets right.
    pub p10: f64,
    /// Share of questions only system B gets right.
    pub p01: f64,
    /// Expected difference p10 − p01 (fraction).
    pub expected_difference: f64,
    /// Var(d) = p10 + p01 − (p10 − p01)² of the per-question difference d ∈ {−1, 0, 1} (fraction²).
    pub variance: f64,
    /// √Var(d) (fraction).
    pub sd: f64,
}

/// Variance of the per-question paired difference of two binary scores from the discordant
/// shares (the multinomial variance of d ∈ {−1, 0, 1}; the design behind McNemar's test).
///
/// Errors (exit 2): a share outside [0, 1], shares summing above 1, a zero variance.
pub fn discordant(p10: f64, p01: f64) -> Result<Discordant> {
    for (name, p) in [("p10", p10), ("p01", p01)] {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::input(format!(
                "discordant share {} must be in [0, 1], got {}",
                name, p
            )));
        }
    }
    if p10 + p01 > 1.0 + 1e-12 {
        return Err(Error::input(format!(
            "discordant shares p10 + p01 = {} exceed 1 (they are shares of the same questions)",
            p10 + p01
        )));
    }
    let diff = p10 - p01;
    let variance = p10 + p01 - diff * diff;
    if variance <= 0.0 {
        return Err(Error::input(format!(
            "discordant shares {},{} give a paired difference with zero variance; no test is needed or possible",
            p10, p01
        )));
    }
    Ok(Discordant {
        p10,
        p01,
        expected_difference: diff,
        variance,
        sd: variance.sqrt(),
    })
}

#[cfg(test)]
mod tests;
