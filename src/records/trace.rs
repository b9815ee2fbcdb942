//! The records of a `trace` entry: the repair-trace test ([`crate::gate::trace`]) as stored,
//! `result.json` ([`TraceRecord`]) and the entry's `summary` ([`TraceSummary`]).

use crate::gate::trace::{FoldFit, Trace, TraceVerdict};
use crate::protocol::RepairTrace;
use serde::{Deserialize, Serialize};

/// `result.json` of a `trace` entry: the registered method, the two sets' sizes, each fold's
/// fit and the AUC with its interval and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceRecord {
    /// [`super::RECORD_VERSION`] when written.
    pub record_version: u32,
    /// The registered `[repair-trace]` the test ran with.
    pub method: RepairTrace,
    /// The seed of the folds (`analysis.seed`; the generator is in the entry's `rng`).
    pub seed: u64,
    /// Original passages.
    pub originals: u64,
    /// Replacement passages.
    pub replacements: u64,
    /// Features (distinct character n-grams of both sets).
    pub features: u64,
    /// One fit per fold, in fold order.
    pub folds: Vec<FoldRecord>,
    /// The result.
    pub result: TraceSummary,
}

/// One fold's fit as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FoldRecord {
    /// Passages held out and scored.
    pub held_out: u64,
    /// Newton steps.
    pub iterations: u32,
    /// The gradient's largest component at the solution.
    pub gradient: f64,
    /// Whether the fit reached the stopping tolerance.
    pub converged: bool,
}

impl From<&FoldFit> for FoldRecord {
    fn from(f: &FoldFit) -> Self {
        FoldRecord {
            held_out: f.held_out,
            iterations: f.iterations,
            gradient: f.gradient,
            converged: f.converged,
        }
    }
}

/// The `summary` of a `trace` entry (and the `result` part of [`TraceRecord`]): the pooled
/// out-of-fold AUC of replacements against originals, its DeLong interval, the registered
/// threshold and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSummary {
    /// The AUC, in [0, 1] (0.5: chance).
    pub auc: f64,
    /// The interval's lower bound.
    pub lower: f64,
    /// The interval's upper bound.
    pub upper: f64,
    /// The interval's level.
    pub confidence: f64,
    /// The registered threshold.
    pub threshold: f64,
    /// The verdict.
    pub verdict: TraceVerdict,
}

impl TraceRecord {
    /// The record of `t`, run with `method` and `seed`.
    pub fn new(t: &Trace, method: &RepairTrace, seed: u64) -> Self {
        TraceRecord {
            record_version: super::RECORD_VERSION,
            method: method.clone(),
            seed,
            originals: t.originals,
            replacements: t.replacements,
            features: t.features,
            folds: t.fits.iter().map(FoldRecord::from).collect(),
            result: TraceSummary {
                auc: t.auc,
                lower: t.lower,
                upper: t.upper,
                confidence: method.confidence,
                threshold: method.threshold,
                verdict: t.verdict,
            },
        }
    }
}

impl super::Versioned for TraceRecord {
    fn version(&self) -> u32 {
        self.record_version
    }
}
