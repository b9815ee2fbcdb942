//! TREC runs and qrels: per-topic measures computed as trec_eval computes them, the
//! `trec_eval -q` text format (`scores::score_table` makes the analysis's score table from them), and
//! the pool-bias statement.
//!
//! Reference implementation: usnistgov/trec_eval (10.0, commit f4253652; 9.0.8 for the
//! single-precision ranking), checked to its 4 printed decimals on its own test suite and on 17
//! TREC 2003 Robust runs, every measure (`tests/data/trec/`). Documents of a topic are ordered
//! by score descending, then docno descending (trec_eval's `comp_sim_docno`), scores compared
//! in single precision by default ([`ScorePrecision`]); the rank column is ignored. A document
//! is relevant when its grade is at least the relevance level (default 1, trec_eval `-l`).
//! Measure names: [`measures::resolve`] and [`measures::parse`] read trec_eval's, ir_measures'
//! and ranx's names.

mod aliases;
mod evaluate;
pub mod measures;
mod parse;
mod pool;
mod qrels;
mod ranx;
mod run;
mod topic;

pub use evaluate::{evaluate, evaluate_run, trec_text, trec_value, EvalOptions, Evaluation, RunEvaluation, TopicRow};
pub use measures::{parse_all, resolve, Aggregate, Gains, Measure, CUTOFFS};
pub use parse::Duplicates;
pub use pool::{pool_bias, LeaveOneOut, PoolBias, RunPoolBias};
pub use qrels::{Qrels, TopicQrels};
pub use run::{Retrieved, Run, ScorePrecision};
pub use topic::{topic_values, Judging, TopicOptions, TopicValues};
