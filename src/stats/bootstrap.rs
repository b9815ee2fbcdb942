//! Paired bootstrap over resampling units (topics, or whole components), optionally within
//! strata, as in the seed article "How Many Topics a Benchmark Needs" (`paired_bootstrap_diff`):
//! resample the units with replacement, compute the mean difference on the resample, repeat B
//! times; report the median, a percentile interval and the share of resamples that reverse the
//! observed ordering.
//!
//! Differences from the seed's Python: the generator is ChaCha8 (rand_chacha 0.3.1, pinned), the
//! interval uses a named numpy percentile definition instead of `diffs[int(0.025·B)]`, reversals
//! and exact ties (|difference| ≤ tolerance) are counted separately, and the trials run in
//! parallel chunks of [`CHUNK`] trials where chunk k draws from ChaCha8 seeded with the seed on
//! stream `stream_base + k`, so the result does not depend on the number of threads.

use super::histogram::{histogram, Histogram};
use super::percentile::{method_name, quantile};
use super::units::Units;
use crate::protocol::Percentile;
use rand::distributions::{Distribution, Uniform};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

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
    /// A resampled difference with |d| ≤ tolerance is a tie.
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
            let dist = Uniform::new(0u32, n as u32);
            let v = &units.values;
            for slot in chunk.iter_mut() {
                let mut s = 0.0;
                for _ in 0..n {
                    s += v[dist.sample(&mut rng) as usize];
                }
                *slot = s / n as f64;
            }
        } else {
            let dists: Vec<Uniform<u32>> = units.strata.iter().map(|s| Uniform::new(0u32, s.len().max(1) as u32)).collect();
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

/// Summary of a bootstrap distribution of differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
pub fn bootstrap(units: &Units, spec: &BootstrapSpec, unit: &str) -> Bootstrap {
    let mut d = resample(units, spec);
    d.sort_by(f64::total_cmp);
    summarize(&d, units.estimate(), units.len(), units.strata.len(), spec, unit)
}

/// Summarizes sorted resampled differences `d` against the observed difference.
pub fn summarize(d: &[f64], observed: f64, n_units: usize, n_strata: usize, spec: &BootstrapSpec, unit: &str) -> Bootstrap {
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
    let mean = d.iter().sum::<f64>() / b;
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
