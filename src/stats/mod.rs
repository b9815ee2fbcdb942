//! Resampling statistics over per-topic scores: paired, stratified and component bootstrap
//! ([`bootstrap`]), paired t-test ([`ttest`]), cluster-robust SE ([`cluster`]), sign-flip
//! randomization test ([`randomization`]), multiple-comparison adjustment ([`multiple`]),
//! achieved MDE ([`mde`]), numpy percentile definitions ([`percentile`]); [`analyze`] runs them
//! all over a [`crate::scores::ScoreTable`]; `ops::analyze` checks an analysis against the
//! registration, records it in the ledger and re-runs recorded analyses.
//!
//! Source of the method: the seed article "How Many Topics a Benchmark Needs" (its
//! `paired_bootstrap_diff` is the reference implementation of the paired bootstrap).

pub mod analyze;
pub mod bootstrap;
pub mod cluster;
pub mod histogram;
mod keep;
pub mod mde;
pub mod multiple;
pub mod percentile;
pub mod prepare;
pub mod randomization;
pub mod settings;
pub mod strata;
pub mod ttest;
pub mod units;

pub use analyze::{run, AnalysisResult, Comparison, Inputs};
pub use settings::Settings;
