//! `pledge analyze` (verified against the registration, recorded in the ledger) and `pledge
//! compare` (the same methods on score files, without a ledger).

use super::human::render_recorded;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::ops::analyze::{AnalyzeRequest, TrecFiles};
use crate::output::Format;
use crate::protocol::{Adjust, Estimator, MissingTopics, Percentile, ResamplingUnit};
use crate::scores::ReadOptions;
use crate::stats::settings::Overrides;
use std::path::PathBuf;

/// Options of the score readers shared by both commands.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Per-topic score file (any format of `pledge formats`; compressed ok; `-` reads standard
    /// input). Repeat for one file per system; FILE=NAME names the system of a one-system file
    /// (two runs of one model: --scores run1.jsonl=seed1 --scores run2.jsonl=seed2). A wide CSV
    /// starts `topic,SYSTEM_A,SYSTEM_B`, a long one `topic,system,score`, `trec_eval -q` output
    /// `map<TAB>301<TAB>0.2250`.
    #[arg(long, value_name = "FILE[=NAME]", required_unless_present = "qrels")]
    pub scores: Vec<PathBuf>,
    /// Qrels to evaluate TREC runs against (instead of --scores): the per-topic values of the
    /// protocol's metric (analyze) or of --measure, default map (compare), computed as trec_eval
    /// does; the report then carries the pool-bias check of these runs.
    #[arg(long, value_name = "FILE", conflicts_with = "scores", requires = "run")]
    pub qrels: Option<PathBuf>,
    /// A TREC run file (with --qrels; repeat for each system).
    #[arg(long, value_name = "FILE", requires = "qrels")]
    pub run: Vec<PathBuf>,
    /// trec_eval measure to use when the file has several (e.g. map, P.10). compare: repeat for
    /// one multiplicity family across metrics (--measure ndcg_cut.10 --measure recall.100: every
    /// comparison of every measure adjusted together with --adjust holm or bh); analyze reads
    /// the protocol's `[family] metrics`.
    #[arg(long, value_name = "NAME")]
    pub measure: Vec<String>,
    /// Read one system per file from this column (e.g. f1); the system is named by the file.
    /// compare: repeat for one multiplicity family across the columns' metrics (--column acc
    /// --column f1), as with --measure.
    #[arg(long, value_name = "NAME")]
    pub column: Vec<String>,
    /// Map a value label to a score, e.g. HALTED=0 (case-insensitive; repeatable).
    #[arg(long, value_name = "LABEL=VALUE")]
    pub label: Vec<String>,
    /// Component assignment file written by `pledge components` (compressed ok; `-` reads
    /// standard input, when no score file does).
    #[arg(long, value_name = "FILE")]
    pub components: Option<PathBuf>,
    /// Only the components assigned to this split.
    #[arg(long, value_name = "NAME")]
    pub split: Option<String>,
    /// Compare every system with this one (default: the protocol's baseline, else all pairs).
    #[arg(long, value_name = "SYSTEM")]
    pub baseline: Option<String>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub input: super::inputs::InputArgs,
}

/// Arguments of `pledge analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// The registered protocol (TOML).
    pub protocol: PathBuf,
    #[command(flatten)]
    pub common: ScoreArgs,
    /// CSV/TSV with the topic column and the protocol's strata-field column (default: the score
    /// file, if it has that column).
    #[arg(long, value_name = "FILE")]
    pub strata: Option<PathBuf>,
    /// Proceed despite refusals (a changed protocol, the stop rule, another assignment, any
    /// setting or reading option other than the registered one) and record a deviation entry
    /// with this reason, listing each field as registered → used.
    #[arg(long, value_name = "REASON")]
    pub deviation: Option<String>,
    /// A TREC run read only for the pool-bias check (a judgment-pool contributor that is not
    /// compared; repeatable, with --qrels).
    #[arg(long, value_name = "FILE", requires = "qrels")]
    pub pool_run: Vec<PathBuf>,
    /// Allow pool contributors of the protocol that are not among the runs supplied (the pool
    /// statement then says which are missing and computes no leave-one-run-out figure).
    #[arg(long, requires = "qrels")]
    pub pool_partial: bool,
    /// Seed instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol")]
    pub seed: Option<u64>,
    /// Bootstrap trials instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = clap::value_parser!(u32).range(1..=crate::protocol::MAX_TRIALS as i64))]
    pub trials: Option<u32>,
    /// Randomization-test trials instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = clap::value_parser!(u32).range(1..=crate::protocol::MAX_TRIALS as i64))]
    pub randomization_trials: Option<u32>,
    /// Interval level instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol")]
    pub level: Option<f64>,
    /// Percentile definition instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = named::<Percentile>())]
    pub percentile: Option<Percentile>,
    /// Missing-topics policy instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = named::<MissingTopics>())]
    pub missing_topics: Option<MissingTopics>,
    /// Resampling unit instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = named::<ResamplingUnit>())]
    pub resampling_unit: Option<ResamplingUnit>,
    /// Estimator instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = named::<Estimator>())]
    pub estimator: Option<Estimator>,
    /// Drop topics where every system scores at least this (a deviation unless registered).
    #[arg(long, help_heading = "Deviating from the protocol", value_name = "X")]
    pub drop_all_at_least: Option<f64>,
    /// Drop topics where every system scores at most this (a deviation unless registered).
    #[arg(long, help_heading = "Deviating from the protocol", value_name = "X")]
    pub drop_all_at_most: Option<f64>,
    /// Multiple-comparison adjustment instead of the protocol's (a deviation).
    #[arg(long, help_heading = "Deviating from the protocol", value_parser = named::<Adjust>())]
    pub adjust: Option<Adjust>,
}

/// The reader options of `a`, whose `--scores` values become plain files (their `=NAME` parts
/// go into [`ReadOptions::file_systems`]).
pub(crate) fn read_options(a: &mut ScoreArgs, ctx: &Ctx) -> crate::Result<ReadOptions> {
    let (files, names) = super::inputs::split_named(ctx, &a.scores)?;
    a.scores = files;
    let mut opts = ReadOptions {
        measure: a.measure.first().cloned(),
        column: a.column.first().cloned(),
        labels: super::values::label_args(&a.label)?,
        ..Default::default()
    };
    // `-` may stand for one input only: a score file or the assignment.
    let files: Vec<PathBuf> = a.scores.iter().chain(&a.components).cloned().collect();
    a.input.apply(&mut opts, &files)?;
    a.input.name_files(&mut opts, names)?;
    Ok(opts)
}

/// The metrics after the first of a family across metrics given on the command line: the
/// further `--measure`s, else the further `--column`s.
///
/// Errors (exit 2): several of both.
pub(crate) fn further_metrics(a: &ScoreArgs) -> crate::Result<Vec<String>> {
    if a.measure.len() > 1 && a.column.len() > 1 {
        return Err(crate::Error::input(
            "a family across metrics is several --measure or several --column, not both",
        ));
    }
    let rest = |v: &[String]| v.iter().skip(1).cloned().collect::<Vec<String>>();
    Ok(if a.measure.len() > 1 {
        rest(&a.measure)
    } else {
        rest(&a.column)
    })
}

pub fn analyze(mut a: AnalyzeArgs, ctx: &Ctx) -> Outcome {
    if !further_metrics(&a.common)?.is_empty() {
        return Err(crate::Error::input(
            "analyze reads one --measure or --column: the metrics of a family are registered in the protocol",
        )
        .with_hint("register them in [family] metrics (format 2), or use pledge compare with several --measure"));
    }
    let read = read_options(&mut a.common, ctx)?;
    let ledger = open_ledger(ctx)?;
    let req = AnalyzeRequest {
        protocol: resolve(ctx, &a.protocol),
        scores: a
            .common
            .scores
            .iter()
            .map(|p| {
                if crate::input::is_stdin(p) {
                    p.clone()
                } else {
                    resolve(ctx, p)
                }
            })
            .collect(),
        components: a.common.components.as_deref().map(|p| {
            if crate::input::is_stdin(p) {
                p.to_path_buf()
            } else {
                resolve(ctx, p)
            }
        }),
        strata: a.strata.as_deref().map(|p| resolve(ctx, p)),
        read,
        baseline: a.common.baseline.clone(),
        split: a.common.split.clone(),
        deviation: a.deviation.clone(),
        trec: a.common.qrels.as_ref().map(|q| TrecFiles {
            qrels: resolve(ctx, q),
            runs: a.common.run.iter().map(|p| resolve(ctx, p)).collect(),
        }),
        overrides: Overrides {
            seed: a.seed,
            trials: a.trials,
            randomization_trials: a.randomization_trials,
            interval_level: a.level,
            percentile: a.percentile,
            missing_topics: a.missing_topics,
            resampling_unit: a.resampling_unit,
            estimator: a.estimator,
            adjust: a.adjust,
            drop_all_at_least: a.drop_all_at_least,
            drop_all_at_most: a.drop_all_at_most,
        },
        pool_runs: a.pool_run.iter().map(|p| resolve(ctx, p)).collect(),
        pool_partial: a.pool_partial,
    };
    let o = crate::ops::analyze::analyze(&ledger, &req, ctx.now)?;
    Ok(Output::ok(
        render_recorded(&o.result, o.registered_set.as_ref(), a.common.format),
        &o.notes,
    ))
}
