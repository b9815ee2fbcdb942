//! Descriptive statistics every method shares: the mean, the sample variance and SD (ddof 1), and
//! whether values are all equal up to rounding. One implementation, so that every statistic
//! treats degenerate data (no values, one value, all values equal) the same way.
//!
//! Exactness rules: values that are [`all_equal`] (the same up to rounding) have a mean of
//! exactly the first value (a plain Σx/n of three copies of 0.1 is 0.10000000000000002) and a
//! variance of exactly 0 (rounding in the mean must not fake a tiny one). Otherwise the
//! formulas are the textbook ones, Σx/n and Σ(x − x̄)²/(n − 1), as numpy's `mean` and
//! `var(ddof=1)` (numpy sums pairwise, so the last bits can differ).

use serde::{Serialize, Serializer};
use std::fmt;

/// Relative tolerance of [`all_equal`]: far above the rounding of a mean or a difference of
/// means in double precision (about 1e-16 relative), far below any real difference of scores.
pub const EQUAL_RELATIVE: f64 = 1e-12;

/// The arithmetic mean Σx/n; exactly the first value when the values are [`all_equal`] (so a
/// constant's mean is the constant, and agrees with its zero variance); 0 for an empty slice
/// (callers flag it).
pub fn mean(x: &[f64]) -> f64 {
    match x.first() {
        None => 0.0,
        Some(&f) if all_equal(x) => f,
        Some(_) => x.iter().sum::<f64>() / x.len() as f64,
    }
}

/// Sample variance Σ(x − x̄)²/(n − 1) (ddof 1); `None` below 2 values; exactly 0 when the values
/// are [`all_equal`].
pub fn variance(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    if all_equal(x) {
        return Some(0.0);
    }
    let m = mean(x);
    Some(x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64)
}

/// Sample standard deviation √[`variance`] (ddof 1); `None` below 2 values; exactly 0 when the
/// values are [`all_equal`].
pub fn sd(x: &[f64]) -> Option<f64> {
    variance(x).map(f64::sqrt)
}

/// Whether all values are equal up to rounding: |x − x₀| ≤ [`EQUAL_RELATIVE`]·max(|x₀|, |x|)
/// for every x, or all are exactly equal (so values of any scale compare alike, and 0 only
/// equals 0). True for an empty slice and a single value.
pub fn all_equal(x: &[f64]) -> bool {
    let Some(&f) = x.first() else { return true };
    x.iter()
        .all(|&v| v == f || (v - f).abs() <= EQUAL_RELATIVE * f.abs().max(v.abs()))
}

/// A statistic that is undefined on some data (a cluster-robust SE over one component, ...):
/// the value, or `None`. Serializes as the number or `null`; displays as the number (honouring
/// width and precision, e.g. `{:.4}`) or `undefined`, so that no output shows an undefined value
/// as 0. Where it is used, a sibling field says why a value is undefined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Maybe(pub Option<f64>);

impl Maybe {
    /// The value, if defined.
    pub fn get(self) -> Option<f64> {
        self.0
    }
}

impl Serialize for Maybe {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Maybe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Option::<f64>::deserialize(d).map(Maybe)
    }
}

impl fmt::Display for Maybe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => fmt::Display::fmt(&v, f),
            // Width and alignment apply, precision does not (it would cut the word).
            None => {
                let w = f.width().unwrap_or(0);
                match f.align() {
                    Some(fmt::Alignment::Left) => write!(f, "{:<w$}", "undefined"),
                    Some(fmt::Alignment::Center) => write!(f, "{:^w$}", "undefined"),
                    _ => write!(f, "{:>w$}", "undefined"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_variance_match_numpy() {
        // numpy 2.4.6: np.mean, np.var(ddof=1) of data set S's X − Y (tests/data/oracles).
        let d = [
            0.2, 0.2, 0.2, 0.4, 0.0, 0.1, 0.0, 0.2, -0.2, 0.0, 0.1, 0.0, -0.1, 0.2, 0.3, 0.2, 0.0, -0.1, -0.1, -0.1,
        ];
        assert!((mean(&d) - 0.075).abs() < 1e-15);
        assert!((variance(&d).unwrap() - 0.0251315789).abs() < 1e-10);
        assert!((sd(&d).unwrap() - 0.0251315789f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn constant_data_are_exact() {
        let c = [0.1; 3];
        assert_eq!(
            c.iter().sum::<f64>() / 3.0,
            0.10000000000000002,
            "the plain formula is off"
        );
        assert_eq!(mean(&c), 0.1);
        assert_eq!(variance(&c), Some(0.0));
        assert_eq!(sd(&[7.25; 10]), Some(0.0));
        // Equal up to rounding (a mean of means): still exactly zero variance.
        assert_eq!(variance(&[0.1, 0.10000000000000002, 0.1]), Some(0.0));
        assert_eq!(mean(&[0.1, 0.10000000000000002, 0.1]), 0.1);
        assert!(
            !all_equal(&[1e-10, 2e-10]),
            "small values are compared relative to their size"
        );
        assert!(!all_equal(&[0.0, 1e-300]));
        assert!(all_equal(&[]) && all_equal(&[3.0]));
    }

    #[test]
    fn degenerate_sizes() {
        assert_eq!(mean(&[]), 0.0);
        assert_eq!(variance(&[]), None);
        assert_eq!(variance(&[0.3]), None);
        assert_eq!(mean(&[0.3]), 0.3);
    }

    #[test]
    fn maybe_displays_and_serializes() {
        assert_eq!(format!("{:.4}", Maybe(Some(0.123456))), "0.1235");
        assert_eq!(format!("{:.4}", Maybe(None)), "undefined");
        assert_eq!(format!("{:>11.4}", Maybe(None)), "  undefined");
        assert_eq!(format!("{:>8.4}", Maybe(Some(0.5))), "  0.5000");
        assert_eq!(serde_json::to_string(&Maybe(None)).unwrap(), "null");
        assert_eq!(serde_json::to_string(&Maybe(Some(0.5))).unwrap(), "0.5");
    }
}
