//! Resampling units: the values a bootstrap or randomization test draws, grouped in strata.
//!
//! A unit is a topic (value: the per-topic difference, weight 1) or a component (value: the mean
//! of its questions' differences with weight 1 for the component-mean estimator, or the sum of
//! its questions' differences with weight = its question count for the question-weighted
//! estimator). The estimate over a set of units is Σ value / Σ weight.

use serde::Serialize;

/// Units and their strata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Units {
    /// Value of each unit (a mean or a sum of differences, see the module docs).
    pub values: Vec<f64>,
    /// Weight of each unit (1, or the number of questions of a component).
    pub weights: Vec<f64>,
    /// Strata: lists of unit indices; every unit is in exactly one. One stratum when unstratified.
    pub strata: Vec<Vec<usize>>,
}

impl Units {
    /// Unstratified units of weight 1 (topic-level differences).
    pub fn topics(diffs: Vec<f64>) -> Units {
        let n = diffs.len();
        Units {
            weights: vec![1.0; n],
            values: diffs,
            strata: vec![(0..n).collect()],
        }
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no units.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether every weight is 1 and there is one stratum (the fast path of the bootstrap).
    pub fn is_simple(&self) -> bool {
        self.strata.len() == 1 && self.weights.iter().all(|&w| w == 1.0)
    }

    /// The observed estimate Σ value / Σ weight (0 when there are no units). When every unit mean
    /// (value/weight) is the same up to rounding ([`super::describe::all_equal`]), the estimate is
    /// exactly the first unit's mean: Σ value / Σ weight would differ from it in the last bits
    /// (three topics of 0.1 give 0.10000000000000002), and the bootstrap of such units is that
    /// same constant, so the estimate equals its zero-width interval exactly.
    pub fn estimate(&self) -> f64 {
        let w: f64 = self.weights.iter().sum();
        if w <= 0.0 {
            return 0.0;
        }
        match self.constant() {
            Some(c) => c,
            None => self.values.iter().sum::<f64>() / w,
        }
    }

    /// The common unit mean when all unit means are equal up to rounding (zero variance between
    /// units: every resample has this estimate); `None` otherwise or without units.
    pub fn constant(&self) -> Option<f64> {
        let m = self.unit_means();
        m.first().copied().filter(|_| super::describe::all_equal(&m))
    }

    /// Per-unit means value/weight (the unit-level differences).
    pub fn unit_means(&self) -> Vec<f64> {
        self.values
            .iter()
            .zip(&self.weights)
            .map(|(v, w)| if *w > 0.0 { v / w } else { 0.0 })
            .collect()
    }

    /// The same units with every value negated (the comparison with the systems swapped).
    pub fn negated(&self) -> Units {
        Units {
            values: self.values.iter().map(|v| -v).collect(),
            ..self.clone()
        }
    }
}
