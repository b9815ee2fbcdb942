//! `pledge analyze` (verified against the registration, recorded in the ledger) and `pledge
//! compare` (the same methods on score files, without a ledger).
use super::{resolve, Ctx, Outcome};
use crate::error::{exit, Error};
use crate::output::{render, Format};
use crate::protocol::{Adjust, MissingTopics, Percentile};
use crate::scores::ReadOptions;
use crate::stats::registered::{analyze as run_analyze, load_inputs, Request};
use crate::stats::settings::{RunOptions, Settings};
use std::path::PathBuf;

/// Options of the score readers shared by both commands.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Per-topic score file (any format of `pledge formats`; compressed ok; `-` reads standard
    /// input). Repeat for one file per system.
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
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
    /// Percentile definition.
    #[arg(long, value_enum, default_value = "linear")]
    pub percentile: PercentileArg,
    /// Missing-topics policy.
    #[arg(long, value_enum, default_value = "error")]
    pub missing_topics: MissingArg,
    /// Multiple-comparison adjustment.
    #[arg(long, value_enum, default_value = "holm")]
    pub adjust: AdjustArg,
    /// Stratify by this column (of --strata FILE, else of the score file).
    #[arg(long, value_name = "FIELD")]
    pub strata_field: Option<String>,
    /// File holding the strata column.
    #[arg(long, value_name = "FILE")]
    pub strata: Option<PathBuf>,
}

/// Percentile definitions (numpy names).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
#[value(rename_all = "kebab-case")]
pub enum PercentileArg {
    Linear,
    InvertedCdf,
    Lower,
    Higher,
    Nearest,
}

/// Missing-topics policies.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum MissingArg {
    Error,
    Zero,
    Intersection,
}

/// Adjustments.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AdjustArg {
    Holm,
    Bh,
    Bonferroni,
    None,
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
    let labels = label_args(&a.label)?;
    let mut opts = ReadOptions {
        measure: a.measure.clone(),
        column: a.column.clone(),
        labels,
        ..Default::default()
    };
    a.input.apply(&mut opts, &a.scores)?;
    Ok(opts)
}

pub fn analyze(a: AnalyzeArgs, ctx: &Ctx) -> Outcome {
    let ledger = crate::ledger::Ledger::open(&ctx.cwd)?;
    let req = Request {
        protocol: resolve(ctx, &a.protocol),
        scores: a.common.scores.iter().map(|p| resolve(ctx, p)).collect(),
        components: a.common.components.as_deref().map(|p| resolve(ctx, p)),
        strata: a.strata.as_deref().map(|p| resolve(ctx, p)),
        read: read_options(&a.common)?,
        baseline: a.common.baseline.clone(),
        split: a.common.split.clone(),
        deviation: a.deviation.clone(),
        trec: a.common.qrels.as_ref().map(|q| crate::stats::registered::TrecFiles {
            qrels: resolve(ctx, q),
            runs: a.common.run.iter().map(|p| resolve(ctx, p)).collect(),
        }),
    };
    let out = run_analyze(&ledger, &req, ctx.now)?;
    if let Some(d) = &out.deviation {
        eprintln!(
            "recorded deviation entry #{} (overriding: {})",
            d.seq,
            out.overridden.join("; ")
        );
    }
    eprintln!(
        "recorded analyze entry #{} (result sha256 {})",
        out.entry.seq,
        out.entry.result_sha256.as_deref().unwrap_or("-")
    );
    Ok((exit::OK, render(&out.result, a.common.format)))
}

pub fn compare(a: CompareArgs, ctx: &Ctx) -> Outcome {
    let mut s = Settings::compare_defaults();
    s.seed = a.seed;
    s.trials = a.trials;
    s.randomization_trials = a.randomization_trials;
    if !(a.level > 0.0 && a.level < 1.0) {
        return Err(Error::input("--level must be in (0, 1)"));
    }
    s.interval_level = a.level;
    s.percentile = match a.percentile {
        PercentileArg::Linear => Percentile::Linear,
        PercentileArg::InvertedCdf => Percentile::InvertedCdf,
        PercentileArg::Lower => Percentile::Lower,
        PercentileArg::Higher => Percentile::Higher,
        PercentileArg::Nearest => Percentile::Nearest,
    };
    s.missing_topics = match a.missing_topics {
        MissingArg::Error => MissingTopics::Error,
        MissingArg::Zero => MissingTopics::Zero,
        MissingArg::Intersection => MissingTopics::Intersection,
    };
    s.adjust = match a.adjust {
        AdjustArg::Holm => Adjust::Holm,
        AdjustArg::Bh => Adjust::Bh,
        AdjustArg::Bonferroni => Adjust::Bonferroni,
        AdjustArg::None => Adjust::None,
    };
    s.baseline = a.common.baseline.clone();
    if a.common.qrels.is_some() {
        s.metric = a.common.measure.clone().unwrap_or_else(|| "map".into());
    } else if let Some(m) = a.common.measure.as_ref().or(a.common.column.as_ref()) {
        s.metric = m.clone();
    }
    let show = |p: &PathBuf| p.to_string_lossy().into_owned();
    let opts = RunOptions {
        scores: a.common.scores.iter().map(show).collect(),
        components: a.common.components.as_ref().map(show),
        strata: a.strata.as_ref().map(show),
        read: read_options(&a.common)?,
        baseline: a.common.baseline.clone(),
        split: a.common.split.clone(),
        trec: a.common.qrels.as_ref().map(|q| crate::stats::settings::TrecInputs {
            qrels: show(q),
            runs: a.common.run.iter().map(show).collect(),
            measure: a.common.measure.clone().unwrap_or_else(|| "map".into()),
            complete: matches!(a.missing_topics, MissingArg::Zero),
        }),
    };
    let inputs = load_inputs(&ctx.cwd, &opts, a.strata_field.as_deref(), None)?;
    let result = crate::stats::run(
        &inputs,
        &s,
        "compare",
        "not checked against a registration; no ledger entry written (use `pledge analyze` for a registered study)",
        None,
    )?;
    eprintln!("note: pledge compare does not check a registration and writes no ledger entry");
    Ok((exit::OK, render(&result, a.common.format)))
}
