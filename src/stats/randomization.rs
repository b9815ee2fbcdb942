//! Paired randomization (sign-flip) test: under the null hypothesis that the two systems are
//! exchangeable on every unit, each unit's difference is equally likely to have either sign.
//! Two-sided, "at least as extreme": |Σ s_u v_u| ≥ |Σ v_u| (Fisher 1935; Smucker, Allan &
//! Carterette 2007 for IR). Units are topics, or whole components (cluster sign-flip).
//!
//! Exact by enumeration of all 2^n sign assignments when n ≤ [`EXACT_MAX_UNITS`] or 2^n ≤ the
//! Monte-Carlo trials; otherwise Monte-Carlo with p = (hits + 1)/(B + 1) (Phipson & Smyth 2010).
//! Ties: when every value is a multiple of 10^−k (k ≤ 6, to 1e-9) the sums are compared exactly
//! in integer units; otherwise with the absolute tolerance.

use super::bootstrap::{streams, CHUNK};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Largest n enumerated exactly regardless of the trial count (2^20 ≈ 1M assignments).
pub const EXACT_MAX_UNITS: usize = 20;

/// Result of the sign-flip test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Randomization {
    /// `exact` (all 2^n assignments) or `monte-carlo`.
    pub method: String,
    /// Number of units n.
    pub units: usize,
    /// Assignments evaluated (2^n, or B).
    pub assignments: u64,
    /// Assignments at least as extreme as the observed one.
    pub hits: u64,
    /// Two-sided p-value: hits/2^n (exact) or (hits + 1)/(B + 1) (Monte-Carlo).
    pub p: f64,
    /// How ties were compared: `integer units`, `integer units of 1e-k` or `tolerance T`.
    pub ties: String,
    /// Set when n = 0 or all values are 0 (p = 1).
    pub flag: Option<String>,
}

/// Runs the test on unit values `v` (e.g. per-topic differences).
pub fn sign_flip(v: &[f64], trials: usize, seed: u64, tolerance: f64) -> Randomization {
    let n = v.len();
    let scaled = integer_units(v);
    let ties = match &scaled {
        Some((_, 0)) => "integer units".to_string(),
        Some((_, k)) => format!("integer units of 1e-{}", k),
        None => format!("tolerance {:e}", tolerance),
    };
    if n == 0 || v.iter().all(|&x| x == 0.0) {
        return Randomization {
            method: "exact".into(),
            units: n,
            assignments: 1,
            hits: 1,
            p: 1.0,
            ties,
            flag: Some("no non-zero differences: p = 1".into()),
        };
    }
    let exact = n <= EXACT_MAX_UNITS || (n < 63 && (1u64 << n) <= trials as u64);
    if exact {
        let total = 1u64 << n;
        let hits = match &scaled {
            Some((ints, _)) => exact_int(ints),
            None => exact_float(v, tolerance),
        };
        return Randomization {
            method: "exact".into(),
            units: n,
            assignments: total,
            hits,
            p: hits as f64 / total as f64,
            ties,
            flag: None,
        };
    }
    let hits = monte_carlo(v, scaled.as_ref().map(|(i, _)| i.as_slice()), trials, seed, tolerance);
    Randomization {
        method: "monte-carlo".into(),
        units: n,
        assignments: trials as u64,
        hits,
        p: (hits as f64 + 1.0) / (trials as f64 + 1.0),
        ties,
        flag: None,
    }
}

/// The values as integers in units of 10^−k, for the smallest k ≤ 6 that represents all of them.
fn integer_units(v: &[f64]) -> Option<(Vec<i64>, u32)> {
    (0..=6u32).find_map(|k| {
        let s = 10f64.powi(k as i32);
        let ints: Option<Vec<i64>> = v
            .iter()
            .map(|&x| {
                let y = x * s;
                let r = y.round();
                ((y - r).abs() <= 1e-9 * s.max(1.0) && r.abs() < 1e15).then_some(r as i64)
            })
            .collect();
        ints.map(|i| (i, k))
    })
}

fn exact_int(v: &[i64]) -> u64 {
    let obs = v.iter().sum::<i64>().abs();
    let n = v.len();
    // Gray code: each step flips one sign, so the sum is updated in O(1), exactly.
    let mut sum: i64 = v.iter().sum();
    let mut signs = vec![1i64; n];
    let mut hits = u64::from(sum.abs() >= obs);
    for i in 1u64..(1u64 << n) {
        let j = i.trailing_zeros() as usize;
        sum -= 2 * signs[j] * v[j];
        signs[j] = -signs[j];
        hits += u64::from(sum.abs() >= obs);
    }
    hits
}

fn exact_float(v: &[f64], tol: f64) -> u64 {
    let n = v.len();
    let obs = v.iter().sum::<f64>().abs();
    (0u64..(1u64 << n))
        .into_par_iter()
        .map(|mask| {
            let s: f64 = v
                .iter()
                .enumerate()
                .map(|(i, x)| if mask >> i & 1 == 1 { -x } else { *x })
                .sum();
            u64::from(s.abs() >= obs - tol)
        })
        .sum()
}

fn monte_carlo(v: &[f64], ints: Option<&[i64]>, trials: usize, seed: u64, tol: f64) -> u64 {
    let chunks = trials.div_ceil(CHUNK);
    let obs_int = ints.map(|iv| iv.iter().sum::<i64>().abs()).unwrap_or(0);
    let obs_float = v.iter().sum::<f64>().abs();
    (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(streams::RANDOMIZATION + k as u64);
            let count = CHUNK.min(trials - k * CHUNK);
            let mut hits = 0u64;
            for _ in 0..count {
                let mut bits = 0u64;
                let mut left = 0;
                let hit = match ints {
                    Some(iv) => {
                        let mut s = 0i64;
                        for x in iv {
                            if left == 0 {
                                bits = rng.next_u64();
                                left = 64;
                            }
                            s += if bits & 1 == 1 { -x } else { *x };
                            bits >>= 1;
                            left -= 1;
                        }
                        s.abs() >= obs_int
                    }
                    None => {
                        let mut s = 0.0;
                        for x in v {
                            if left == 0 {
                                bits = rng.next_u64();
                                left = 64;
                            }
                            s += if bits & 1 == 1 { -x } else { *x };
                            bits >>= 1;
                            left -= 1;
                        }
                        s.abs() >= obs_float - tol
                    }
                };
                hits += u64::from(hit);
            }
            hits
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: [f64; 20] = [
        0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50,
        0.20, 0.10,
    ];
    const Y: [f64; 20] = [
        0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60,
        0.30, 0.20,
    ];

    /// Oracle: statistics.md, exact sign-flip X vs Y: 69,120 of 1,048,576 = 0.0659179688.
    #[test]
    fn exact_oracle_in_integer_units_and_with_tolerance() {
        let d: Vec<f64> = X.iter().zip(&Y).map(|(a, b)| a - b).collect();
        let r = sign_flip(&d, 10_000, 0, 1e-12);
        assert_eq!((r.hits, r.assignments), (69_120, 1_048_576));
        assert!((r.p - 0.0659179688).abs() < 1e-9);
        assert_eq!(r.ties, "integer units of 1e-1");
        // Force the floating path with a non-decimal shift that keeps every |sum| comparison.
        let scaled: Vec<f64> = d.iter().map(|x| x * std::f64::consts::PI).collect();
        let r = sign_flip(&scaled, 10_000, 0, 1e-9);
        assert!(r.ties.starts_with("tolerance"));
        assert_eq!(r.hits, 69_120);
    }

    #[test]
    fn monte_carlo_is_close_and_deterministic() {
        let d: Vec<f64> = (0..30).map(|i| if i % 3 == 0 { -0.1 } else { 0.1 }).collect();
        let a = sign_flip(&d, 20_000, 5, 1e-12);
        let b = sign_flip(&d, 20_000, 5, 1e-12);
        assert_eq!(a, b);
        assert_eq!(a.method, "monte-carlo");
        // Exact: sum = 10 units of 0.1 among 30; P(|2K - 30| >= 10) for K ~ Bin(30, 1/2) = 0.0987...
        let exact: f64 = (0..=30u64)
            .filter(|k| (2 * *k as i64 - 30).abs() >= 10)
            .map(|k| binom(30, k) / 2f64.powi(30))
            .sum();
        let se = (exact * (1.0 - exact) / 20_000.0).sqrt();
        assert!((a.p - exact).abs() < 4.0 * se, "{} vs {}", a.p, exact);
    }

    fn binom(n: u64, k: u64) -> f64 {
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn all_zero_is_flagged() {
        let r = sign_flip(&[0.0, 0.0], 100, 0, 1e-12);
        assert_eq!(r.p, 1.0);
        assert!(r.flag.is_some());
    }
}
