//! `pledge eval`: parse, call [`crate::ops::eval::eval`], render.

use super::human::eval::{trec_blocks, EvalText};
use super::human::Human;
use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::ops::eval::EvalRequest;
use crate::output::to_json;
use std::path::PathBuf;

crate::named_enum! {
    /// Output formats of `pledge eval`.
    pub enum EvalFormat {
        /// Means per run (and per topic with `-q`), for people.
        Human = "human",
        /// Everything as JSON.
        Json = "json",
        /// The `trec_eval -q` layout (`measure<TAB>topic<TAB>value`, `all` rows), one block per run.
        Trec = "trec",
    }
}

/// Arguments of `pledge eval`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  pledge eval qrels.txt run1.gz run2.gz -m map -m P.10 -m ndcg_cut.10\n  \
pledge eval qrels.txt run.txt --format trec > run.eval   # same layout as trec_eval -q\n  \
pledge eval qrels.txt runs/* --protocol protocol.toml    # adds the pool-bias statement"
)]
pub struct Args {
    /// Qrels file (`qid iter docno rel`, gzip allowed).
    pub qrels: PathBuf,
    /// Run files (`qid Q0 docno rank score tag`, gzip allowed).
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Measure (repeatable): trec_eval names (map, P.10, P, ndcg_cut.10, recall.100, bpref,
    /// all_trec, ...), ir_measures names (nDCG@10, AP, RR@10, R@100, ...) or ranx names
    /// (ndcg@10, mrr, hit_rate@10, ...). Default: trec_eval's default set.
    #[arg(short = 'm', long = "measure", value_name = "M")]
    pub measures: Vec<String>,
    /// As trec_eval -c: a qrels topic that a run lacks is evaluated as an empty ranking (0).
    #[arg(short = 'c', long)]
    pub complete: bool,
    /// As trec_eval -J: drop unjudged documents from each ranking before evaluating.
    #[arg(short = 'J', long)]
    pub judged_only: bool,
    /// As trec_eval -M: use only the first N documents of each ranking.
    #[arg(short = 'M', long = "max-retrieved", value_name = "N")]
    pub max_retrieved: Option<usize>,
    /// As trec_eval -N: number of documents in the collection (utility's 4th coefficient).
    #[arg(short = 'N', long = "num-docs", value_name = "N", default_value_t = 0)]
    pub num_docs: i64,
    /// Rank by the scores in double precision (trec_eval 10.0); default single precision,
    /// as trec_eval ≤ 9.0.8 and pytrec_eval.
    #[arg(long)]
    pub full_precision: bool,
    /// Also print per-topic values in the human format (json and trec always have them).
    #[arg(short = 'q', long = "per-topic")]
    pub per_topic: bool,
    /// Grade at or above which a document is relevant (trec_eval -l).
    #[arg(short = 'l', long = "relevance-level", default_value_t = 1, value_name = "N")]
    pub relevance_level: i32,
    /// Read negative grades as "in the pool but unjudged" (trec_eval's reading; affects the
    /// measures that tell judged from unjudged, e.g. bpref). Default: judged and non-relevant.
    #[arg(long)]
    pub negative_unjudged: bool,
    /// Keep the first of duplicate (topic, docno) lines instead of stopping with an error.
    #[arg(long)]
    pub keep_first_duplicate: bool,
    /// With --protocol: allow pool contributors that are not among the runs given (the
    /// statement says so; no leave-one-run-out figure is computed).
    #[arg(long, requires = "protocol")]
    pub pool_partial: bool,
    /// A protocol whose [pool] and target metric give the pool-bias statement.
    #[arg(long, value_name = "FILE")]
    pub protocol: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = named::<EvalFormat>(), default_value = "human")]
    pub format: EvalFormat,
    /// The limits of what is read.
    #[command(flatten)]
    pub limits: super::inputs::LimitArgs,
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    // `-` reads standard input, for one of the files.
    let dashes = std::iter::once(&a.qrels)
        .chain(&a.runs)
        .filter(|p| crate::input::is_stdin(p))
        .count();
    if dashes > 1 {
        return Err(crate::error::Error::input(
            "`-` (standard input) can be given only once",
        ));
    }
    let limits = a.limits.limits()?;
    let stdin = if dashes == 1 {
        Some(super::inputs::stdin(limits)?)
    } else {
        None
    };
    let keep = |p: &PathBuf| {
        if crate::input::is_stdin(p) {
            p.clone()
        } else {
            resolve(ctx, p)
        }
    };
    let req = EvalRequest {
        stdin,
        qrels: keep(&a.qrels),
        qrels_shown: a.qrels.display().to_string(),
        runs: a.runs.iter().map(keep).collect(),
        measures: a.measures.clone(),
        complete: a.complete,
        relevance_level: a.relevance_level,
        negative_unjudged: a.negative_unjudged,
        keep_first_duplicate: a.keep_first_duplicate,
        judged_only: a.judged_only,
        max_retrieved: a.max_retrieved,
        num_docs: a.num_docs,
        full_precision: a.full_precision,
        pool_partial: a.pool_partial,
        protocol: a.protocol.as_deref().map(|p| resolve(ctx, p)),
        limits,
    };
    let o = crate::ops::eval::eval(&req)?;
    let text = match a.format {
        EvalFormat::Human => EvalText(&o, a.per_topic).human(),
        EvalFormat::Json => to_json(&o),
        EvalFormat::Trec => trec_blocks(&o),
    };
    Ok(Output::ok(text, &o.notes))
}
