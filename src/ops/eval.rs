//! `pledge eval`: per-topic measures of TREC runs against qrels, as trec_eval computes them, and
//! (with a protocol) the pool-bias statement.

use super::{Note, Notes};
use crate::error::Result;
use crate::trec::{self, Duplicates, EvalOptions, Evaluation, Judging, Measure, PoolBias, Qrels, Run, ScorePrecision};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

/// What `pledge eval` is asked. Paths are absolute.
#[derive(Debug, Clone)]
pub struct EvalRequest {
    /// Qrels file.
    pub qrels: PathBuf,
    /// The qrels path as the user gave it (shown in the output).
    pub qrels_shown: String,
    /// Run files.
    pub runs: Vec<PathBuf>,
    /// Measures, trec_eval-style names (empty: all).
    pub measures: Vec<String>,
    /// trec_eval -c.
    pub complete: bool,
    /// Relevance level (trec_eval -l).
    pub relevance_level: i32,
    /// Negative grades are "in the pool but unjudged".
    pub negative_unjudged: bool,
    /// Keep the first of duplicate (topic, docno) lines instead of an error.
    pub keep_first_duplicate: bool,
    /// trec_eval -J: only judged documents are ranked.
    pub judged_only: bool,
    /// trec_eval -M: the first N documents of each ranking.
    pub max_retrieved: Option<usize>,
    /// trec_eval -N: documents in the collection.
    pub num_docs: i64,
    /// Rank by double-precision scores (trec_eval 10.0) instead of single precision.
    pub full_precision: bool,
    /// Contributors of the protocol may be missing from the runs given.
    pub pool_partial: bool,
    /// A protocol whose `[pool]` and target metric give the pool-bias statement.
    pub protocol: Option<PathBuf>,
    /// What standard input held, for the one file named `-` (read by the caller).
    pub stdin: Option<crate::input::Input>,
    /// The limits the qrels and runs are read under.
    pub limits: crate::input::Limits,
}

/// What `pledge eval` returns.
#[derive(Debug, Serialize)]
pub struct EvalOutcome {
    /// Per run: per-topic values and means.
    #[serde(flatten)]
    pub evaluation: Evaluation,
    /// The pool-bias statement, with a protocol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_bias: Option<PoolBias>,
    /// The measures, parsed.
    #[serde(skip)]
    pub measures: Vec<Measure>,
    /// Notes for people.
    #[serde(skip)]
    pub notes: Notes,
}

/// Runs `pledge eval`.
///
/// Errors (exit 2): unreadable or malformed qrels or runs (file and line named), an unknown
/// measure, a run with no topic in common with the qrels.
pub fn eval(a: &EvalRequest) -> Result<EvalOutcome> {
    let measures = trec::parse_all(&a.measures)?;
    let dups = if a.keep_first_duplicate {
        Duplicates::KeepFirst
    } else {
        Duplicates::Error
    };
    let limits = a.limits;
    let open = |p: &std::path::Path| -> Result<crate::input::Input> {
        match (&a.stdin, crate::input::is_stdin(p)) {
            (Some(i), true) => Ok(i.clone()),
            _ => crate::input::Input::from_path(p, limits),
        }
    };
    // The qrels and the runs are read in parallel.
    let (qrels, runs) = rayon::join(
        || Qrels::from_input(&open(&a.qrels)?, dups),
        || {
            let precision = if a.full_precision {
                ScorePrecision::Double
            } else {
                ScorePrecision::Single
            };
            a.runs
                .par_iter()
                .map(|p| Run::from_input_with(&open(p)?, dups, precision))
                .collect::<Result<Vec<Run>>>()
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
    let evaluation = trec::evaluate(&qrels, &a.qrels_shown, &runs, &opts)?;
    let mut notes = Notes::new();
    for r in &evaluation.runs {
        if !r.not_in_qrels.is_empty() {
            let shown: Vec<&str> = r.not_in_qrels.iter().take(20).map(String::as_str).collect();
            let more = if r.not_in_qrels.len() > 20 { " ..." } else { "" };
            notes.push(Note::info(format!(
                "run {}: {} topic(s) not in the qrels were excluded: {}{}",
                r.tag,
                r.not_in_qrels.len(),
                shown.join(" "),
                more
            )));
        }
    }
    let pool_bias = match &a.protocol {
        Some(p) => {
            let (protocol, _) = crate::protocol::load(p)?;
            Some(trec::pool_bias(
                &qrels,
                &runs,
                &protocol.pool,
                &protocol.target.metric,
                a.pool_partial,
            )?)
        }
        None => None,
    };
    Ok(EvalOutcome {
        evaluation,
        pool_bias,
        measures,
        notes,
    })
}
