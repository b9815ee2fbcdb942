//! Evaluating runs against qrels: per-topic values and means, as `trec_eval -q [-c]`.

use super::measures::Measure;
use super::qrels::Qrels;
use super::run::Run;
use super::topic::{topic_values, Judging};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;

/// Options of an evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    /// Measures, in output order.
    pub measures: Vec<Measure>,
    /// trec_eval `-c`: topics of the qrels with at least one relevant document that the run
    /// lacks are evaluated with an empty ranking (every measure 0) and count in the mean.
    pub complete: bool,
    /// How grades are read (relevance level, negative grades).
    pub judging: Judging,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            measures: Measure::defaults(),
            complete: false,
            judging: Judging::default(),
        }
    }
}

/// One topic's values, in the order of [`RunEvaluation::measures`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicRow {
    /// Topic id.
    pub topic: String,
    /// Values, one per measure.
    pub values: Vec<f64>,
}

/// The evaluation of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunEvaluation {
    /// Run tag (6th column).
    pub tag: String,
    /// File the run was read from.
    pub path: String,
    /// Measure names (trec_eval names), the order of every `values`.
    pub measures: Vec<String>,
    /// Evaluated topics in byte order (as trec_eval prints them).
    pub topics: Vec<TopicRow>,
    /// trec_eval's `all` values: a sum for num_ret / num_rel / num_rel_ret, else the mean over
    /// evaluated topics.
    pub all: Vec<f64>,
    /// Topics in the run but not in the qrels: excluded, as trec_eval does.
    pub not_in_qrels: Vec<String>,
    /// Topics in the qrels with relevant documents that the run lacks: evaluated as 0 with `-c`,
    /// otherwise not evaluated.
    pub missing_from_run: Vec<String>,
    /// Whether `-c` zeros were used.
    pub complete: bool,
}

impl RunEvaluation {
    /// Index of a measure by its trec_eval name.
    pub fn measure_index(&self, name: &str) -> Option<usize> {
        self.measures.iter().position(|m| m == name)
    }
}

/// The evaluation of several runs against one qrels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// The qrels file.
    pub qrels: String,
    /// One entry per run, in the order given.
    pub runs: Vec<RunEvaluation>,
}

/// Evaluates one run.
///
/// Errors (exit 2): the run has no topic in common with the qrels (named in the message).
pub fn evaluate_run(qrels: &Qrels, run: &Run, opts: &EvalOptions) -> Result<RunEvaluation> {
    let mut rows = Vec::new();
    let mut not_in_qrels = Vec::new();
    let mut grades: Vec<Option<i32>> = Vec::new();
    for (topic, docs) in &run.topics {
        let Some(tq) = qrels.topic(topic) else {
            not_in_qrels.push(topic.clone());
            continue;
        };
        grades.clear();
        grades.extend(docs.iter().map(|d| tq.grades.get(&d.docno).copied()));
        rows.push(TopicRow {
            topic: topic.clone(),
            values: topic_values(&grades, Some(tq), &opts.measures, opts.judging),
        });
    }
    if rows.is_empty() {
        return Err(Error::input(format!(
            "run `{}` ({}) has no topic in common with the qrels",
            run.tag,
            run.path.display()
        ))
        .with_hint("check that the run and the qrels belong to the same collection and topic set"));
    }
    let mut missing_from_run = Vec::new();
    for (topic, tq) in &qrels.topics {
        if !run.topics.contains_key(topic) && tq.num_rel(opts.judging.relevance_level) > 0 {
            missing_from_run.push(topic.clone());
            if opts.complete {
                rows.push(TopicRow {
                    topic: topic.clone(),
                    values: topic_values(&[], Some(tq), &opts.measures, opts.judging),
                });
            }
        }
    }
    rows.sort_by(|a, b| a.topic.cmp(&b.topic));
    let all = all_values(&opts.measures, &rows);
    Ok(RunEvaluation {
        tag: run.tag.clone(),
        path: run.path.display().to_string(),
        measures: opts.measures.iter().map(Measure::name).collect(),
        topics: rows,
        all,
        not_in_qrels,
        missing_from_run,
        complete: opts.complete,
    })
}

/// trec_eval's `all` row: sums for counts, means otherwise (rows is never empty here).
fn all_values(measures: &[Measure], rows: &[TopicRow]) -> Vec<f64> {
    measures
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let sum: f64 = rows.iter().map(|r| r.values[i]).sum();
            if m.is_count() {
                sum
            } else {
                sum / rows.len() as f64
            }
        })
        .collect()
}

/// Evaluates several runs (in parallel) against one qrels.
///
/// Errors: as [`evaluate_run`], for the first failing run in the given order.
pub fn evaluate(qrels: &Qrels, qrels_path: &str, runs: &[Run], opts: &EvalOptions) -> Result<Evaluation> {
    let runs = runs
        .par_iter()
        .map(|r| evaluate_run(qrels, r, opts))
        .collect::<Result<Vec<_>>>()?;
    Ok(Evaluation {
        qrels: qrels_path.to_string(),
        runs,
    })
}

/// Formats a value as trec_eval prints it: counts as integers, others with 4 decimals.
pub fn trec_value(m: &Measure, v: f64) -> String {
    if m.is_count() {
        format!("{}", v.round() as i64)
    } else {
        format!("{:.4}", v)
    }
}

/// The `trec_eval -q` text of one run: per-topic rows (`measure<TAB>topic<TAB>value`, name
/// padded to 22 characters), then `runid`, `num_q` and the `all` rows.
pub fn trec_text(ev: &RunEvaluation, measures: &[Measure]) -> String {
    let mut out = String::new();
    for row in &ev.topics {
        for (m, v) in measures.iter().zip(&row.values) {
            out.push_str(&format!("{:<22}\t{}\t{}\n", m.name(), row.topic, trec_value(m, *v)));
        }
    }
    out.push_str(&format!("{:<22}\tall\t{}\n", "runid", ev.tag));
    out.push_str(&format!("{:<22}\tall\t{}\n", "num_q", ev.topics.len()));
    for (m, v) in measures.iter().zip(&ev.all) {
        out.push_str(&format!("{:<22}\tall\t{}\n", m.name(), trec_value(m, *v)));
    }
    out
}
