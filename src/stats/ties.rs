//! The tie rule every resampling method shares (the bootstrap's ties with 0 and reversals, the
//! sign-flip randomization test's "at least as extreme", the randomized Tukey HSD test's "range
//! at least the difference"), so that the registered `tie-tolerance` means the same on every
//! data scale.
//!
//! Rule: two mean differences are tied when they differ by at most τ·S, where τ is the relative
//! tie tolerance (`analysis.tie-tolerance`, default 1e-12) and S the scale of the data: the
//! largest absolute score in the analyzed scores (the magnitude the differences are computed
//! from, so rounding residues such as 0.1 + 0.2 − 0.3 = 5.6e-17 are ties with 0 while real
//! differences of 1e-10 between scores of 1e-10 are not). Sums of n unit values are compared
//! with n·τ·S (the same tolerance on the scale of their mean). τ = 1e-12 is above the rounding
//! of a mean of up to about 10⁴ values in double precision (n·2⁻⁵³ ≈ 1.1e-12) and far below
//! any difference of scores that are written with at most 12 significant digits.
//!
//! Decimal data (every unit value a multiple of 10^−k, k ≤ 6, up to a rounding error of 1e-12 of
//! the largest |value|) are compared exactly in integer units of 10^−k instead: a value smaller
//! than the grid is never rounded to 0 unless it is itself a rounding residue by that rule.

use serde::Serialize;

/// The tie rule of one analysis: relative tolerance τ and data scale S.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ties {
    /// Relative tolerance τ ≥ 0.
    pub relative: f64,
    /// Data scale S ≥ 0: the largest absolute score (or value) of the data.
    pub scale: f64,
}

impl Ties {
    /// The rule with relative tolerance `relative` over data whose largest |value| is `scale`.
    pub fn new(relative: f64, scale: f64) -> Ties {
        Ties {
            relative: relative.max(0.0),
            scale: if scale.is_finite() { scale.abs() } else { 0.0 },
        }
    }

    /// The rule for a score table `[system][topic]`: S = the largest |score|.
    pub fn of_scores(relative: f64, scores: &[Vec<f64>]) -> Ties {
        Ties::new(relative, max_abs(scores.iter().flatten().copied()))
    }

    /// The rule for values standing on their own (unit differences without their scores): S =
    /// the largest |value|.
    pub fn of_values(relative: f64, values: &[f64]) -> Ties {
        Ties::new(relative, max_abs(values.iter().copied()))
    }

    /// The absolute tolerance τ·S on the scale of a mean difference.
    pub fn tolerance(&self) -> f64 {
        self.relative * self.scale
    }

    /// Words for the output, e.g. `tolerance 7e-13 (1e-12 × score scale 0.7)`.
    pub fn describe(&self) -> String {
        format!(
            "tolerance {:e} ({:e} × data scale {})",
            self.tolerance(),
            self.relative,
            self.scale
        )
    }
}

fn max_abs(values: impl Iterator<Item = f64>) -> f64 {
    values.filter(|v| v.is_finite()).fold(0.0, |m, v| m.max(v.abs()))
}

/// The values as integers in units of 10^−k, for the smallest k ≤ 6 that represents all of them
/// (each within 1e-12·max|value| of its grid point, and the sum of all |integers| below 4·10^18,
/// so that no sum of them overflows); `None` when no such k exists. See the module docs.
pub fn integer_units(v: &[f64]) -> Option<(Vec<i64>, u32)> {
    let scale = max_abs(v.iter().copied());
    if scale == 0.0 || v.iter().any(|x| !x.is_finite()) {
        return v.iter().all(|&x| x == 0.0).then(|| (vec![0; v.len()], 0));
    }
    let tol = 1e-12 * scale;
    (0..=6u32).find_map(|k| {
        let s = 10f64.powi(k as i32);
        if scale * s * v.len() as f64 >= 4e18 {
            return None;
        }
        let ints: Option<Vec<i64>> = v
            .iter()
            .map(|&x| {
                let r = (x * s).round();
                ((x - r / s).abs() <= tol).then_some(r as i64)
            })
            .collect();
        ints.map(|i| (i, k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_map_to_integers_and_tiny_values_do_not_collapse() {
        let d = [0.7 - 0.5, 0.1, -0.3, 0.0];
        assert_eq!(integer_units(&d), Some((vec![2, 1, -3, 0], 1)));
        assert_eq!(integer_units(&[1.0, -2.0]), Some((vec![1, -2], 0)));
        assert_eq!(integer_units(&[0.25, 0.5]), Some((vec![25, 50], 2)));
        // Before, every value of order 1e-10 became the integer 0.
        assert_eq!(integer_units(&[1e-10, 2e-10, 4e-10]), None);
        assert_eq!(integer_units(&[0.5, 1e-10]), None);
        // A rounding residue next to real values is a 0.
        assert_eq!(integer_units(&[0.1 + 0.2 - 0.3, 0.1]), Some((vec![0, 1], 1)));
        assert_eq!(integer_units(&[std::f64::consts::PI]), None);
        assert_eq!(integer_units(&[0.0, 0.0]), Some((vec![0, 0], 0)));
    }

    #[test]
    fn tolerance_scales_with_the_data() {
        let a = Ties::of_scores(1e-12, &[vec![0.7, 0.2], vec![-0.1, 0.3]]);
        assert_eq!(a.scale, 0.7);
        assert!((a.tolerance() / 7e-13 - 1.0).abs() < 1e-15);
        let b = Ties::of_values(1e-12, &[7e-11, 2e-11]);
        assert!((b.tolerance() / a.tolerance() - 1e-10).abs() < 1e-12);
        assert_eq!(Ties::new(-1.0, f64::NAN).tolerance(), 0.0);
    }
}
