//! Paired randomization (sign-flip) test: under the null hypothesis that the two systems are
//! exchangeable on every unit, each unit's difference is equally likely to have either sign.
//! Two-sided, "at least as extreme": |Σ s_u v_u| ≥ |Σ v_u| (Fisher 1935; Smucker, Allan &
//! Carterette 2007 for IR). Units are topics, or whole components (cluster sign-flip).
//!
//! Exact by enumeration of all 2^n sign assignments when n ≤ [`EXACT_MAX_UNITS`] or 2^n ≤ the
//! Monte-Carlo trials; otherwise Monte-Carlo with p = (hits + 1)/(B + 1) (Phipson & Smyth 2010).
//! Ties follow [`super::ties`]: decimal data are compared exactly in integer units of 10^−k;
//! other data with the tolerance n·τ·S on the sums (τ·S on their mean), relative to the data's
//! scale S, so the answer does not depend on the unit the scores are written in.

use super::bootstrap::{streams, CHUNK};
use super::ties::{integer_units, Ties};
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
    /// How ties were compared: `integer units`, `integer units of 1e-k` or `tolerance T (τ ×
    /// data scale S)` on the mean (n·T on the sums).
    pub ties: String,
    /// Set when n = 0 or all values are 0 (p = 1).
    pub flag: Option<String>,
    /// One-sided p-values, for a hypothesis with a direction (absent in records written before
    /// they were computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_sided: Option<OneSided>,
}

/// One-sided p-values of the sign-flip test, from the same assignments as the two-sided one:
/// `greater` = share with Σ s_u v_u ≥ Σ v_u (the alternative "system − comparator > 0"),
/// `less` = share with Σ s_u v_u ≤ Σ v_u; Monte-Carlo as (hits + 1)/(B + 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneSided {
    /// p for the alternative "greater than 0".
    pub greater: f64,
    /// p for the alternative "less than 0".
    pub less: f64,
}

impl Randomization {
    /// The p-value for `sides` (1 or 2) in `direction` (for one side); `None` for a record
    /// without one-sided p-values.
    pub fn p_for(&self, sides: u8, direction: crate::protocol::Direction) -> Option<f64> {
        if sides == 2 {
            return Some(self.p);
        }
        self.one_sided.as_ref().map(|o| match direction {
            crate::protocol::Direction::Greater => o.greater,
            crate::protocol::Direction::Less => o.less,
        })
    }
}

/// Runs the test on unit values `v` (per-topic differences, or per-component means or sums of
/// differences) with the tie rule `ties` (see [`super::ties`]; [`Ties::of_scores`] in an
/// analysis). `weight` is the denominator W of the estimate Σv/W (n for topics and for
/// component means, the number of questions for component sums): sums are tied within W·τ·S.
pub fn sign_flip(v: &[f64], weight: f64, trials: usize, seed: u64, ties_rule: Ties) -> Randomization {
    let n = v.len();
    let scaled = integer_units(v);
    let ties = match &scaled {
        Some((_, 0)) => "integer units".to_string(),
        Some((_, k)) => format!("integer units of 1e-{}", k),
        None => ties_rule.describe(),
    };
    // On the sums: W times the tolerance on the mean.
    let w = if weight > 0.0 { weight } else { n as f64 };
    let tolerance = ties_rule.tolerance() * w;
    if n == 0 || v.iter().all(|&x| x == 0.0) {
        return Randomization {
            method: "exact".into(),
            units: n,
            assignments: 1,
            hits: 1,
            p: 1.0,
            ties,
            flag: Some("no non-zero differences: p = 1".into()),
            one_sided: Some(OneSided {
                greater: 1.0,
                less: 1.0,
            }),
        };
    }
    let exact = n <= EXACT_MAX_UNITS || (n < 63 && (1u64 << n) <= trials as u64);
    if exact {
        let total = 1u64 << n;
        let hits = match &scaled {
            Some((ints, _)) => exact_int(ints),
            None => exact_float(v, tolerance),
        };
        let t = total as f64;
        return Randomization {
            method: "exact".into(),
            units: n,
            assignments: total,
            hits: hits.two,
            p: hits.two as f64 / t,
            ties,
            flag: None,
            one_sided: Some(OneSided {
                greater: hits.ge as f64 / t,
                less: hits.le as f64 / t,
            }),
        };
    }
    let hits = monte_carlo(v, scaled.as_ref().map(|(i, _)| i.as_slice()), trials, seed, tolerance);
    let mc = |h: u64| (h as f64 + 1.0) / (trials as f64 + 1.0);
    Randomization {
        method: "monte-carlo".into(),
        units: n,
        assignments: trials as u64,
        hits: hits.two,
        p: mc(hits.two),
        ties,
        flag: None,
        one_sided: Some(OneSided {
            greater: mc(hits.ge),
            less: mc(hits.le),
        }),
    }
}

/// Assignments at least as extreme as the observed sum o: two-sided (|Σ| ≥ |o|), and on each
/// side (Σ ≥ o, Σ ≤ o), ties within the tolerance counted as extreme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Hits {
    two: u64,
    ge: u64,
    le: u64,
}

impl std::ops::Add for Hits {
    type Output = Hits;
    fn add(self, o: Hits) -> Hits {
        Hits {
            two: self.two + o.two,
            ge: self.ge + o.ge,
            le: self.le + o.le,
        }
    }
}

impl Hits {
    fn int(sum: i64, obs: i64) -> Hits {
        Hits {
            two: u64::from(sum.abs() >= obs.abs()),
            ge: u64::from(sum >= obs),
            le: u64::from(sum <= obs),
        }
    }

    fn float(sum: f64, obs: f64, tol: f64) -> Hits {
        Hits {
            two: u64::from(sum.abs() >= obs.abs() - tol),
            ge: u64::from(sum >= obs - tol),
            le: u64::from(sum <= obs + tol),
        }
    }
}

fn exact_int(v: &[i64]) -> Hits {
    let obs = v.iter().sum::<i64>();
    let n = v.len();
    // Gray code: each step flips one sign, so the sum is updated in O(1), exactly.
    let mut sum: i64 = obs;
    let mut signs = vec![1i64; n];
    let mut hits = Hits::int(sum, obs);
    for i in 1u64..(1u64 << n) {
        let j = i.trailing_zeros() as usize;
        sum -= 2 * signs[j] * v[j];
        signs[j] = -signs[j];
        hits = hits + Hits::int(sum, obs);
    }
    hits
}

fn exact_float(v: &[f64], tol: f64) -> Hits {
    let n = v.len();
    let obs = v.iter().sum::<f64>();
    (0u64..(1u64 << n))
        .into_par_iter()
        .map(|mask| {
            let s: f64 = v
                .iter()
                .enumerate()
                .map(|(i, x)| if mask >> i & 1 == 1 { -x } else { *x })
                .sum();
            Hits::float(s, obs, tol)
        })
        .reduce(Hits::default, |a, b| a + b)
}

fn monte_carlo(v: &[f64], ints: Option<&[i64]>, trials: usize, seed: u64, tol: f64) -> Hits {
    let chunks = trials.div_ceil(CHUNK);
    let obs_int = ints.map(|iv| iv.iter().sum::<i64>()).unwrap_or(0);
    let obs_float = v.iter().sum::<f64>();
    (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(streams::RANDOMIZATION + k as u64);
            let count = CHUNK.min(trials - k * CHUNK);
            let mut hits = Hits::default();
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
                        Hits::int(s, obs_int)
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
                        Hits::float(s, obs_float, tol)
                    }
                };
                hits = hits + hit;
            }
            hits
        })
        .reduce(Hits::default, |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-sided p-values against an independent enumeration (in integer tenths) of data set S,
    /// X − Y: Σ = 15 tenths; P(Σ ≥ 15) is half the two-sided 69,120 / 2^20 by symmetry.
    #[test]
    fn one_sided_p_values_by_independent_enumeration() {
        let d: Vec<f64> = X.iter().zip(&Y).map(|(a, b)| a - b).collect();
        let tenths: Vec<i64> = d.iter().map(|x| (x * 10.0).round() as i64).collect();
        let obs: i64 = tenths.iter().sum();
        let (mut ge, mut le) = (0u64, 0u64);
        for mask in 0u64..(1 << 20) {
            let s: i64 = tenths
                .iter()
                .enumerate()
                .map(|(i, x)| if mask >> i & 1 == 1 { -x } else { *x })
                .sum();
            ge += u64::from(s >= obs);
            le += u64::from(s <= obs);
        }
        assert_eq!(ge, 34_560);
        let r = sign_flip(&d, 20.0, 10_000, 0, Ties::of_values(1e-12, &d));
        let o = r.one_sided.clone().unwrap();
        assert_eq!(o.greater, ge as f64 / 1_048_576.0);
        assert_eq!(o.less, le as f64 / 1_048_576.0);
        assert_eq!(r.p_for(1, crate::protocol::Direction::Greater), Some(o.greater));
        assert_eq!(r.p_for(2, crate::protocol::Direction::Less), Some(r.p));
        // Negating the data swaps the sides.
        let neg: Vec<f64> = d.iter().map(|x| -x).collect();
        let n = sign_flip(&neg, 20.0, 10_000, 0, Ties::of_values(1e-12, &neg));
        assert_eq!(n.one_sided.unwrap().less, o.greater);
    }

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
        let r = sign_flip(&d, d.len() as f64, 10_000, 0, Ties::of_values(1e-12, &d));
        assert_eq!((r.hits, r.assignments), (69_120, 1_048_576));
        assert!((r.p - 0.0659179688).abs() < 1e-9);
        assert_eq!(r.ties, "integer units of 1e-1");
        // Force the floating path with a non-decimal shift that keeps every |sum| comparison.
        let scaled: Vec<f64> = d.iter().map(|x| x * std::f64::consts::PI).collect();
        let r = sign_flip(&scaled, scaled.len() as f64, 10_000, 0, Ties::of_values(1e-12, &scaled));
        assert!(r.ties.starts_with("tolerance"), "{}", r.ties);
        assert_eq!(r.hits, 69_120);
        // Without a tolerance the float path misses the exact ties (statistics.md: 0.0516967773).
        let r = sign_flip(&scaled, scaled.len() as f64, 10_000, 0, Ties::new(0.0, 1.0));
        assert!(r.hits < 69_120);
    }

    #[test]
    fn monte_carlo_is_close_and_deterministic() {
        let d: Vec<f64> = (0..30).map(|i| if i % 3 == 0 { -0.1 } else { 0.1 }).collect();
        let t = Ties::of_values(1e-12, &d);
        let a = sign_flip(&d, d.len() as f64, 20_000, 5, t);
        let b = sign_flip(&d, d.len() as f64, 20_000, 5, t);
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
        let r = sign_flip(&[0.0, 0.0], 2.0, 100, 0, Ties::new(1e-12, 1.0));
        assert_eq!(r.p, 1.0);
        assert!(r.flag.is_some());
    }

    /// The same data written in any unit give the same p. Before, differences of order 1e-10
    /// became the integer 0 (p = 1), and an absolute 1e-12 made every sum of values of order
    /// 1e-14 a tie.
    #[test]
    fn tie_rule_is_the_same_on_every_scale() {
        // Exact: |Σ s·v| ≥ 7 units only for the all-plus and all-minus signs: 2 of 8 = 0.25.
        let unit = [1.0, 2.0, 4.0];
        for scale in [1e-14, 1e-10, 1e-3, 1.0, 1e6] {
            let v: Vec<f64> = unit.iter().map(|x| x * scale).collect();
            for ties in [Ties::of_values(1e-12, &v), Ties::new(1e-12, 2.0 * scale)] {
                let r = sign_flip(&v, v.len() as f64, 10_000, 0, ties);
                assert_eq!((r.hits, r.assignments), (2, 8), "scale {scale}: {}", r.ties);
                assert_eq!(r.p, 0.25);
            }
        }
        // Non-decimal values at a tiny scale: ties are still found (π·[1, 1, 2]: +1+1−2 = 0 ...).
        for scale in [1e-13, 1.0, 1e4] {
            let v: Vec<f64> = [1.0, 1.0, 2.0]
                .iter()
                .map(|x| x * std::f64::consts::PI * scale)
                .collect();
            let r = sign_flip(&v, v.len() as f64, 10_000, 0, Ties::of_values(1e-12, &v));
            assert!(r.ties.starts_with("tolerance"));
            // |Σ| ≥ 4π·scale for (+,+,+) and (−,−,−) only: 2 of 8.
            assert_eq!(r.hits, 2, "scale {scale}");
        }
    }
}
