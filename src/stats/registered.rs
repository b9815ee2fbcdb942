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
use crate::ledger::{Draft, Entry, EntryKind, Ledger, StoredEntry};
use crate::rng::RngInfo;
use crate::study::{check_registered, load_protocol, repo_relative};
use chrono::{DateTime, Utc};
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
    /// Qrels and runs evaluated with the protocol's metric instead of score files.
    pub trec: Option<TrecFiles>,
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
    entries
        .iter()
        .rev()
        .find(|e| e.entry.study_id == study && kinds.contains(&e.entry.kind))
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
                let rec: Vec<(&String, &String)> = e
                    .entry
                    .inputs
                    .iter()
                    .filter(|(k, _)| k.contains("assignment"))
                    .collect();
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
pub fn load_inputs(
    root: &Path,
    opts: &RunOptions,
    strata_field: Option<&str>,
    pool: Option<&crate::protocol::Pool>,
) -> Result<Inputs> {
    let abs = |p: &str| root.join(p);
    if opts.split.is_some() && opts.components.is_none() {
        return Err(Error::input(
            "--split needs --components FILE (the assignment that names the splits)",
        ));
    }
    if let Some(t) = &opts.trec {
        return load_trec(root, opts, t, strata_field, pool);
    }
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
        Some(c) => Some(check_split(
            crate::assignment::read(&abs(c))?,
            opts.split.as_deref(),
            c,
        )?),
        None => None,
    };
    let strata = match strata_field {
        Some(f) => match &opts.strata {
            Some(s) => Some(read_strata(&abs(s), f)?),
            None => match paths.first() {
                Some(p) => Some(read_strata(p, f).map_err(|e| {
                    e.with_hint(format!(
                        "the protocol stratifies by `{}`: pass --strata FILE with that column",
                        f
                    ))
                })?),
                None => None,
            },
        },
        None => None,
    };
    Ok(Inputs {
        scores,
        assignment,
        split: opts.split.clone(),
        strata,
        strata_field: strata_field.map(str::to_string),
        pool_bias: None,
    })
}

/// Checks that `split` names a split of the assignment `rows` (read from `file`).
fn check_split(
    rows: Vec<crate::assignment::AssignmentRow>,
    split: Option<&str>,
    file: &str,
) -> Result<Vec<crate::assignment::AssignmentRow>> {
    let names: std::collections::BTreeSet<&str> = rows.iter().filter_map(|r| r.split.as_deref()).collect();
    let Some(want) = split else {
        if names.is_empty() {
            return Ok(rows);
        }
        // Analyzing tuning and final questions together would blur what the split was for.
        return Err(Error::input(format!(
            "{}: the assignment puts components into splits ({}): choose the one to analyze",
            file,
            names.into_iter().collect::<Vec<_>>().join(", ")
        ))
        .with_hint("add --split NAME (usually the final split)"));
    };
    if names.contains(want) {
        return Ok(rows);
    }
    let e = Error::input(format!("{}: no component is assigned to split `{}`", file, want));
    Err(if names.is_empty() {
        e.with_hint("this assignment has no splits: make one with `pledge components PROTOCOL ... --assign`")
    } else {
        e.with_hint(format!(
            "splits in this assignment: {}",
            names.into_iter().collect::<Vec<_>>().join(", ")
        ))
    })
}

/// Inputs from qrels + runs: scores are the per-topic values of the measure; the pool-bias
/// check runs on the same runs with the protocol's `[pool]` (default pool when none).
fn load_trec(
    root: &Path,
    opts: &RunOptions,
    t: &super::settings::TrecInputs,
    strata_field: Option<&str>,
    pool: Option<&crate::protocol::Pool>,
) -> Result<Inputs> {
    use crate::trec::{Duplicates, Qrels, Run};
    let qrels = Qrels::read(&root.join(&t.qrels), Duplicates::Error)?;
    let runs = t
        .runs
        .iter()
        .map(|r| Run::read(&root.join(r), Duplicates::Error))
        .collect::<Result<Vec<_>>>()?;
    let scores = crate::trec::score_table(&qrels, &runs, &t.measure, t.complete)?;
    let default_pool = crate::protocol::Pool::default();
    let pool_bias = Some(crate::trec::pool_bias(
        &qrels,
        &runs,
        pool.unwrap_or(&default_pool),
        &t.measure,
    )?);
    let assignment = match &opts.components {
        Some(c) => Some(check_split(
            crate::assignment::read(&root.join(c))?,
            opts.split.as_deref(),
            c,
        )?),
        None => None,
    };
    let strata = match (strata_field, &opts.strata) {
        (Some(f), Some(s)) => Some(read_strata(&root.join(s), f)?),
        (Some(f), None) => {
            return Err(Error::input(format!("the protocol stratifies by `{}`", f))
                .with_hint("with --qrels/--run, pass --strata FILE with the topic and stratum columns"))
        }
        _ => None,
    };
    Ok(Inputs {
        scores,
        assignment,
        split: opts.split.clone(),
        strata,
        strata_field: strata_field.map(str::to_string),
        pool_bias,
    })
}

/// Qrels and run files given to `analyze` (absolute or relative to the working directory).
#[derive(Debug, Clone)]
pub struct TrecFiles {
    /// Qrels file.
    pub qrels: PathBuf,
    /// Run files.
    pub runs: Vec<PathBuf>,
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
            refused.push(
                std::iter::once(e.message.clone())
                    .chain(e.causes.clone())
                    .collect::<Vec<_>>()
                    .join(": "),
            );
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
        trec: req.trec.as_ref().map(|t| super::settings::TrecInputs {
            qrels: rel(&t.qrels),
            runs: t.runs.iter().map(|p| rel(p)).collect(),
            measure: lp.protocol.target.metric.clone(),
            complete: lp.protocol.analysis.missing_topics == crate::protocol::MissingTopics::Zero,
        }),
    };
    let root = ledger.root();
    let settings = settings_for(&lp.protocol, &opts);
    let inputs = load_inputs(
        &root,
        &opts,
        lp.protocol.analysis.strata_field.as_deref(),
        Some(&lp.protocol.pool),
    )?;
    let registration = match (reg, &req.deviation) {
        (Some(seq), None) => format!("protocol registered (entry #{}), sha256 {}", seq, lp.hash.sha256),
        (_, Some(r)) => format!(
            "deviation recorded: {} (overriding: {})",
            r,
            if refused.is_empty() {
                "nothing".to_string()
            } else {
                refused.join("; ")
            }
        ),
        (None, None) => "unregistered".into(),
    };
    let mut result = run(&inputs, &settings, "analyze", &registration, Some(study.clone()))?;
    result.options = Some(opts.clone());
    let mut hashes = BTreeMap::new();
    hashes.insert(format!("protocol:{}", rel(&lp.path)), lp.hash.raw_sha256.clone());
    for (p, r) in req.scores.iter().zip(&opts.scores) {
        hashes.insert(format!("scores:{}", r), crate::io::sha256_file(p)?);
    }
    if let (Some(t), Some(tr)) = (&req.trec, &opts.trec) {
        hashes.insert(format!("qrels:{}", tr.qrels), crate::io::sha256_file(&t.qrels)?);
        for (p, r) in t.runs.iter().zip(&tr.runs) {
            hashes.insert(format!("run:{}", r), crate::io::sha256_file(p)?);
        }
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
            // The analysis prints its results: from here on they have been seen.
            data_access: Some(crate::ledger::DataAccess::ResultsSeen),
            ..Draft::default()
        },
        now,
    )?;
    Ok(Outcome {
        result,
        entry,
        deviation,
        overridden: refused,
    })
}

pub(crate) fn settings_for(p: &crate::protocol::Protocol, opts: &RunOptions) -> Settings {
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

pub use super::rerun::{rerun, RerunReport};
