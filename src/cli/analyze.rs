//! `pledge analyze` (verified against the registration, recorded in the ledger) and `pledge
//! compare` (the same methods on score files, without a ledger).

use super::human::render;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::error::Error;
use crate::ops::analyze::{AnalyzeRequest, CompareRequest, TrecFiles};
use crate::output::Format;
use crate::protocol::{Adjust, MissingTopics, Percentile};
use crate::scores::ReadOptions;
use crate::stats::settings::{RunOptions, Settings, TrecInputs};
use std::path::PathBuf;

/// Options of the score readers shared by both commands.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Per-topic score file (long/wide CSV or TSV, JSON Lines, trec_eval -q output; gzip ok).
    /// Repeat for one file per system.
    #[arg(long, value_name = "FILE", required_unless_present = "qrels")]
    pub scores: Vec<PathBuf>,
    /// Qrels to evaluate TREC runs against (instead of --scores): the per-topic values of the
    /// protocol's metric (analyze) or of --measure, default map (compare), computed as trec_eval
    /// does; the report then carries the pool-bias check of these runs.
    #[arg(long, value_name = "FILE", conflicts_with = "scores", requires = "run")]
    pub qrels: Option<PathBuf>,
    /// A TREC run file (with --qrels; repeat for each system).
    #[arg(long, value_name = "FILE", requires = "qrels")]
    pub run: Vec<PathBuf>,
    /// trec_eval measure to use when the file has several (e.g. map, P.10).
    #[arg(long, value_name = "NAME")]
    pub measure: Option<String>,
    /// Read one system per file from this column (e.g. f1); the system is named by the file.
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// Map a value label to a score, e.g. HALTED=0 (case-insensitive; repeatable).
    #[arg(long, value_name = "LABEL=VALUE")]
    pub label: Vec<String>,
    /// Component assignment file written by `pledge components`.
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
    /// Proceed despite a refusal (unregistered or changed protocol, stop rule, different
    /// assignment) and record a deviation entry with this reason.
    #[arg(long, value_name = "REASON")]
    pub deviation: Option<String>,
}

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

/// Parses `--label LABEL=VALUE` arguments (shared with `pledge power --pilot`).
pub(crate) fn label_args(args: &[String]) -> crate::Result<Vec<(String, f64)>> {
    let mut labels = Vec::new();
    for l in args {
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| Error::input(format!("--label `{}`: expected LABEL=VALUE, e.g. HALTED=0", l)))?;
        let x: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| Error::input(format!("--label `{}`: the value must be a finite number", l)))?;
        labels.push((k.trim().to_string(), x));
    }
    Ok(labels)
}

fn read_options(a: &ScoreArgs) -> crate::Result<ReadOptions> {
    Ok(ReadOptions {
        measure: a.measure.clone(),
        column: a.column.clone(),
        labels: label_args(&a.label)?,
    })
}

pub fn analyze(a: AnalyzeArgs, ctx: &Ctx) -> Outcome {
    let ledger = open_ledger(ctx)?;
    let req = AnalyzeRequest {
        protocol: resolve(ctx, &a.protocol),
        scores: a.common.scores.iter().map(|p| resolve(ctx, p)).collect(),
        components: a.common.components.as_deref().map(|p| resolve(ctx, p)),
        strata: a.strata.as_deref().map(|p| resolve(ctx, p)),
        read: read_options(&a.common)?,
        baseline: a.common.baseline.clone(),
        split: a.common.split.clone(),
        deviation: a.deviation.clone(),
        trec: a.common.qrels.as_ref().map(|q| TrecFiles {
            qrels: resolve(ctx, q),
            runs: a.common.run.iter().map(|p| resolve(ctx, p)).collect(),
        }),
    };
    let o = crate::ops::analyze::analyze(&ledger, &req, ctx.now)?;
    Ok(Output::ok(render(&o.result, a.common.format), &o.notes))
}

pub fn compare(a: CompareArgs, ctx: &Ctx) -> Outcome {
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
            read: read_options(&a.common)?,
            baseline: a.common.baseline.clone(),
            split: a.common.split.clone(),
            trec: a.common.qrels.as_ref().map(|q| TrecInputs {
                qrels: show(q),
                runs: a.common.run.iter().map(show).collect(),
                measure,
                complete: a.missing_topics == MissingTopics::Zero,
            }),
        },
        strata_field: a.strata_field.clone(),
    };
    let o = crate::ops::analyze::compare(&req)?;
    Ok(Output::ok(render(&o.result, a.common.format), &o.notes))
}
