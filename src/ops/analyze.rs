//! `pledge analyze` (checked against the registration, recorded in the ledger) and `pledge
//! compare` (the same methods on score files, without a ledger).
//!
//! Refusals of `analyze` (exit 1), each overridable with a deviation reason, in which case a
//! `deviation` entry listing them is appended in the same atomic step as the `analyze` entry:
//! - the protocol is not registered, or changed since ([`query::check_registered`]);
//! - the latest `stop`/`go` entry of the study is `stop`;
//! - `--components FILE` is given and its SHA-256 (raw bytes) differs from the one recorded by
//!   the latest `count`/`stop`/`go`/`assign` entry of the study under the `assignment` role (or
//!   no such entry records one).
//!
//! The `analyze` entry records `inputs` (`protocol:PATH`, `scores:PATH` per file, `qrels:PATH`
//! and `run:PATH` per run, `assignment:PATH`, `strata:PATH` → SHA-256 of the raw bytes, PATH
//! relative to the repository root), `rng` (ChaCha8 and the seed), `result_sha256` of the full
//! [`AnalysisResult`] (which holds the settings and, under `options`, the input paths in order
//! and the reader options) and an [`AnalyzeSummary`].

use super::{inputs, query, Notes};
use crate::error::{refused_by, Error, Refusal, Result};
use crate::ledger::{DataAccess, Draft, Entry, EntryKind, InputKey, InputRole, Inputs, Ledger, StoredEntry};
use crate::protocol::load_protocol;
use crate::records::{self, AnalyzeSummary, ComparisonSummary, DeviationSummary};
use crate::rng::RngInfo;
use crate::stats::settings::{RunOptions, Settings, TrecInputs};
use crate::stats::AnalysisResult;
use chrono::{DateTime, Utc};
use std::path::{Path, PathBuf};

/// Qrels and run files given instead of score files (absolute paths).
#[derive(Debug, Clone)]
pub struct TrecFiles {
    /// Qrels file.
    pub qrels: PathBuf,
    /// Run files.
    pub runs: Vec<PathBuf>,
}

/// What `pledge analyze` is asked to do. Paths are absolute.
#[derive(Debug, Clone)]
pub struct AnalyzeRequest {
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
pub struct AnalyzeOutcome {
    /// The result (also stored as the entry's `result.json`).
    pub result: AnalysisResult,
    /// The appended `analyze` entry.
    pub entry: Entry,
    /// The appended `deviation` entry, if any.
    pub deviation: Option<Entry>,
    /// Refusals that the deviation overrode.
    pub overridden: Vec<Refusal>,
    /// Notes for people.
    pub notes: Notes,
}

/// The refusals for analyzing `study` with the assignment hash `assignment` (see module docs),
/// besides the registration check.
pub fn refusals(entries: &[StoredEntry], study: &str, assignment: Option<&str>) -> Vec<Refusal> {
    let mut out = Vec::new();
    if let Some(e) = query::latest(entries, study, &[EntryKind::Stop, EntryKind::Go]) {
        if e.entry.kind == EntryKind::Stop {
            out.push(Refusal::Stopped { seq: e.entry.seq });
        }
    }
    if let Some(h) = assignment {
        let kinds = [EntryKind::Count, EntryKind::Stop, EntryKind::Go, EntryKind::Assign];
        match query::latest(entries, study, &kinds) {
            None => out.push(Refusal::Assignment(
                "no components entry records a component assignment for this study".into(),
            )),
            Some(e) => {
                let rec: Vec<(&InputKey, &String)> = e
                    .entry
                    .inputs
                    .iter()
                    .filter(|(k, _)| k.role == InputRole::Assignment)
                    .collect();
                match rec.first() {
                    None => out.push(Refusal::Assignment(format!(
                        "entry #{} records no component assignment",
                        e.entry.seq
                    ))),
                    Some((k, v)) if !rec.iter().any(|(_, v)| v.as_str() == h) => {
                        out.push(Refusal::Assignment(format!(
                        "the component assignment differs from the one recorded in entry #{} ({} = {}, file now {})",
                        e.entry.seq, k, v, h
                    )))
                    }
                    Some(_) => {}
                }
            }
        }
    }
    out
}

/// Every refusal of analyzing with `lp` given `entries`, and the registration entry's number.
fn all_refusals(
    entries: &[StoredEntry],
    lp: &crate::protocol::LoadedProtocol,
    assignment: Option<&str>,
) -> (Option<u64>, Vec<Refusal>) {
    let mut refused = Vec::new();
    let reg = match query::check_registered(entries, lp) {
        Ok(r) => Some(r.entry.seq),
        Err(r) => {
            refused.push(r);
            None
        }
    };
    refused.extend(refusals(entries, &lp.protocol.study.id, assignment));
    (reg, refused)
}

fn refusal(study: &str, refused: &[Refusal]) -> Error {
    let hint = refused
        .iter()
        .find_map(query::registration_hint)
        .unwrap_or_else(|| "fix the cause, or proceed and record it with --deviation \"reason\"".into());
    refused_by(
        format!("analysis of study `{}` refused by the registration", study),
        refused,
        hint,
    )
}

/// Runs `pledge analyze`: the checks, the analysis and its ledger entries.
///
/// Errors: refusals without a deviation reason (exit 1, every refusal listed as a cause); bad
/// inputs (exit 2); git failures (exit 70).
pub fn analyze(ledger: &Ledger, req: &AnalyzeRequest, now: DateTime<Utc>) -> Result<AnalyzeOutcome> {
    let lp = load_protocol(&req.protocol)?;
    let study = lp.protocol.study.id.clone();
    if let Some(r) = &req.deviation {
        if r.trim().is_empty() {
            return Err(Error::input("--deviation needs a non-empty reason"));
        }
    }
    let assign_hash = match &req.components {
        Some(p) => Some(crate::io::sha256_file(p)?),
        None => None,
    };
    // A first look, so that a refused analysis is refused before its inputs are read; the
    // check that counts runs again inside the append.
    let (_, refused) = all_refusals(&ledger.entries()?, &lp, assign_hash.as_deref());
    if !refused.is_empty() && req.deviation.is_none() {
        return Err(refusal(&study, &refused));
    }
    let rel = |p: &Path| ledger.relative(p);
    let opts = RunOptions {
        scores: req.scores.iter().map(|p| rel(p)).collect(),
        components: req.components.as_deref().map(rel),
        strata: req.strata.as_deref().map(rel),
        read: req.read.clone(),
        baseline: req.baseline.clone(),
        split: req.split.clone(),
        trec: req.trec.as_ref().map(|t| TrecInputs {
            qrels: rel(&t.qrels),
            runs: t.runs.iter().map(|p| rel(p)).collect(),
            measure: lp.protocol.target.metric.clone(),
            complete: lp.protocol.analysis.missing_topics == crate::protocol::MissingTopics::Zero,
        }),
    };
    let root = ledger.root();
    let settings = settings_for(&lp.protocol, &opts);
    let loaded = inputs::load(
        &root,
        &opts,
        lp.protocol.analysis.strata_field.as_deref(),
        Some(&lp.protocol.pool),
    )?;
    let mut base = crate::stats::run(&loaded, &settings, "analyze", "", Some(study.clone()))?;
    base.options = Some(opts.clone());
    let mut hashes = Inputs::new();
    hashes.insert(
        InputKey::new(InputRole::Protocol, rel(&lp.path)),
        lp.hash.raw_sha256.clone(),
    );
    for (p, r) in req.scores.iter().zip(&opts.scores) {
        hashes.insert(InputKey::new(InputRole::Scores, r.clone()), crate::io::sha256_file(p)?);
    }
    if let (Some(t), Some(tr)) = (&req.trec, &opts.trec) {
        hashes.insert(
            InputKey::new(InputRole::Qrels, tr.qrels.clone()),
            crate::io::sha256_file(&t.qrels)?,
        );
        for (p, r) in t.runs.iter().zip(&tr.runs) {
            hashes.insert(InputKey::new(InputRole::Run, r.clone()), crate::io::sha256_file(p)?);
        }
    }
    if let (Some(h), Some(r)) = (&assign_hash, &opts.components) {
        hashes.insert(InputKey::new(InputRole::Assignment, r.clone()), h.clone());
    }
    if let (Some(p), Some(r)) = (&req.strata, &opts.strata) {
        hashes.insert(InputKey::new(InputRole::Strata, r.clone()), crate::io::sha256_file(p)?);
    }
    let protocol_path = Some(rel(&lp.path));
    let mut landed: Option<(AnalysisResult, Vec<Refusal>)> = None;
    let written = ledger.append_many_with(now, |entries| {
        let (reg, refused) = all_refusals(entries, &lp, assign_hash.as_deref());
        if !refused.is_empty() && req.deviation.is_none() {
            return Err(refusal(&study, &refused));
        }
        let mut result = base.clone();
        result.registration = match (reg, &req.deviation) {
            (Some(seq), None) => format!("protocol registered (entry #{}), sha256 {}", seq, lp.hash.sha256),
            (_, Some(r)) => format!(
                "deviation recorded: {} (overriding: {})",
                r,
                if refused.is_empty() {
                    "nothing".to_string()
                } else {
                    refused.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ")
                }
            ),
            (None, None) => "unregistered".into(),
        };
        let mut drafts = Vec::new();
        if let Some(reason) = &req.deviation {
            drafts.push(Draft {
                kind: Some(EntryKind::Deviation),
                study_id: study.clone(),
                protocol_sha256: Some(lp.hash.sha256.clone()),
                protocol_path: protocol_path.clone(),
                inputs: hashes.clone(),
                reason: Some(reason.clone()),
                summary: records::to_value(&DeviationSummary {
                    command: "analyze".into(),
                    overridden: refused.iter().map(|x| x.to_string()).collect(),
                })?,
                ..Draft::default()
            });
        }
        drafts.push(Draft {
            kind: Some(EntryKind::Analyze),
            study_id: study.clone(),
            protocol_sha256: Some(lp.hash.sha256.clone()),
            protocol_path: protocol_path.clone(),
            inputs: hashes.clone(),
            rng: Some(RngInfo::chacha8(settings.seed)),
            summary: records::to_value(&summary(&result, req.deviation.is_some()))?,
            result: Some(records::to_value(&result)?),
            // The analysis prints its results: from here on they have been seen.
            data_access: Some(DataAccess::ResultsSeen),
            ..Draft::default()
        });
        landed = Some((result, refused));
        Ok(drafts)
    })?;
    let (result, overridden) = landed.ok_or_else(|| Error::internal("analyze: nothing was appended"))?;
    let mut written = written.into_iter();
    let deviation = if req.deviation.is_some() { written.next() } else { None };
    let entry = written
        .next()
        .ok_or_else(|| Error::internal("analyze: the analyze entry was not appended"))?;
    let mut notes = Notes::new();
    if let Some(d) = &deviation {
        let what: Vec<String> = overridden.iter().map(|x| x.to_string()).collect();
        notes.push(super::Note::info(format!(
            "recorded deviation entry #{} (overriding: {})",
            d.seq,
            if what.is_empty() {
                "nothing".into()
            } else {
                what.join("; ")
            }
        )));
    }
    notes.push(super::Note::info(format!(
        "recorded analyze entry #{} (result sha256 {})",
        entry.seq,
        entry.result_sha256.as_deref().unwrap_or("-")
    )));
    Ok(AnalyzeOutcome {
        result,
        entry,
        deviation,
        overridden,
        notes,
    })
}

/// The settings of an analysis of protocol `p` run with `opts` (a command-line baseline
/// overrides the protocol's).
pub fn settings_for(p: &crate::protocol::Protocol, opts: &RunOptions) -> Settings {
    let mut s = Settings::from_protocol(p);
    if opts.baseline.is_some() {
        s.baseline = opts.baseline.clone();
    }
    s
}

/// The entry's summary (see [`AnalyzeSummary`]).
pub fn summary(r: &AnalysisResult, deviation: bool) -> AnalyzeSummary {
    AnalyzeSummary {
        trials: r.settings.trials,
        seed: r.settings.seed,
        topics: r.topics.analyzed,
        components: r.components.as_ref().map(|c| c.components),
        deviation,
        comparisons: r
            .comparisons
            .iter()
            .map(|c| ComparisonSummary {
                system: c.system.clone(),
                baseline: c.baseline.clone(),
                difference: c.difference,
                interval: c.paired.interval,
                component_interval: c.component.as_ref().map(|b| b.interval),
                reversal_rate: c.paired.reversal_rate,
                ties_share: c.paired.ties_share,
                p_t: c.t_test.p,
                p_randomization: c.randomization.p,
                p_adjusted: c.p_adjusted.p,
                adjust: c.p_adjusted.method.clone(),
            })
            .collect(),
    }
}

/// What `pledge compare` is asked to do: the methods' settings and the inputs (paths relative
/// to `root`, or absolute).
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// The directory input paths are relative to (the working directory).
    pub root: PathBuf,
    /// Settings (from the protocol format's defaults and the flags).
    pub settings: Settings,
    /// Inputs and reader options.
    pub options: RunOptions,
    /// Strata column, if stratified.
    pub strata_field: Option<String>,
}

/// What `compare` did.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// The result.
    pub result: AnalysisResult,
    /// Notes for people.
    pub notes: Notes,
}

/// Runs `pledge compare`: the analysis without a registration and without a ledger.
///
/// Errors (exit 2): bad inputs or settings.
pub fn compare(req: &CompareRequest) -> Result<CompareOutcome> {
    if !(req.settings.interval_level > 0.0 && req.settings.interval_level < 1.0) {
        return Err(Error::input("--level must be in (0, 1)"));
    }
    let loaded = inputs::load(&req.root, &req.options, req.strata_field.as_deref(), None)?;
    let result = crate::stats::run(
        &loaded,
        &req.settings,
        "compare",
        "not checked against a registration; no ledger entry written (use `pledge analyze` for a registered study)",
        None,
    )?;
    Ok(CompareOutcome {
        result,
        notes: vec![super::Note::info(
            "pledge compare does not check a registration and writes no ledger entry",
        )],
    })
}
