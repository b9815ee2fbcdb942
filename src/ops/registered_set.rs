//! The registered analysis on the registered question set, beside an analysis whose questions
//! differ from it: when a recount accepted with a deviation changed the questions (the
//! registration rules' `StudyState::question_set`), `analyze` also runs the registered analysis
//! restricted to the question ids of the count that fixed the registered set (the study's first
//! `go`, its `CountRecord::question_ids` read back from that entry's commit) and stores it in
//! the analysis record ([`RegisteredSet`]); `verify --rerun` recomputes it the same way.
//!
//! The restricted analysis reads the same scores and assignment with the same settings; it runs
//! only when both hold every registered question the analyzed split needs (a registered
//! question the assignment puts in another split is not needed). Otherwise the record says
//! which input lacks how many of them, with their ids: never a verdict from a partial set.

use crate::error::Result;
use crate::ledger::rules::CountRef;
use crate::ledger::{Ledger, StoredEntry};
use crate::records::analysis::{Lacking, RegisteredAnalysis, RegisteredOutcome, RegisteredSet};
use crate::records::{self, CountRecord};
use crate::stats::settings::Settings;
use std::collections::{BTreeSet, HashMap};

/// The question ids of the registered count `registered` (read from its ledger commit), or why
/// they cannot be read.
///
/// Errors: the commit cannot be read, or its record does not parse.
pub(crate) fn registered_ids(
    ledger: &Ledger,
    registered: &CountRef,
) -> Result<std::result::Result<Vec<String>, String>> {
    let Some(commit) = registered.commit.as_deref().and_then(|c| git2::Oid::from_str(c).ok()) else {
        return Ok(Err(format!(
            "the registered count (entry #{}) could not be located in the ledger",
            registered.seq
        )));
    };
    ids_of(&ledger.read_commit(commit)?)
}

/// The question ids of the count stored in `e`, or why it holds none.
///
/// Errors: its record does not parse.
pub(crate) fn ids_of(e: &StoredEntry) -> Result<std::result::Result<Vec<String>, String>> {
    let stored: CountRecord = records::read_result(e, "count")?;
    Ok(if stored.question_ids.is_empty() {
        Err(format!(
            "the registered count's record (entry #{}, record version {}) holds no question ids: it was written before they were recorded",
            e.entry.seq, stored.record_version
        ))
    } else {
        Ok(stored.question_ids)
    })
}

/// Up to 20 of `ids` (sorted), for a record.
fn examples(ids: &[String]) -> Vec<String> {
    ids.iter().take(20).cloned().collect()
}

/// The registered questions (`ids`) the analysis of `loaded` needs but an input lacks: first
/// the scores, then the assignment. A question the assignment puts in another split than the
/// analyzed one is not needed.
fn lacking(loaded: &crate::stats::Inputs, ids: &[String]) -> Option<Lacking> {
    let split_of: HashMap<&str, Option<&str>> = loaded
        .assignment
        .iter()
        .flatten()
        .map(|r| (r.question.as_str(), r.split.as_deref()))
        .collect();
    let needed: Vec<&String> = ids
        .iter()
        .filter(|q| match (loaded.split.as_deref(), split_of.get(q.as_str())) {
            (Some(want), Some(Some(s))) => *s == want,
            _ => true,
        })
        .collect();
    let scored: BTreeSet<&str> = loaded.scores.topics.iter().map(String::as_str).collect();
    let mut missing: Vec<String> = needed
        .iter()
        .filter(|q| !scored.contains(q.as_str()))
        .map(|q| (*q).clone())
        .collect();
    let mut input = "scores";
    if missing.is_empty() && loaded.assignment.is_some() {
        input = "assignment";
        missing = needed
            .iter()
            .filter(|q| !split_of.contains_key(q.as_str()))
            .map(|q| (*q).clone())
            .collect();
    }
    missing.sort();
    (!missing.is_empty()).then(|| Lacking {
        input: input.into(),
        missing: missing.len(),
        examples: examples(&missing),
    })
}

/// `loaded` restricted to the questions `ids`: the score table's topics and the assignment's
/// rows.
fn restricted(loaded: &crate::stats::Inputs, ids: &[String]) -> crate::stats::Inputs {
    let keep: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut r = loaded.clone();
    let idx: Vec<usize> = (0..r.scores.topics.len())
        .filter(|&i| keep.contains(r.scores.topics[i].as_str()))
        .collect();
    r.scores.select_topics(&idx);
    if let Some(rows) = &mut r.assignment {
        rows.retain(|x| keep.contains(x.question.as_str()));
    }
    r
}

/// The registered analysis of `loaded` under `settings` restricted to the registered question
/// set of count `registered_seq` (`ids`: its question ids, or why there are none).
pub(crate) fn analyze(
    loaded: &crate::stats::Inputs,
    settings: &Settings,
    registered_seq: u64,
    ids: std::result::Result<Vec<String>, String>,
) -> RegisteredSet {
    let (questions, outcome) = match ids {
        Err(why) => (0, RegisteredOutcome::Unavailable(why)),
        Ok(ids) => (
            ids.len(),
            match lacking(loaded, &ids) {
                Some(l) => RegisteredOutcome::Lacking(l),
                None => match crate::stats::run(&restricted(loaded, &ids), settings, "analyze", "", None) {
                    Ok(r) => RegisteredOutcome::Analyzed(RegisteredAnalysis::from(&r)),
                    Err(e) => RegisteredOutcome::Unavailable(format!(
                        "the registered analysis failed on the {} registered questions: {}",
                        ids.len(),
                        e
                    )),
                },
            },
        ),
    };
    RegisteredSet {
        registered_seq,
        questions,
        outcome,
    }
}

/// The registered analysis on the registered question set beside an analysis of study `study`
/// on the assignment of `opts` (as the registration rules on `snap` know the study): `None`
/// when the analysis reads no assignment (it is not on the counted set) or the counted set is
/// the registered one.
///
/// Errors: the registered count's commit cannot be read, or its record does not parse.
pub(crate) fn beside(
    ledger: &Ledger,
    snap: &crate::ledger::Snapshot,
    study: &str,
    loaded: &crate::stats::Inputs,
    settings: &Settings,
    opts: &crate::stats::settings::RunOptions,
) -> Result<Option<RegisteredSet>> {
    let Some(state) = snap.rules().study(study) else {
        return Ok(None);
    };
    let (Some(_), Some(registered), true) = (&state.question_set, &state.registered_set, opts.components.is_some())
    else {
        return Ok(None);
    };
    let ids = registered_ids(ledger, registered)?;
    Ok(Some(analyze(loaded, settings, registered.seq, ids)))
}

/// The note on the registered question set beside the analysis `result` that landed (with
/// `registered`, as its record stores it): both verdicts, or why there is none on the
/// registered questions.
pub(crate) fn note(
    result: &crate::stats::AnalysisResult,
    registered: Option<&RegisteredSet>,
    protocol: &crate::protocol::Protocol,
) -> Option<super::Note> {
    let record = crate::records::AnalysisRecord {
        registered_set: registered.cloned(),
        ..crate::records::AnalysisRecord::from(result)
    };
    let text = crate::report::card::registered_set_text(&record, protocol.target.scale)?;
    Some(match registered.map(|r| &r.outcome) {
        Some(RegisteredOutcome::Analyzed(_)) => super::Note::info(text),
        _ => super::Note::warning(text),
    })
}
