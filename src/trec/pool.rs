//! Pool bias: whether each run contributed to the judgment pool, how much of its top k was
//! judged, and the leave-one-run-out check of Zobel (1998, "How reliable are the results of
//! large-scale information retrieval experiments?", SIGIR).

use super::evaluate::{evaluate_run, EvalOptions};
use super::measures::{resolve_per_topic, Measure};
use super::qrels::Qrels;
use super::run::Run;
use crate::error::{Error, Result};
use crate::protocol::Pool;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The leave-one-run-out check of one contributing run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaveOneOut {
    /// Pool depth used: documents per run per topic that were judged.
    pub depth: u32,
    /// Judged documents (over all topics) that only this run put in the pool: in its top
    /// `depth` and in no other contributing run's top `depth`.
    pub unique_judged: usize,
    /// Of these, how many are relevant.
    pub unique_relevant: usize,
    /// The run's mean of the metric with those documents removed from the qrels.
    pub mean_without: f64,
    /// `mean_without − mean` (negative: the run gained from its own contribution), in the
    /// metric's scale (fraction).
    pub change: f64,
}

/// The pool-bias figures of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPoolBias {
    /// Run tag.
    pub tag: String,
    /// Whether the tag is among `pool.contributors`.
    pub contributor: bool,
    /// Topics evaluated (run ∩ qrels).
    pub topics: usize,
    /// Mean over topics of judged@k (judged among the top k, divided by k), fraction.
    pub judged_at_k: f64,
    /// Mean over topics of the share of the top k that was retrieved but unjudged, and so
    /// counted as non-relevant by the metric (divided by k), fraction.
    pub unjudged_at_k: f64,
    /// The run's mean of the metric.
    pub mean: f64,
    /// Leave-one-run-out check, for a contributing run when the pool depth is known.
    pub leave_one_out: Option<LeaveOneOut>,
    /// The run's figures in one sentence.
    pub statement: String,
}

/// The pool-bias result for a set of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolBias {
    /// The metric (trec_eval name), e.g. `map`.
    pub metric: String,
    /// k of judged@k.
    pub judged_k: u32,
    /// Pool depth, if the protocol gives it.
    pub depth: Option<u32>,
    /// Per run, in the order given.
    pub runs: Vec<RunPoolBias>,
    /// The whole finding in words, for the report.
    pub statement: String,
    /// Contributor tags of the protocol that name no supplied run (only with a partial pool:
    /// then no leave-one-run-out figure is computed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_contributors: Vec<String>,
}

/// Pool bias of `runs` against `qrels` under the protocol's `[pool]`, for `metric` (one
/// measure name as [`resolve`](super::resolve) reads it, such as `map`, `P.10`, `nDCG@10`).
///
/// Leave-one-run-out (Zobel 1998): for a contributing run, the documents in its top
/// `pool.depth` that no *other contributing* given run has in its top `pool.depth` are removed
/// from the qrels (a non-contributing run could not have put a document in the pool), and the
/// run is evaluated again. Skipped when `pool.depth` is not set.
///
/// Every contributor the protocol names must be among `runs` (the runs compared and those
/// supplied for the pool only): the leave-one-run-out figure computed from part of the pool would
/// be computed from the wrong pool. With `partial`, missing contributors are allowed, listed in
/// the statement and in `missing_contributors`, and no leave-one-run-out figure is computed.
///
/// Errors (exit 2): a metric [`resolve_per_topic`](super::measures::resolve_per_topic)
/// refuses; a run with no topic in common with the qrels; a contributor tag that names no
/// supplied run (without `partial`), naming the tag.
pub fn pool_bias(qrels: &Qrels, runs: &[Run], pool: &Pool, metric: &str, partial: bool) -> Result<PoolBias> {
    let m = resolve_per_topic(metric)?;
    let missing: Vec<String> = pool
        .contributors
        .iter()
        .filter(|c| !runs.iter().any(|r| &r.tag == *c))
        .cloned()
        .collect();
    if !missing.is_empty() && !partial {
        let tags: Vec<&str> = runs.iter().map(|r| r.tag.as_str()).collect();
        return Err(Error::input(format!(
            "pool.contributors names {} run(s) that were not supplied: {}",
            missing.len(),
            missing.join(", ")
        ))
        .with_hint(format!(
            "supply each contributor's run (analyze: --pool-run FILE, read for the pool only), fix the tag (runs supplied: {}), or accept a partial pool with --pool-partial (then no leave-one-run-out figure is computed)",
            tags.join(", ")
        )));
    }
    let pool_complete = missing.is_empty();
    let k = pool.judged_k.max(1);
    let opts = EvalOptions {
        measures: vec![m.clone(), Measure::Judged(k)],
        ..EvalOptions::default()
    };
    let name = m.name();
    let contributes = |r: &Run| pool.contributors.iter().any(|c| c == &r.tag);
    let mut out = Vec::new();
    for (ri, run) in runs.iter().enumerate() {
        let ev = evaluate_run(qrels, run, &opts)?;
        let n = ev.topics.len() as f64;
        let mean = ev.all[0];
        let judged = ev.all[1];
        let retrieved: f64 = ev
            .topics
            .iter()
            .map(|t| run.topics.get(&t.topic).map_or(0, |d| d.len().min(k as usize)) as f64 / k as f64)
            .sum::<f64>()
            / n;
        let unjudged = (retrieved - judged).max(0.0);
        let contributor = contributes(run);
        let loo = match (contributor, pool.depth) {
            (true, Some(depth)) if pool_complete => {
                let others: Vec<&Run> = runs
                    .iter()
                    .enumerate()
                    .filter(|(i, r)| *i != ri && contributes(r))
                    .map(|(_, r)| r)
                    .collect();
                Some(leave_one_out(qrels, run, &others, depth, &opts, mean)?)
            }
            _ => None,
        };
        let statement = run_statement(
            &run.tag,
            (!pool.contributors.is_empty()).then_some(contributor),
            pool.depth,
            k,
            ev.topics.len(),
            judged,
            unjudged,
            &name,
            mean,
            loo.as_ref(),
        );
        out.push(RunPoolBias {
            tag: run.tag.clone(),
            contributor,
            topics: ev.topics.len(),
            judged_at_k: judged,
            unjudged_at_k: unjudged,
            mean,
            leave_one_out: loo,
            statement,
        });
    }
    let mut statement = summary(&out, pool, k, &name);
    if !pool_complete {
        statement.push_str(&format!(
            " The pool is incomplete: {} of the {} contributing runs were not supplied ({}), so no leave-one-run-out figure is computed (it would come from the wrong pool).",
            missing.len(),
            pool.contributors.len(),
            missing.join(", ")
        ));
    }
    Ok(PoolBias {
        metric: name,
        judged_k: k,
        depth: pool.depth,
        runs: out,
        statement,
        missing_contributors: missing,
    })
}

fn leave_one_out(
    qrels: &Qrels,
    run: &Run,
    others: &[&Run],
    depth: u32,
    opts: &EvalOptions,
    mean: f64,
) -> Result<LeaveOneOut> {
    let d = depth as usize;
    let mut reduced = qrels.clone();
    let (mut unique_judged, mut unique_relevant) = (0usize, 0usize);
    for (topic, docs) in &run.topics {
        let Some(tq) = reduced.topics.get_mut(topic) else {
            continue;
        };
        let pooled_by_others: HashSet<&str> = others
            .iter()
            .filter_map(|o| o.topics.get(topic))
            .flat_map(|ds| ds.iter().take(d).map(|x| x.docno.as_str()))
            .collect();
        for doc in docs.iter().take(d) {
            if !pooled_by_others.contains(doc.docno.as_str()) {
                if let Some(g) = tq.grades.remove(&doc.docno) {
                    unique_judged += 1;
                    if g >= opts.judging.relevance_level {
                        unique_relevant += 1;
                    }
                }
            }
        }
    }
    let ev = evaluate_run(&reduced, run, opts)?;
    Ok(LeaveOneOut {
        depth,
        unique_judged,
        unique_relevant,
        mean_without: ev.all[0],
        change: ev.all[0] - mean,
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

#[allow(clippy::too_many_arguments)]
/// The figures of run `tag` in one sentence; `contributor` is `None` when the protocol names
/// no contributors, so that whether the run contributed is unknown.
fn run_statement(
    tag: &str,
    contributor: Option<bool>,
    depth: Option<u32>,
    k: u32,
    topics: usize,
    judged: f64,
    unjudged: f64,
    metric: &str,
    mean: f64,
    loo: Option<&LeaveOneOut>,
) -> String {
    let mut s = match (contributor, depth) {
        (Some(true), Some(d)) => format!("Run {} contributed to the judgment pool (depth {}). ", tag, d),
        (Some(true), None) => format!("Run {} contributed to the judgment pool. ", tag),
        (Some(false), _) => format!("Run {} did not contribute to the judgment pool. ", tag),
        (None, _) => format!(
            "Whether run {} contributed to the judgment pool is unknown (the protocol names no contributors). ",
            tag
        ),
    };
    let contributor = contributor == Some(true);
    s.push_str(&format!(
        "Over {} topics, {} of its top {} documents were judged and {} were retrieved but unjudged, \
         counted as non-relevant by {} (mean {:.4})",
        topics,
        pct(judged),
        k,
        pct(unjudged),
        metric,
        mean
    ));
    if !contributor && unjudged > 0.0 {
        s.push_str(", so its score may be underestimated");
    }
    s.push('.');
    if let Some(l) = loo {
        s.push_str(&format!(
            " Removing the {} judged documents only it contributed ({} relevant) changes its {} from {:.4} to {:.4} ({:+.4}).",
            l.unique_judged, l.unique_relevant, metric, mean, l.mean_without, l.change
        ));
    } else if contributor && depth.is_none() {
        s.push_str(
            " The leave-one-run-out check needs the pool depth (`pool.depth`), which the protocol does not give.",
        );
    }
    s
}

fn summary(runs: &[RunPoolBias], pool: &Pool, k: u32, metric: &str) -> String {
    let n = runs.len();
    let c = runs.iter().filter(|r| r.contributor).count();
    // Nobody registered which runs were pooled: say that it is unknown, never "0 of n".
    let mut s = if pool.contributors.is_empty() {
        format!(
            "The protocol names no contributors, so whether the {} evaluated runs contributed to the judgment pool is unknown. ",
            n
        )
    } else {
        format!("{} of the {} evaluated runs contributed to the judgment pool. ", c, n)
    };
    let lo = runs.iter().map(|r| r.judged_at_k).fold(f64::INFINITY, f64::min);
    let hi = runs.iter().map(|r| r.judged_at_k).fold(f64::NEG_INFINITY, f64::max);
    if n > 0 {
        s.push_str(&format!(
            "judged@{} ranges from {} to {} across runs",
            k,
            pct(lo),
            pct(hi)
        ));
        let worst = runs.iter().map(|r| r.unjudged_at_k).fold(0.0, f64::max);
        s.push_str(&format!(
            "; at most {} of a run's top {} was unjudged and counted as non-relevant.",
            pct(worst),
            k
        ));
    }
    let loos: Vec<(&str, &LeaveOneOut)> = runs
        .iter()
        .filter_map(|r| r.leave_one_out.as_ref().map(|l| (r.tag.as_str(), l)))
        .collect();
    if let Some((tag, l)) = loos.iter().max_by(|a, b| a.1.change.abs().total_cmp(&b.1.change.abs())) {
        s.push_str(&format!(
            " Leave-one-run-out (Zobel 1998, depth {}): the largest change in {} is {:+.4}, for {}.",
            l.depth, metric, l.change, tag
        ));
    } else if c > 0 && pool.depth.is_none() {
        s.push_str(" The leave-one-run-out check was not run (pool depth unknown).");
    }
    s
}
