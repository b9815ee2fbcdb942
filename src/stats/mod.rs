//! Resampling statistics over per-topic scores: paired, stratified and component bootstrap
//! ([`bootstrap`]), paired t-test ([`ttest`]), effect size d_z ([`effect`]), cluster-robust SE
//! ([`cluster`]), sign-flip randomization test ([`randomization`]), multiple-comparison
//! adjustment ([`multiple`]) and the randomized Tukey HSD test over many systems ([`tukey`]),
//! rank intervals and P(rank 1) over three or more systems ([`rank`]),
//! achieved MDE ([`mde`]), exact power and sample size of the paired t-test and TOST
//! ([`sizing`]), numpy percentile definitions ([`percentile`]), corpus-level ratios,
//! corpus BLEU and quantiles with their bootstrap intervals ([`estimator`]), one multiplicity
//! family across several metrics ([`metric_family`]); [`analyze`] runs them
//! all over a [`crate::scores::ScoreTable`]; `ops::analyze` checks an analysis against the
//! registration, records it in the ledger and re-runs recorded analyses.
//!
//! Shared foundations: [`describe`] (mean, variance, all-equal: one implementation),
//! [`dist`] (normal, t and F distributions, also used by [`crate::power`]), [`ties`] (the tie
//! rule) and [`pvalue`] (p-values for people).
//!
//! Sources of the method: the paired bootstrap and percentile interval (Efron & Tibshirani 1993),
//! the randomization test (Fisher 1935; Smucker, Allan & Carterette, CIKM 2007), the reversal
//! rate as a swap rate (Voorhees & Buckley, SIGIR 2002), and reporting the mean, the topic count,
//! the interval and the pool bias together (Sakai, *Laboratory Experiments in Information
//! Retrieval*, 2018).

pub mod agreement;
pub mod analyze;
pub mod bootstrap;
pub mod cluster;
pub mod describe;
pub mod dist;
pub mod effect;
pub mod estimator;
pub mod filter;
pub mod histogram;
mod keep;
pub mod margin;
pub mod mde;
pub mod metric_family;
pub mod multiple;
pub mod percentile;
pub mod prepare;
pub mod pvalue;
pub mod randomization;
pub mod rank;
pub mod samples;
pub mod settings;
pub mod sizing;
pub mod strata;
pub mod system;
pub mod ties;
pub mod ttest;
pub mod tukey;
pub mod units;
pub mod verdict;

pub use analyze::{run, AnalysisResult, Comparison, Inputs};
pub use settings::Settings;
