//! `pledge trace`: the registered repair-trace test ([`crate::ops::trace`]).

use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::ops::trace::{TraceOptions, TraceOutcome};
use crate::output::{to_json, Format};
use std::path::PathBuf;

/// Arguments of `pledge trace`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The protocol file: its [repair-trace] table and analysis.seed (it must be the registered
    /// version in force).
    pub protocol: PathBuf,
    /// The original passages (e.g. the contaminated distractors a repair replaced): JSON Lines
    /// {id, text, ...}, or any passages layout `components` reads.
    #[arg(long, value_name = "FILE")]
    pub original: PathBuf,
    /// The replacement passages (the positive class), in the same layouts.
    #[arg(long, value_name = "FILE")]
    pub replacement: PathBuf,
    /// Run the test without touching the ledger.
    #[arg(long)]
    pub dry_run: bool,
    /// Write the features, folds and out-of-fold scores as JSON Lines (for an outside check of
    /// the classifier).
    #[arg(long, value_name = "FILE", hide = true)]
    pub export_design: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let ledger = if a.dry_run { None } else { Some(open_ledger(ctx)?) };
    let o = TraceOptions {
        protocol: resolve(ctx, &a.protocol),
        original: resolve(ctx, &a.original),
        replacement: resolve(ctx, &a.replacement),
        dry_run: a.dry_run,
        export_design: a.export_design.as_deref().map(|p| resolve(ctx, p)),
    };
    let out = crate::ops::trace::run(ledger.as_ref(), &o, ctx.now)?;
    let text = match a.format {
        Format::Json => to_json(&out),
        Format::Human => human(&out),
    };
    Ok(Output::ok(text, &vec![]))
}

/// The human text: the verdict first, then the AUC, its interval and the method.
fn human(o: &TraceOutcome) -> String {
    let t = &o.trace;
    let r = &t.result;
    let m = &t.method;
    let entry = match o.ledger_entry {
        Some(seq) => format!("recorded as entry #{}", seq),
        None => "dry run: nothing recorded".into(),
    };
    format!(
        "study {}: {}\n  AUC {:.3}, {:.0}% DeLong interval [{:.3}, {:.3}]; registered threshold {} (no detectable trace when the upper bound is below it)\n  {} original vs {} replacement passages; character {}-grams ({} features), L2 logistic regression C = {}, {}-fold stratified cross-validation (seed {})\n  {}\n",
        o.study,
        r.verdict.words(),
        r.auc,
        r.confidence * 100.0,
        r.lower,
        r.upper,
        r.threshold,
        t.originals,
        t.replacements,
        m.ngram_size,
        t.features,
        m.regularization_c,
        m.folds,
        t.seed,
        entry
    )
}
