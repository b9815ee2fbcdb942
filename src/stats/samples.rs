//! Repeated samples per topic (epochs, seeds, repeats): the split of a mean's variance between
//! topics and samples within topics, and the two-level bootstrap (topics, then samples within
//! each drawn topic).
//!
//! **Variance split** (Miller, "Adding Error Bars to Evals", 2024, §3): a topic's sample mean
//! m_t over K samples has Var(m_t) = σ²_topic + σ²_within / K, so the mean over n topics has
//! Var(x̄) = (σ²_topic + σ²_within / K) / n. σ²_within is estimated by the mean over topics of
//! the unbiased within-topic variance s²_t = Σ_k (x_tk − m_t)² / (K_t − 1) (topics with at least
//! two samples), the variance of the topic means by their unbiased sample variance s²_m, and
//! σ²_topic = s²_m − mean_t(s²_t / K_t) (= s²_m − σ²_within / K with equal counts; with unequal
//! counts K stands for σ²_within / mean_t(s²_t / K_t)). The SE is √(s²_m / n), as a one-level
//! analysis of the topic means gives; the share of its square due to sampling within topics is
//! σ²_within / K / s²_m, and with K′ samples per topic it would be √((σ²_topic + σ²_within / K′)
//! / n).
//!
//! **Two-level bootstrap** (Davison & Hinkley, *Bootstrap Methods and their Application*, 1997,
//! §3.8, "strategy 2": resample the clusters, then the observations within each drawn cluster):
//! each trial draws n topics with replacement, then, within each drawn topic, K_t samples with
//! replacement from its own K_t, and averages the drawn topics' sample means. For a paired
//! difference the samples of the two systems are resampled with the **same** indices only where
//! they are paired, i.e. where both systems have the topic's samples under the same keys (the
//! same seeds or epochs, [`Cell::Paired`] of the per-key differences); elsewhere each system's
//! samples are drawn independently ([`Cell::Unpaired`]). Exactly: `E*[θ*]` = the mean of the topic
//! means, `Var*[θ*]` = (V_m + mean_t(v_t / K_t)) / n with V_m the population (1/n) variance of the
//! topic means and v_t the population (1/K_t) variance of topic t's samples ([`exact_moments`]).
//!
//! Randomness: ChaCha8 seeded with the seed, on stream `stream_base + k` for chunk k of
//! [`super::bootstrap::CHUNK`] trials, as [`super::bootstrap::resample`]: deterministic and
//! independent of the number of threads.

use super::bootstrap::CHUNK;
use rand::distributions::{Distribution, Uniform};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One topic's samples, for the two-level bootstrap and the variance split.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// One system's samples, or a paired difference's per-key differences (resampled with the
    /// same indices for both systems).
    Paired(Vec<f64>),
    /// The samples of the two systems of a difference that are not paired (different keys or
    /// counts): resampled independently; the topic's value is mean(first) − mean(second).
    Unpaired(Vec<f64>, Vec<f64>),
}

impl Cell {
    /// The topic's value: the mean of its samples (the difference of the two means).
    pub fn mean(&self) -> f64 {
        match self {
            Cell::Paired(x) => mean(x),
            Cell::Unpaired(a, b) => mean(a) - mean(b),
        }
    }

    /// The within-topic variance σ²_t (unbiased) and the variance of the topic's mean, σ²_t / K_t
    /// (for an unpaired difference: the sums over the two systems), when every part has at least
    /// two samples.
    fn within(&self) -> Option<(f64, f64)> {
        match self {
            Cell::Paired(x) => unbiased(x).map(|v| (v, v / x.len() as f64)),
            Cell::Unpaired(a, b) => {
                let (va, vb) = (unbiased(a)?, unbiased(b)?);
                Some((va + vb, va / a.len() as f64 + vb / b.len() as f64))
            }
        }
    }
}

fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.iter().sum::<f64>() / x.len() as f64
}

/// The unbiased variance (divisor K − 1), `None` below two values.
fn unbiased(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    let m = mean(x);
    Some(x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64)
}

/// The population variance (divisor K), 0 for fewer than two values.
fn population(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64
}

/// The split of a mean's variance between topics and samples within topics (see the module
/// docs). Variances are in the metric's unit squared, the SEs in its unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceSplit {
    /// Topics n.
    pub topics: usize,
    /// Samples per topic K: the harmonic mean of the counts when they differ.
    pub samples_per_topic: f64,
    /// σ²_topic: the variance of the topics' true means (s²_m − σ²_within / K; below 0 when the
    /// topic means vary less than their sampling noise predicts, and then taken as 0 in the
    /// projections).
    pub between: f64,
    /// σ²_within: the mean unbiased within-topic variance.
    pub within: f64,
    /// The SE of the mean, √(s²_m / n).
    pub se: f64,
    /// The share of SE² due to sampling within topics, σ²_within / K / s²_m, in [0, 1].
    pub within_share: f64,
    /// The SE with twice the samples per topic, √((σ²_topic + σ²_within / 2K) / n).
    pub se_double_samples: f64,
    /// The SE with unlimited samples per topic, √(σ²_topic / n): what sampling cannot remove.
    pub se_unlimited_samples: f64,
}

impl VarianceSplit {
    /// The SE with `k` samples per topic, √((max(σ²_topic, 0) + σ²_within / k) / n).
    pub fn se_with(&self, k: f64) -> f64 {
        ((self.between.max(0.0) + self.within / k) / self.topics as f64).sqrt()
    }
}

/// The variance split of the mean over `cells` (see the module docs); `None` with fewer than two
/// topics or no topic with two samples or more.
pub fn variance_split(cells: &[Cell]) -> Option<VarianceSplit> {
    let n = cells.len();
    if n < 2 {
        return None;
    }
    let means: Vec<f64> = cells.iter().map(Cell::mean).collect();
    let s2m = unbiased(&means)?;
    let within: Vec<(f64, f64)> = cells.iter().filter_map(Cell::within).collect();
    if within.is_empty() {
        return None;
    }
    let sigma_w = within.iter().map(|w| w.0).sum::<f64>() / within.len() as f64;
    // E[σ²_t / K_t], the part of Var(m_t) that sampling within topics adds; K_h = σ²_w / it.
    let within_part = within.iter().map(|w| w.1).sum::<f64>() / within.len() as f64;
    let k = if within_part > 0.0 {
        sigma_w / within_part
    } else {
        1.0 / mean_inverse_count(cells)
    };
    let between = s2m - within_part;
    let mut split = VarianceSplit {
        topics: n,
        samples_per_topic: k,
        between,
        within: sigma_w,
        se: (s2m / n as f64).sqrt(),
        within_share: if s2m > 0.0 {
            (within_part / s2m).clamp(0.0, 1.0)
        } else {
            0.0
        },
        se_double_samples: 0.0,
        se_unlimited_samples: 0.0,
    };
    split.se_double_samples = split.se_with(2.0 * k);
    split.se_unlimited_samples = (between.max(0.0) / n as f64).sqrt();
    Some(split)
}

/// mean_t(1/K_t) from the counts (K when no topic's samples vary).
fn mean_inverse_count(cells: &[Cell]) -> f64 {
    let inv = |c: &Cell| match c {
        Cell::Paired(x) => 1.0 / x.len().max(1) as f64,
        Cell::Unpaired(a, b) => 0.5 / a.len().max(1) as f64 + 0.5 / b.len().max(1) as f64,
    };
    cells.iter().map(inv).sum::<f64>() / cells.len() as f64
}

/// The exact mean and variance of the two-level bootstrap's estimate over `cells` (see the
/// module docs): (`E*[θ*]`, `Var*[θ*]`).
pub fn exact_moments(cells: &[Cell]) -> (f64, f64) {
    let n = cells.len() as f64;
    let means: Vec<f64> = cells.iter().map(Cell::mean).collect();
    let within = cells
        .iter()
        .map(|c| match c {
            Cell::Paired(x) => population(x) / x.len().max(1) as f64,
            Cell::Unpaired(a, b) => population(a) / a.len().max(1) as f64 + population(b) / b.len().max(1) as f64,
        })
        .sum::<f64>()
        / n;
    (mean(&means), (population(&means) + within) / n)
}

/// The B estimates of the two-level bootstrap over `cells` (see the module docs), drawn from
/// ChaCha8 seeded with `seed` on streams `stream_base + k`. Deterministic for given inputs.
pub fn two_level(cells: &[Cell], trials: usize, seed: u64, stream_base: u64) -> Vec<f64> {
    let mut out = vec![0.0; trials];
    let n = cells.len();
    if n == 0 {
        return out;
    }
    let topics = Uniform::new(0, n);
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream_base + k as u64);
        for slot in chunk.iter_mut() {
            let mut sum = 0.0;
            for _ in 0..n {
                sum += match &cells[topics.sample(&mut rng)] {
                    Cell::Paired(x) => drawn_mean(x, &mut rng),
                    Cell::Unpaired(a, b) => drawn_mean(a, &mut rng) - drawn_mean(b, &mut rng),
                };
            }
            *slot = sum / n as f64;
        }
    });
    out
}

/// The mean of `x.len()` values drawn from `x` with replacement.
fn drawn_mean(x: &[f64], rng: &mut ChaCha8Rng) -> f64 {
    match x.len() {
        0 => 0.0,
        1 => x[0],
        k => {
            let d = Uniform::new(0, k);
            (0..k).map(|_| x[d.sample(rng)]).sum::<f64>() / k as f64
        }
    }
}

/// The cells of system `a` minus system `b` on each topic: the per-key differences where the two
/// have the same keys (paired by seed or epoch, in `a`'s order), else the two sample lists.
/// `None` where either has no samples.
pub fn difference_cells(a: &[crate::scores::Sample], b: &[crate::scores::Sample]) -> Option<Cell> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let paired = a.len() == b.len() && a.iter().all(|x| b.iter().filter(|y| y.key == x.key).count() == 1);
    if paired {
        let d = a
            .iter()
            .filter_map(|x| b.iter().find(|y| y.key == x.key).map(|y| x.value - y.value))
            .collect();
        return Some(Cell::Paired(d));
    }
    Some(Cell::Unpaired(
        a.iter().map(|x| x.value).collect(),
        b.iter().map(|x| x.value).collect(),
    ))
}

/// The stream of the two-level bootstraps: estimate `i` (systems first, then comparisons) draws
/// on streams `SAMPLES_STREAM + (i << 24) + k`, apart from every other method's
/// ([`super::bootstrap::streams`]).
pub const SAMPLES_STREAM: u64 = 9 << 40;

/// The two-level bootstrap's SE and percentile interval of one estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TwoLevelInterval {
    /// The SD of the B two-level estimates.
    pub se: f64,
    /// The percentile interval at the analysis's level, `[low, high]`.
    pub interval: [f64; 2],
}

/// What repeated samples say about one system's mean or one paired difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleSummary {
    /// The system, or `SYSTEM − BASELINE` for a difference.
    pub name: String,
    /// Topics with samples (of the analyzed topics).
    pub topics: usize,
    /// For a difference: whether every topic's samples are paired by key (then resampled with
    /// the same indices for both systems); `None` for a system.
    pub paired: Option<bool>,
    /// The split of the mean's variance between topics and samples; `None` without a topic of
    /// two samples or more, or with fewer than two topics.
    pub split: Option<VarianceSplit>,
    /// The two-level bootstrap (topics, then samples within each drawn topic).
    pub two_level: TwoLevelInterval,
}

/// The repeated samples of an analysis: the variance split and the two-level bootstrap of each
/// system's mean and each comparison's difference (the `mean` aggregation only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatedSamples {
    /// What one sample is (`epoch`, `seed`, ...).
    pub unit: String,
    /// The aggregation the analysis's per-topic values come from.
    pub aggregation: crate::protocol::SampleAggregation,
    /// The least and the most samples per topic and system, over the analyzed topics.
    pub samples_per_topic: [usize; 2],
    /// How the two-level intervals are computed, in words.
    pub method: String,
    /// Each system's mean.
    pub systems: Vec<SampleSummary>,
    /// Each comparison's difference, in the order of the comparisons.
    pub comparisons: Vec<SampleSummary>,
}

/// The repeated samples of the analyzed `systems` on the analyzed `topics` (ids of `table`) and
/// the `pairs` compared (indices into `systems`), with `s`'s seed, trials, level and percentile
/// definition; `None` when the table has no topic with two samples or more, or when its
/// aggregation is not `mean` (the two-level bootstrap describes the mean of the samples).
pub fn summarize(
    table: &crate::scores::ScoreTable,
    systems: &[String],
    topics: &[String],
    pairs: &[(usize, usize)],
    s: &super::Settings,
) -> Option<RepeatedSamples> {
    let samples = table.samples.as_ref()?;
    if samples.aggregation != crate::protocol::SampleAggregation::Mean {
        return None;
    }
    let sys_idx: Vec<usize> = systems
        .iter()
        .map(|n| table.systems.iter().position(|x| x == n))
        .collect::<Option<_>>()?;
    let top_idx: Vec<usize> = topics
        .iter()
        .map(|t| table.topics.iter().position(|x| x == t))
        .collect::<Option<_>>()?;
    let cell = |si: usize, ti: usize| &samples.cells[sys_idx[si]][top_idx[ti]];
    let counts = (0..systems.len()).flat_map(|si| (0..topics.len()).map(move |ti| (si, ti)));
    let ks: Vec<usize> = counts.map(|(si, ti)| cell(si, ti).len()).filter(|&k| k > 0).collect();
    let (lo, hi) = (*ks.iter().min()?, *ks.iter().max()?);
    if hi < 2 {
        return None;
    }
    let mut i = 0u64;
    let mut next = |name: String, paired: Option<bool>, cells: Vec<Cell>| {
        let stream = SAMPLES_STREAM + (i << 24);
        i += 1;
        summary(name, paired, cells, s, stream)
    };
    let sys: Vec<SampleSummary> = (0..systems.len())
        .map(|si| {
            let cells = (0..topics.len())
                .map(|ti| cell(si, ti))
                .filter(|c| !c.is_empty())
                .map(|c| Cell::Paired(c.iter().map(|x| x.value).collect()))
                .collect();
            next(systems[si].clone(), None, cells)
        })
        .collect();
    let cmp: Vec<SampleSummary> = pairs
        .iter()
        .map(|&(a, b)| {
            let cells: Vec<Cell> = (0..topics.len())
                .filter_map(|ti| difference_cells(cell(a, ti), cell(b, ti)))
                .collect();
            let paired = cells.iter().all(|c| matches!(c, Cell::Paired(_)));
            next(format!("{} − {}", systems[a], systems[b]), Some(paired), cells)
        })
        .collect();
    Some(RepeatedSamples {
        unit: samples.unit.clone(),
        aggregation: samples.aggregation,
        samples_per_topic: [lo, hi],
        method: format!(
            "two-level bootstrap (topics, then {}s within each drawn topic; a difference's {}s resampled with the same indices where paired by {}), B = {}, percentile ({})",
            samples.unit,
            samples.unit,
            samples.unit,
            s.trials,
            super::percentile::method_name(s.percentile)
        ),
        systems: sys,
        comparisons: cmp,
    })
}

/// One estimate's split and two-level bootstrap.
fn summary(name: String, paired: Option<bool>, cells: Vec<Cell>, s: &super::Settings, stream: u64) -> SampleSummary {
    let mut draws = two_level(&cells, s.trials as usize, s.seed, stream);
    let b = draws.len().max(1) as f64;
    let m = draws.iter().sum::<f64>() / b;
    let se = (draws.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (b - 1.0).max(1.0)).sqrt();
    draws.sort_by(f64::total_cmp);
    let tail = (1.0 - s.interval_level) / 2.0;
    let q = |p: f64| super::percentile::quantile(&draws, p, s.percentile);
    SampleSummary {
        name,
        topics: cells.len(),
        paired,
        split: variance_split(&cells),
        two_level: TwoLevelInterval {
            se,
            interval: [q(tail), q(1.0 - tail)],
        },
    }
}

#[cfg(test)]
mod tests;
