//! Paired bootstrap over resampling units (topics, or whole components), optionally within
//! strata (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993; for IR, Sakai,
//! "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006): resample the units with
//! replacement, compute the mean difference on the resample, repeat B times; report the median,
//! a percentile interval and the share of resamples that reverse the observed ordering (the
//! swap rate of Voorhees & Buckley, "The effect of topic set size on retrieval experiment
//! error", SIGIR 2002). `benches/bootstrap.rs` keeps a plain Python version of the same loop
//! (`paired_bootstrap_diff`) as a speed anchor.
//!
//! Differences from that Python loop: the generator is ChaCha8 (rand_chacha 0.3.1, pinned), the
//! interval uses a named numpy percentile definition instead of `diffs[int(0.025·B)]`, reversals
//! and exact ties (|difference| ≤ tolerance) are counted separately, and the trials run in
//! parallel chunks of [`CHUNK`] trials where chunk k draws from ChaCha8 seeded with the seed on
//! stream `stream_base + k`, so the result does not depend on the number of threads. Topic
//! indices are drawn by Lemire's unbiased multiply-shift method from the generator's output
//! (two 16-bit draws per 32-bit word when there are at most 65,536 units).

use super::histogram::{histogram, Histogram};
use super::percentile::{method_name, quantile};
use super::units::Units;
use crate::protocol::Percentile;
use rand::distributions::{Distribution, Uniform};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Trials per chunk; each chunk has its own ChaCha8 stream.
pub const CHUNK: usize = 256;

/// Stream offsets that keep the generators of different methods apart.
pub mod streams {
    /// Topic (and stratified topic) bootstrap.
    pub const TOPIC: u64 = 0;
    /// Component bootstrap.
    pub const COMPONENT: u64 = 1 << 40;
    /// Monte-Carlo randomization test.
    pub const RANDOMIZATION: u64 = 2 << 40;
    /// Seeded sample of the questions kept per component.
    pub const KEEP: u64 = 3 << 40;
    /// Monte-Carlo randomized Tukey HSD test.
    pub const TUKEY: u64 = 4 << 40;
    /// Per-system bootstrap (the same draws for every system: the rank intervals pair them).
    pub const SYSTEMS: u64 = 5 << 40;
}

/// Settings of one bootstrap.
#[derive(Debug, Clone, Copy)]
pub struct BootstrapSpec {
    /// Seed of ChaCha8.
    pub seed: u64,
    /// First stream (see [`streams`]).
    pub stream_base: u64,
    /// Trials B ≥ 1.
    pub trials: usize,
    /// Interval level in (0, 1), e.g. 0.95.
    pub level: f64,
    /// Percentile definition.
    pub percentile: Percentile,
    /// A resampled difference with |d| ≤ tolerance is a tie: the absolute tolerance τ·S of the
    /// tie rule ([`super::ties::Ties::tolerance`]), on the scale of the differences.
    pub tie_tolerance: f64,
}

/// Draws the B resampled estimates (Σ value / Σ weight over the drawn units; each stratum is
/// resampled with replacement keeping its size). Deterministic for a given spec and units.
pub fn resample(units: &Units, spec: &BootstrapSpec) -> Vec<f64> {
    let mut out = vec![0.0; spec.trials];
    if units.is_empty() {
        return out;
    }
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
        rng.set_stream(spec.stream_base + k as u64);
        if units.is_simple() {
            let n = units.len();
            let mut idx = Indices::new(n as u32);
            let mut draw = vec![0u32; n];
            let v = &units.values;
            for slot in chunk.iter_mut() {
                idx.fill(&mut rng, &mut draw);
                // Four accumulators break the floating-point add dependency chain.
                let mut acc = [0.0f64; 4];
                for q in draw.chunks_exact(4) {
                    acc[0] += v[q[0] as usize];
                    acc[1] += v[q[1] as usize];
                    acc[2] += v[q[2] as usize];
                    acc[3] += v[q[3] as usize];
                }
                for &i in draw.chunks_exact(4).remainder() {
                    acc[0] += v[i as usize];
                }
                *slot = ((acc[0] + acc[1]) + (acc[2] + acc[3])) / n as f64;
            }
        } else {
            let dists: Vec<Uniform<u32>> = units
                .strata
                .iter()
                .map(|s| Uniform::new(0u32, s.len().max(1) as u32))
                .collect();
            for slot in chunk.iter_mut() {
                let (mut s, mut w) = (0.0, 0.0);
                for (st, d) in units.strata.iter().zip(&dists) {
                    for _ in 0..st.len() {
                        let u = st[d.sample(&mut rng) as usize];
                        s += units.values[u];
                        w += units.weights[u];
                    }
                }
                *slot = if w > 0.0 { s / w } else { 0.0 };
            }
        }
    });
    out
}

/// Uniform indices in `0..n` by Lemire's multiply-shift with rejection (unbiased; "Fast random
/// integer generation in an interval", ACM TOMACS 2019), from the generator's 32-bit outputs read
/// in blocks of 256: each output gives two 16-bit candidates when n ≤ 2^16 (a candidate left
/// over after the last index of a resample is discarded), else one 32-bit candidate.
struct Indices {
    buf: [u32; 256],
    pos: usize,
    n: u64,
    threshold: u64,
    small: bool,
}

impl Indices {
    fn new(n: u32) -> Indices {
        let n = u64::from(n.max(1));
        let small = n <= 1 << 16;
        let range = if small { 1u64 << 16 } else { 1u64 << 32 };
        Indices {
            buf: [0; 256],
            pos: 256,
            n,
            threshold: (range - n) % n,
            small,
        }
    }

    #[inline]
    fn word(&mut self, rng: &mut ChaCha8Rng) -> u32 {
        if self.pos == self.buf.len() {
            rng.fill(&mut self.buf[..]);
            self.pos = 0;
        }
        self.pos += 1;
        self.buf[self.pos - 1]
    }

    /// Fills `out` with one resample's indices.
    fn fill(&mut self, rng: &mut ChaCha8Rng, out: &mut [u32]) {
        let (n, t) = (self.n, self.threshold);
        let mut k = 0;
        if self.small {
            while k < out.len() {
                let w = self.word(rng);
                let m = u64::from(w & 0xFFFF) * n;
                if (m & 0xFFFF) >= t {
                    out[k] = (m >> 16) as u32;
                    k += 1;
                }
                let m = u64::from(w >> 16) * n;
                if (m & 0xFFFF) >= t && k < out.len() {
                    out[k] = (m >> 16) as u32;
                    k += 1;
                }
            }
        } else {
            while k < out.len() {
                let m = u64::from(self.word(rng)) * n;
                if (m & 0xFFFF_FFFF) >= t {
                    out[k] = (m >> 32) as u32;
                    k += 1;
                }
            }
        }
    }
}

/// Summary of a bootstrap distribution of differences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// What was resampled: `topic`, `topic (stratified)`, `component`.
    pub unit: String,
    /// Number of resampling units.
    pub units: usize,
    /// Number of strata (1 when unstratified).
    pub strata: usize,
    /// Trials B.
    pub trials: usize,
    /// Observed difference (the estimate on the data).
    pub observed: f64,
    /// Mean of the resampled differences.
    pub mean: f64,
    /// Standard deviation (ddof 0) of the resampled differences: the bootstrap standard error.
    pub sd: f64,
    /// Median of the resampled differences (same percentile definition).
    pub median: f64,
    /// Percentile interval `[lower, upper]` at `level`.
    pub interval: [f64; 2],
    /// Interval level, e.g. 0.95.
    pub level: f64,
    /// numpy name of the percentile definition.
    pub percentile: String,
    /// Share of resamples whose difference has the sign opposite to the observed one (strictly,
    /// beyond the tie tolerance); `None` when the observed difference is 0 (nothing to reverse).
    pub reversal_rate: Option<f64>,
    /// Share of resamples with a difference of 0 (|d| ≤ tie tolerance).
    pub ties_share: f64,
    /// Share of resamples with a difference < 0 and > 0 (beyond the tolerance).
    pub below_zero: f64,
    /// See `below_zero`.
    pub above_zero: f64,
    /// Histogram of the resampled differences, for the report's plot.
    pub histogram: Histogram,
}

/// Runs the bootstrap and summarizes it; `unit` names the resampling unit in the output.
///
/// Zero-variance data are handled exactly: when every unit mean is the same up to rounding
/// ([`Units::constant`]), every resample has that estimate, so the resamples are set to the
/// observed estimate itself instead of being drawn (drawn sums of the constant differ from it in
/// the last bits). Mean, median and interval are then exactly the estimate and the SD exactly 0,
/// so an estimate is never outside its own zero-width interval.
pub fn bootstrap(units: &Units, spec: &BootstrapSpec, unit: &str) -> Bootstrap {
    let d = sorted_draws(units, spec);
    summarize(&d, units.estimate(), units.len(), units.strata.len(), spec, unit)
}

/// The B resampled estimates of [`bootstrap`], sorted (the observed estimate B times for
/// constant units), for intervals at other levels from the same draws.
pub fn sorted_draws(units: &Units, spec: &BootstrapSpec) -> Vec<f64> {
    let mut d = match units.constant() {
        Some(_) => vec![units.estimate(); spec.trials],
        None => resample(units, spec),
    };
    d.sort_by(f64::total_cmp);
    d
}

/// The percentile interval at `level` of sorted draws `d`.
pub fn interval_at(d: &[f64], level: f64, percentile: Percentile) -> [f64; 2] {
    let a = (1.0 - level) / 2.0;
    [quantile(d, a, percentile), quantile(d, 1.0 - a, percentile)]
}

/// Summarizes sorted resampled differences `d` against the observed difference.
pub fn summarize(
    d: &[f64],
    observed: f64,
    n_units: usize,
    n_strata: usize,
    spec: &BootstrapSpec,
    unit: &str,
) -> Bootstrap {
    let b = d.len().max(1) as f64;
    let tol = spec.tie_tolerance;
    let below = d.iter().filter(|&&x| x < -tol).count() as f64 / b;
    let above = d.iter().filter(|&&x| x > tol).count() as f64 / b;
    let ties = d.iter().filter(|&&x| x.abs() <= tol).count() as f64 / b;
    let reversal = if observed > tol {
        Some(below)
    } else if observed < -tol {
        Some(above)
    } else {
        None
    };
    // Identical resamples (d is sorted: first = last) have exactly that mean and an SD of 0.
    let mean = match (d.first(), d.last()) {
        (Some(a), Some(z)) if a == z => *a,
        _ => d.iter().sum::<f64>() / b,
    };
    let sd = (d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / b).sqrt();
    let a = (1.0 - spec.level) / 2.0;
    Bootstrap {
        unit: unit.to_string(),
        units: n_units,
        strata: n_strata,
        trials: d.len(),
        observed,
        mean,
        sd,
        median: quantile(d, 0.5, spec.percentile),
        interval: [quantile(d, a, spec.percentile), quantile(d, 1.0 - a, spec.percentile)],
        level: spec.level,
        percentile: method_name(spec.percentile).to_string(),
        reversal_rate: reversal,
        ties_share: ties,
        below_zero: below,
        above_zero: above,
        histogram: histogram(d, 40),
    }
}

#[cfg(test)]
mod tests;
