//! The repair-trace test: can a classifier that reads only the passages tell a repair's
//! replacement passages from the originals? The components article's second build attempt
//! replaced contaminated distractors, and such a classifier told the replaced passages apart
//! (AUC 0.61): the repair left a trace.
//!
//! The registered method (`[repair-trace]`, [`RepairTrace`]), step by step:
//!
//! 1. **Features.** Each passage's text is normalized (the registered Unicode `normalization`,
//!    then lowercased when `lowercase`), and its character n-grams (Unicode scalar values, n =
//!    `ngram-size`; a non-empty text shorter than n is one n-gram, an empty text has none) are
//!    counted. The vocabulary is every n-gram seen in either set, indexed in byte order; a
//!    passage's features are its n-gram counts divided by their Euclidean norm (no hashing, so
//!    no collisions; no labels are used).
//! 2. **Folds.** Stratified k-fold (k = `folds`): the original passages' positions (in file
//!    order), then the replacements', are each shuffled by `ChaCha8Rng::seed_from_u64(seed)`
//!    (one generator, originals first; `rand` 0.8.5 `SliceRandom::shuffle`), and the j-th
//!    position of each shuffled list goes to fold j mod k. Each class needs at least k passages.
//! 3. **Classifier.** Per fold, an L2-regularized logistic regression with the registered C
//!    and an unpenalized intercept ([`logistic`]) is fitted on the other folds, replacements
//!    the positive class, and scores the held-out passages (the log-odds).
//! 4. **AUC.** The out-of-fold scores of all folds are pooled and the AUC of replacements
//!    against originals computed with DeLong's variance ([`delong`]); the interval is AUC ±
//!    z·√variance at the registered `confidence` (z the standard normal quantile), clipped to
//!    [0, 1].
//! 5. **Verdict.** "no detectable trace" when the interval's upper bound is below the
//!    registered `threshold`, else "the repair left a trace".

pub mod delong;
pub mod logistic;

use crate::components::shingle;
use crate::error::{Error, Result};
use crate::protocol::RepairTrace;
use logistic::Row;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

crate::named_enum! {
    /// The repair-trace test's verdict.
    pub enum TraceVerdict {
        /// The AUC interval's upper bound is below the registered threshold.
        NoDetectableTrace = "no-detectable-trace",
        /// It is not: a classifier tells the replacements apart.
        LeftATrace = "left-a-trace",
    }
}

impl TraceVerdict {
    /// The verdict in words, as the report and the command say it.
    pub fn words(self) -> &'static str {
        match self {
            TraceVerdict::NoDetectableTrace => "no detectable trace",
            TraceVerdict::LeftATrace => "the repair left a trace",
        }
    }
}

/// The features and folds of the two sets (steps 1 and 2), originals first.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    /// One row per passage (originals, then replacements, each in file order).
    pub rows: Vec<Row>,
    /// Whether each passage is a replacement (the positive class).
    pub replacement: Vec<bool>,
    /// The fold of each passage, in 0..k.
    pub folds: Vec<u32>,
    /// The vocabulary: every n-gram, in byte order (feature j is `vocabulary[j]`).
    pub vocabulary: Vec<String>,
}

/// One fold's fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldFit {
    /// Passages held out (scored).
    pub held_out: u64,
    /// Newton steps.
    pub iterations: u32,
    /// ‖∇f‖∞ at the solution.
    pub gradient: f64,
    /// Whether the fit reached the stopping tolerance.
    pub converged: bool,
}

/// The outcome of the repair-trace test.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Original passages read.
    pub originals: u64,
    /// Replacement passages read.
    pub replacements: u64,
    /// Features (distinct n-grams).
    pub features: u64,
    /// The fits, one per fold.
    pub fits: Vec<FoldFit>,
    /// The pooled out-of-fold AUC of replacements against originals, in [0, 1].
    pub auc: f64,
    /// DeLong's standard error of the AUC.
    pub se: f64,
    /// The interval's bounds at the registered confidence, clipped to [0, 1].
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// The verdict against the registered threshold.
    pub verdict: TraceVerdict,
    /// The out-of-fold score of each passage (as [`Design::rows`]).
    pub scores: Vec<f64>,
}

/// The feature rows of `texts` and their vocabulary (step 1).
pub fn features(texts: &[&str], spec: &RepairTrace) -> (Vec<Row>, Vec<String>) {
    let n = spec.ngram_size.max(1) as usize;
    let counts: Vec<BTreeMap<String, u32>> = texts
        .iter()
        .map(|t| {
            let norm = shingle::normalized(t, spec.normalization);
            let text = if spec.lowercase {
                norm.to_lowercase()
            } else {
                norm.into_owned()
            };
            let mut m = BTreeMap::new();
            for g in shingle::ngrams(&text, n) {
                *m.entry(g.to_string()).or_insert(0u32) += 1;
            }
            m
        })
        .collect();
    let mut vocabulary: Vec<String> = counts.iter().flat_map(|m| m.keys().cloned()).collect();
    vocabulary.sort_unstable();
    vocabulary.dedup();
    let index: BTreeMap<&str, u32> = vocabulary
        .iter()
        .enumerate()
        .map(|(i, g)| (g.as_str(), i as u32))
        .collect();
    let rows = counts
        .iter()
        .map(|m| {
            let norm = m.values().map(|&c| f64::from(c) * f64::from(c)).sum::<f64>().sqrt();
            // BTreeMap order is byte order: the indices come out increasing.
            m.iter()
                .map(|(g, &c)| (index[g.as_str()], f64::from(c) / norm))
                .collect()
        })
        .collect();
    (rows, vocabulary)
}

/// The stratified folds (step 2) of `replacement` (true: a replacement passage).
///
/// Errors: a class with fewer than `k` passages (exit 2).
pub fn folds(replacement: &[bool], k: u32, seed: u64) -> Result<Vec<u32>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![0u32; replacement.len()];
    for (class, name) in [(false, "original"), (true, "replacement")] {
        let mut pos: Vec<usize> = (0..replacement.len()).filter(|&i| replacement[i] == class).collect();
        if pos.len() < k as usize {
            return Err(Error::input(format!(
                "the {} set has {} passage(s), fewer than the {} folds the protocol registers ([repair-trace] folds = {}): each fold needs at least one passage of each set",
                name,
                pos.len(),
                k,
                k
            ))
            .with_hint("give at least as many passages of each set as folds"));
        }
        pos.shuffle(&mut rng);
        for (j, &i) in pos.iter().enumerate() {
            out[i] = j as u32 % k;
        }
    }
    Ok(out)
}

/// Steps 1 and 2 on the two sets.
///
/// Errors: as [`folds`].
pub fn design(originals: &[&str], replacements: &[&str], spec: &RepairTrace, seed: u64) -> Result<Design> {
    let texts: Vec<&str> = originals.iter().chain(replacements).copied().collect();
    let (rows, vocabulary) = features(&texts, spec);
    let replacement: Vec<bool> = (0..texts.len()).map(|i| i >= originals.len()).collect();
    let folds = folds(&replacement, spec.folds, seed)?;
    Ok(Design {
        rows,
        replacement,
        folds,
        vocabulary,
    })
}

/// Steps 3 to 5 on a design.
///
/// Errors: out-of-fold scores without an AUC (a score not finite; exit 2).
pub fn test(d: &Design, spec: &RepairTrace) -> Result<Trace> {
    let mut scores = vec![f64::NAN; d.rows.len()];
    let mut fits = Vec::new();
    for fold in 0..spec.folds {
        let train: Vec<usize> = (0..d.rows.len()).filter(|&i| d.folds[i] != fold).collect();
        let rows: Vec<&Row> = train.iter().map(|&i| &d.rows[i]).collect();
        let labels: Vec<bool> = train.iter().map(|&i| d.replacement[i]).collect();
        let m = logistic::fit(&rows, &labels, spec.regularization_c, d.vocabulary.len());
        let mut held_out = 0;
        for i in (0..d.rows.len()).filter(|&i| d.folds[i] == fold) {
            scores[i] = m.score(&d.rows[i]);
            held_out += 1;
        }
        fits.push(FoldFit {
            held_out,
            iterations: m.iterations,
            gradient: m.gradient,
            converged: m.converged,
        });
    }
    let split = |class: bool| -> Vec<f64> {
        (0..scores.len())
            .filter(|&i| d.replacement[i] == class)
            .map(|i| scores[i])
            .collect()
    };
    let a = delong::delong(&split(true), &split(false))
        .ok_or_else(|| Error::input("the out-of-fold scores give no AUC (a score is not finite)"))?;
    let se = a.variance.max(0.0).sqrt();
    let z = crate::stats::dist::z_quantile(0.5 + spec.confidence / 2.0);
    let (lower, upper) = ((a.auc - z * se).max(0.0), (a.auc + z * se).min(1.0));
    let verdict = if upper < spec.threshold {
        TraceVerdict::NoDetectableTrace
    } else {
        TraceVerdict::LeftATrace
    };
    Ok(Trace {
        originals: d.replacement.iter().filter(|r| !**r).count() as u64,
        replacements: d.replacement.iter().filter(|r| **r).count() as u64,
        features: d.vocabulary.len() as u64,
        fits,
        auc: a.auc,
        se,
        lower,
        upper,
        verdict,
        scores,
    })
}

/// The whole test (steps 1 to 5) on two sets of passage texts with the registered `spec` and
/// `seed`.
///
/// Errors: as [`design`] and [`test()`].
pub fn run(originals: &[&str], replacements: &[&str], spec: &RepairTrace, seed: u64) -> Result<(Design, Trace)> {
    let d = design(originals, replacements, spec, seed)?;
    let t = test(&d, spec)?;
    Ok((d, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[repair-trace]` with the threshold 0.6 and the defaults.
    fn spec() -> RepairTrace {
        toml::from_str("threshold = 0.6").unwrap()
    }

    #[test]
    fn features_are_normalized_ngram_counts_in_byte_order() {
        let s = RepairTrace {
            ngram_size: 2,
            ..spec()
        };
        let (rows, vocab) = features(&["ABAB", "b", ""], &s);
        assert_eq!(vocab, vec!["ab", "b", "ba"]);
        // "abab": ab ×2, ba ×1, norm √5.
        let r = 5f64.sqrt();
        assert_eq!(rows[0], vec![(0, 2.0 / r), (2, 1.0 / r)]);
        assert_eq!(rows[1], vec![(1, 1.0)]);
        assert!(rows[2].is_empty());
    }

    #[test]
    fn folds_are_stratified_and_need_k_of_each_class() {
        let labels: Vec<bool> = (0..23).map(|i| i >= 11).collect();
        let f = folds(&labels, 5, 7).unwrap();
        for fold in 0..5 {
            let n = |c: bool| (0..23).filter(|&i| f[i] == fold && labels[i] == c).count();
            assert!((2..=3).contains(&n(false)) && (2..=3).contains(&n(true)), "{:?}", f);
        }
        assert_eq!(f, folds(&labels, 5, 7).unwrap());
        assert_ne!(f, folds(&labels, 5, 8).unwrap());
        let e = folds(&labels[..14], 5, 7).unwrap_err();
        assert!(
            e.to_string()
                .contains("the replacement set has 3 passage(s), fewer than the 5 folds"),
            "{}",
            e
        );
    }

    #[test]
    fn texts_of_another_kind_leave_a_trace_and_shuffled_ones_do_not() {
        let orig: Vec<String> = (0..30)
            .map(|i| format!("the river flows past mill number {}", i))
            .collect();
        let repl: Vec<String> = (0..30).map(|i| format!("QUANTUM lattice zeta {} omega", i)).collect();
        let o: Vec<&str> = orig.iter().map(String::as_str).collect();
        let r: Vec<&str> = repl.iter().map(String::as_str).collect();
        let (_, t) = run(&o, &r, &spec(), 1).unwrap();
        assert_eq!(t.auc, 1.0);
        assert_eq!(t.verdict, TraceVerdict::LeftATrace);
        assert!(t.fits.iter().all(|f| f.converged), "{:?}", t.fits);
        // The same kind of text on both sides: the interval reaches below the threshold's side.
        let (_, t) = run(&o[..15], &o[15..], &spec(), 1).unwrap();
        assert!(t.lower < 0.6, "{:?}", t);
    }
}
