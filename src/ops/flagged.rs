//! Scored questions the build gate left out: when the scores hold questions that the study's
//! latest count flagged under its contamination rules (`[[contamination-rules]]`), the
//! assignment lacks them by design, and `analyze` says so with the count that flagged them,
//! instead of suggesting the assignment came from other questions.

use crate::error::{Error, Result};
use crate::ledger::Snapshot;
use crate::records::{self, CountRecord};
use std::collections::BTreeSet;

/// The error for scored topics of `loaded` that its assignment lacks, when every one of them
/// was flagged by the contamination rules of the study's latest count or of a build attempt
/// before it (read from the counts' records); `None` when the analysis reads no assignment, no scored topic is absent from it, or
/// some absent topic was not flagged (the generic error of the analysis then stands).
///
/// Errors: a count's commit cannot be read, or its record does not parse.
pub(crate) fn error(snap: &Snapshot, study: &str, loaded: &crate::stats::Inputs) -> Result<Option<Error>> {
    let Some(rows) = &loaded.assignment else {
        return Ok(None);
    };
    let assigned: BTreeSet<&str> = rows.iter().map(|r| r.question.as_str()).collect();
    let absent: BTreeSet<&str> = loaded
        .scores
        .topics
        .iter()
        .map(String::as_str)
        .filter(|t| !assigned.contains(t))
        .collect();
    let Some(state) = snap.rules().study(study) else {
        return Ok(None);
    };
    let (false, Some(latest)) = (absent.is_empty(), state.latest_count.as_ref()) else {
        return Ok(None);
    };
    // The latest count and every build attempt before it: an attempt leaves out what the one
    // before it flagged.
    let mut seqs: BTreeSet<u64> = state.attempts.iter().map(|a| a.seq).collect();
    seqs.insert(latest.seq);
    let mut flagged: BTreeSet<String> = BTreeSet::new();
    let mut by: BTreeSet<u64> = BTreeSet::new();
    for seq in seqs {
        let Some(e) = snap.by_seq(seq)? else { continue };
        let stored: CountRecord = records::read_result(&e, "count")?;
        for f in stored.contamination.iter().flat_map(|c| c.flags.iter()) {
            if absent.contains(f.question.as_str()) {
                by.insert(seq);
            }
            flagged.insert(f.question.clone());
        }
    }
    if !absent.iter().all(|t| flagged.contains(*t)) {
        return Ok(None);
    }
    let shown: Vec<&str> = absent.iter().take(20).copied().collect();
    let more = if absent.len() > shown.len() { ", ..." } else { "" };
    Ok(Some(
        Error::input(format!(
            "{} scored topic(s) are not in the benchmark: the contamination rules of the count(s) {} flagged them, so the assignment leaves them out: {}{}",
            absent.len(),
            by.iter().map(|s| format!("#{}", s)).collect::<Vec<_>>().join(", "),
            shown.join(", "),
            more
        ))
        .with_hint("analyze the questions the count kept (the assignment's): remove the flagged questions' rows from the scores"),
    ))
}
