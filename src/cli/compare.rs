//! `pledge compare`: the methods of analyze on score files with flags instead of a protocol,
//! without a ledger.

use super::analyze::{read_options, ScoreArgs};
use super::human::{render, render_analysis};
use super::values::named;
use super::{Ctx, Outcome, Output};
use crate::error::{Error, Result};
use crate::ops::analyze::CompareRequest;
use crate::ops::estimate::EstimateRequest;
use crate::protocol::{Adjust, Direction, MissingTopics, Percentile, Scale};
use crate::stats::estimator::{Combination, EstimatorKind, Spec, Statistic};
use crate::stats::margin::HypothesisKind;
use crate::stats::settings::{EveryComparison, RunOptions, Settings, TrecInputs};
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
    /// Scale of the values: fraction (0-1), points (0-100), or unbounded (a cost, a latency: the
    /// values' own unit; no value is called a fraction).
    #[arg(long, value_parser = named::<Scale>(), default_value = "fraction")]
    pub scale: Scale,
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
    /// File holding the strata column (needs --strata-field, the column to stratify by).
    #[arg(long, value_name = "FILE", requires = "strata_field")]
    pub strata: Option<PathBuf>,
    /// Test every comparison `system − baseline` for this claim and give each a verdict
    /// (supported, not supported, inconclusive): superiority, non-inferiority,
    /// superiority-by-margin or equivalence (the last three with --margin).
    #[arg(long, value_parser = named::<HypothesisKind>())]
    pub kind: Option<HypothesisKind>,
    /// The margin M > 0 of --kind non-inferiority, superiority-by-margin or equivalence, in the
    /// scores' unit.
    #[arg(long, value_name = "M", requires = "kind")]
    pub margin: Option<f64>,
    /// Lower values are better (a cost, a latency, an error rate): rank 1 is the lowest in the
    /// ranking table, rank intervals and P(rank 1), and --kind's default --direction is less.
    #[arg(long)]
    pub lower_is_better: bool,
    /// Which way is better for --kind: greater (default; less with --lower-is-better) or less
    /// (e.g. cost, latency).
    #[arg(long, value_parser = named::<Direction>(), requires = "kind")]
    pub direction: Option<Direction>,
    /// Sides of a superiority test (1: in --direction; 2: either way).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2), requires = "kind")]
    pub sides: Option<u8>,
    /// The smallest difference that matters (superiority; beyond the margin for
    /// superiority-by-margin): a verdict is inconclusive when the interval holds both it and no
    /// difference. Also the target of the achieved MDE.
    #[arg(long, value_name = "D")]
    pub mde: Option<f64>,
    /// Significance level of --kind's tests.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Estimator of each system's score: mean (of the per-topic values, with every method
    /// above), ratio (Σ --numerator / Σ --denominator over the topics, e.g. micro-F1), corpus-bleu
    /// (sacrebleu's corpus BLEU from per-sentence columns sys_len, ref_len, correct_1..4,
    /// total_1..4) or quantile (--quantile Q of the per-topic values, e.g. a median latency). The
    /// last three give each system's estimate and the paired differences with bootstrap
    /// percentile intervals, recomputing the estimator on every resample.
    #[arg(long, value_parser = named::<EstimatorKind>(), default_value = "mean")]
    pub estimator: EstimatorKind,
    /// The ratio's numerator per topic: columns joined by +, each optionally weighted
    /// (`2*tp`); read from one file per system, as --column reads.
    #[arg(long, value_name = "TERMS")]
    pub numerator: Option<String>,
    /// The ratio's denominator per topic, as --numerator (micro-F1: `2*tp+fp+fn`).
    #[arg(long, value_name = "TERMS")]
    pub denominator: Option<String>,
    /// The quantile of --estimator quantile, in (0, 1): 0.5 is the median, 0.9 the P90; its
    /// definition is --percentile (default linear, Hyndman & Fan type 7, numpy's default).
    #[arg(long, value_name = "Q")]
    pub quantile: Option<f64>,
}

/// The statistic of --estimator ratio, corpus-bleu or quantile (`None` for the mean).
///
/// Errors (exit 2): a ratio without --numerator and --denominator or with bad terms, a quantile
/// without --quantile, an option that does not apply to the estimator.
fn statistic(a: &CompareArgs) -> Result<Option<Statistic>> {
    let doesnt = |what: &str| {
        Err(Error::input(format!(
            "{} does not apply to --estimator {}",
            what, a.estimator
        )))
    };
    if a.estimator != EstimatorKind::Ratio && (a.numerator.is_some() || a.denominator.is_some()) {
        return doesnt("--numerator/--denominator");
    }
    if a.estimator != EstimatorKind::Quantile && a.quantile.is_some() {
        return doesnt("--quantile");
    }
    if a.estimator != EstimatorKind::Mean {
        if a.kind.is_some() || a.mde.is_some() {
            return doesnt("--kind/--mde");
        }
        if a.strata_field.is_some() {
            return doesnt("--strata-field");
        }
    }
    let terms = |t: &Option<String>, flag: &str| -> Result<Combination> {
        let t = t.as_deref().ok_or_else(|| {
            Error::input(format!("--estimator ratio needs {} TERMS", flag))
                .with_hint("micro-F1: --numerator 2*tp --denominator 2*tp+fp+fn")
        })?;
        Combination::parse(t).map_err(|m| Error::input(format!("{}: {}", flag, m)))
    };
    Ok(match a.estimator {
        EstimatorKind::Mean => None,
        EstimatorKind::Ratio => Some(Statistic::Ratio {
            numerator: terms(&a.numerator, "--numerator")?,
            denominator: terms(&a.denominator, "--denominator")?,
        }),
        EstimatorKind::CorpusBleu => Some(Statistic::CorpusBleu),
        EstimatorKind::Quantile => Some(Statistic::Quantile {
            q: a.quantile
                .ok_or_else(|| Error::input("--estimator quantile needs --quantile Q (0.5 for the median)"))?,
            method: a.percentile,
        }),
    })
}

/// The inputs a comparison reads, as the options name them (paths shown as given), with `read`
/// and the TREC inputs `trec` (qrels and runs evaluated, or `None` for score files).
fn run_options(a: &CompareArgs, read: crate::scores::ReadOptions, trec: Option<TrecInputs>) -> RunOptions {
    let show = |p: &PathBuf| p.to_string_lossy().into_owned();
    RunOptions {
        scores: a.common.scores.iter().map(show).collect(),
        components: a.common.components.as_ref().map(show),
        strata: a.strata.as_ref().map(show),
        read,
        baseline: a.common.baseline.clone(),
        split: a.common.split.clone(),
        trec,
        overrides: Default::default(),
    }
}

/// `compare` with --estimator ratio, corpus-bleu or quantile.
fn compare_estimate(a: &CompareArgs, stat: Statistic, read: crate::scores::ReadOptions, ctx: &Ctx) -> Outcome {
    let req = EstimateRequest {
        root: ctx.cwd.clone(),
        statistic: stat,
        kind: a.estimator,
        spec: Spec {
            seed: a.seed,
            trials: a.trials as usize,
            level: a.level,
            percentile: a.percentile,
        },
        scale: a.scale,
        options: run_options(a, read, None),
    };
    let o = crate::ops::estimate::compare(&req)?;
    Ok(Output::ok(render(&o, a.common.format), &o.notes))
}

/// The hypothesis `compare` tests on every comparison, from --kind, --margin, --direction,
/// --sides (and --mde).
///
/// Errors (exit 2): a margin for superiority or none for a margin kind, a direction or sides
/// that do not apply, a margin, α or --mde out of range.
fn every_comparison(a: &CompareArgs, s: &mut Settings) -> Result<()> {
    if !(a.alpha > 0.0 && a.alpha < 0.5) {
        return Err(Error::input(format!("--alpha must be in (0, 0.5), got {}", a.alpha)));
    }
    s.alpha = a.alpha;
    if let Some(d) = a.mde {
        if !(d.is_finite() && d > 0.0) {
            return Err(Error::input(format!("--mde must be a positive difference, got {}", d)));
        }
        s.target_mde = Some(d);
    }
    let Some(kind) = a.kind else { return Ok(()) };
    let doesnt = |what: &str| Err(Error::input(format!("{} does not apply to --kind {}", what, kind)));
    match (kind.has_margin(), a.margin) {
        (false, Some(_)) => return doesnt("--margin"),
        (true, None) => return Err(Error::input(format!("--kind {} needs --margin M", kind))),
        (true, Some(m)) if !(m.is_finite() && m > 0.0) => {
            return Err(Error::input(format!("--margin must be a positive number, got {}", m)))
        }
        _ => {}
    }
    if kind == HypothesisKind::Equivalence && a.direction.is_some() {
        return doesnt("--direction (equivalence is within ±margin)");
    }
    if kind.has_margin() && a.sides.is_some() {
        return doesnt("--sides (margin hypotheses are one-sided tests at --alpha)");
    }
    if let Some(k) = a.sides {
        s.sides = k;
    }
    s.every_comparison = Some(EveryComparison {
        kind,
        margin: a.margin,
        direction: (kind != HypothesisKind::Equivalence).then(|| {
            a.direction.unwrap_or(if a.lower_is_better {
                Direction::Less
            } else {
                Direction::Greater
            })
        }),
    });
    Ok(())
}

pub fn compare(mut a: CompareArgs, ctx: &Ctx) -> Outcome {
    let family = super::analyze::further_metrics(&a.common)?;
    let read = read_options(&mut a.common, ctx)?;
    if let Some(stat) = statistic(&a)? {
        if !family.is_empty() {
            return Err(Error::input(format!(
                "several --measure or --column do not apply to --estimator {}",
                a.estimator
            )));
        }
        if a.common.qrels.is_some() {
            return Err(
                Error::input(format!("--qrels does not apply to --estimator {}", a.estimator))
                    .with_hint("these estimators read per-topic columns from score files (--scores)"),
            );
        }
        return compare_estimate(&a, stat, read, ctx);
    }
    let mut s = Settings::compare_defaults();
    s.seed = a.seed;
    s.trials = a.trials;
    s.randomization_trials = a.randomization_trials;
    s.interval_level = a.level;
    s.scale = a.scale;
    s.percentile = a.percentile;
    s.missing_topics = a.missing_topics;
    s.adjust = a.adjust;
    s.baseline = a.common.baseline.clone();
    s.lower_is_better = a.lower_is_better;
    every_comparison(&a, &mut s)?;
    let measure = a.common.measure.first().cloned().unwrap_or_else(|| "map".into());
    if a.common.qrels.is_some() {
        s.metric = measure.clone();
    } else if let Some(m) = a.common.measure.first().or(a.common.column.first()) {
        s.metric = m.clone();
    }
    let show = |p: &PathBuf| p.to_string_lossy().into_owned();
    let req = CompareRequest {
        root: ctx.cwd.clone(),
        settings: s,
        options: run_options(
            &a,
            read,
            a.common.qrels.as_ref().map(|q| TrecInputs {
                qrels: show(q),
                runs: a.common.run.iter().map(show).collect(),
                measure,
                complete: a.missing_topics == MissingTopics::Zero,
                pool_runs: vec![],
                pool_partial: true,
            }),
        ),
        strata_field: a.strata_field.clone(),
        family,
    };
    let o = crate::ops::analyze::compare(&req)?;
    Ok(Output::ok(render_analysis(&o.result, a.common.format), &o.notes))
}
