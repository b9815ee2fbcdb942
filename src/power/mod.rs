//! Power and sample size for a paired design: components needed for a minimum detectable
//! difference, the difference a count can detect, design effect for clustered questions.

use crate::error::{Error, Result};
use crate::protocol::{Components, Target};
use serde::Serialize;

/// Components required by a protocol's `[target]` (used by the stop rule when a split says
/// `required-components = "from-target"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Requirement {
    /// Components required, rounded up.
    pub components: u64,
    /// Unrounded value.
    pub unrounded: f64,
    /// `t` (exact paired t-test) or `normal`.
    pub method: String,
    /// Inputs used: δ, σ, α, power, sides, m, ρ.
    pub mde: f64,
    /// σ of the per-component paired difference.
    pub sd: f64,
    /// α.
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// 1 or 2.
    pub sides: u8,
}

/// Components required for `target` (σ must be given). Provisional normal-approximation body;
/// the power module replaces it with the full computation (t-based, design effect).
///
/// Errors (exit 2): `target.sd` missing.
pub fn required_components(target: &Target, _components: &Components) -> Result<Requirement> {
    use statrs::distribution::{ContinuousCDF, Normal};
    let sd = target
        .sd
        .ok_or_else(|| Error::input("target.sd is needed to derive required components"))?;
    let n01 = Normal::new(0.0, 1.0).map_err(|e| Error::internal("normal distribution").caused_by(e))?;
    let za = n01.inverse_cdf(1.0 - target.alpha / target.sides as f64);
    let zb = n01.inverse_cdf(target.power);
    let n = ((za + zb) * sd / target.mde).powi(2);
    Ok(Requirement {
        components: n.ceil() as u64,
        unrounded: n,
        method: "normal".into(),
        mde: target.mde,
        sd,
        alpha: target.alpha,
        power: target.power,
        sides: target.sides,
    })
}
