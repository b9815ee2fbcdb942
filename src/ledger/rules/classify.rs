//! How an analysis stands against its study's registration ([`Classification`]).

use super::super::entry::{hashes_of, Entry, InputRole};
use super::state::*;
use super::violation::Violation;

/// The verdict of analysis `e` of study `s` (its state before `e`): `disclosed` when a deviation
/// was recorded with it, overriding `overridden`.
///
/// The study's registered analysis is its first analysis that needs no deviation; it is
/// [`Classification::Confirmatory`] when nothing it rests on departed from the registration,
/// else [`Classification::ConfirmatoryWithDeviations`] with each [`Departure`] (earlier
/// analyses seen, the question set changed since the first `go`, the registered question
/// amended after the first count). Every other analysis is [`Classification::Exploratory`].
pub(super) fn classify(s: &StudyState, e: &Entry, disclosed: bool, overridden: &[Violation]) -> AnalysisVerdict {
    let split = s.in_force().and_then(|v| v.split.clone());
    let (classification, departures) = if s.versions.is_empty() {
        (Classification::Exploratory, vec![Departure::Unregistered])
    } else if disclosed {
        (Classification::Exploratory, vec![deviated(s, e, overridden)])
    } else if let Some(lead) = &s.lead {
        (
            Classification::Exploratory,
            vec![Departure::AfterRegistered { seq: lead.verdict.seq }],
        )
    } else {
        let d = lead_departures(s, e);
        let c = if d.is_empty() {
            Classification::Confirmatory
        } else {
            Classification::ConfirmatoryWithDeviations
        };
        (c, d)
    };
    AnalysisVerdict {
        seq: e.seq,
        classification,
        departures,
        split,
    }
}

/// The deviation recorded with `e` (the entry before it), with what it overrode as recorded,
/// else as the rules find it.
fn deviated(s: &StudyState, e: &Entry, overridden: &[Violation]) -> Departure {
    let dev = s
        .changes
        .iter()
        .rev()
        .find(|c| c.kind == ChangeKind::Deviation && c.seq < e.seq);
    let recorded = dev.map(|c| c.what.clone()).unwrap_or_default();
    Departure::Deviated {
        seq: dev.map_or(e.seq.saturating_sub(1), |c| c.seq),
        reason: dev.map(|c| c.reason.clone()).unwrap_or_default(),
        overridden: if recorded.is_empty() {
            overridden.iter().map(|v| v.message(e)).collect()
        } else {
            recorded
        },
    }
}

/// What the study's registered analysis `e` rests on that departed from the registration.
fn lead_departures(s: &StudyState, e: &Entry) -> Vec<Departure> {
    let mut d = Vec::new();
    if !s.earlier.is_empty() {
        d.push(Departure::EarlierAnalyses {
            seqs: s.earlier.clone(),
            count: s.analyses,
        });
    }
    let on_counted_set = !hashes_of(&e.inputs, InputRole::Assignment).is_empty();
    if let (true, Some(q)) = (on_counted_set, &s.question_set) {
        d.push(Departure::QuestionSet(q.clone()));
    }
    for c in &s.changes {
        if c.kind == ChangeKind::Amend && c.timing != Timing::BeforeFirstCount && c.in_headline() {
            d.push(Departure::Amended {
                seq: c.seq,
                changes: c
                    .what
                    .iter()
                    .filter(|w| Scope::of_key(w).in_headline())
                    .cloned()
                    .collect(),
                reason: c.reason.clone(),
            });
        }
    }
    d
}
