//! Achieved minimum detectable difference at the realized number of units, by the normal
//! approximation δ = (z_{1−α/s} + z_{1−β})·σ̂/√n (σ̂ the SD, ddof 1, of the unit-level
//! differences; s the number of sides). The full power calculations (non-central t, design
//! effect) live in [`crate::power`]; this small formula is computed here so that analyze does not
//! depend on them, and the output names it. The normal quantiles are those of [`super::dist`].

use super::describe;
use super::dist::{z_isf, z_quantile};
use serde::{Deserialize, Serialize};

/// The achieved MDE next to the registered target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AchievedMde {
    /// The formula used.
    pub method: String,
    /// Resampling unit the count refers to (`topic` or `component`).
    pub unit: String,
    /// Realized number of units n.
    pub n: usize,
    /// SD (ddof 1) of the unit-level differences.
    pub sd: f64,
    /// α, power and sides from the protocol's `[target]`.
    pub alpha: f64,
    /// Target power 1 − β.
    pub power: f64,
    /// 1 or 2.
    pub sides: u8,
    /// Achieved MDE; `None` when n < 2 or the SD is 0 (flagged).
    pub achieved: Option<f64>,
    /// Registered target δ, if any.
    pub target: Option<f64>,
    /// Whether achieved ≤ target.
    pub meets_target: Option<bool>,
    /// Why `achieved` is missing.
    pub flag: Option<String>,
}

/// Computes the achieved MDE for unit-level differences `d`.
pub fn achieved_mde(d: &[f64], unit: &str, alpha: f64, power: f64, sides: u8, target: Option<f64>) -> AchievedMde {
    let n = d.len();
    let sd = describe::sd(d).unwrap_or(0.0);
    let mut out = achieved_mde_sd(sd, n, unit, alpha, power, sides, target);
    if n < 2 {
        out.flag = Some("fewer than 2 units: no MDE".into());
    } else if sd <= 0.0 {
        out.flag = Some("all unit differences are equal (SD 0): no MDE".into());
    } else if out.achieved.is_none() {
        out.flag = Some(format!("alpha {} or power {} is outside (0, 1): no MDE", alpha, power));
    }
    out
}

/// The achieved MDE for `n` units whose differences have SD `sd` (for a standard error that
/// comes from elsewhere, e.g. a cluster-robust one: sd = SE·√n).
pub fn achieved_mde_sd(
    sd: f64,
    n: usize,
    unit: &str,
    alpha: f64,
    power: f64,
    sides: u8,
    target: Option<f64>,
) -> AchievedMde {
    let mut out = AchievedMde {
        method: "normal approximation (z_{1-alpha/s} + z_{1-beta}) * sd / sqrt(n)".into(),
        unit: unit.into(),
        n,
        sd,
        alpha,
        power,
        sides,
        achieved: None,
        target,
        meets_target: None,
        flag: None,
    };
    if n < 2 || sd.is_nan() || sd <= 0.0 {
        out.flag = Some("fewer than 2 units or SD 0: no MDE".into());
        return out;
    }
    let s = f64::from(sides.max(1));
    let delta = (z_isf(alpha / s) + z_quantile(power)) * sd / (n as f64).sqrt();
    if delta.is_finite() {
        out.achieved = Some(delta);
        out.meets_target = target.map(|t| delta <= t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: statistics.md MDE (normal): σ = 0.2, n = 50 → 0.0792407962.
    #[test]
    fn oracle_mde() {
        // 50 values with SD exactly 0.2: ±a alternating with a = 0.2·√(49/50).
        let a = 0.2 * (49.0f64 / 50.0).sqrt();
        let d: Vec<f64> = (0..50).map(|i| if i % 2 == 0 { a } else { -a }).collect();
        let m = achieved_mde(&d, "topic", 0.05, 0.8, 2, Some(0.05));
        assert!((m.sd - 0.2).abs() < 1e-12);
        assert!((m.achieved.unwrap() - 0.0792407962).abs() < 1e-9);
        assert_eq!(m.meets_target, Some(false));
        assert!(achieved_mde(&[0.1], "topic", 0.05, 0.8, 2, None).flag.is_some());
    }
}
