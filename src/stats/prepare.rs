//! Preparing the analysis data: the topic universe (scores joined with the component
//! assignment), the missing-topics policy, strata, and the component groups.

use crate::assignment::AssignmentRow;
use crate::error::{Error, Result};
use crate::protocol::{Keep, MissingTopics};
use crate::scores::ScoreTable;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// How topics were accounted for (the report states the policy and the counts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopicAccounting {
    /// The missing-topics policy (`error`, `zero`, `intersection`).
    pub policy: MissingTopics,
    /// Topics in the score input(s).
    pub in_scores: usize,
    /// Topics analyzed.
    pub analyzed: usize,
    /// (system, topic) cells filled with 0 under `zero`.
    pub filled_with_zero: usize,
    /// Topics dropped under `intersection`.
    pub dropped_missing: usize,
    /// Scored topics left out by the component assignment (other split, or over the cap).
    pub excluded_by_assignment: usize,
    /// Up to 20 of the dropped or excluded topic ids, for the record.
    pub examples: Vec<String>,
}

/// How the component assignment was used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentAccounting {
    /// Components with at least one analyzed question.
    pub components: usize,
    /// Analyzed questions in them.
    pub questions: usize,
    /// Split the assignment was restricted to, if any.
    pub split: Option<String>,
    /// Where the per-component cap came from: the file's `counted` column, or applied here.
    pub cap: String,
    /// Largest number of analyzed questions in one component.
    pub largest: usize,
}

/// Analysis-ready data: complete scores over the analyzed topics.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Systems.
    pub systems: Vec<String>,
    /// Analyzed topics.
    pub topics: Vec<String>,
    /// Scores `[system][topic]`, complete.
    pub values: Vec<Vec<f64>>,
    /// Component index (0..G) per analyzed topic, when an assignment was given.
    pub component_of: Option<Vec<usize>>,
    /// Stratum index per analyzed topic, when strata were given.
    pub stratum_of: Option<Vec<usize>>,
    /// Accounting.
    pub topics_info: TopicAccounting,
    /// Component accounting.
    pub components_info: Option<ComponentAccounting>,
    /// Stratum names with their sizes.
    pub strata_sizes: Vec<(String, usize)>,
}

/// Component options from the protocol.
#[derive(Debug, Clone)]
pub struct ComponentSpec<'a> {
    /// Assignment rows.
    pub rows: &'a [AssignmentRow],
    /// Restrict to this split.
    pub split: Option<&'a str>,
    /// Cap m per component (applied only when the file has no `counted` values).
    pub cap: u32,
    /// Which questions the cap keeps.
    pub keep: Keep,
    /// Seed for `seeded-sample`.
    pub seed: u64,
}

/// Joins and cleans the inputs. Errors (exit 2): missing topics under `error` (listing up to
/// 20), scored topics absent from the assignment, topics without a stratum, fewer than 2 systems,
/// no topic left.
pub fn prepare(
    table: &ScoreTable,
    policy: MissingTopics,
    comp: Option<&ComponentSpec>,
    strata: Option<&BTreeMap<String, String>>,
) -> Result<Prepared> {
    if table.systems.len() < 2 {
        return Err(Error::input(format!(
            "the scores hold {} system(s) ({}); a paired comparison needs at least 2",
            table.systems.len(),
            table.systems.join(", ")
        )));
    }
    let index: HashMap<&str, usize> = table.topics.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
    let u = match comp {
        Some(c) => assignment_universe(table, c, &index)?,
        None => Universe {
            topics: table.topics.clone(),
            excluded: 0,
            examples: Vec::new(),
            component_of: HashMap::new(),
            info: None,
        },
    };
    let cell = |s: usize, t: &str| index.get(t).and_then(|&i| table.values[s][i]);
    let mut examples = u.examples;
    let (topics, dropped) = missing_policy(table, &u.topics, policy, &cell, &mut examples)?;
    if topics.is_empty() {
        return Err(Error::input("no topic is left to analyze"));
    }
    let mut filled = 0;
    let values: Vec<Vec<f64>> = (0..table.systems.len())
        .map(|s| {
            topics
                .iter()
                .map(|t| {
                    cell(s, t).unwrap_or_else(|| {
                        filled += 1;
                        0.0
                    })
                })
                .collect()
        })
        .collect();
    let (component_of, components_info) = match u.info {
        Some((split, cap)) => {
            let (of, info) = component_index(&topics, &u.component_of, split, cap);
            (Some(of), Some(info))
        }
        None => (None, None),
    };
    let (stratum_of, strata_sizes) = match strata {
        Some(map) => {
            let (of, sizes) = stratum_index(&topics, map)?;
            (Some(of), sizes)
        }
        None => (None, vec![]),
    };
    Ok(Prepared {
        systems: table.systems.clone(),
        topics_info: TopicAccounting {
            policy,
            in_scores: table.topics.len(),
            analyzed: topics.len(),
            filled_with_zero: filled,
            dropped_missing: dropped,
            excluded_by_assignment: u.excluded,
            examples,
        },
        topics,
        values,
        component_of,
        stratum_of,
        components_info,
        strata_sizes,
    })
}

/// The topics the analysis starts from, before the missing-topics policy.
struct Universe {
    /// The scored topics the assignment keeps, then the kept questions no system scored (sorted).
    topics: Vec<String>,
    /// Scored topics the assignment leaves out (other split, over the cap).
    excluded: usize,
    /// Up to 20 of them.
    examples: Vec<String>,
    /// Question → component id, for the kept questions.
    component_of: HashMap<String, String>,
    /// The split and the cap's description, when an assignment is given.
    info: Option<(Option<String>, String)>,
}

/// The topic universe under a component assignment: the scored topics the cap keeps (in score
/// order), then the kept questions without any score (sorted, so the missing-topics policy sees
/// them).
///
/// Errors (exit 2): a scored topic that is not in the assignment.
fn assignment_universe(table: &ScoreTable, c: &ComponentSpec, index: &HashMap<&str, usize>) -> Result<Universe> {
    let all: HashSet<&str> = c.rows.iter().map(|r| r.question.as_str()).collect();
    let absent: Vec<&String> = table.topics.iter().filter(|t| !all.contains(t.as_str())).collect();
    if !absent.is_empty() {
        return Err(Error::input(format!(
            "{} scored topic(s) are not in the component assignment: {}",
            absent.len(),
            list(absent.iter().map(|s| s.as_str()))
        ))
        .with_hint("the assignment must come from `pledge components` on the same questions"));
    }
    let (kept, cap) = super::keep::kept_questions(c);
    let kept_set: HashSet<&str> = kept.iter().map(|r| r.question.as_str()).collect();
    let mut topics: Vec<String> = table
        .topics
        .iter()
        .filter(|t| kept_set.contains(t.as_str()))
        .cloned()
        .collect();
    let left_out: Vec<&String> = table.topics.iter().filter(|t| !kept_set.contains(t.as_str())).collect();
    let examples = left_out.iter().take(20).map(|t| (*t).clone()).collect();
    let mut extra: Vec<String> = kept
        .iter()
        .filter(|r| !index.contains_key(r.question.as_str()))
        .map(|r| r.question.clone())
        .collect();
    extra.sort();
    topics.extend(extra);
    let component_of = kept.iter().map(|r| (r.question.clone(), r.component.clone())).collect();
    Ok(Universe {
        topics,
        excluded: left_out.len(),
        examples,
        component_of,
        info: Some((c.split.map(str::to_string), cap)),
    })
}

/// Applies the missing-topics policy to `universe`: the analyzed topics and how many were
/// dropped (dropped ones are added to `examples`, up to 20 in all).
///
/// Errors (exit 2): under `error`, the topics some system lacks (up to 20, with the systems).
fn missing_policy(
    table: &ScoreTable,
    universe: &[String],
    policy: MissingTopics,
    cell: &dyn Fn(usize, &str) -> Option<f64>,
    examples: &mut Vec<String>,
) -> Result<(Vec<String>, usize)> {
    let missing: Vec<&String> = universe
        .iter()
        .filter(|t| (0..table.systems.len()).any(|s| cell(s, t).is_none()))
        .collect();
    match policy {
        MissingTopics::Error if !missing.is_empty() => {
            let detail: Vec<String> = missing
                .iter()
                .take(20)
                .map(|t| {
                    let who: Vec<&str> = (0..table.systems.len())
                        .filter(|&s| cell(s, t).is_none())
                        .map(|s| table.systems[s].as_str())
                        .collect();
                    format!("{} (missing for {})", t, who.join(", "))
                })
                .collect();
            Err(Error::input(format!(
                "{} topic(s) lack a score for some system: {}{}",
                missing.len(),
                detail.join("; "),
                if missing.len() > 20 { "; ..." } else { "" }
            ))
            .with_hint("set analysis.missing-topics = \"zero\" or \"intersection\" in the protocol (compare: --missing-topics zero|intersection)"))
        }
        MissingTopics::Intersection => {
            for t in &missing {
                if examples.len() < 20 {
                    examples.push((*t).clone());
                }
            }
            let m: HashSet<&String> = missing.iter().copied().collect();
            Ok((
                universe.iter().filter(|t| !m.contains(t)).cloned().collect(),
                missing.len(),
            ))
        }
        _ => Ok((universe.to_vec(), 0)),
    }
}

/// Component index (0..G, by sorted component id) of each analyzed topic, and the accounting.
fn component_index(
    topics: &[String],
    comp_of_q: &HashMap<String, String>,
    split: Option<String>,
    cap: String,
) -> (Vec<usize>, ComponentAccounting) {
    let mut ids: Vec<&String> = topics.iter().filter_map(|t| comp_of_q.get(t)).collect();
    ids.sort();
    ids.dedup();
    let pos: HashMap<&String, usize> = ids.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let of: Vec<usize> = topics
        .iter()
        .map(|t| comp_of_q.get(t).and_then(|c| pos.get(c)).copied().unwrap_or(0))
        .collect();
    let mut sizes = vec![0usize; ids.len()];
    of.iter().for_each(|&c| sizes[c] += 1);
    let info = ComponentAccounting {
        components: ids.len(),
        questions: topics.len(),
        split,
        cap,
        largest: sizes.iter().copied().max().unwrap_or(0),
    };
    (of, info)
}

/// Each analyzed topic's stratum index, and each stratum's name and size.
type StrataIndex = (Vec<usize>, Vec<(String, usize)>);

/// Stratum index (by sorted stratum name) of each analyzed topic, and the strata's sizes.
///
/// Errors (exit 2): topics without a stratum.
fn stratum_index(topics: &[String], map: &BTreeMap<String, String>) -> Result<StrataIndex> {
    let lacking: Vec<&str> = topics
        .iter()
        .filter(|t| !map.contains_key(*t))
        .map(|t| t.as_str())
        .collect();
    if !lacking.is_empty() {
        return Err(Error::input(format!(
            "{} topic(s) have no stratum: {}",
            lacking.len(),
            list(lacking.into_iter())
        )));
    }
    let mut names: Vec<&String> = topics.iter().filter_map(|t| map.get(t)).collect();
    names.sort();
    names.dedup();
    let pos: HashMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let of: Vec<usize> = topics
        .iter()
        .map(|t| map.get(t).and_then(|s| pos.get(s)).copied().unwrap_or(0))
        .collect();
    let sizes = names
        .iter()
        .enumerate()
        .map(|(i, n)| ((*n).clone(), of.iter().filter(|&&x| x == i).count()))
        .collect();
    Ok((of, sizes))
}

fn list<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = it.collect();
    let mut s = v.iter().take(20).copied().collect::<Vec<_>>().join(", ");
    if v.len() > 20 {
        s.push_str(", ...");
    }
    s
}
