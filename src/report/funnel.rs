//! The build funnel: per build attempt, the candidate questions, what each contamination rule
//! left, the questions repaired (after the first attempt), those that passed every check, the
//! components under each link rule and the stop rule's decision, each step with its rule and
//! count, read from the attempts' count records ([`crate::records::CountRecord`], and the
//! attempt check of their summaries) in ledger order, then each repair-trace test (`trace`
//! entries: AUC, interval, threshold and whether the repair left a trace). The components
//! article's table.

use super::model::{fmt_count, FunnelRow};
use crate::error::Result;
use crate::ledger::rules::{Attempt, StudyState};
use crate::ledger::{EntryKind, StoredEntry};
use crate::named::Named;
use crate::records::{self, AttemptCheck, CountRecord, CountSummary, TraceRecord};

/// The funnel of the study's build attempts (`state`), read from its entries `mine`; empty when
/// no count ran a contamination rule and there was one attempt at most (the component table
/// says it all then).
///
/// Errors: an attempt's count record that cannot be read (exit 2).
pub fn funnel_view(mine: &[&StoredEntry], state: Option<&StudyState>) -> Result<Vec<FunnelRow>> {
    let attempts = state.map_or(&[][..], |s| &s.attempts[..]);
    let traces = trace_rows(mine)?;
    let mut rows = Vec::new();
    let mut gated = false;
    for a in attempts {
        let Some(e) = mine.iter().find(|e| e.entry.seq == a.seq) else {
            continue;
        };
        let r: CountRecord = records::read_result(*e, "count")?;
        let check = records::read_summary::<CountSummary>(*e, "count")
            .ok()
            .and_then(|s| s.attempt);
        gated |= r.contamination.is_some();
        attempt_rows(&mut rows, a, &r, check.as_ref());
    }
    if !gated && attempts.len() < 2 && traces.is_empty() {
        return Ok(vec![]);
    }
    rows.extend(traces);
    Ok(rows)
}

/// One row per repair-trace test of the study (`trace` entries, in ledger order): the
/// registered method, the AUC with its interval, and whether the repair left a trace.
fn trace_rows(mine: &[&StoredEntry]) -> Result<Vec<FunnelRow>> {
    let mut rows = Vec::new();
    for e in mine.iter().filter(|e| e.entry.kind == EntryKind::Trace) {
        let t: TraceRecord = records::read_result(*e, "trace")?;
        let (m, r) = (&t.method, &t.result);
        rows.push(FunnelRow {
            attempt: format!("repair trace (entry #{})", e.entry.seq),
            step: format!(
                "{} original vs {} replacement passages",
                fmt_count(t.originals),
                fmt_count(t.replacements)
            ),
            rule: format!(
                "[repair-trace] character {}-grams, L2 logistic regression C = {}, {} folds; no trace when the {}% upper bound < {}",
                m.ngram_size,
                m.regularization_c,
                m.folds,
                (r.confidence * 1e11).round() / 1e9,
                r.threshold
            ),
            count: format!(
                "AUC {:.3} ({:.3}–{:.3}): {}",
                r.auc,
                r.lower,
                r.upper,
                r.verdict.words()
            ),
        });
    }
    Ok(rows)
}

/// The rows of one attempt.
fn attempt_rows(rows: &mut Vec<FunnelRow>, a: &Attempt, r: &CountRecord, check: Option<&AttemptCheck>) {
    let attempt = format!("{} (entry #{})", a.number, a.seq);
    let mut push = |step: &str, rule: String, count: String| {
        rows.push(FunnelRow {
            attempt: attempt.clone(),
            step: step.to_string(),
            rule,
            count,
        })
    };
    let questions = |n: u64| format!("{} {}", fmt_count(n), if n == 1 { "question" } else { "questions" });
    let c = r.contamination.as_ref();
    let candidates = c.map_or(r.count.questions, |c| c.candidates) as u64;
    push("candidates", "—".into(), questions(candidates));
    if let Some(k) = check {
        let allowed: Vec<&str> = k.may_change.iter().map(|m| m.name()).collect();
        push(
            "repaired",
            format!("[build] attempt-may-change = {}", allowed.join(", ")),
            format!(
                "{} ({} passages replaced)",
                questions(k.repaired),
                fmt_count(k.replaced)
            ),
        );
        if k.dropped > 0 {
            push(
                "left out",
                "flagged by the previous attempt's check".into(),
                questions(k.dropped),
            );
        }
    }
    if let Some(c) = c {
        for rule in &c.rules {
            let roles: Vec<&str> = rule.roles.iter().map(|x| x.name()).collect();
            push(
                "after contamination rule",
                format!(
                    "{} ({}; {} ≥ {})",
                    rule.rule,
                    roles.join(", "),
                    rule.measure.name(),
                    rule.threshold
                ),
                format!(
                    "{} (−{})",
                    questions(rule.remaining as u64),
                    fmt_count(rule.removed as u64)
                ),
            );
        }
        push("passed every check", "—".into(), questions(c.passed as u64));
    }
    for row in &r.count.ablation {
        let n = row.counts.with_candidates as u64;
        push(
            "components under link rule",
            row.rule.clone(),
            format!("{} with candidates", fmt_count(n)),
        );
    }
    push(
        "stop-rule decision",
        "[stop-rule]".into(),
        super::sections::decision_text(r),
    );
}
