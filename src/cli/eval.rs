//! `pledge eval`: per-topic measures of TREC runs against qrels, as trec_eval computes them, and
//! (with `--protocol`) the pool-bias statement.
use super::{resolve, Ctx, Outcome};
use crate::error::exit;
use crate::output::{to_json, Human};
use crate::trec::{self, Duplicates, EvalOptions, Evaluation, Judging, Measure, PoolBias, Qrels, Run, ScorePrecision};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

/// Output formats of `pledge eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum EvalFormat {
    /// Means per run (and per topic with `-q`), for people.
    #[default]
    Human,
    /// Everything as JSON.
    Json,
    /// The `trec_eval -q` layout (`measure<TAB>topic<TAB>value`, `all` rows), one block per run.
    Trec,
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
    /// A protocol whose [pool] and target metric give the pool-bias statement.
    #[arg(long, value_name = "FILE")]
    pub protocol: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = EvalFormat::Human)]
    pub format: EvalFormat,
}

/// What `pledge eval` returns.
#[derive(Debug, Serialize)]
struct EvalOutput {
    #[serde(flatten)]
    evaluation: Evaluation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pool_bias: Option<PoolBias>,
    #[serde(skip)]
    per_topic: bool,
}

impl Human for EvalOutput {
    fn human(&self) -> String {
        let mut s = String::new();
        for r in &self.evaluation.runs {
            s.push_str(&format!(
                "run {} ({}): {} topics evaluated\n",
                r.tag,
                r.path,
                r.topics.len()
            ));
            if !r.not_in_qrels.is_empty() {
                s.push_str(&format!("  excluded, not in the qrels: {}\n", r.not_in_qrels.join(" ")));
            }
            if !r.missing_from_run.is_empty() {
                let how = if r.complete {
                    "counted as 0 (-c)"
                } else {
                    "not evaluated"
                };
                s.push_str(&format!(
                    "  qrels topics missing from the run, {}: {}\n",
                    how,
                    r.missing_from_run.join(" ")
                ));
            }
            if self.per_topic {
                s.push_str(&format!("  {:<10}", "topic"));
                for m in &r.measures {
                    s.push_str(&format!(" {:>12}", m));
                }
                s.push('\n');
                for t in &r.topics {
                    s.push_str(&format!("  {:<10}", t.topic));
                    for v in &t.values {
                        s.push_str(&format!(" {:>12.4}", v));
                    }
                    s.push('\n');
                }
            }
            for (m, v) in r.measures.iter().zip(&r.all) {
                s.push_str(&format!("  {:<16} {:.4}\n", m, v));
            }
        }
        if let Some(p) = &self.pool_bias {
            s.push_str(&format!("pool bias ({}):\n  {}\n", p.metric, p.statement));
            for r in &p.runs {
                s.push_str(&format!("  - {}\n", r.statement));
            }
        }
        s
    }
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let measures = trec::parse_all(&a.measures)?;
    let dups = if a.keep_first_duplicate {
        Duplicates::KeepFirst
    } else {
        Duplicates::Error
    };
    let precision = if a.full_precision {
        ScorePrecision::Double
    } else {
        ScorePrecision::Single
    };
    let qrels_path = resolve(ctx, &a.qrels);
    // The qrels and the runs are read in parallel.
    let (qrels, runs) = rayon::join(
        || Qrels::read(&qrels_path, dups),
        || {
            a.runs
                .par_iter()
                .map(|p| Run::read_with(&resolve(ctx, p), dups, precision))
                .collect::<crate::Result<Vec<Run>>>()
        },
    );
    let (qrels, runs) = (qrels?, runs?);
    let opts = EvalOptions {
        measures: measures.clone(),
        complete: a.complete,
        judging: Judging {
            relevance_level: a.relevance_level,
            negative_unjudged: a.negative_unjudged,
        },
        judged_only: a.judged_only,
        max_retrieved: a.max_retrieved,
        num_docs_in_coll: a.num_docs,
    };
    let evaluation = trec::evaluate(&qrels, &a.qrels.display().to_string(), &runs, &opts)?;
    for r in &evaluation.runs {
        if !r.not_in_qrels.is_empty() {
            let shown: Vec<&str> = r.not_in_qrels.iter().take(20).map(String::as_str).collect();
            let more = if r.not_in_qrels.len() > 20 { " ..." } else { "" };
            eprintln!(
                "note: run {}: {} topic(s) not in the qrels were excluded: {}{}",
                r.tag,
                r.not_in_qrels.len(),
                shown.join(" "),
                more
            );
        }
    }
    let pool_bias = match &a.protocol {
        Some(p) => {
            let (protocol, _) = crate::protocol::load(&resolve(ctx, p))?;
            Some(trec::pool_bias(&qrels, &runs, &protocol.pool, &protocol.target.metric)?)
        }
        None => None,
    };
    let out = EvalOutput {
        evaluation,
        pool_bias,
        per_topic: a.per_topic,
    };
    let text = match a.format {
        EvalFormat::Human => out.human(),
        EvalFormat::Json => to_json(&out),
        EvalFormat::Trec => trec_blocks(&out.evaluation, &measures),
    };
    Ok((exit::OK, text))
}

fn trec_blocks(ev: &Evaluation, measures: &[Measure]) -> String {
    ev.runs.iter().map(|r| trec::trec_text(r, measures)).collect()
}
