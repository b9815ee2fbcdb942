//! Qrels + runs -> [`ScoreTable`], so the analysis can start from TREC files.

use super::evaluate::{evaluate, EvalOptions};
use super::measures::Measure;
use super::qrels::Qrels;
use super::run::Run;
use crate::error::{Error, Result};
use crate::scores::ScoreTable;
use std::collections::BTreeSet;

/// Evaluates `runs` with the one measure named `metric` (e.g. `map`, `ndcg_cut.10`, `P_10`) and
/// returns systems = run tags (in the given order), topics = evaluated topics (byte order),
/// values = that measure per topic (`None` where a run lacks a topic and `complete` is false).
/// Topics excluded because they are absent from the qrels are listed in `notes`.
///
/// Errors (exit 2): `metric` unknown or naming several measures; two runs with the same tag; a
/// run with no topic in common with the qrels.
pub fn score_table(qrels: &Qrels, runs: &[Run], metric: &str, complete: bool) -> Result<ScoreTable> {
    let ms = Measure::parse(metric)?;
    let [m] = ms.as_slice() else {
        return Err(Error::input(format!(
            "metric `{}` names {} measures; name one (e.g. `P.10`)",
            metric,
            ms.len()
        )));
    };
    let mut tags = BTreeSet::new();
    for r in runs {
        if !tags.insert(r.tag.as_str()) {
            return Err(Error::input(format!("two runs have the tag `{}`", r.tag))
                .with_hint("each run needs its own tag (6th column) to be a system of its own"));
        }
    }
    let opts = EvalOptions {
        measures: vec![*m],
        complete,
        ..EvalOptions::default()
    };
    let ev = evaluate(qrels, "", runs, &opts)?;
    let topics: Vec<String> = ev
        .runs
        .iter()
        .flat_map(|r| r.topics.iter().map(|t| t.topic.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut notes = Vec::new();
    let values = ev
        .runs
        .iter()
        .map(|r| {
            if !r.not_in_qrels.is_empty() {
                notes.push(format!(
                    "run {}: {} topic(s) not in the qrels were excluded: {}",
                    r.tag,
                    r.not_in_qrels.len(),
                    r.not_in_qrels.join(" ")
                ));
            }
            topics
                .iter()
                .map(|t| {
                    r.topics
                        .binary_search_by(|row| row.topic.as_str().cmp(t))
                        .ok()
                        .map(|i| r.topics[i].values[0])
                })
                .collect()
        })
        .collect();
    Ok(ScoreTable {
        systems: runs.iter().map(|r| r.tag.clone()).collect(),
        topics,
        values,
        notes,
    })
}
