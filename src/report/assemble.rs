//! Builds [`ReportData`] from the ledger alone: the registered protocol text stored in the
//! register/amend commit, the recorded count/stop/go record, and the recorded analysis records.
//! The same ledger therefore always gives the same report.

use super::model::*;
use super::sections;
use crate::error::{Error, Result};
use crate::ledger::{EntryKind, StoredEntry};
use crate::protocol::Protocol;
use crate::records::{self, AnalysisRecord, CountRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// A report: its data and the SVG files to write beside it (file name → SVG text).
#[derive(Debug, Clone)]
pub struct Assembled {
    /// What the template renders.
    pub data: ReportData,
    /// Pictures to write next to the Markdown, by file name.
    pub svgs: BTreeMap<String, String>,
}

/// The study to report on: `study_id`, or the only study in the ledger.
///
/// Errors: an empty ledger, an unknown study id, or several studies without `--study`
/// (exit 2, listing them).
pub fn pick_study(entries: &[StoredEntry], study_id: Option<&str>) -> Result<String> {
    let mut ids: Vec<&str> = entries
        .iter()
        .filter(|e| matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend))
        .map(|e| e.entry.study_id.as_str())
        .collect();
    ids.dedup();
    ids.sort();
    ids.dedup();
    match study_id {
        Some(id) if ids.contains(&id) => Ok(id.to_string()),
        Some(id) => Err(
            Error::input(format!("study `{}` is not registered in this ledger", id)).with_hint(format!(
                "registered studies: {}",
                if ids.is_empty() { "none".into() } else { ids.join(", ") }
            )),
        ),
        None => {
            match ids.as_slice() {
                [] => Err(Error::input("the ledger has no registered study")
                    .with_hint("run `pledge register PROTOCOL` first")),
                [one] => Ok(one.to_string()),
                many => Err(Error::input("the ledger holds several studies: name one with --study")
                    .with_hint(format!("registered studies: {}", many.join(", ")))),
            }
        }
    }
}

/// How the registration's time stands: witnessed by a TSA or not, and whether it was written
/// under a fixed clock.
fn time_witness(entries: &[StoredEntry], reg: &crate::ledger::Entry) -> String {
    let all: Vec<crate::ledger::Entry> = entries.iter().map(|e| e.entry.clone()).collect();
    let mut s = match crate::ledger::witness::earliest_witness(&all, reg.seq) {
        Some(w) => format!(
            "witnessed by TSA {} at {} (timestamp entry #{})",
            w.tsa, w.at, w.timestamp_seq
        ),
        None => "time not witnessed".to_string(),
    };
    if reg.clock.is_some() {
        s.push_str("; written under a fixed clock (PLEDGE_NOW), so the time is declared");
    }
    s
}

/// Assembles the report of `study_id` from `entries`; `verification` is the ledger check's
/// result (ok, summary line, findings).
///
/// Errors: the study has no analysis entry (exit 2, with a hint to run `pledge analyze`);
/// a stored protocol or result that cannot be read (exit 2).
pub fn assemble(entries: &[StoredEntry], study_id: &str, verification: VerificationView) -> Result<Assembled> {
    let mine: Vec<&StoredEntry> = entries.iter().filter(|e| e.entry.study_id == study_id).collect();
    let first_reg = mine
        .iter()
        .find(|e| e.entry.kind == EntryKind::Register)
        .ok_or_else(|| Error::input(format!("study `{}` has no register entry", study_id)))?;
    let reg = mine
        .iter()
        .rev()
        .find(|e| matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend))
        .copied()
        .unwrap_or(first_reg);
    let text = reg.protocol_text.as_deref().ok_or_else(|| {
        Error::input(format!(
            "ledger entry #{} does not hold the protocol text",
            reg.entry.seq
        ))
    })?;
    let protocol: Protocol = crate::protocol::parse(
        text,
        Path::new(reg.entry.protocol_path.as_deref().unwrap_or("protocol.toml")),
    )?;
    let analyses: Vec<&StoredEntry> = mine
        .iter()
        .filter(|e| e.entry.kind == EntryKind::Analyze)
        .copied()
        .collect();
    // The study's registered analysis, as the registration rules classify it (confirmatory, or
    // confirmatory with deviations), leads the report; every other is exploratory. Without one,
    // the first analysis leads, marked so.
    let review = crate::ledger::rules::Review::of(entries);
    let lead = review.registered_analysis(study_id);
    let confirmatory = analyses
        .iter()
        .find(|a| lead.is_some_and(|l| l.seq == a.entry.seq))
        .copied();
    let analyze = confirmatory.or_else(|| analyses.first().copied());
    let count = mine
        .iter()
        .rev()
        .find(|e| matches!(e.entry.kind, EntryKind::Stop | EntryKind::Go | EntryKind::Count))
        .copied();
    if analyze.is_none() && count.map(|c| c.entry.kind) != Some(EntryKind::Stop) {
        return Err(
            Error::input(format!("the ledger has no analysis of study `{}` to report", study_id))
                .with_hint("run `pledge analyze PROTOCOL --scores FILE` first"),
        );
    }
    let mut svgs = BTreeMap::new();
    let access = sections::AccessHistory::of(entries, study_id);
    let study = StudyView {
        id: study_id.to_string(),
        title: protocol.study.title.clone(),
        description: protocol.study.description.trim().to_string(),
        registered_by: protocol.study.registered_by.clone(),
        protocol_path: reg.entry.protocol_path.clone().unwrap_or_default(),
        protocol_sha256: reg.entry.protocol_sha256.clone().unwrap_or_default(),
        protocol_amended_seq: if reg.entry.seq == first_reg.entry.seq {
            0
        } else {
            reg.entry.seq
        },
        registered_protocol_sha256: first_reg.entry.protocol_sha256.clone().unwrap_or_default(),
        registered_at: first_reg.entry.time.clone(),
        time_witness: time_witness(entries, &first_reg.entry),
        registered_seq: first_reg.entry.seq,
        registered_commit: first_reg
            .entry
            .git_head
            .as_deref()
            .map(|h| crate::text::short(h, 12).to_string())
            .unwrap_or_default(),
        data_access: first_reg.entry.data_access_label(),
        access_lowered: access.lowered.clone(),
        registered_after_results_seen: first_reg.entry.data_access == crate::ledger::DataAccess::ResultsSeen,
        amended_after_results_seen: mine
            .iter()
            .filter(|e| e.entry.kind == EntryKind::Amend && access.results_seen_by(e.entry.seq))
            .map(|e| match access.first_results_seen() {
                Some(d) if d == e.entry.seq => {
                    format!("#{} ({}), which declared results-seen", e.entry.seq, e.entry.time)
                }
                Some(d) => format!(
                    "#{} ({}), results-seen declared by entry #{}",
                    e.entry.seq, e.entry.time, d
                ),
                None => format!("#{} ({})", e.entry.seq, e.entry.time),
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    let count_record: Option<CountRecord> = match count {
        Some(c) => Some(records::read_result(c, "count")?),
        None => None,
    };
    let analysis: Option<AnalysisRecord> = match analyze {
        Some(a) => Some(records::read_result(a, "analysis")?),
        None => None,
    };
    let components = match (count, &count_record) {
        (Some(c), Some(r)) => ComponentsView {
            earlier_protocol: sections::earlier_protocol(&mine, c, reg, &protocol),
            ..sections::components_view(c, r, &mut svgs)?
        },
        _ => ComponentsView::default(),
    };
    let diagnostics = super::diagnostics::diagnostics_view(&mine, &mut svgs)?;
    let mut results = match &analysis {
        Some(a) => sections::results_view(a, &protocol, &mut svgs)?,
        None => ResultsView::default(),
    };
    for (name, mark) in sections::amended_hypotheses(&mine, &access)? {
        for h in results.hypotheses.iter_mut().filter(|h| h.name == name) {
            if !h.amended.is_empty() {
                h.amended.push(' ');
            }
            h.amended.push_str(&mark);
        }
    }
    let mut power = sections::power_view(&protocol, count_record.as_ref(), analysis.as_ref());
    // The analysis's own protocol: the registration or amendment in force when it ran.
    if let Some(a) = analyze {
        let in_force = mine
            .iter()
            .rev()
            .find(|e| matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend) && e.entry.seq < a.entry.seq);
        if let Some(f) = in_force.filter(|f| f.entry.seq != reg.entry.seq) {
            // An earlier protocol that cannot be read is said, not fatal: the report stands on
            // the latest one.
            let then = f.protocol_text.as_deref().map(|t| {
                crate::protocol::parse(
                    t,
                    Path::new(f.entry.protocol_path.as_deref().unwrap_or("protocol.toml")),
                )
            });
            power.at_analysis = match then {
                Some(Ok(then)) => sections::power_at_analysis(&then.target, &protocol.target, f, a),
                _ => format!(
                    "the analysis (entry #{}) ran under entry #{}'s protocol, whose text this ledger entry does not hold in a readable form",
                    a.entry.seq, f.entry.seq
                ),
            };
        }
    }
    let pool = sections::pool_view(&protocol, analysis.as_ref());
    let history = sections::history_view(&mine, &review, &protocol)?;
    let mut changes = Vec::new();
    let mut registration: Option<&StoredEntry> = None;
    for e in &mine {
        let fields = match e.entry.kind {
            EntryKind::Deviation => sections::deviation_fields(e),
            EntryKind::Amend => sections::amendment_fields(registration, e, &access),
            _ => String::new(),
        };
        if matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend) {
            registration = Some(e);
        }
        if matches!(e.entry.kind, EntryKind::Amend | EntryKind::Deviation) {
            changes.push(ChangeView {
                seq: e.entry.seq,
                time: e.entry.time.clone(),
                kind: e.entry.kind.as_str().to_string(),
                reason: e.entry.reason.clone().unwrap_or_default().replace('\n', " "),
                fields,
            });
        }
    }
    let summary = sections::summary(&protocol, &components, &results, &pool);
    let reproduce = sections::reproduce_view(&protocol, &mine, entries, reg, analyze);
    Ok(Assembled {
        data: ReportData {
            study,
            verification,
            summary,
            components,
            diagnostics,
            power,
            results,
            pool,
            changes,
            history,
            reproduce,
        },
        svgs,
    })
}
