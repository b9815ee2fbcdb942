//! `pledge compare`: the methods of analyze on score files with flags instead of a protocol,
//! without a ledger.

use super::analyze::{read_options, ScoreArgs};
use super::human::render;
use super::values::named;
use super::{Ctx, Outcome, Output};
use crate::ops::analyze::CompareRequest;
use crate::protocol::{Adjust, MissingTopics, Percentile};
use crate::stats::settings::{RunOptions, Settings, TrecInputs};
use std::path::PathBuf;

/// Arguments of `pledge compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub common: ScoreArgs,
    /// Seed of the ChaCha8 generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bootstrap trials.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=crate::protocol::MAX_TRIALS as i64))]
    pub trials: u32,
    /// Trials of the Monte-Carlo randomization test.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=crate::protocol::MAX_TRIALS as i64))]
    pub randomization_trials: u32,
    /// Interval level.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Percentile definition (numpy method names).
    #[arg(long, value_parser = named::<Percentile>(), default_value = "linear")]
    pub percentile: Percentile,
    /// Missing-topics policy.
    #[arg(long, value_parser = named::<MissingTopics>(), default_value = "error")]
    pub missing_topics: MissingTopics,
    /// Multiple-comparison adjustment.
    #[arg(long, value_parser = named::<Adjust>(), default_value = "holm")]
    pub adjust: Adjust,
    /// Stratify by this column (of --strata FILE, else of the score file).
    #[arg(long, value_name = "FIELD")]
    pub strata_field: Option<String>,
    /// File holding the strata column.
    #[arg(long, value_name = "FILE")]
    pub strata: Option<PathBuf>,
}

pub fn compare(mut a: CompareArgs, ctx: &Ctx) -> Outcome {
    let read = read_options(&mut a.common, ctx)?;
    let mut s = Settings::compare_defaults();
    s.seed = a.seed;
    s.trials = a.trials;
    s.randomization_trials = a.randomization_trials;
    s.interval_level = a.level;
    s.percentile = a.percentile;
    s.missing_topics = a.missing_topics;
    s.adjust = a.adjust;
    s.baseline = a.common.baseline.clone();
    let measure = a.common.measure.clone().unwrap_or_else(|| "map".into());
    if a.common.qrels.is_some() {
        s.metric = measure.clone();
    } else if let Some(m) = a.common.measure.as_ref().or(a.common.column.as_ref()) {
        s.metric = m.clone();
    }
    let show = |p: &PathBuf| p.to_string_lossy().into_owned();
    let req = CompareRequest {
        root: ctx.cwd.clone(),
        settings: s,
        options: RunOptions {
            scores: a.common.scores.iter().map(show).collect(),
            components: a.common.components.as_ref().map(show),
            strata: a.strata.as_ref().map(show),
            read,
            baseline: a.common.baseline.clone(),
            split: a.common.split.clone(),
            trec: a.common.qrels.as_ref().map(|q| TrecInputs {
                qrels: show(q),
                runs: a.common.run.iter().map(show).collect(),
                measure,
                complete: a.missing_topics == MissingTopics::Zero,
                pool_runs: vec![],
                pool_partial: true,
            }),
            overrides: Default::default(),
        },
        strata_field: a.strata_field.clone(),
    };
    let o = crate::ops::analyze::compare(&req)?;
    Ok(Output::ok(render(&o.result, a.common.format), &o.notes))
}
