//! The error for a JSON document of a kind no score reader knows: which kinds are known, and the
//! one whose top-level keys it shares most.

use crate::error::Error;
use serde_json::{Map, Value};
use std::path::Path;

/// The JSON documents the score readers know, with the top-level keys that mark each.
const KINDS: &[(&str, &[&str])] = &[
    (
        "an inspect_ai .json log",
        &[
            "version",
            "status",
            "eval",
            "plan",
            "results",
            "stats",
            "samples",
            "reductions",
        ],
    ),
    (
        "a promptfoo results file (promptfoo eval -o out.json)",
        &["evalId", "results", "config", "shareableUrl", "metadata"],
    ),
    (
        "lm-evaluation-harness's aggregated results (use its samples_TASK.jsonl)",
        &[
            "results",
            "groups",
            "configs",
            "versions",
            "n-shot",
            "higher_is_better",
            "n-samples",
            "config",
        ],
    ),
    (
        "a HELM stats file (use per_instance_stats.json)",
        &["name", "count", "sum", "mean", "stats"],
    ),
];

/// The other JSON kinds, told by shape rather than keys.
const SHAPES: &str = "pytrec_eval {query: {measure: value}}, ranx run.scores {metric: {query: value}}, \
a ranx run or qrels {query: {document: number}} (read by --run / --qrels), HELM per_instance_stats.json \
(an array), a JSON array or JSON Lines of flat records (topic/system/score, wide, or topic/measure/value)";

/// The error for the JSON document `m` read from `path` (see the module docs).
pub(super) fn unknown_json(path: &Path, m: &Map<String, Value>) -> Error {
    let keys: Vec<&str> = m.keys().map(String::as_str).collect();
    let shown: Vec<&str> = keys.iter().take(8).copied().collect();
    let more = if keys.len() > 8 { ", ..." } else { "" };
    let best = KINDS
        .iter()
        .map(|(name, marks)| {
            let shared: Vec<&str> = marks.iter().copied().filter(|k| m.contains_key(*k)).collect();
            (name, shared)
        })
        .filter(|(_, shared)| !shared.is_empty())
        .max_by_key(|(_, shared)| shared.len());
    let known: Vec<&str> = KINDS.iter().map(|(n, _)| *n).collect();
    let resembles = match best {
        Some((name, shared)) => format!(
            "it resembles {} (it has {}) but lacks what marks one; ",
            name,
            shared.iter().map(|k| format!("`{}`", k)).collect::<Vec<_>>().join(", ")
        ),
        None => String::new(),
    };
    Error::in_file(
        path,
        format!(
            "is a JSON document of a kind no score reader knows (top-level keys: {}{})",
            shown.join(", "),
            more
        ),
    )
    .with_hint(format!(
        "{}known JSON kinds: {}; {}. `pledge formats` lists every format",
        resembles,
        known.join("; "),
        SHAPES
    ))
}
