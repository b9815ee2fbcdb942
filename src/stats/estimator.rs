//! Estimators other than the mean of per-topic values: corpus-level ratios (micro-F1 = Σ 2TP /
//! Σ (2TP + FP + FN)), corpus BLEU from per-sentence n-gram counts, and quantiles (median, P90)
//! of per-topic values, each with bootstrap percentile intervals.
//!
//! A corpus-level metric is not a mean of per-topic values: micro-F1 or corpus BLEU of a topic
//! set is computed from the *sums* of per-topic counts. Its bootstrap therefore resamples the
//! topics (or whole components) with replacement and recomputes the metric from the resampled
//! topics' sums in every replicate (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993,
//! §9 on ratio estimators; for BLEU, Koehn, "Statistical significance tests for machine
//! translation evaluation", EMNLP 2004). A quantile is recomputed from the resampled values in
//! the same way. Every system is computed on the same draws, so a difference `a − b` is paired:
//! its replicates are the differences of the two systems' replicates.
//!
//! Corpus BLEU is sacrebleu's `BLEU.compute_bleu` (Post, "A call for clarity in reporting BLEU
//! scores", WMT 2018) with its corpus defaults: 4-gram, `smooth_method = "exp"`, no effective
//! order, in points (0–100), from the summed statistics `sys_len, ref_len, correct_1..4,
//! total_1..4` ([`BLEU_COLUMNS`]). The quantile is numpy's `np.quantile(values, q, method=...)`
//! ([`super::percentile::quantile`]; the default `linear` is Hyndman & Fan's type 7).
//!
//! Randomness: ChaCha8 seeded with the seed, one stream per chunk of
//! [`super::bootstrap::CHUNK`] trials starting at [`STREAM`], so results do not depend on the
//! number of threads.

use super::bootstrap::{summarize, Bootstrap, BootstrapSpec, CHUNK};
use super::percentile::{method_name, quantile_unsorted};
use crate::protocol::Percentile;
use rand::distributions::{Distribution, Uniform};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// First ChaCha8 stream of the estimator bootstrap (apart from the other methods' streams in
/// [`super::bootstrap::streams`]).
pub const STREAM: u64 = 8 << 40;

/// The per-sentence statistics corpus BLEU is computed from, in sacrebleu's order
/// (`BLEU._extract_corpus_statistics`): hypothesis and reference length, the clipped n-gram
/// matches for n = 1..4, and the hypothesis n-gram totals for n = 1..4.
pub const BLEU_COLUMNS: [&str; 10] = [
    "sys_len",
    "ref_len",
    "correct_1",
    "correct_2",
    "correct_3",
    "correct_4",
    "total_1",
    "total_2",
    "total_3",
    "total_4",
];

crate::named_enum! {
    /// The estimator of each system's score: the mean of per-topic values (with every method of
    /// the analysis), a corpus-level ratio, corpus BLEU or a quantile.
    #[derive(Default)]
    pub enum EstimatorKind {
        /// The mean of the per-topic values.
        #[default]
        Mean = "mean",
        /// Σ numerator / Σ denominator over the topics (micro-F1, accuracy over items).
        Ratio = "ratio",
        /// sacrebleu's corpus BLEU from per-sentence n-gram statistics.
        CorpusBleu = "corpus-bleu",
        /// A quantile of the per-topic values (median, P90): cost, latency.
        Quantile = "quantile",
    }
}

/// A weighted sum of columns, e.g. `2*tp+fp+fn` (weights default to 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Combination {
    /// `(weight, column)` terms.
    pub terms: Vec<(f64, String)>,
}

impl Combination {
    /// Parses `TERM(+TERM)*` where a term is `COLUMN` or `WEIGHT*COLUMN` (a finite, positive
    /// weight). Errors: an empty term, a bad weight, a column named twice.
    pub fn parse(text: &str) -> Result<Combination, String> {
        let mut terms: Vec<(f64, String)> = Vec::new();
        for part in text.split('+') {
            let part = part.trim();
            let (w, col) = match part.split_once('*') {
                Some((w, c)) => {
                    let w: f64 = w
                        .trim()
                        .parse()
                        .map_err(|_| format!("`{}`: the weight `{}` is not a number", text, w.trim()))?;
                    if !(w.is_finite() && w > 0.0) {
                        return Err(format!("`{}`: a weight must be a positive number", text));
                    }
                    (w, c.trim())
                }
                None => (1.0, part),
            };
            if col.is_empty() {
                return Err(format!(
                    "`{}`: expected COLUMN or WEIGHT*COLUMN terms joined by +",
                    text
                ));
            }
            if terms.iter().any(|(_, c)| c == col) {
                return Err(format!("`{}`: column `{}` appears twice", text, col));
            }
            terms.push((w, col.to_string()));
        }
        Ok(Combination { terms })
    }

    /// The combination as written back: `2*tp + fp + fn`.
    pub fn text(&self) -> String {
        let term = |(w, c): &(f64, String)| if *w == 1.0 { c.clone() } else { format!("{}*{}", w, c) };
        self.terms.iter().map(term).collect::<Vec<_>>().join(" + ")
    }
}

/// What is estimated from each system's per-topic columns.
#[derive(Debug, Clone, PartialEq)]
pub enum Statistic {
    /// Σ numerator / Σ denominator over the topics (a corpus-level, micro-averaged ratio).
    Ratio {
        /// The numerator per topic.
        numerator: Combination,
        /// The denominator per topic.
        denominator: Combination,
    },
    /// sacrebleu's corpus BLEU (points) from the summed [`BLEU_COLUMNS`].
    CorpusBleu,
    /// The `q`-quantile of the per-topic values under a numpy percentile definition.
    Quantile {
        /// The quantile in (0, 1), e.g. 0.5 (median) or 0.9.
        q: f64,
        /// Its definition.
        method: Percentile,
    },
}

impl Statistic {
    /// The columns each topic must provide, in the order [`Data::values`] holds them.
    pub fn columns(&self) -> Vec<String> {
        match self {
            Statistic::Ratio { numerator, denominator } => {
                let mut out: Vec<String> = Vec::new();
                for (_, c) in numerator.terms.iter().chain(&denominator.terms) {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                }
                out
            }
            Statistic::CorpusBleu => BLEU_COLUMNS.iter().map(|c| c.to_string()).collect(),
            Statistic::Quantile { .. } => vec!["score".into()],
        }
    }

    /// The estimator in words, as printed beside every number it produced.
    pub fn describe(&self) -> String {
        match self {
            Statistic::Ratio { numerator, denominator } => format!(
                "corpus-level ratio Σ({}) / Σ({}) over the topics",
                numerator.text(),
                denominator.text()
            ),
            Statistic::CorpusBleu => {
                "corpus BLEU (sacrebleu compute_bleu: 4-gram, exp smoothing, points) from the summed n-gram statistics"
                    .into()
            }
            Statistic::Quantile { q, method } => format!(
                "{} of the per-topic values (numpy quantile, method {}{})",
                quantile_name(*q),
                method_name(*method),
                hyndman_fan(*method)
                    .map(|t| format!(", Hyndman & Fan type {}", t))
                    .unwrap_or_default()
            ),
        }
    }

    /// The per-topic features a sum statistic adds up (`None` for a quantile).
    fn features(&self, columns: &[String], row: &[f64]) -> Option<Vec<f64>> {
        let get = |c: &String| row[columns.iter().position(|x| x == c).unwrap_or(0)];
        let sum = |k: &Combination| k.terms.iter().map(|(w, c)| w * get(c)).sum::<f64>();
        match self {
            Statistic::Ratio { numerator, denominator } => Some(vec![sum(numerator), sum(denominator)]),
            Statistic::CorpusBleu => Some(row.to_vec()),
            Statistic::Quantile { .. } => None,
        }
    }

    /// The statistic of summed features (`None` when undefined: a ratio's denominator of 0).
    fn of_sums(&self, s: &[f64]) -> Option<f64> {
        match self {
            Statistic::Ratio { .. } => (s[1] != 0.0).then(|| s[0] / s[1]),
            Statistic::CorpusBleu => Some(corpus_bleu(s)),
            Statistic::Quantile { .. } => None,
        }
    }
}

/// `median`, `P90`, `quantile 0.25`: the name people use for the `q`-quantile.
pub fn quantile_name(q: f64) -> String {
    let pct = q * 100.0;
    if q == 0.5 {
        "median".into()
    } else if (pct - pct.round()).abs() < 1e-9 {
        format!("P{}", pct.round())
    } else {
        format!("quantile {}", q)
    }
}

/// The Hyndman & Fan (1996) type of a numpy method, where it is one (`linear` 7,
/// `inverted_cdf` 1); numpy's `lower`, `higher` and `nearest` are not among the nine types.
pub fn hyndman_fan(method: Percentile) -> Option<u8> {
    match method {
        Percentile::Linear => Some(7),
        Percentile::InvertedCdf => Some(1),
        Percentile::Lower | Percentile::Higher | Percentile::Nearest => None,
    }
}

/// sacrebleu's `BLEU.compute_bleu` with its corpus defaults (`smooth_method = "exp"`, 4-gram,
/// no effective order) on summed statistics `s` in [`BLEU_COLUMNS`] order; points (0–100).
/// A precision of 0 (only possible past a total of 0) contributes sacrebleu's `my_log(0) =
/// −9999999999`, which makes the score 0.
pub fn corpus_bleu(s: &[f64]) -> f64 {
    let (sys_len, ref_len) = (s[0], s[1]);
    let (correct, total) = (&s[2..6], &s[6..10]);
    let bp = if sys_len < ref_len {
        if sys_len > 0.0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    if correct.iter().all(|&c| c == 0.0) {
        return 0.0;
    }
    let mut precisions = [0.0f64; 4];
    let mut smooth = 1.0;
    for n in 0..4 {
        if total[n] == 0.0 {
            break;
        }
        precisions[n] = if correct[n] == 0.0 {
            smooth *= 2.0;
            100.0 / (smooth * total[n])
        } else {
            100.0 * correct[n] / total[n]
        };
    }
    let my_log = |p: f64| if p == 0.0 { -9_999_999_999.0 } else { p.ln() };
    let sum = precisions.iter().fold(0.0, |acc, &p| acc + my_log(p));
    bp * (sum / 4.0).exp()
}

/// Per-topic columns of every system, paired (every system has every topic), and the
/// resampling units.
#[derive(Debug, Clone)]
pub struct Data {
    /// System names.
    pub systems: Vec<String>,
    /// Topic ids.
    pub topics: Vec<String>,
    /// Column names ([`Statistic::columns`]).
    pub columns: Vec<String>,
    /// `[system][topic][column]`.
    pub values: Vec<Vec<Vec<f64>>>,
    /// The resampling units: each a list of topic indices (one topic each, or a component's).
    pub units: Vec<Vec<usize>>,
    /// What a unit is: `topic` or `component`.
    pub unit: String,
}

/// Bootstrap settings.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Seed of ChaCha8.
    pub seed: u64,
    /// Trials B ≥ 1.
    pub trials: usize,
    /// Interval level in (0, 1).
    pub level: f64,
    /// Percentile definition of the interval ends.
    pub percentile: Percentile,
}

/// One system's estimate with its bootstrap percentile interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemEstimate {
    /// System name.
    pub name: String,
    /// The estimate on all topics.
    pub estimate: f64,
    /// Bootstrap standard error (SD, ddof 0, of the replicates).
    pub se: f64,
    /// Percentile interval `[lower, upper]` of the replicates at the level.
    pub interval: [f64; 2],
    /// Replicates where the statistic is undefined (a ratio whose resampled denominator is 0),
    /// left out of the SE and the interval.
    pub undefined: usize,
    /// The method of the interval, in words.
    pub method: String,
}

/// The estimator's analysis: every number from one estimator, the method named beside each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The estimator in words ([`Statistic::describe`]).
    pub estimator: String,
    /// What was resampled: `topic` or `component`.
    pub unit: String,
    /// Resampling units.
    pub units: usize,
    /// Topics.
    pub topics: usize,
    /// Trials B.
    pub trials: usize,
    /// Interval level.
    pub level: f64,
    /// Per-system estimates.
    pub systems: Vec<SystemEstimate>,
    /// Paired differences `system − baseline` ([`Bootstrap::observed`] is the difference of
    /// the two estimates; the interval, SD and reversal rate are of the paired replicates).
    pub comparisons: Vec<PairEstimate>,
}

/// One paired difference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairEstimate {
    /// The system.
    pub system: String,
    /// The one it is compared with.
    pub baseline: String,
    /// Replicates where either system's statistic is undefined (left out).
    pub undefined: usize,
    /// The paired bootstrap of `system − baseline`.
    pub bootstrap: Bootstrap,
    /// The method, in words.
    pub method: String,
}

/// Runs the estimator on `data`: each system's estimate and percentile interval, and the paired
/// differences `pairs` (`(system, baseline)` indices).
///
/// Errors: a statistic undefined on all topics (a ratio whose denominator sums to 0), named
/// with its system.
pub fn run(stat: &Statistic, data: &Data, spec: &Spec, pairs: &[(usize, usize)]) -> Result<Estimate, String> {
    let all: Vec<usize> = (0..data.units.len()).collect();
    let per = per_unit(stat, data);
    let observed: Vec<f64> = (0..data.systems.len())
        .map(|s| {
            statistic(stat, &per[s], &all, &mut Vec::new()).ok_or_else(|| {
                format!(
                    "the estimator is undefined for system `{}`: its denominator sums to 0 over the topics",
                    data.systems[s]
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let reps = replicates(stat, &per, spec);
    let n = data.systems.len();
    let boot = BootstrapSpec {
        seed: spec.seed,
        stream_base: STREAM,
        trials: spec.trials,
        level: spec.level,
        percentile: spec.percentile,
        tie_tolerance: 0.0,
    };
    let resampled = format!(
        "{} {}s resampled, B = {}, numpy {}",
        data.units.len(),
        data.unit,
        spec.trials,
        method_name(spec.percentile)
    );
    let interval_method = format!("bootstrap percentile interval, {}", resampled);
    let systems = (0..n)
        .map(|s| {
            let mut d: Vec<f64> = reps.chunks(n).map(|r| r[s]).filter(|x| !x.is_nan()).collect();
            d.sort_by(f64::total_cmp);
            let b = summarize(&d, observed[s], data.units.len(), 1, &boot, &data.unit);
            SystemEstimate {
                name: data.systems[s].clone(),
                estimate: observed[s],
                se: b.sd,
                interval: b.interval,
                undefined: spec.trials - d.len(),
                method: interval_method.clone(),
            }
        })
        .collect();
    let comparisons = pairs
        .iter()
        .map(|&(a, b)| {
            let mut d: Vec<f64> = reps.chunks(n).map(|r| r[a] - r[b]).filter(|x| !x.is_nan()).collect();
            d.sort_by(f64::total_cmp);
            PairEstimate {
                system: data.systems[a].clone(),
                baseline: data.systems[b].clone(),
                undefined: spec.trials - d.len(),
                bootstrap: summarize(&d, observed[a] - observed[b], data.units.len(), 1, &boot, &data.unit),
                method: format!(
                    "paired bootstrap percentile interval (both systems on the same draws), {}",
                    resampled
                ),
            }
        })
        .collect();
    Ok(Estimate {
        estimator: stat.describe(),
        unit: data.unit.clone(),
        units: data.units.len(),
        topics: data.units.iter().map(Vec::len).sum(),
        trials: spec.trials,
        level: spec.level,
        systems,
        comparisons,
    })
}

/// Each system's per-unit inputs: the summed features of a sum statistic, or the values of a
/// quantile (`[system][unit]`).
fn per_unit(stat: &Statistic, data: &Data) -> Vec<Vec<Vec<f64>>> {
    let unit = |rows: &Vec<Vec<f64>>, topics: &Vec<usize>| -> Vec<f64> {
        if let Statistic::Quantile { .. } = stat {
            return topics.iter().map(|&t| rows[t][0]).collect();
        }
        let mut sums: Vec<f64> = Vec::new();
        for &t in topics {
            let f = stat.features(&data.columns, &rows[t]).unwrap_or_default();
            sums.resize(f.len(), 0.0);
            for (acc, x) in sums.iter_mut().zip(f) {
                *acc += x;
            }
        }
        sums
    };
    data.values
        .iter()
        .map(|rows| data.units.iter().map(|topics| unit(rows, topics)).collect())
        .collect()
}

/// The statistic of one system on the units `drawn` (with repeats) from its per-unit inputs;
/// `None` when undefined. `scratch` is reused between calls.
fn statistic(stat: &Statistic, units: &[Vec<f64>], drawn: &[usize], scratch: &mut Vec<f64>) -> Option<f64> {
    scratch.clear();
    if let Statistic::Quantile { q, method } = stat {
        for &u in drawn {
            scratch.extend_from_slice(&units[u]);
        }
        // Selection, not a sort: the same order statistics in O(n).
        return (!scratch.is_empty()).then(|| quantile_unsorted(scratch, *q, *method));
    }
    for &u in drawn {
        let f = &units[u];
        scratch.resize(f.len(), 0.0);
        for (acc, x) in scratch.iter_mut().zip(f) {
            *acc += x;
        }
    }
    if scratch.is_empty() {
        return None;
    }
    stat.of_sums(scratch)
}

/// The B × S replicates, row-major by trial (NaN where undefined): every system on the same
/// draws of units.
fn replicates(stat: &Statistic, per: &[Vec<Vec<f64>>], spec: &Spec) -> Vec<f64> {
    let n = per.len();
    let mut out = vec![f64::NAN; spec.trials * n];
    let units = per.first().map_or(0, Vec::len);
    if units == 0 {
        return out;
    }
    let pick = Uniform::new(0usize, units);
    out.par_chunks_mut(CHUNK * n).enumerate().for_each(|(k, chunk)| {
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
        rng.set_stream(STREAM + k as u64);
        let (mut drawn, mut scratch) = (vec![0usize; units], Vec::new());
        for row in chunk.chunks_mut(n) {
            for d in drawn.iter_mut() {
                *d = pick.sample(&mut rng);
            }
            for (slot, units) in row.iter_mut().zip(per) {
                *slot = statistic(stat, units, &drawn, &mut scratch).unwrap_or(f64::NAN);
            }
        }
    });
    out
}

#[cfg(test)]
mod tests;
