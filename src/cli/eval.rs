//! `pledge eval`: per-topic measures of TREC runs against qrels, as trec_eval computes them, and
//! (with `--protocol`) the pool-bias statement.
use super::{resolve, Ctx, Outcome};
use crate::error::exit;
use crate::output::{to_json, Human};
use crate::trec::{self, Duplicates, EvalOptions, Evaluation, Judging, Measure, PoolBias, Qrels, Run};
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
    /// Measure, trec_eval-style (repeatable): map, P.10, P (all cutoffs), ndcg, ndcg_cut.10,
    /// recip_rank, Rprec, num_ret, num_rel, num_rel_ret, rbp, rbp.p=0.95, rbp_resid, judged.10.
    /// Default: all of them.
    #[arg(short = 'm', long = "measure", value_name = "M")]
    pub measures: Vec<String>,
    /// As trec_eval -c: a qrels topic with relevant documents that a run lacks counts as 0.
    #[arg(short = 'c', long)]
    pub complete: bool,
    /// Also print per-topic values in the human format (json and trec always have them).
    #[arg(short = 'q', long = "per-topic")]
    pub per_topic: bool,
    /// Grade at or above which a document is relevant (trec_eval -l).
    #[arg(short = 'l', long = "relevance-level", default_value_t = 1, value_name = "N")]
    pub relevance_level: i32,
    /// Read negative grades as "in the pool but unjudged" (trec_eval's reading; affects
    /// rbp_resid and judged only). Default: judged and non-relevant.
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
    // `-` reads standard input (for one of the files); the qrels and the runs are read in parallel.
    let limits = crate::input::Limits::default();
    if std::iter::once(&a.qrels)
        .chain(&a.runs)
        .filter(|p| crate::input::is_stdin(p))
        .count()
        > 1
    {
        return Err(crate::error::Error::input(
            "`-` (standard input) can be given only once",
        ));
    }
    let (qrels, runs) = rayon::join(
        || Qrels::from_input(&super::inputs::open(ctx, &a.qrels, limits)?, dups),
        || {
            a.runs
                .par_iter()
                .map(|p| Run::from_input(&super::inputs::open(ctx, p, limits)?, dups))
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
