//! `pledge verify --rerun`: recompute every recorded analysis and repair-trace test from its
//! recorded inputs and compare the result with the one in the ledger.

use super::analyze::settings_for;
use crate::error::{Error, Result};
use crate::ledger::{EntryKind, Finding, FindingCode, InputRole, Ledger, StoredEntry, VerifyReport};
use crate::records::{self, AnalysisRecord, TraceRecord};
use serde::Serialize;
use std::path::Path;

/// Outcome of re-running a recorded analysis or repair-trace test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RerunReport {
    /// Sequence number of the `analyze` or `trace` entry.
    pub seq: u64,
    /// Whether every input still has its recorded hash and the recomputed result hash matches.
    pub ok: bool,
    /// Recorded `result_sha256`.
    pub recorded: Option<String>,
    /// SHA-256 of the recomputed result (`None` when it could not be recomputed).
    pub recomputed: Option<String>,
    /// What did not match or could not be read.
    pub problems: Vec<String>,
    /// Why the analysis cannot be recomputed at all (an input read from standard input): a
    /// note, not a mismatch.
    pub skipped: Option<String>,
    /// Inputs read here with their recorded hash that are not committed as read
    /// (`ROLE:PATH (how)`): a clone would not have them.
    pub untracked: Vec<String>,
}

/// Recomputes the analysis recorded in `stored` (an `analyze` entry) from the recorded inputs:
/// the protocol version registered in the ledger under the entry's `protocol_sha256` (its stored
/// `protocol.toml`), the files listed in the stored result's `options` (relative to the
/// repository root) whose hashes must equal the entry's `inputs`, and the labels (`mode`,
/// `registration`, `study_id`) of the stored result. Then the result is serialized as the ledger
/// stores it (pretty JSON) and its SHA-256 compared with `result_sha256`.
///
/// Errors: `stored` is not an analyze entry, or its stored result is not a valid analysis record
/// (exit 2). Mismatches are not errors: they are listed in the report with `ok = false`.
pub fn rerun(ledger: &Ledger, entries: &[StoredEntry], stored: &StoredEntry) -> Result<RerunReport> {
    let e = &stored.entry;
    let mut rep = start(stored, EntryKind::Analyze)?;
    let old: AnalysisRecord = records::read_result(stored, "analysis")?;
    let Some(opts) = old.options.as_ref().map(|o| o.to_method()) else {
        rep.problems.push("the stored result names no inputs (options)".into());
        return Ok(rep);
    };
    let reg = entries.iter().rev().find(|x| {
        x.entry.study_id == e.study_id
            && matches!(x.entry.kind, EntryKind::Register | EntryKind::Amend)
            && x.entry.protocol_sha256 == e.protocol_sha256
            && x.protocol_text.is_some()
    });
    let protocol = match reg.and_then(|r| r.protocol_text.as_deref()) {
        Some(text) => crate::protocol::parse(text, Path::new("protocol.toml (ledger)"))?,
        None => {
            rep.problems
                .push("no registered protocol text for this analysis in the ledger".into());
            return Ok(rep);
        }
    };
    let root = ledger.root();
    if let Some(why) = check_inputs(ledger, &root, e, &mut rep) {
        rep.skipped = Some(why);
        return Ok(rep);
    }
    // Only files whose hashes were just checked may be read.
    let recorded: std::collections::BTreeSet<&str> = e.inputs.keys().map(|k| k.path.as_str()).collect();
    let named = opts.scores.iter().chain(&opts.components).chain(&opts.strata).chain(
        opts.trec
            .iter()
            .flat_map(|t| std::iter::once(&t.qrels).chain(&t.runs).chain(&t.pool_runs)),
    );
    for p in named {
        if !recorded.contains(p.as_str()) {
            rep.problems.push(format!(
                "the stored result names {}, which the entry does not record as an input",
                p
            ));
        }
    }
    if !rep.problems.is_empty() {
        return Ok(rep);
    }
    let settings = settings_for(&protocol, &opts);
    let (loaded, _, _) = super::analyze::load_registered(&root, &opts, &protocol)?;
    let label = (old.mode.as_str(), old.registration.as_str(), old.study_id.clone());
    let mut result = super::analyze::run_registered(&root, &loaded, &opts, &protocol, &settings, label)?;
    result.options = Some(opts);
    // The registered analysis on the registered question set, recomputed from that count's
    // question ids as the ledger holds them.
    let registered_set = match &old.registered_set {
        Some(rs) => {
            let ids = match entries.iter().find(|x| x.entry.seq == rs.registered_seq) {
                Some(count) => super::registered_set::ids_of(count)?,
                None => Err(format!(
                    "the registered count (entry #{}) could not be located in the ledger",
                    rs.registered_seq
                )),
            };
            Some(super::registered_set::analyze(
                &loaded,
                &settings,
                rs.registered_seq,
                ids,
            ))
        }
        None => None,
    };
    let value = records::to_value(&AnalysisRecord {
        registered_set,
        ..AnalysisRecord::from(&result)
    })?;
    let pretty =
        serde_json::to_vec_pretty(&value).map_err(|x| Error::internal("serializing the analysis").caused_by(x))?;
    let h = crate::io::sha256_hex(&pretty);
    rep.ok = e.result_sha256.as_deref() == Some(h.as_str());
    if !rep.ok {
        rep.problems
            .push(format!("recomputed result sha256 {} differs from the recorded one", h));
    }
    rep.recomputed = Some(h);
    Ok(rep)
}

/// The report a rerun of `stored` starts from: not yet matching, nothing recomputed.
///
/// Errors: `stored` is not an entry of `kind` (exit 2).
fn start(stored: &StoredEntry, kind: EntryKind) -> Result<RerunReport> {
    let e = &stored.entry;
    if e.kind != kind {
        return Err(Error::input(format!(
            "entry #{} is a {} entry, not {}",
            e.seq,
            e.kind.as_str(),
            kind.as_str()
        )));
    }
    Ok(RerunReport {
        seq: e.seq,
        ok: false,
        recorded: e.result_sha256.clone(),
        recomputed: None,
        problems: vec![],
        skipped: None,
        untracked: vec![],
    })
}

/// Recomputes the repair-trace test recorded in `stored` (a `trace` entry) from its recorded
/// inputs: the original and replacement passage files named by the entry's `inputs` (relative to
/// the repository root, each with its recorded hash), tested with the stored record's method
/// and seed (so with the same folds). The recomputed record must equal the stored one field for
/// field, and its serialization (pretty JSON, as the ledger stores it) hash to `result_sha256`.
///
/// Errors: `stored` is not a trace entry, or its stored result is not a valid trace record; a
/// passages file that can no longer be read or tested (exit 2). Mismatches are not errors: they
/// are listed in the report with `ok = false`.
pub fn rerun_trace(ledger: &Ledger, stored: &StoredEntry) -> Result<RerunReport> {
    let e = &stored.entry;
    let mut rep = start(stored, EntryKind::Trace)?;
    let old: TraceRecord = records::read_result(stored, "trace")?;
    let root = ledger.root();
    if let Some(why) = check_inputs(ledger, &root, e, &mut rep) {
        rep.skipped = Some(why);
        return Ok(rep);
    }
    let path = |role: InputRole| e.inputs.keys().find(|k| k.role == role).map(|k| root.join(&k.path));
    let (Some(orig), Some(repl)) = (path(InputRole::Original), path(InputRole::Replacement)) else {
        rep.problems
            .push("the entry records no original and replacement passages".into());
        return Ok(rep);
    };
    if !rep.problems.is_empty() {
        return Ok(rep);
    }
    let (o, _) = super::trace::read(&orig)?;
    let (r, _) = super::trace::read(&repl)?;
    let (_, t) = super::trace::test(&o, &r, &old.method, old.seed)?;
    let new = TraceRecord {
        record_version: old.record_version,
        ..TraceRecord::new(&t, &old.method, old.seed)
    };
    rep.problems = trace_differences(&old, &new);
    let pretty = serde_json::to_vec_pretty(&records::to_value(&new)?)
        .map_err(|x| Error::internal("serializing the trace record").caused_by(x))?;
    let h = crate::io::sha256_hex(&pretty);
    if rep.problems.is_empty() && e.result_sha256.as_deref() != Some(h.as_str()) {
        rep.problems
            .push(format!("recomputed result sha256 {} differs from the recorded one", h));
    }
    rep.ok = rep.problems.is_empty();
    rep.recomputed = Some(h);
    Ok(rep)
}

/// What differs between a stored trace record and its recomputation, part by part (empty when
/// they are equal).
fn trace_differences(old: &TraceRecord, new: &TraceRecord) -> Vec<String> {
    let mut out = Vec::new();
    if (old.originals, old.replacements) != (new.originals, new.replacements) {
        out.push(format!(
            "passages: recorded {} original and {} replacement, recomputed {} and {}",
            old.originals, old.replacements, new.originals, new.replacements
        ));
    }
    if old.features != new.features {
        out.push(format!(
            "features: recorded {}, recomputed {}",
            old.features, new.features
        ));
    }
    if old.folds != new.folds {
        out.push("the folds' fits differ from the recorded ones".into());
    }
    if old.result != new.result {
        let show = |x: &TraceRecord| {
            format!(
                "AUC {} [{}, {}] ({})",
                x.result.auc,
                x.result.lower,
                x.result.upper,
                x.result.verdict.as_str()
            )
        };
        out.push(format!("recorded {}, recomputed {}", show(old), show(new)));
    }
    if out.is_empty() && old != new {
        out.push("the recomputed record differs from the recorded one".into());
    }
    out
}

/// Checks that every recorded input of `e` (but the protocol, whose text the ledger holds) is
/// in the repository with its recorded hash; each problem goes into `rep.problems`, and an
/// input present but not committed as read into `rep.untracked`. Returns why the analysis
/// cannot be recomputed at all (an input read from standard input), if so.
fn check_inputs(ledger: &Ledger, root: &Path, e: &crate::ledger::Entry, rep: &mut RerunReport) -> Option<String> {
    for (k, want) in &e.inputs {
        if k.role == InputRole::Protocol {
            continue;
        }
        if k.path == crate::input::STDIN_ARG {
            return Some(format!(
                "{} was read from standard input, which cannot be read again: the analysis is not recomputed (analyze a file to make it re-runnable)",
                k
            ));
        }
        if !root.join(&k.path).exists() && !Path::new(&k.path).is_absolute() {
            rep.problems.push(missing(ledger, k));
            continue;
        }
        let Some(path) = inside(root, &k.path) else {
            rep.problems.push(format!(
                "{}: not a file inside the repository, so it is not read (copy the input into the repository to rerun)",
                k
            ));
            continue;
        };
        match crate::io::sha256_file(&path) {
            Ok(h) if &h == want => {
                if let Some(t) = super::inputs::tracking(ledger.repo(), &k.path) {
                    rep.untracked.push(format!("{} ({})", k, t));
                }
            }
            Ok(h) => rep
                .problems
                .push(format!("{} changed: recorded {}, now {}", k, want, h)),
            Err(x) => rep.problems.push(format!("{}: {}", k, x.message)),
        }
    }
    None
}

/// Why the recorded input `k` is missing: git knows the path (it was committed, then moved or
/// deleted), or it does not (it was never committed, as in a clone of a repository whose
/// author did not add it).
fn missing(ledger: &Ledger, k: &crate::ledger::InputKey) -> String {
    let known = ledger
        .repo()
        .index()
        .ok()
        .is_some_and(|i| i.get_path(Path::new(&k.path), 0).is_some());
    if known {
        format!(
            "{}: no such file (it was moved or deleted; git checkout -- {} restores the committed one)",
            k,
            crate::text::shell_word(&k.path)
        )
    } else {
        format!("{}: not in the repository (was it committed?)", k)
    }
}

/// `rel` under `root` when it names a regular file inside the repository (no absolute path, no
/// `..`, no link leading out, no device): the only inputs a rerun reads.
fn inside(root: &Path, rel: &str) -> Option<std::path::PathBuf> {
    use std::path::Component;
    let p = Path::new(rel);
    if p.components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let full = root.join(p);
    let canon = full.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    (canon.starts_with(&root) && canon.is_file()).then_some(canon)
}

/// Re-runs every `analyze` and `trace` entry of the ledger and adds the outcome to `report`: a
/// match is the note `rerun-matches`, anything else the finding `rerun-mismatch`.
///
/// Errors: as [`rerun`] and [`rerun_trace`].
pub fn rerun_all(ledger: &Ledger, report: &mut VerifyReport) -> Result<Vec<RerunReport>> {
    let entries = ledger.entries()?;
    let mut out = Vec::new();
    for e in &entries {
        let (r, what) = match e.entry.kind {
            EntryKind::Analyze => (rerun(ledger, &entries, e)?, "analysis"),
            EntryKind::Trace => (rerun_trace(ledger, e)?, "repair-trace test"),
            _ => continue,
        };
        add_outcome(report, &r, what);
        out.push(r);
    }
    Ok(out)
}

/// Adds the outcome of one rerun (of `what`: an analysis, a repair-trace test) to `report`.
fn add_outcome(report: &mut VerifyReport, r: &RerunReport, what: &str) {
    if !r.untracked.is_empty() {
        report.notes.push(Finding::new(
            FindingCode::InputUntracked,
            Some(r.seq),
            format!(
                "not committed to the repository: {}; a reviewer's clone will not have {} (git add, then git commit)",
                r.untracked.join(", "),
                if r.untracked.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
    if let Some(why) = &r.skipped {
        report
            .notes
            .push(Finding::new(FindingCode::RerunSkipped, Some(r.seq), why.clone()));
    } else if r.ok {
        let msg = format!(
            "{} recomputed from its recorded inputs: result sha256 {} matches",
            what,
            r.recomputed.as_deref().unwrap_or("-")
        );
        report
            .notes
            .push(Finding::new(FindingCode::RerunMatches, Some(r.seq), msg));
    } else {
        report.ok = false;
        report.findings.push(Finding::new(
            FindingCode::RerunMismatch,
            Some(r.seq),
            // An analysis mismatch reads as before; other kinds are named.
            match what {
                "analysis" => r.problems.join("; "),
                _ => format!("{}: {}", what, r.problems.join("; ")),
            },
        ));
    }
}
