//! `pledge analyze` against the registration: the checks that refuse an analysis, the ledger
//! entries it appends, and [`rerun`], which recomputes a recorded analysis (`verify --rerun`).
//!
//! Refusals (exit 1), each overridable with a deviation reason (a `deviation` entry listing them
//! is appended first):
//! - the protocol is not registered, or changed since ([`crate::study::check_registered`]);
//! - the latest `stop`/`go` entry of the study is `stop`;
//! - `--components FILE` is given and its SHA-256 (raw bytes) differs from the one recorded by
//!   the latest `count`/`stop`/`go`/`assign` entry of the study under an input key containing
//!   `assignment` (or no such entry records one).
//!
//! The `analyze` entry records `inputs` = `protocol:PATH`, `scores:PATH` (one per file),
//! `assignment:PATH`, `strata:PATH` → SHA-256 of the raw bytes (PATH relative to the repository
//! root), `rng` = ChaCha8 and the seed, `result_sha256` of the full [`AnalysisResult`] (which
//! holds the settings and, under `options`, the input paths in order and the reader options), and
//! a `summary` (see [`summary`]).

use super::analyze::{run, AnalysisResult, Inputs};
use super::settings::{RunOptions, Settings};
use super::strata::read_strata;
use crate::error::{Error, Result};
use crate::ledger::{Draft, Entry, EntryKind, Ledger, RngInfo, StoredEntry};
use crate::study::{check_registered, load_protocol, repo_relative};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `pledge analyze` was asked to do. Paths are absolute or relative to the process.
#[derive(Debug, Clone)]
pub struct Request {
    /// Protocol file.
    pub protocol: PathBuf,
    /// Score files.
    pub scores: Vec<PathBuf>,
    /// Component assignment file.
    pub components: Option<PathBuf>,
    /// Strata file.
    pub strata: Option<PathBuf>,
    /// Reader options.
    pub read: crate::scores::ReadOptions,
    /// Baseline override.
    pub baseline: Option<String>,
    /// Split of the assignment to analyze.
    pub split: Option<String>,
    /// Deviation reason: proceed despite refusals and record them.
    pub deviation: Option<String>,
}

/// What `analyze` did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The result (also stored as the entry's `result.json`).
    pub result: AnalysisResult,
    /// The appended `analyze` entry.
    pub entry: Entry,
    /// The appended `deviation` entry, if any.
    pub deviation: Option<Entry>,
    /// Refusals that the deviation overrode.
    pub overridden: Vec<String>,
}

fn latest<'a>(entries: &'a [StoredEntry], study: &str, kinds: &[EntryKind]) -> Option<&'a StoredEntry> {
    entries.iter().rev().find(|e| e.entry.study_id == study && kinds.contains(&e.entry.kind))
}

/// The refusals for analyzing `study` with the assignment hash `assignment` (see module docs).
pub fn refusals(entries: &[StoredEntry], study: &str, assignment: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = latest(entries, study, &[EntryKind::Stop, EntryKind::Go]) {
        if e.entry.kind == EntryKind::Stop {
            out.push(format!("the stop rule said stop (entry #{})", e.entry.seq));
        }
    }
    if let Some(h) = assignment {
        let kinds = [EntryKind::Count, EntryKind::Stop, EntryKind::Go, EntryKind::Assign];
        match latest(entries, study, &kinds) {
            None => out.push("no components entry records a component assignment for this study".into()),
            Some(e) => {
                let rec: Vec<(&String, &String)> = e.entry.inputs.iter().filter(|(k, _)| k.contains("assignment")).collect();
                if rec.is_empty() {
                    out.push(format!("entry #{} records no component assignment", e.entry.seq));
                } else if !rec.iter().any(|(_, v)| v.as_str() == h) {
                    out.push(format!(
                        "the component assignment differs from the one recorded in entry #{} ({} = {}, file now {})",
                        e.entry.seq, rec[0].0, rec[0].1, h
                    ));
                }
            }
        }
    }
    out
}

/// Loads the inputs named by `opts` (paths resolved against `root`); notes name files by the
/// recorded (relative) path so that the result does not depend on where the repository lies.
pub fn load_inputs(root: &Path, opts: &RunOptions, strata_field: Option<&str>) -> Result<Inputs> {
    let abs = |p: &str| root.join(p);
    let paths: Vec<PathBuf> = opts.scores.iter().map(|p| abs(p)).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let mut scores = crate::scores::read_many(&refs, &opts.read)?;
    for (p, rel) in paths.iter().zip(&opts.scores) {
        let shown = p.display().to_string();
        for n in &mut scores.notes {
            *n = n.replace(&shown, rel);
        }
    }
    let assignment = match &opts.components {
        Some(c) => Some(crate::components::assignment::read(&abs(c))?),
        None => None,
    };
    let strata = match strata_field {
        Some(f) => match &opts.strata {
            Some(s) => Some(read_strata(&abs(s), f)?),
            None => match paths.first() {
                Some(p) => Some(read_strata(p, f).map_err(|e| {
                    e.with_hint(format!("the protocol stratifies by `{}`: pass --strata FILE with that column", f))
                })?),
                None => None,
            },
        },
        None => None,
    };
    Ok(Inputs { scores, assignment, split: opts.split.clone(), strata, strata_field: strata_field.map(str::to_string) })
}

/// Runs `pledge analyze`: checks, analysis, ledger entries.
///
/// Errors: refusals without a deviation reason (exit 1, every refusal listed as a cause); bad
/// inputs (exit 2); git failures (exit 70).
pub fn analyze(ledger: &Ledger, req: &Request, now: DateTime<Utc>) -> Result<Outcome> {
    let lp = load_protocol(&req.protocol)?;
    let entries = ledger.entries()?;
    let study = lp.protocol.study.id.clone();
    let mut refused = Vec::new();
    let reg = match check_registered(&entries, &lp) {
        Ok(r) => Some(r.entry.seq),
        Err(e) => {
            refused.push(std::iter::once(e.message.clone()).chain(e.causes.clone()).collect::<Vec<_>>().join(": "));
            None
        }
    };
    let assign_hash = match &req.components {
        Some(p) => Some(crate::io::sha256_file(p)?),
        None => None,
    };
    refused.extend(refusals(&entries, &study, assign_hash.as_deref()));
    if let Some(r) = &req.deviation {
        if r.trim().is_empty() {
            return Err(Error::input("--deviation needs a non-empty reason"));
        }
    }
    if !refused.is_empty() && req.deviation.is_none() {
        let mut e = Error::refused(format!("analysis of study `{}` refused by the registration", study));
        for r in &refused {
            e = e.caused_by(r);
        }
        return Err(e.with_hint("fix the cause, or proceed and record it with --deviation \"reason\""));
    }
    let rel = |p: &Path| repo_relative(ledger, p);
    let opts = RunOptions {
        scores: req.scores.iter().map(|p| rel(p)).collect(),
        components: req.components.as_deref().map(rel),
        strata: req.strata.as_deref().map(rel),
        read: req.read.clone(),
        baseline: req.baseline.clone(),
        split: req.split.clone(),
    };
    let root = ledger.root();
    let settings = settings_for(&lp.protocol, &opts);
    let inputs = load_inputs(&root, &opts, lp.protocol.analysis.strata_field.as_deref())?;
    let registration = match (reg, &req.deviation) {
        (Some(seq), None) => format!("protocol registered (entry #{}), sha256 {}", seq, lp.hash.sha256),
        (_, Some(r)) => format!("deviation recorded: {} (overriding: {})", r, if refused.is_empty() { "nothing".to_string() } else { refused.join("; ") }),
        (None, None) => "unregistered".into(),
    };
    let mut result = run(&inputs, &settings, "analyze", &registration, Some(study.clone()))?;
    result.options = Some(opts.clone());
    let mut hashes = BTreeMap::new();
    hashes.insert(format!("protocol:{}", rel(&lp.path)), lp.hash.raw_sha256.clone());
    for (p, r) in req.scores.iter().zip(&opts.scores) {
        hashes.insert(format!("scores:{}", r), crate::io::sha256_file(p)?);
    }
    if let (Some(h), Some(r)) = (&assign_hash, &opts.components) {
        hashes.insert(format!("assignment:{}", r), h.clone());
    }
    if let (Some(p), Some(r)) = (&req.strata, &opts.strata) {
        hashes.insert(format!("strata:{}", r), crate::io::sha256_file(p)?);
    }
    let protocol_path = Some(rel(&lp.path));
    let deviation = match &req.deviation {
        Some(reason) => Some(ledger.append(
            &Draft {
                kind: Some(EntryKind::Deviation),
                study_id: study.clone(),
                protocol_sha256: Some(lp.hash.sha256.clone()),
                protocol_path: protocol_path.clone(),
                inputs: hashes.clone(),
                reason: Some(reason.clone()),
                summary: json!({ "command": "analyze", "overridden": refused }),
                ..Draft::default()
            },
            now,
        )?),
        None => None,
    };
    let value = serde_json::to_value(&result).map_err(|e| Error::internal("serializing the analysis").caused_by(e))?;
    let entry = ledger.append(
        &Draft {
            kind: Some(EntryKind::Analyze),
            study_id: study,
            protocol_sha256: Some(lp.hash.sha256.clone()),
            protocol_path,
            inputs: hashes,
            rng: Some(RngInfo::chacha8(settings.seed)),
            summary: summary(&result, req.deviation.is_some()),
            result: Some(value),
            ..Draft::default()
        },
        now,
    )?;
    Ok(Outcome { result, entry, deviation, overridden: refused })
}

fn settings_for(p: &crate::protocol::Protocol, opts: &RunOptions) -> Settings {
    let mut s = Settings::from_protocol(p);
    if opts.baseline.is_some() {
        s.baseline = opts.baseline.clone();
    }
    s
}

/// The entry's `summary`: `{trials, seed, topics, components, deviation, comparisons: [{system,
/// baseline, difference, interval, component_interval, reversal_rate, ties_share, p_t,
/// p_randomization, p_adjusted, adjust}]}`.
pub fn summary(r: &AnalysisResult, deviation: bool) -> Value {
    let comps: Vec<Value> = r
        .comparisons
        .iter()
        .map(|c| {
            json!({
                "system": c.system,
                "baseline": c.baseline,
                "difference": c.difference,
                "interval": c.paired.interval,
                "component_interval": c.component.as_ref().map(|b| b.interval),
                "reversal_rate": c.paired.reversal_rate,
                "ties_share": c.paired.ties_share,
                "p_t": c.t_test.p,
                "p_randomization": c.randomization.p,
                "p_adjusted": c.p_adjusted.p,
                "adjust": c.p_adjusted.method,
            })
        })
        .collect();
    json!({
        "trials": r.settings.trials,
        "seed": r.settings.seed,
        "topics": r.topics.analyzed,
        "components": r.components.as_ref().map(|c| c.components),
        "deviation": deviation,
        "comparisons": comps,
    })
}

/// Outcome of re-running a recorded analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RerunReport {
    /// Sequence number of the `analyze` entry.
    pub seq: u64,
    /// Whether every input still has its recorded hash and the recomputed result hash matches.
    pub ok: bool,
    /// Recorded `result_sha256`.
    pub recorded: Option<String>,
    /// SHA-256 of the recomputed result (`None` when it could not be recomputed).
    pub recomputed: Option<String>,
    /// What did not match or could not be read.
    pub problems: Vec<String>,
}

/// Recomputes the analysis recorded in `stored` (an `analyze` entry) from the recorded inputs:
/// the protocol version registered in the ledger under the entry's `protocol_sha256` (its stored
/// `protocol.toml`), the files listed in the stored result's `options` (relative to the
/// repository root) whose hashes must equal the entry's `inputs`, and the labels (`mode`,
/// `registration`, `study_id`) of the stored result. Then the result is serialized as the ledger
/// stores it (pretty JSON) and its SHA-256 compared with `result_sha256`.
///
/// Errors: `stored` is not an analyze entry or has no stored result (exit 2). Mismatches are not
/// errors: they are listed in the report with `ok = false`.
pub fn rerun(ledger: &Ledger, stored: &StoredEntry) -> Result<RerunReport> {
    let e = &stored.entry;
    if e.kind != EntryKind::Analyze {
        return Err(Error::input(format!("entry #{} is a {} entry, not analyze", e.seq, e.kind.as_str())));
    }
    let mut rep = RerunReport { seq: e.seq, ok: false, recorded: e.result_sha256.clone(), recomputed: None, problems: vec![] };
    let bytes = stored.result.as_ref().ok_or_else(|| Error::input(format!("entry #{} has no stored result", e.seq)))?;
    let old: Value = serde_json::from_slice(bytes).map_err(|x| Error::input(format!("entry #{}: result.json is not JSON", e.seq)).caused_by(x))?;
    let opts: RunOptions = match old.get("options").cloned().map(serde_json::from_value) {
        Some(Ok(o)) => o,
        _ => {
            rep.problems.push("the stored result names no inputs (options)".into());
            return Ok(rep);
        }
    };
    let entries = ledger.entries()?;
    let reg = entries.iter().rev().find(|x| {
        x.entry.study_id == e.study_id
            && matches!(x.entry.kind, EntryKind::Register | EntryKind::Amend)
            && x.entry.protocol_sha256 == e.protocol_sha256
            && x.protocol_text.is_some()
    });
    let protocol = match reg.and_then(|r| r.protocol_text.as_deref()) {
        Some(text) => crate::protocol::parse(text, Path::new("protocol.toml (ledger)"))?,
        None => match &e.protocol_path {
            Some(p) => crate::protocol::load(&ledger.root().join(p))?.0,
            None => {
                rep.problems.push("no protocol text recorded for this analysis".into());
                return Ok(rep);
            }
        },
    };
    let root = ledger.root();
    for (k, want) in &e.inputs {
        let Some((role, p)) = k.split_once(':') else { continue };
        if role == "protocol" {
            continue;
        }
        match crate::io::sha256_file(&root.join(p)) {
            Ok(h) if &h == want => {}
            Ok(h) => rep.problems.push(format!("{} changed: recorded {}, now {}", k, want, h)),
            Err(x) => rep.problems.push(format!("{}: {}", k, x.message)),
        }
    }
    if !rep.problems.is_empty() {
        return Ok(rep);
    }
    let settings = settings_for(&protocol, &opts);
    let inputs = load_inputs(&root, &opts, protocol.analysis.strata_field.as_deref())?;
    let label = |k: &str| old.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut result = run(&inputs, &settings, &label("mode"), &label("registration"), old.get("study_id").and_then(Value::as_str).map(str::to_string))?;
    result.options = Some(opts);
    let value = serde_json::to_value(&result).map_err(|x| Error::internal("serializing the analysis").caused_by(x))?;
    let pretty = serde_json::to_vec_pretty(&value).map_err(|x| Error::internal("serializing the analysis").caused_by(x))?;
    let h = crate::io::sha256_hex(&pretty);
    rep.ok = e.result_sha256.as_deref() == Some(h.as_str());
    if !rep.ok {
        rep.problems.push(format!("recomputed result sha256 {} differs from the recorded one", h));
    }
    rep.recomputed = Some(h);
    Ok(rep)
}
