//! Builds [`ReportData`] from the ledger alone: the registered protocol text stored in the
//! register/amend commit, the recorded count/stop/go record, and the recorded analysis records.
//! The same ledger therefore always gives the same report.

use super::card::{self, Classification, VerdictCard};
use super::model::*;
use super::names::ShortNames;
use super::reproduce::{self, ReproduceInputs};
use super::sections::{self, AccessHistory};
use crate::error::{Error, Result};
use crate::ledger::rules::{Change, ChangeKind, StudyState, Timing, Violation, WitnessEvidence};
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

/// What a report is built from besides the ledger's entries.
#[derive(Debug, Clone)]
pub struct Context {
    /// The ledger check's result at the tip the report is rendered from.
    pub verification: VerificationView,
    /// The registration commit's signature, in words (see [`super::registration_signature`]).
    pub signature: String,
    /// What the witness rule weighs: the tokens that verify and the commits' signatures (see
    /// [`crate::ledger::witness::report_evidence`]).
    pub witness: WitnessEvidence,
    /// The tip, template and directory the report is rendered from and for.
    pub rendered: RenderedFrom,
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

/// The entries of one study the report stands on.
struct Selected<'a> {
    /// Every entry of the study, in ledger order.
    mine: Vec<&'a StoredEntry>,
    /// The `register` entry.
    first_reg: &'a StoredEntry,
    /// The registration or amendment in force (the latest).
    reg: &'a StoredEntry,
    /// Its protocol.
    protocol: Protocol,
    /// The study's registered analysis, as the registration rules classify it.
    confirmatory: Option<&'a StoredEntry>,
    /// The analysis the report leads with: the confirmatory one, else the first.
    lead: Option<&'a StoredEntry>,
    /// The latest count/stop/go entry.
    count: Option<&'a StoredEntry>,
    /// The registration rules' verdicts on the whole chain.
    review: crate::ledger::rules::Review,
}

/// Finds the study's registration, protocol, analyses and count.
///
/// Errors: no register entry, or its protocol text missing or unreadable (exit 2).
fn select<'a>(entries: &'a [StoredEntry], study_id: &str) -> Result<Selected<'a>> {
    let mine: Vec<&StoredEntry> = entries.iter().filter(|e| e.entry.study_id == study_id).collect();
    let first_reg = *mine
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
    let protocol = crate::protocol::parse(
        text,
        Path::new(reg.entry.protocol_path.as_deref().unwrap_or("protocol.toml")),
    )?;
    // The study's registered analysis, as the registration rules classify it (confirmatory, or
    // confirmatory with deviations), leads the report; every other is exploratory. Without one,
    // the first analysis leads, marked so.
    let review = crate::ledger::rules::Review::of(entries);
    let lead = review.registered_analysis(study_id).map(|l| l.seq);
    let analyses = || mine.iter().filter(|e| e.entry.kind == EntryKind::Analyze).copied();
    let confirmatory = analyses().find(|a| Some(a.entry.seq) == lead);
    let first = analyses().next();
    let count = mine
        .iter()
        .rev()
        .find(|e| matches!(e.entry.kind, EntryKind::Stop | EntryKind::Go | EntryKind::Count))
        .copied();
    Ok(Selected {
        first_reg,
        reg,
        protocol,
        confirmatory,
        lead: confirmatory.or(first),
        count,
        mine,
        review,
    })
}

/// Assembles the report of `study_id` from `entries` (the ledger up to the tip the report is
/// rendered from) and `ctx`.
///
/// Errors: the study has no analysis entry and its count did not stop (exit 2, with a hint to
/// run `pledge analyze`); a stored protocol or result that cannot be read (exit 2).
pub fn assemble(entries: &[StoredEntry], study_id: &str, ctx: Context) -> Result<Assembled> {
    let s = select(entries, study_id)?;
    let count_record: Option<CountRecord> = s.count.map(|c| records::read_result(c, "count")).transpose()?;
    let analysis: Option<AnalysisRecord> = s.lead.map(|a| records::read_result(a, "analysis")).transpose()?;
    if analysis.is_none() && s.count.map(|c| c.entry.kind) != Some(EntryKind::Stop) {
        return Err(
            Error::input(format!("the ledger has no analysis of study `{}` to report", study_id))
                .with_hint("run `pledge analyze PROTOCOL --scores FILE` first"),
        );
    }
    let mut svgs = BTreeMap::new();
    let access = AccessHistory::of(entries, study_id);
    let (time_findings, signature_findings) = witness_findings(&s, &ctx.witness);
    let signature = with_findings(&ctx.signature, &signature_findings);
    let time = time_witness(&s.first_reg.entry, &ctx.witness, &time_findings);
    let study = study_view(&s, &access, &signature, time);
    let components = match (s.count, &count_record) {
        (Some(c), Some(r)) => ComponentsView {
            earlier_protocol: sections::earlier_protocol(&s.mine, c, s.reg, &s.protocol),
            funnel: super::funnel::funnel_view(&s.mine, s.review.study(study_id))?,
            ..sections::components_view(c, r, &mut svgs)?
        },
        _ => ComponentsView::default(),
    };
    let diagnostics = super::diagnostics::diagnostics_view(&s.mine, &mut svgs)?;
    let amended = sections::amended_hypotheses(&s.mine, &access)?;
    let names = ShortNames::of(
        &analysis
            .iter()
            .flat_map(|a| a.systems.iter().map(|sy| sy.name.clone()))
            .collect::<Vec<_>>(),
    );
    let results = match &analysis {
        Some(a) => ResultsView {
            split: card::heading_split(a, lead_split(&s)),
            ..with_marks(
                super::results::results_view(a, &s.protocol, &names, &mut svgs)?,
                &amended,
            )
        },
        None => ResultsView::default(),
    };
    let mut power = sections::power_view(&s.protocol, count_record.as_ref(), analysis.as_ref());
    power.achieved_mde = names.replace_in(&power.achieved_mde);
    power.at_analysis = power_at_analysis(&s);
    let pool = super::pool::pool_view(&s.protocol, analysis.as_ref());
    let mut history = sections::history_view(&s.mine, &s.review, &s.protocol)?;
    for a in &mut history.analyses {
        a.results = names.replace_in(&a.results);
    }
    let summary = sections::summary(&s.protocol, &components, &results, &pool);
    let reproduce = reproduce::reproduce_view(&ReproduceInputs {
        protocol: &s.protocol,
        reg: s.reg,
        lead: s.lead.zip(analysis.as_ref()),
        confirmatory: s.lead.is_some() && s.lead.map(|l| l.entry.seq) == s.confirmatory.map(|c| c.entry.seq),
        count: s.count,
        tip: entries.last(),
        entries: entries.len() as u64,
        rendered: &ctx.rendered,
    });
    let mut card = card_view(&s, analysis.as_ref(), &amended, &study, &components, signature);
    for v in &mut card.verdicts {
        v.comparison = names.replace_in(&v.comparison);
    }
    card.registered_set = names.replace_in(&card.registered_set);
    Ok(Assembled {
        data: ReportData {
            card,
            rendered: ctx.rendered,
            study,
            verification: ctx.verification,
            summary,
            components,
            diagnostics,
            power,
            results,
            pool,
            changes: changes_view(&s.mine, &access),
            history,
            reproduce,
        },
        svgs,
    })
}

/// How the registration's time stands: witnessed by a TSA or not (the earliest token in
/// `evidence` covering it), whether it was written under a fixed clock, and the witness rule's
/// findings about its time-stamp (`findings`).
fn time_witness(reg: &crate::ledger::Entry, evidence: &WitnessEvidence, findings: &[String]) -> String {
    let s = match evidence.earliest(reg.seq) {
        Some(t) => format!(
            "witnessed by TSA {} at {} (timestamp entry #{})",
            t.tsa,
            t.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            t.timestamp_seq
        ),
        None => "time not witnessed".to_string(),
    };
    let mut s = with_findings(&s, findings);
    if reg.clock.is_some() {
        s.push_str("; written under a fixed clock (PLEDGE_NOW), so the time is declared");
    }
    s
}

/// The witness rule's findings on the study's registration and amendments (the rules' final
/// step, [`crate::ledger::rules::LedgerState::finish`], on the evidence the report was built
/// with), worded as `verify` words them: those about the time-stamp, then those about the
/// signature.
fn witness_findings(s: &Selected, evidence: &WitnessEvidence) -> (Vec<String>, Vec<String>) {
    let (mut time, mut signature) = (Vec::new(), Vec::new());
    for (seq, v) in s.review.state.finish(evidence) {
        let Some(e) = s.mine.iter().find(|e| e.entry.seq == seq) else {
            continue;
        };
        let line = format!("{} ({})", v.message(&e.entry), v.code());
        match v {
            Violation::SignatureMissing { .. } => signature.push(line),
            _ => time.push(line),
        }
    }
    (time, signature)
}

/// `text`, then `; verify finds: …` with `findings` when there are any.
fn with_findings(text: &str, findings: &[String]) -> String {
    if findings.is_empty() {
        text.to_string()
    } else {
        format!("{}; verify finds: {}", text, findings.join("; "))
    }
}

/// The study's identity and registration: who declared it, when, witnessed or not, the
/// declared data access and whether results had been seen.
fn study_view(s: &Selected, access: &AccessHistory, signature: &str, time_witness: String) -> StudyView {
    let (first, reg, p) = (&s.first_reg.entry, &s.reg.entry, &s.protocol);
    StudyView {
        id: first.study_id.clone(),
        title: p.study.title.clone(),
        description: p.study.description.trim().to_string(),
        registered_by: p.study.registered_by.clone(),
        registered_by_proof: format!("declared in the protocol, not proven by it; {}", signature),
        protocol_path: reg.protocol_path.clone().unwrap_or_default(),
        protocol_sha256: reg.protocol_sha256.clone().unwrap_or_default(),
        protocol_amended_seq: if reg.seq == first.seq { 0 } else { reg.seq },
        registered_protocol_sha256: first.protocol_sha256.clone().unwrap_or_default(),
        registered_at: first.time.clone(),
        time_witness,
        registered_seq: first.seq,
        registered_commit: first
            .git_head
            .as_deref()
            .map(|h| crate::text::short(h, 12).to_string())
            .unwrap_or_default(),
        data_access: s
            .review
            .study(&first.study_id)
            .map_or_else(|| first.data_access_label(), |st| st.data_access_statement()),
        access_lowered: access.lowered.clone(),
        registered_after_results_seen: first.data_access == crate::ledger::DataAccess::ResultsSeen,
        amended_after_results_seen: amended_after_results_seen(&s.mine, access),
    }
}

/// The amendments made when results had been declared seen, `#N (time)` each, `; `-joined.
fn amended_after_results_seen(mine: &[&StoredEntry], access: &AccessHistory) -> String {
    mine.iter()
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
        .join("; ")
}

/// `results` with each hypothesis an amendment changed after results were seen marked.
fn with_marks(mut results: ResultsView, amended: &[(String, String)]) -> ResultsView {
    for (name, mark) in amended {
        for h in results.hypotheses.iter_mut().filter(|h| &h.name == name) {
            if !h.amended.is_empty() {
                h.amended.push(' ');
            }
            h.amended.push_str(mark);
        }
    }
    results
}

/// When the reported analysis ran under an earlier protocol than the one in force and its power
/// target differs: that target in words (see [`sections::power_at_analysis`]); empty otherwise.
fn power_at_analysis(s: &Selected) -> String {
    let Some(a) = s.lead else {
        return String::new();
    };
    let in_force = s
        .mine
        .iter()
        .rev()
        .find(|e| matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend) && e.entry.seq < a.entry.seq);
    let Some(f) = in_force.filter(|f| f.entry.seq != s.reg.entry.seq) else {
        return String::new();
    };
    // An earlier protocol that cannot be read is said, not fatal: the report stands on the
    // latest one.
    let then = f.protocol_text.as_deref().map(|t| {
        crate::protocol::parse(
            t,
            Path::new(f.entry.protocol_path.as_deref().unwrap_or("protocol.toml")),
        )
    });
    match then {
        Some(Ok(then)) => sections::power_at_analysis(&then.target, &s.protocol.target, f, a),
        _ => format!(
            "the analysis (entry #{}) ran under entry #{}'s protocol, whose text this ledger entry does not hold in a readable form",
            a.entry.seq, f.entry.seq
        ),
    }
}

/// Every amendment and deviation of the study, in ledger order, with what it changed.
fn changes_view(mine: &[&StoredEntry], access: &AccessHistory) -> Vec<ChangeView> {
    let mut changes = Vec::new();
    let mut registration: Option<&StoredEntry> = None;
    for e in mine {
        let fields = match e.entry.kind {
            EntryKind::Deviation => sections::deviation_fields(e),
            EntryKind::Amend => sections::amendment_fields(registration, e, access),
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
    changes
}

/// The split the registration rules name for the lead analysis (its `analysis.split`, or the
/// protocol's only split).
fn lead_split<'a>(s: &'a Selected) -> Option<&'a str> {
    s.lead
        .and_then(|l| s.review.verdict(l.entry.seq))
        .and_then(|v| v.analysis.as_ref())
        .and_then(|v| v.split.as_deref())
}

/// The card's line on the registered question set: both verdicts as the lead analysis's record
/// holds them; when the rules find its question set changed since the registered count and the
/// record holds no verdict on that count's questions, that is said, never left out.
fn registered_set_text(
    analysis: Option<&AnalysisRecord>,
    verdict: Option<&crate::ledger::rules::AnalysisVerdict>,
    scale: crate::protocol::Scale,
) -> String {
    use crate::ledger::rules::Departure;
    let changed = verdict.and_then(|v| {
        v.departures.iter().find_map(|d| match d {
            Departure::QuestionSet(q) => Some(q.registered_seq),
            _ => None,
        })
    });
    let Some(a) = analysis else { return String::new() };
    let recorded = a.registered_set.as_ref().map(|r| r.registered_seq);
    match changed {
        Some(seq) if recorded != Some(seq) => format!(
            "no verdict on the registered questions (count entry #{}): the analysis record (version {}) does not hold one{}",
            seq,
            a.record_version,
            if a.record_version < 4 {
                ", it was written before pledge recorded it"
            } else {
                ""
            }
        ),
        _ => card::registered_set_text(a, scale).unwrap_or_default(),
    }
}

/// The verdict card: the lead analysis's primary verdicts and how they stand.
fn card_view(
    s: &Selected,
    analysis: Option<&AnalysisRecord>,
    amended: &[(String, String)],
    study: &StudyView,
    components: &ComponentsView,
    signature: String,
) -> VerdictCard {
    let verdicts = analysis
        .map(|a| card::verdict_lines(a, s.protocol.target.scale, amended))
        .unwrap_or_default();
    // How the lead stands is the registration rules' verdict on it, not decided here.
    let verdict = s
        .lead
        .and_then(|l| s.review.verdict(l.entry.seq))
        .and_then(|v| v.analysis.as_ref());
    let classification = s
        .lead
        .map(|_| verdict.map_or(Classification::Exploratory, |v| Classification::from(v.classification)));
    let analysis_text = match (s.lead, verdict) {
        (Some(l), Some(v)) if s.confirmatory.is_some() => format!(
            "{}: entry #{} ({}), the study's registered analysis",
            v.headline(),
            l.entry.seq,
            l.entry.time
        ),
        (Some(l), _) => format!(
            "exploratory: no analysis matches the registration; shown is the first, entry #{} ({})",
            l.entry.seq, l.entry.time
        ),
        _ => "none".to_string(),
    };
    let state = s.review.study(&study.id);
    let (deviation_count, deviations) = deviations_text(&s.mine, state);
    VerdictCard {
        no_verdict: match (analysis, verdicts.is_empty()) {
            (None, _) => format!("No analysis: the stop rule decided {}.", components.decision),
            (Some(_), true) => {
                "No primary hypothesis is registered: the results below describe the data; they test no registered question.".into()
            }
            (Some(_), false) => String::new(),
        },
        verdicts,
        classification,
        analysis: analysis_text,
        deviation_count,
        deviations,
        question_changes: question_changes_text(state),
        attempts: state.and_then(StudyState::attempts_statement).unwrap_or_default(),
        overlap: state
            .map(|st| st.overlap.iter().map(|o| o.to_string()).collect::<Vec<_>>().join("; "))
            .unwrap_or_default(),
        registered_set: registered_set_text(analysis, verdict, s.protocol.target.scale),
        split: analysis
            .map(|a| card::split_text(a, verdict.and_then(|v| v.split.as_deref())))
            .unwrap_or_else(|| "nothing was analyzed".into()),
        time: format!(
            "registered {} (ledger entry #{}); {}",
            study.registered_at, study.registered_seq, study.time_witness
        ),
        signature,
    }
}

/// How many deviations the registration rules recorded for the study (`state`), and the first
/// one in words: entry, time, the entry it covers, reason and what it overrode or changed.
fn deviations_text(mine: &[&StoredEntry], state: Option<&StudyState>) -> (u64, String) {
    let devs: Vec<&Change> = state
        .map(|st| st.changes.iter().filter(|c| c.kind == ChangeKind::Deviation).collect())
        .unwrap_or_default();
    let Some(first) = devs.first() else {
        return (0, "none".into());
    };
    let covers = first
        .covers
        .and_then(|seq| mine.iter().find(|e| e.entry.seq == seq))
        .map(|e| format!(", for the {} entry #{}", e.entry.kind.as_str(), e.entry.seq))
        .unwrap_or_default();
    let reason = if first.reason.is_empty() {
        "(no reason)".to_string()
    } else {
        first.reason.replace('\n', " ")
    };
    let what = if first.what.is_empty() {
        String::new()
    } else {
        format!(" ({})", first.what.join("; "))
    };
    let text = format!(
        "{}; the first: entry #{} ({}{}): {}{}",
        devs.len(),
        first.seq,
        first.time,
        covers,
        reason,
        what
    );
    (devs.len() as u64, text)
}

/// The amendments and deviations that touch the registered question (the rules'
/// [`StudyState::headline_changes`]), each with when it was made; `none` without.
fn question_changes_text(state: Option<&StudyState>) -> String {
    let lines: Vec<String> = state
        .into_iter()
        .flat_map(|st| st.headline_changes())
        .map(|c| {
            let when = match c.timing {
                Timing::BeforeFirstCount => "before the first count",
                Timing::AfterFirstCount => "after the first count",
                Timing::AfterFirstAnalysis => "after the first analysis",
            };
            let scopes: Vec<&str> = c
                .scopes
                .iter()
                .filter(|x| x.in_headline())
                .map(|x| x.as_str())
                .collect();
            format!("{} #{} {} ({})", c.kind.as_str(), c.seq, when, scopes.join(", "))
        })
        .collect();
    if lines.is_empty() {
        "none".into()
    } else {
        lines.join("; ")
    }
}
