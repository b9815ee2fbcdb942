//! A system's own score with its standard error and intervals (Miller, "Adding Error Bars to
//! Evals", 2024, §2: report the mean with its standard error, clustered where questions share a
//! passage).
//!
//! The estimate is the one the comparisons use (the mean over topics, the question-weighted mean
//! over components, or the mean of component means). Beside it, each with its method named:
//! - the analytic interval estimate ± t·SE: Student t over topics (df = n − 1); with a component
//!   assignment, the cluster-robust CRV1 SE of the question-weighted mean (df = G − 1, as
//!   statsmodels OLS `cov_type='cluster'`, `use_t=True`), or for the mean of component means the
//!   t interval over the G component means (df = G − 1);
//! - for 0/1 scores over independent topics, the Wilson score interval (Wilson 1927, as
//!   statsmodels `proportion_confint(method='wilson')`), which stays inside [0, 1] and does not
//!   collapse at 0 or n successes;
//! - the bootstrap percentile interval over the primary resampling unit (Efron & Tibshirani 1993),
//!   drawn on its own generator stream ([`super::bootstrap::streams::SYSTEMS`]) with the same
//!   draws for every system, so the systems' resampled means are paired (rank intervals can be
//!   read from them).

use super::bootstrap::{resample, streams, BootstrapSpec};
use super::cluster::crv1;
use super::describe::Maybe;
use super::dist::z_isf;
use super::percentile::{method_name, quantile};
use super::ttest::{paired_t, TTest};
use super::units::Units;
use crate::protocol::{Estimator, ResamplingUnit};
use serde::{Deserialize, Serialize};

/// A system's estimate with its standard error and intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemInterval {
    /// The estimator, in the comparisons' words.
    pub estimator: String,
    /// The estimate (in the metric's scale).
    pub estimate: f64,
    /// What the standard error counts: `component` with an assignment, else `topic`.
    pub unit: String,
    /// Number of those units (n or G).
    pub n: usize,
    /// The standard error under `method`; undefined below 2 units (or 2 components).
    pub se: Maybe,
    /// Degrees of freedom of the t interval (n − 1 or G − 1).
    pub df: usize,
    /// Level of the intervals, e.g. 0.95.
    pub level: f64,
    /// estimate ± t_{df}·SE; `None` when the SE is undefined or 0.
    pub interval: Option<[f64; 2]>,
    /// How `se` and `interval` are computed.
    pub method: String,
    /// Wilson score interval, for 0/1 scores (0 and 100 on the points scale) without a component
    /// assignment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wilson: Option<[f64; 2]>,
    /// Bootstrap percentile interval over the primary unit.
    pub bootstrap: [f64; 2],
    /// Its SD (ddof 0): the bootstrap standard error.
    pub bootstrap_se: f64,
    /// How the bootstrap interval is computed (unit, trials, percentile definition).
    pub bootstrap_method: String,
}

/// What the intervals of every system share.
#[derive(Debug, Clone, Copy)]
pub struct IntervalSpec<'a> {
    /// Component index per topic, when an assignment is given.
    pub component_of: Option<&'a [usize]>,
    /// Primary resampling unit.
    pub unit: ResamplingUnit,
    /// Estimator with components.
    pub estimator: Estimator,
    /// The largest value of the scale (1 or 100): 0/1 scores are 0 and this.
    pub scale_max: f64,
    /// The bootstrap's settings (its stream is replaced by [`streams::SYSTEMS`]).
    pub bootstrap: BootstrapSpec,
}

/// The units a system's scores are resampled in: topics, or whole components under the
/// estimator, when the primary unit is the component.
pub fn system_units(values: &[f64], spec: &IntervalSpec) -> (Units, &'static str) {
    match (spec.component_of, spec.unit) {
        (Some(c), ResamplingUnit::Component) => (
            crate::stats::analyze::component_units(values, c, spec.estimator),
            "component",
        ),
        _ => (Units::topics(values.to_vec()), "topic"),
    }
}

/// The analytic SE and interval of the estimate: (t-test of the estimate, method).
fn analytic(values: &[f64], units: &Units, unit: &str, spec: &IntervalSpec, level: f64) -> (TTest, String) {
    match (spec.component_of, unit, spec.estimator) {
        (Some(_), "component", Estimator::ComponentMean) => (
            paired_t(&units.unit_means(), level),
            "Student t over the component means (df = G − 1)".into(),
        ),
        (Some(c), _, _) => (
            crv1(values, c, level).test,
            "cluster-robust CRV1 SE of the question-weighted mean (df = G − 1)".into(),
        ),
        _ => (paired_t(values, level), "Student t over topics (df = n − 1)".into()),
    }
}

/// The Wilson score interval for `successes` of `n` at `level` (fractions); `None` for n = 0.
pub fn wilson(successes: f64, n: f64, level: f64) -> Option<[f64; 2]> {
    if n <= 0.0 {
        return None;
    }
    let z = z_isf((1.0 - level) / 2.0);
    let p = successes / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some([(center - half).max(0.0), (center + half).min(1.0)])
}

/// Whether every value is 0 or `max` (0/1 scores on the scale).
pub fn is_binary(values: &[f64], max: f64) -> bool {
    !values.is_empty() && values.iter().all(|&v| v == 0.0 || v == max)
}

/// The resampled estimates of one system on the shared stream: B values, deterministic.
pub fn resampled(units: &Units, spec: &IntervalSpec) -> Vec<f64> {
    let b = BootstrapSpec {
        stream_base: streams::SYSTEMS,
        ..spec.bootstrap
    };
    match units.constant() {
        Some(c) => vec![c; b.trials],
        None => resample(units, &b),
    }
}

/// The estimate, SE and intervals of one system from its per-topic `values` and its resampled
/// estimates (`draws`, from [`resampled`]).
pub fn system_interval(values: &[f64], draws: &[f64], spec: &IntervalSpec) -> SystemInterval {
    let level = spec.bootstrap.level;
    let (units, unit) = system_units(values, spec);
    let estimate = units.estimate();
    let (t, method) = analytic(values, &units, unit, spec, level);
    let wilson = (spec.component_of.is_none() && is_binary(values, spec.scale_max)).then(|| {
        let k = values.iter().filter(|&&v| v != 0.0).count() as f64;
        wilson(k, values.len() as f64, level).map(|[lo, hi]| [lo * spec.scale_max, hi * spec.scale_max])
    });
    let mut sorted = draws.to_vec();
    sorted.sort_by(f64::total_cmp);
    let a = (1.0 - level) / 2.0;
    let pct = spec.bootstrap.percentile;
    let b = sorted.len().max(1) as f64;
    let mean = sorted.iter().sum::<f64>() / b;
    let bootstrap_se = if units.constant().is_some() {
        0.0
    } else {
        (sorted.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / b).sqrt()
    };
    SystemInterval {
        estimator: crate::stats::analyze::estimator_name(unit, spec.estimator).into(),
        estimate,
        unit: if spec.component_of.is_some() {
            "component"
        } else {
            "topic"
        }
        .into(),
        n: t.df + 1,
        se: t.se,
        df: t.df,
        level,
        interval: t.ci,
        method,
        wilson: wilson.flatten(),
        bootstrap: [quantile(&sorted, a, pct), quantile(&sorted, 1.0 - a, pct)],
        bootstrap_se,
        bootstrap_method: format!(
            "percentile interval over {}s, B = {}, {} percentile",
            unit,
            sorted.len(),
            method_name(pct)
        ),
    }
}

#[cfg(test)]
mod tests;
