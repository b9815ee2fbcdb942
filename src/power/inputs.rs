//! Validation of power inputs: every bad value is a clear bad-input error (exit 2), never a NaN,
//! a zero or a silently clamped bound.

use crate::error::{Error, Result};
use crate::protocol::Scale;

/// Significance level, target power and sides of a test, checked by [`Design::new`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Design {
    /// α in (0, 1).
    pub alpha: f64,
    /// Target power 1 − β in (α, 1).
    pub power: f64,
    /// 1 (one-sided, "A better than B") or 2.
    pub sides: u8,
}

impl Design {
    /// Checks α and power in (0, 1), power > α (at δ = 0 the power already equals α, so a lower
    /// target needs no data and the formulas would return a meaningless n), sides 1 or 2.
    pub fn new(alpha: f64, power: f64, sides: u8) -> Result<Design> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(Error::input(format!("alpha must be in (0, 1), got {}", alpha)));
        }
        if !(power > 0.0 && power < 1.0) {
            return Err(Error::input(format!("power must be in (0, 1), got {}", power)));
        }
        if power <= alpha {
            return Err(Error::input(format!(
                "no sample size gives a meaningful power of {}: it is not above alpha = {} (the power at a zero \
                 difference)",
                power, alpha
            ))
            .with_hint("ask for a power above alpha, e.g. --power 0.8"));
        }
        if sides != 1 && sides != 2 {
            return Err(Error::input(format!("sides must be 1 or 2, got {}", sides)));
        }
        Ok(Design { alpha, power, sides })
    }
}

/// Checks a minimum detectable difference δ: finite, > 0, at most the scale's maximum.
pub fn check_mde(mde: f64, scale: Scale) -> Result<f64> {
    if !mde.is_finite() || mde <= 0.0 {
        return Err(Error::input(format!(
            "the minimum detectable difference must be a finite positive number, got {}",
            mde
        ))
        .with_hint(
            "give the difference as a positive number; for a one-sided test the difference is in the tested \
             direction (swap the systems to test the other one)",
        ));
    }
    if mde > scale.max() {
        return Err(scale_error("minimum detectable difference", mde, scale));
    }
    Ok(mde)
}

/// Checks σ, the SD of a paired difference: finite, > 0, at most the scale's maximum (a
/// difference of two values in [0, max] has SD ≤ max).
pub fn check_sd(sd: f64, scale: Scale) -> Result<f64> {
    if !sd.is_finite() || sd <= 0.0 {
        return Err(Error::input(format!(
            "the SD of the paired difference must be a finite positive number, got {}",
            sd
        )));
    }
    if sd > scale.max() {
        return Err(scale_error("SD of the paired difference", sd, scale));
    }
    Ok(sd)
}

fn scale_error(what: &str, v: f64, scale: Scale) -> Error {
    let e = Error::input(format!(
        "the {} {} exceeds {}, the largest value on the {} scale",
        what,
        v,
        scale.max(),
        scale.describe()
    ));
    match scale {
        Scale::Fraction => e.with_hint("for values in points (0-100) pass --scale points"),
        Scale::Points | Scale::Unbounded => e,
    }
}

/// Questions per component m and intra-component correlation ρ: m ≥ 1, ρ in [0, 1]; returns the
/// design effect 1 + (m − 1)ρ.
pub fn design_effect(m: u32, icc: f64) -> Result<f64> {
    if m < 1 {
        return Err(Error::input("questions per component (m) must be at least 1, got 0"));
    }
    if !(0.0..=1.0).contains(&icc) {
        return Err(Error::input(format!(
            "the intra-component correlation must be in [0, 1], got {}",
            icc
        )));
    }
    Ok(1.0 + (f64::from(m) - 1.0) * icc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_values() {
        assert!(Design::new(0.0, 0.8, 2).is_err());
        assert!(Design::new(1.0, 0.8, 2).is_err());
        assert!(Design::new(0.05, 1.0, 2).is_err());
        assert!(Design::new(0.05, f64::NAN, 2).is_err());
        assert!(Design::new(0.05, 0.05, 2)
            .unwrap_err()
            .message
            .contains("not above alpha"));
        assert!(Design::new(0.05, 0.8, 3).is_err());
        assert!(check_mde(0.0, Scale::Fraction).is_err());
        assert!(check_mde(-0.03, Scale::Fraction).is_err());
        assert!(check_mde(3.0, Scale::Fraction).unwrap_err().hint.is_some());
        assert_eq!(check_mde(3.0, Scale::Points).unwrap(), 3.0);
        assert!(check_sd(0.0, Scale::Fraction).is_err());
        assert!(check_sd(f64::INFINITY, Scale::Points).is_err());
        assert!(design_effect(0, 0.1).is_err());
        assert!(design_effect(4, 1.5).is_err());
        assert!(design_effect(4, -0.1).is_err());
    }

    #[test]
    fn design_effect_formula() {
        // Oracle: tests/data/oracles/statistics.md, m = 4, ρ = 0.1 → DEFF 1.3.
        assert!((design_effect(4, 0.1).unwrap() - 1.3).abs() < 1e-15);
        assert_eq!(design_effect(1, 0.7).unwrap(), 1.0);
    }
}
