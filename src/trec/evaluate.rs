//! Evaluating runs against qrels: per-topic values and means, as `trec_eval -q [-c] [-J]
//! [-M N] [-N N] [-l N]`.

use super::measures::{Aggregate, Measure, MIN_GEO_MEAN};
use super::qrels::Qrels;
use super::run::Run;
use super::topic::{topic_values, Judging, TopicOptions};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;

/// Options of an evaluation (trec_eval's flags).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    /// Measures, in output order (default: trec_eval's default set, [`Measure::defaults`]).
    pub measures: Vec<Measure>,
    /// trec_eval `-c`: every topic of the qrels that the run lacks is evaluated with an empty
    /// ranking (every measure 0 except `num_rel`) and counts in the mean.
    pub complete: bool,
    /// How grades are read (relevance level `-l`, negative grades).
    pub judging: Judging,
    /// trec_eval `-J`: only judged documents are kept in each ranking.
    pub judged_only: bool,
    /// trec_eval `-M N`: only the first N documents of each ranking are used.
    pub max_retrieved: Option<usize>,
    /// trec_eval `-N N`: documents in the collection (for `utility`'s fourth coefficient).
    pub num_docs_in_coll: i64,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            measures: Measure::defaults(),
            complete: false,
            judging: Judging::default(),
            judged_only: false,
            max_retrieved: None,
            num_docs_in_coll: 0,
        }
    }
}

impl EvalOptions {
    /// The per-topic part of the options.
    pub fn topic_options(&self) -> TopicOptions {
        TopicOptions {
            judging: self.judging,
            judged_only: self.judged_only,
            max_retrieved: self.max_retrieved,
            num_docs_in_coll: self.num_docs_in_coll,
        }
    }
}

/// One topic's values, in the order of [`RunEvaluation::measures`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicRow {
    /// Topic id.
    pub topic: String,
    /// Values, one per (non-string) measure; for `gm_map` / `gm_bpref` the topic's AP / bpref.
    pub values: Vec<f64>,
    /// The `relstring` of the topic, when that measure was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relstring: Option<String>,
}

/// The evaluation of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunEvaluation {
    /// Run tag (6th column).
    pub tag: String,
    /// File the run was read from.
    pub path: String,
    /// Measure names (trec_eval names), the order of every `values` (`relstring`, a string,
    /// is not among them).
    pub measures: Vec<String>,
    /// Evaluated topics in byte order (as trec_eval prints them).
    pub topics: Vec<TopicRow>,
    /// trec_eval's `all` values: a sum for the counts (num_ret, num_rel, num_rel_ret,
    /// num_nonrel_judged_ret), the geometric mean for gm_map / gm_bpref, else the mean over
    /// evaluated topics.
    pub all: Vec<f64>,
    /// Topics in the run but not in the qrels: excluded, as trec_eval does.
    pub not_in_qrels: Vec<String>,
    /// Topics in the qrels that the run lacks: evaluated as 0 with `-c` (as trec_eval -c),
    /// otherwise not evaluated (as trec_eval 9; trec_eval 10 stops with an error).
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
    let topic_opts = opts.topic_options();
    let numeric: Vec<&Measure> = opts.measures.iter().filter(|m| !m.is_string()).collect();
    for (topic, docs) in &run.topics {
        let Some(tq) = qrels.topic(topic) else {
            not_in_qrels.push(topic.clone());
            continue;
        };
        grades.clear();
        grades.extend(docs.iter().map(|d| tq.grades.get(&d.docno).copied()));
        let t = topic_values(&grades, Some(tq), &opts.measures, &topic_opts);
        rows.push(TopicRow {
            topic: topic.clone(),
            values: t.values,
            relstring: t.relstring,
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
        if !run.topics.contains_key(topic) {
            missing_from_run.push(topic.clone());
            if opts.complete {
                // trec_eval -c evaluates a one-document placeholder ranking and then zeroes
                // num_ret, utility, unj, rbp_resid and relstring: the same as an empty ranking
                // with utility 0.
                let mut t = topic_values(&[], Some(tq), &opts.measures, &topic_opts);
                for (m, v) in numeric.iter().zip(t.values.iter_mut()) {
                    if matches!(m, Measure::Utility { .. }) {
                        *v = 0.0;
                    }
                }
                rows.push(TopicRow {
                    topic: topic.clone(),
                    values: t.values,
                    relstring: t.relstring,
                });
            }
        }
    }
    rows.sort_by(|a, b| a.topic.cmp(&b.topic));
    let mut all = all_values(&numeric, &rows);
    if opts.complete {
        // m_num_rel.c: with -c, num_rel's `all` is recounted over every qrels line with a
        // grade > 0, whatever the relevance level.
        let total = qrels
            .topics
            .values()
            .map(|t| t.grades.values().filter(|&&g| g > 0).count())
            .sum::<usize>();
        for (m, v) in numeric.iter().zip(all.iter_mut()) {
            if matches!(m, Measure::NumRel) {
                *v = total as f64;
            }
        }
    }
    Ok(RunEvaluation {
        tag: run.tag.clone(),
        path: run.path.display().to_string(),
        measures: numeric.iter().map(|m| m.name()).collect(),
        topics: rows,
        all,
        not_in_qrels,
        missing_from_run,
        complete: opts.complete,
    })
}

/// trec_eval's `all` row: sums for counts, geometric means for gm_map / gm_bpref, means
/// otherwise (`meas_avg.c`; rows is never empty here).
fn all_values(measures: &[&Measure], rows: &[TopicRow]) -> Vec<f64> {
    let n = rows.len() as f64;
    measures
        .iter()
        .enumerate()
        .map(|(i, m)| match m.aggregate() {
            // fold from +0.0, not sum(): an empty f64 sum is -0.0, printed "-0.0000".
            Aggregate::Sum => rows.iter().fold(0.0, |a, r| a + r.values[i]),
            Aggregate::GeometricMean => {
                let s = rows.iter().fold(0.0, |a, r| a + r.values[i].max(MIN_GEO_MEAN).ln());
                (s / n).exp()
            }
            Aggregate::Mean | Aggregate::None => rows.iter().fold(0.0, |a, r| a + r.values[i]) / n,
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

/// Formats a value as trec_eval prints it: counts as integers, others with 4 decimals
/// (`%6.4f`).
pub fn trec_value(m: &Measure, v: f64) -> String {
    if m.is_count() {
        format!("{}", v.round() as i64)
    } else {
        format!("{:.4}", v)
    }
}

/// The `trec_eval -q` text of one run: per-topic rows (`measure<TAB>topic<TAB>value`, name
/// padded to 22 characters; `relstring` as `'...'`; no per-topic rows for gm_map / gm_bpref),
/// then `runid`, `num_q` and the `all` rows (none for relstring). `measures` is the list the
/// run was evaluated with ([`EvalOptions::measures`]).
pub fn trec_text(ev: &RunEvaluation, measures: &[Measure]) -> String {
    let mut out = String::new();
    for row in &ev.topics {
        let mut values = row.values.iter();
        for m in measures {
            if m.is_string() {
                let s = row.relstring.as_deref().unwrap_or("");
                out.push_str(&format!("{:<22}\t{}\t'{}'\n", m.name(), row.topic, s));
                continue;
            }
            let Some(v) = values.next() else { break };
            if !m.is_summary_only() {
                out.push_str(&format!("{:<22}\t{}\t{}\n", m.name(), row.topic, trec_value(m, *v)));
            }
        }
    }
    out.push_str(&format!("{:<22}\tall\t{}\n", "runid", ev.tag));
    out.push_str(&format!("{:<22}\tall\t{}\n", "num_q", ev.topics.len()));
    for (m, v) in measures.iter().filter(|m| !m.is_string()).zip(&ev.all) {
        out.push_str(&format!("{:<22}\tall\t{}\n", m.name(), trec_value(m, *v)));
    }
    out
}
