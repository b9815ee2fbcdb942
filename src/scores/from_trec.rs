//! Qrels + runs -> [`ScoreTable`], so the analysis can start from TREC files.

use super::ScoreTable;
use crate::error::{Error, Result};
use crate::trec::measures::resolve_per_topic;
use crate::trec::{evaluate, EvalOptions, Qrels, Run};
use std::collections::BTreeSet;

/// Evaluates `runs` with the one measure named `metric` (as [`resolve`](crate::trec::resolve) reads
/// it: `map`, `ndcg_cut.10`, `P_10`, `nDCG@10`, ...; scores compared in single precision) and
/// returns systems = run tags (in the given order), topics = evaluated topics (byte order),
/// values = that measure per topic (`None` where a run lacks a topic and `complete` is false).
/// Topics excluded because they are absent from the qrels are listed in `notes`.
///
/// Errors (exit 2): a metric [`resolve_per_topic`]
/// refuses; two runs with the same tag; a run with no topic in common with the qrels.
pub fn score_table(qrels: &Qrels, runs: &[Run], metric: &str, complete: bool) -> Result<ScoreTable> {
    let m = resolve_per_topic(metric)?;
    let mut tags = BTreeSet::new();
    for r in runs {
        if !tags.insert(r.tag.as_str()) {
            return Err(Error::input(format!("two runs have the tag `{}`", r.tag))
                .with_hint("each run needs its own tag (6th column) to be a system of its own"));
        }
    }
    let opts = EvalOptions {
        measures: vec![m],
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
        samples: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trec::Duplicates;
    use std::path::Path;

    #[test]
    fn table_of_runs() {
        let p = Path::new("x");
        let q = Qrels::parse("1 0 a 1\n2 0 b 1\n3 0 c 1\n", p, Duplicates::Error).unwrap();
        let r1 = Run::parse("1 Q0 a 1 2 A\n2 Q0 x 1 2 A\n9 Q0 a 1 1 A\n", p, Duplicates::Error).unwrap();
        let r2 = Run::parse("1 Q0 z 1 2 B\n1 Q0 a 2 1 B\n", p, Duplicates::Error).unwrap();
        let t = score_table(&q, &[r1.clone(), r2.clone()], "recip_rank", false).unwrap();
        assert_eq!(t.systems, vec!["A", "B"]);
        assert_eq!(t.topics, vec!["1", "2"]);
        assert_eq!(t.values, vec![vec![Some(1.0), Some(0.0)], vec![Some(0.5), None]]);
        assert_eq!(t.notes.len(), 1);
        let t = score_table(&q, &[r1.clone(), r2], "recip_rank", true).unwrap();
        assert_eq!(t.topics, vec!["1", "2", "3"]);
        assert_eq!(t.values[1], vec![Some(0.5), Some(0.0), Some(0.0)]);
        assert!(score_table(&q, &[r1.clone(), r1], "map", false).is_err());
    }
}
