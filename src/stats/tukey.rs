//! Randomized Tukey HSD test for many systems (Carterette, "Multiple testing in statistical
//! analysis of systems-based information retrieval experiments", ACM TOIS 30(1), 2012, §4.2;
//! Sakai, *Laboratory Experiments in Information Retrieval*, 2018, §4.4): it controls the
//! family-wise error over all k·(k − 1)/2 pairs of k systems at once.
//!
//! Under the null hypothesis that all k systems are exchangeable on every unit, any permutation
//! of a unit's k scores across the systems is equally likely. For each permutation of every
//! unit, the k system means are computed and their range max − min recorded; the p-value of a
//! pair (i, j) is the share of permutations whose range is at least the pair's observed
//! |mean_i − mean_j|. Units are topics (a unit's value for a system is its score), or whole
//! components when the resampling unit is component (a unit's value is the component's mean,
//! or its sum with the question-weighted estimator, for that system: whole components are
//! permuted). A system's mean is Σ_units value / W, with W the same for every system.
//!
//! Exact by enumeration when the (k!)^(n−1) assignments that fix the first unit (each stands for
//! the k! assignments that relabel all systems alike, which have the same range) number at most
//! [`EXACT_MAX_ASSIGNMENTS`] or at most the trials: p = hits/(k!)^(n−1). Otherwise Monte-Carlo
//! over B random permutations with p = (hits + 1)/(B + 1) (Phipson & Smyth 2010). The
//! Monte-Carlo draws use ChaCha8 streams [`super::bootstrap::streams::TUKEY`] + c for chunk c of
//! [`super::bootstrap::CHUNK`] trials (rand's Fisher–Yates `shuffle`), so the result does not
//! depend on the number of threads. Ties follow [`super::ties`]: decimal scores are compared
//! exactly in integer units, other data with the tolerance W·τ·S on the sums (τ·S on means).

use super::bootstrap::{streams, CHUNK};
use super::ties::{integer_units, Ties};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::{Add, Sub};

/// Largest number of assignments (with the first unit fixed) enumerated exactly regardless of
/// the trial count.
pub const EXACT_MAX_ASSIGNMENTS: u64 = 1 << 20;

/// One pair of systems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TukeyPair {
    /// First system (earlier in the input order).
    pub system: String,
    /// Second system.
    pub other: String,
    /// Observed difference of the system means, `system − other`, in the metric's unit.
    pub difference: f64,
    /// Assignments whose range of system means is at least |difference|.
    pub hits: u64,
    /// Family-wise adjusted p-value: hits/assignments (exact) or (hits + 1)/(B + 1).
    pub p: f64,
}

/// Result of the randomized Tukey HSD test over all pairs of the systems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TukeyHsd {
    /// `exact` or `monte-carlo`.
    pub method: String,
    /// What is permuted across systems: `topic` or `component`.
    pub unit: String,
    /// Number of units n.
    pub units: usize,
    /// The k systems, in input order.
    pub systems: Vec<String>,
    /// Size of the family: k·(k − 1)/2 pairs.
    pub family: usize,
    /// Assignments evaluated: (k!)^(n−1) (exact, first unit fixed) or B.
    pub assignments: u64,
    /// The statistic, in words.
    pub statistic: String,
    /// How ties were compared (see [`super::ties`]).
    pub ties: String,
    /// Every pair (i, j), i < j in input order.
    pub pairs: Vec<TukeyPair>,
    /// Set when there are no units or fewer than 2 systems.
    pub flag: Option<String>,
}

impl TukeyHsd {
    /// The p-value of the pair of systems `a`, `b` (either order), if both are in the result.
    pub fn p_of(&self, a: &str, b: &str) -> Option<f64> {
        self.pairs
            .iter()
            .find(|p| (p.system == a && p.other == b) || (p.system == b && p.other == a))
            .map(|p| p.p)
    }
}

/// Runs the test. `values[u][s]` is unit u's value for system s (every row has one value per
/// system in `systems`); `weight` is W, the common denominator of the system means (n for
/// topics; G or N for components); `trials` the Monte-Carlo trials B ≥ 1; `unit` names the unit.
pub fn randomized_tukey(
    values: &[Vec<f64>],
    systems: &[String],
    weight: f64,
    unit: &str,
    trials: usize,
    seed: u64,
    ties_rule: Ties,
) -> TukeyHsd {
    let k = systems.len();
    let n = values.len();
    let rows_ok = values.iter().all(|r| r.len() == k);
    let mut out = TukeyHsd {
        method: "exact".into(),
        unit: unit.into(),
        units: n,
        systems: systems.to_vec(),
        family: k * k.saturating_sub(1) / 2,
        assignments: 1,
        statistic: "max - min of the system means over permutations of each unit's scores across systems".into(),
        ties: String::new(),
        pairs: Vec::new(),
        flag: None,
    };
    let w = if weight > 0.0 { weight } else { n.max(1) as f64 };
    if k < 2 || n == 0 || !rows_ok {
        out.flag = Some(if !rows_ok {
            "a unit lacks a value for some system".into()
        } else {
            format!("{} system(s) over {} unit(s): no pairs to test", k, n)
        });
        out.pairs = pairs_of(systems, &vec![0.0; k], w, &vec![0; out.family], 1, true);
        out.pairs.iter_mut().for_each(|p| p.p = 1.0);
        return out;
    }
    let flat: Vec<f64> = values.iter().flatten().copied().collect();
    let exact_count = exact_assignments(k, n, trials);
    let (sums, hits, evaluated) = match integer_units(&flat) {
        Some((ints, dec)) => {
            out.ties = match dec {
                0 => "integer units".into(),
                d => format!("integer units of 1e-{}", d),
            };
            let x: Vec<Vec<i64>> = ints.chunks(k).map(<[i64]>::to_vec).collect();
            let (s, h, e) = count(&x, 0i64, exact_count, trials, seed);
            let dec_scale = 10f64.powi(dec as i32);
            (s.iter().map(|&v| v as f64 / dec_scale).collect::<Vec<f64>>(), h, e)
        }
        None => {
            out.ties = ties_rule.describe();
            count(values, ties_rule.tolerance() * w, exact_count, trials, seed)
        }
    };
    let exact = exact_count.is_some();
    out.method = if exact { "exact" } else { "monte-carlo" }.into();
    out.assignments = evaluated;
    out.pairs = pairs_of(systems, &sums, w, &hits, evaluated, exact);
    out
}

/// (k!)^(n−1) when it is small enough to enumerate (at most [`EXACT_MAX_ASSIGNMENTS`] or at most
/// `trials`).
fn exact_assignments(k: usize, n: usize, trials: usize) -> Option<u64> {
    let mut fact: u64 = 1;
    for i in 2..=k as u64 {
        fact = fact.checked_mul(i)?;
    }
    let mut total: u64 = 1;
    for _ in 1..n {
        total = total.checked_mul(fact)?;
    }
    (total <= EXACT_MAX_ASSIGNMENTS.max(trials as u64)).then_some(total)
}

fn pairs_of(systems: &[String], sums: &[f64], w: f64, hits: &[u64], evaluated: u64, exact: bool) -> Vec<TukeyPair> {
    let k = systems.len();
    let mut out = Vec::new();
    let mut q = 0;
    for i in 0..k {
        for j in i + 1..k {
            let h = hits.get(q).copied().unwrap_or(0);
            let p = if exact {
                h as f64 / evaluated.max(1) as f64
            } else {
                (h as f64 + 1.0) / (evaluated as f64 + 1.0)
            };
            out.push(TukeyPair {
                system: systems[i].clone(),
                other: systems[j].clone(),
                difference: (sums[i] - sums[j]) / w,
                hits: h,
                p: p.min(1.0),
            });
            q += 1;
        }
    }
    out
}

/// Values the counting runs on: exact integers or floats with a tolerance.
trait Val: Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Default + Send + Sync {
    fn abs(self) -> Self;
}
impl Val for i64 {
    fn abs(self) -> Self {
        i64::abs(self)
    }
}
impl Val for f64 {
    fn abs(self) -> Self {
        f64::abs(self)
    }
}

/// Observed system sums, hits per pair (i < j order) and assignments evaluated.
fn count<T: Val>(x: &[Vec<T>], tol: T, exact: Option<u64>, trials: usize, seed: u64) -> (Vec<T>, Vec<u64>, u64) {
    let k = x.first().map_or(0, Vec::len);
    let mut obs = vec![T::default(); k];
    for row in x {
        for (s, v) in obs.iter_mut().zip(row) {
            *s = *s + *v;
        }
    }
    // Thresholds |sum_i − sum_j|, sorted, with their pair index.
    let mut thr: Vec<(T, usize)> = Vec::new();
    for i in 0..k {
        for j in i + 1..k {
            thr.push(((obs[i] - obs[j]).abs(), thr.len()));
        }
    }
    thr.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let sorted: Vec<T> = thr.iter().map(|t| t.0).collect();
    // hist[m] = assignments whose range reaches exactly the m smallest thresholds.
    let record = |hist: &mut [u64], sums: &[T]| {
        let (mut lo, mut hi) = (sums[0], sums[0]);
        for &s in &sums[1..] {
            if s < lo {
                lo = s;
            }
            if s > hi {
                hi = s;
            }
        }
        let range = (hi - lo) + tol;
        hist[sorted.partition_point(|&t| t <= range)] += 1;
    };
    let m = sorted.len();
    let (hist, evaluated) = match exact {
        Some(total) => (enumerate(x, k, total, m, &record), total),
        None => (monte_carlo(x, k, trials, seed, m, &record), trials as u64),
    };
    // Hits of the q-th smallest threshold: assignments reaching more than q thresholds.
    let mut hits = vec![0u64; m];
    let mut above: u64 = 0;
    for q in (0..m).rev() {
        above += hist[q + 1];
        hits[thr[q].1] = above;
    }
    (obs, hits, evaluated)
}

fn permutations(k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for i in 0..k {
        let mut next = Vec::with_capacity(out.len() * (i + 1));
        for p in &out {
            for pos in 0..=i {
                let mut q = p.clone();
                q.insert(pos, i);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

fn enumerate<T: Val>(
    x: &[Vec<T>],
    k: usize,
    total: u64,
    m: usize,
    record: &(impl Fn(&mut [u64], &[T]) + Sync),
) -> Vec<u64> {
    let perms = permutations(k);
    let radix = perms.len() as u64;
    let blocks = total.div_ceil(CHUNK as u64);
    (0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut hist = vec![0u64; m + 1];
            let mut sums = vec![T::default(); k];
            for code in b * CHUNK as u64..((b + 1) * CHUNK as u64).min(total) {
                sums.copy_from_slice(&x[0]);
                let mut c = code;
                for row in &x[1..] {
                    let p = &perms[(c % radix) as usize];
                    c /= radix;
                    for (s, &from) in sums.iter_mut().zip(p) {
                        *s = *s + row[from];
                    }
                }
                record(&mut hist, &sums);
            }
            hist
        })
        .reduce(|| vec![0u64; m + 1], add_hist)
}

fn monte_carlo<T: Val>(
    x: &[Vec<T>],
    k: usize,
    trials: usize,
    seed: u64,
    m: usize,
    record: &(impl Fn(&mut [u64], &[T]) + Sync),
) -> Vec<u64> {
    let chunks = trials.div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(streams::TUKEY + c as u64);
            let mut hist = vec![0u64; m + 1];
            let mut perm: Vec<usize> = (0..k).collect();
            let mut sums = vec![T::default(); k];
            for _ in 0..CHUNK.min(trials - c * CHUNK) {
                sums.iter_mut().for_each(|s| *s = T::default());
                for row in x {
                    perm.shuffle(&mut rng);
                    for (s, &from) in sums.iter_mut().zip(&perm) {
                        *s = *s + row[from];
                    }
                }
                record(&mut hist, &sums);
            }
            hist
        })
        .reduce(|| vec![0u64; m + 1], add_hist)
}

fn add_hist(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

/// The one-line warning when, for some pairs, the Tukey-adjusted p is below the pair's own
/// unadjusted randomization p; `pairs` holds each compared pair's name, Tukey HSD p and
/// randomization p. The randomized Tukey HSD tests the all-systems null (every system
/// exchangeable with every other, Carterette 2012), not the pair alone, so its p is not an upper
/// bound of the pairwise one; the numbers stay as computed. `None` when no pair is below.
pub fn below_pairwise_warning(pairs: &[(String, f64, f64)]) -> Option<String> {
    let below: Vec<&(String, f64, f64)> = pairs.iter().filter(|(_, tukey, own)| tukey < own).collect();
    let (name, tukey, own) = below.first()?;
    let more = match below.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more pair)".to_string(),
        k => format!(" (and {} more pairs)", k),
    };
    Some(format!(
        "the Tukey-adjusted p of {} ({}) is below its unadjusted randomization p ({}){}: the randomized Tukey HSD tests whether all systems perform alike, not the pair alone (why: docs/explanation/statistics.md, \"Effect size, Tukey HSD and topic filters\"; adjust = holm gives a per-pair guarantee)",
        name,
        super::pvalue::format_p(*tukey, 4),
        super::pvalue::format_p(*own, 4),
        more
    ))
}

#[cfg(test)]
mod tests;
