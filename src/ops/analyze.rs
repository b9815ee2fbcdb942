//! `pledge analyze` (checked against the registration, recorded in the ledger) and `pledge
//! compare` (the same methods on score files, without a ledger).
//!
//! What `analyze` may do is decided by the registration rules ([`crate::ledger::rules`]),
//! asked about the entry it is about to write ([`crate::ledger::Snapshot::preview`]): every rule
//! the entry would break is a refusal (exit 1), and so is a study that is not registered, or a
//! field the analysis uses otherwise than the protocol fixes (`plan`). Each is overridable with
//! a deviation reason, in which case a `deviation` entry listing them is appended in the same
//! atomic step as the `analyze` entry. The rules refuse, in short: a protocol changed since it
//! was registered; an analysis after the stop rule said stop, or with a stop rule before any
//! count or without the assignment a `go` covers; an assignment other than the study's latest
//! count recorded; a count the registration in force counts otherwise; other data content (per
//! role: scores, qrels, runs, strata) than the study's first analysis read.
//!
//! The `analyze` entry records `inputs` (`protocol:PATH`, `scores:PATH` per file, `qrels:PATH`
//! and `run:PATH` per run, `assignment:PATH`, `strata:PATH` → SHA-256 of the raw bytes, PATH
//! relative to the repository root), `rng` (ChaCha8 and the seed), `result_sha256` of the full
//! [`AnalysisResult`] (which holds the settings and, under `options`, the input paths in order
//! and the reader options) and an [`AnalyzeSummary`]. How it stands against the registration
//! (confirmatory, confirmatory with deviations, exploratory) is the rules' verdict
//! ([`AnalyzeOutcome::verdict`]).

use super::{inputs, query, Notes};
use crate::error::{refused_by, Error, Refusal, Result};
use crate::ledger::rules::Violation;
use crate::ledger::{DataAccess, Draft, Entry, EntryKind, InputKey, InputRole, Inputs, Ledger};
use crate::protocol::load_protocol;
use crate::records::analysis::RegisteredSet;
use crate::records::{self, AnalysisRecord, AnalyzeSummary, ComparisonSummary, DeviationSummary, FieldDeviation};
use crate::rng::RngInfo;
use crate::stats::settings::{Overrides, RunOptions, Settings, TrecInputs};
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
    /// Settings to use instead of the protocol's (each a deviation).
    pub overrides: Overrides,
    /// Runs read only for the pool-bias check (contributors that are not compared).
    pub pool_runs: Vec<PathBuf>,
    /// Allow contributors missing from the supplied runs (no leave-one-run-out figure then).
    pub pool_partial: bool,
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
    /// Fields the analysis uses otherwise than the registration fixes (each recorded).
    pub fields: Vec<FieldDeviation>,
    /// How the analysis stands against the registration (the rules' verdict on its entry).
    pub verdict: Option<crate::ledger::rules::AnalysisVerdict>,
    /// The registered analysis on the registered question set, when the analyzed set differs
    /// from it (also stored in the entry's record).
    pub registered_set: Option<RegisteredSet>,
    /// Notes for people.
    pub notes: Notes,
}

fn refusal(study: &str, refused: &[Refusal]) -> Error {
    let hint = refused.iter().find_map(query::registration_hint).unwrap_or_else(|| {
        "use what the protocol registers, or proceed and record it with --deviation \"reason\"".into()
    });
    refused_by(
        format!("analysis of study `{}` refused by the registration", study),
        refused,
        hint,
    )
}

/// What an analysis will use: its inputs and reader options, its settings, and every field in
/// which these differ from what the protocol fixes.
struct Plan {
    options: RunOptions,
    settings: Settings,
    fields: Vec<FieldDeviation>,
    notes: Notes,
}

fn dev(field: &str, registered: impl Into<String>, used: impl Into<String>) -> FieldDeviation {
    FieldDeviation {
        field: field.into(),
        registered: registered.into(),
        used: used.into(),
    }
}

fn labels_text(l: &[(String, f64)]) -> String {
    if l.is_empty() {
        return "none".into();
    }
    let mut v: Vec<String> = l.iter().map(|(k, x)| format!("{}={}", k, x)).collect();
    v.sort();
    v.join(", ")
}

/// Same measure (`P.10` = `P_10`, and whatever else the trec module reads as one measure).
fn same_measure(a: &str, b: &str) -> bool {
    match (crate::trec::resolve(a), crate::trec::resolve(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.replace('.', "_") == b.replace('.', "_"),
    }
}

/// The plan of `req` under protocol `lp`: the protocol's values where the request gives none,
/// the request's otherwise, each difference listed.
fn plan(lp: &crate::protocol::LoadedProtocol, req: &AnalyzeRequest, rel: &dyn Fn(&Path) -> String) -> Plan {
    use crate::protocol::ScoreLayout;
    let p = &lp.protocol;
    let v2 = p.schema_version >= 2;
    let sc = p.scores.clone().unwrap_or_default();
    let mut fields = Vec::new();
    let mut notes = Notes::new();
    // How scores are read: the measure or the column.
    let registered_measure = if v2 {
        super::checks::measure_of(lp).map(|(m, _)| m)
    } else {
        Some(p.target.metric.clone())
    };
    let metric_key = if v2 { "scores.measure" } else { "target.metric" };
    let mut read = req.read.clone();
    match (&req.read.measure, &registered_measure) {
        (Some(m), Some(r)) if !same_measure(m, r) => fields.push(dev(metric_key, r.clone(), format!("measure {}", m))),
        (Some(m), None) => fields.push(dev(
            "scores.measure",
            match &sc.column {
                Some(c) => format!("none (the scores are column {})", c),
                None => format!("none (the scores are the cells of a {} file)", sc.layout),
            },
            m.clone(),
        )),
        (None, Some(r)) if v2 && req.trec.is_none() && sc.layout == ScoreLayout::TrecEval => {
            read.measure = Some(r.clone())
        }
        _ => {}
    }
    let registered_column = if v2 { sc.column.clone() } else { None };
    match (&req.read.column, &registered_column) {
        (Some(c), Some(r)) if c != r => fields.push(dev("scores.column", r.clone(), c.clone())),
        (Some(c), None) if v2 => fields.push(dev("scores.column", "none", c.clone())),
        (Some(c), None) if c != &p.target.metric => {
            fields.push(dev("target.metric", p.target.metric.clone(), format!("column {}", c)))
        }
        (None, Some(r)) => read.column = Some(r.clone()),
        _ => {}
    }
    // The topic column and the format the registered layout implies.
    if v2 {
        read.topic_column = sc.topic_column.clone();
        if read.format.is_none() {
            read.format = match sc.layout {
                ScoreLayout::TrecEval => Some(crate::scores::ScoreFormat::TrecEval),
                ScoreLayout::Jsonl => Some(crate::scores::ScoreFormat::Jsonl),
                _ => None,
            };
        }
    }
    // Value labels and repeated samples.
    plan_labels(p, req, &mut read, &mut fields, &mut notes);
    if v2 {
        plan_samples(&sc, &mut read, &mut fields);
    }
    // What is read: score files or TREC runs.
    if v2 {
        match (sc.layout, &req.trec) {
            (ScoreLayout::TrecRuns, None) => fields.push(dev("scores.layout", "trec-runs", "score files (--scores)")),
            (l, Some(_)) if !matches!(l, ScoreLayout::TrecRuns | ScoreLayout::Auto) => {
                fields.push(dev("scores.layout", l.to_string(), "TREC runs (--qrels, --run)"))
            }
            _ => {}
        }
    }
    // What is compared.
    let mut settings = Settings::from_protocol(p);
    plan_baseline(p, req, &mut fields);
    // The split analyzed.
    let mut split = req.split.clone();
    if let Some(reg) = &p.analysis.split {
        match &req.split {
            None if req.components.is_some() => split = Some(reg.clone()),
            Some(s) if s != reg => fields.push(dev("analysis.split", reg.clone(), s.clone())),
            _ => {}
        }
    }
    let options = run_options(p, req, read, split, registered_measure, rel);
    // Settings given instead of the protocol's.
    for (field, registered, used) in req.overrides.apply(&mut settings) {
        fields.push(dev(&field, registered, used));
    }
    settings = settings_for(p, &options);
    Plan {
        options,
        settings,
        fields,
        notes,
    }
}

/// The sample column and aggregation the scores are read with (a format-2 protocol's
/// `[scores]`): the registered ones where the request gives none, a deviation where it gives
/// others.
fn plan_samples(
    sc: &crate::protocol::ScoresSpec,
    read: &mut crate::scores::ReadOptions,
    fields: &mut Vec<FieldDeviation>,
) {
    match (&read.sample_column, &sc.sample_column) {
        (Some(c), Some(r)) if c != r => fields.push(dev("scores.sample-column", r.clone(), c.clone())),
        (Some(c), None) => fields.push(dev("scores.sample-column", "none", c.clone())),
        (None, Some(r)) => read.sample_column = Some(r.clone()),
        _ => {}
    }
    match (&read.sample_files, &sc.sample_files) {
        (Some(c), Some(r)) if c != r => fields.push(dev("scores.sample-files", r.clone(), c.clone())),
        (Some(c), None) => fields.push(dev("scores.sample-files", "none", c.clone())),
        (None, Some(r)) => read.sample_files = Some(r.clone()),
        _ => {}
    }
    match read.sample_aggregation {
        Some(a) if a != sc.sample_aggregation => fields.push(dev(
            "scores.sample-aggregation",
            sc.sample_aggregation.to_string(),
            a.to_string(),
        )),
        _ => read.sample_aggregation = Some(sc.sample_aggregation).filter(|a| !a.is_default()),
    }
}

/// The value labels the scores are read with: the registered ones (a format-2 protocol), with a
/// deviation when others are given; a format-1 protocol registers none, so labels given are a
/// note.
fn plan_labels(
    p: &crate::protocol::Protocol,
    req: &AnalyzeRequest,
    read: &mut crate::scores::ReadOptions,
    fields: &mut Vec<FieldDeviation>,
    notes: &mut Notes,
) {
    let registered_labels = p.labels();
    if p.schema_version >= 2 {
        let norm = |l: &[(String, f64)]| {
            let mut v: Vec<(String, String)> = l.iter().map(|(k, x)| (k.to_ascii_lowercase(), x.to_string())).collect();
            v.sort();
            v
        };
        if req.read.labels.is_empty() {
            read.labels = registered_labels.clone();
        } else if norm(&req.read.labels) != norm(&registered_labels) {
            fields.push(dev(
                "scores.labels",
                labels_text(&registered_labels),
                labels_text(&req.read.labels),
            ));
        }
    } else if !req.read.labels.is_empty() {
        notes.push(super::Note::info(format!(
            "value labels {} come from the command line: a format-1 protocol does not register them (format 2 does, in [scores.labels]); the report shows them",
            labels_text(&req.read.labels)
        )));
    }
}

/// The deviation of a `--baseline` from what the protocol compares (its hypotheses, or its
/// `analysis.baseline`).
fn plan_baseline(p: &crate::protocol::Protocol, req: &AnalyzeRequest, fields: &mut Vec<FieldDeviation>) {
    if let Some(b) = &req.baseline {
        if !p.hypotheses.is_empty() {
            let hs: Vec<String> = p
                .hypotheses
                .iter()
                .map(|h| format!("{} vs {}", h.system, h.comparator))
                .collect();
            fields.push(dev("hypotheses", hs.join("; "), format!("every system against {}", b)));
        } else if p.analysis.baseline.as_deref() != Some(b.as_str()) {
            fields.push(dev(
                "analysis.baseline",
                p.analysis.baseline.clone().unwrap_or_else(|| "none (all pairs)".into()),
                b.clone(),
            ));
        }
    }
}

/// The options the analysis runs with and records: the inputs (paths as `rel` shows them,
/// standard input as `-`), how they are read, the baseline, the split, the TREC inputs (with the
/// measure given, else the registered one, else the target metric) and the overrides.
fn run_options(
    p: &crate::protocol::Protocol,
    req: &AnalyzeRequest,
    read: crate::scores::ReadOptions,
    split: Option<String>,
    registered_measure: Option<String>,
    rel: &dyn Fn(&Path) -> String,
) -> RunOptions {
    RunOptions {
        scores: req
            .scores
            .iter()
            .map(|x| match x.file_name() {
                Some(n) if n == crate::input::STDIN_ARG => crate::input::STDIN_ARG.to_string(),
                _ => rel(x),
            })
            .collect(),
        components: req.components.as_deref().map(|x| {
            if crate::input::is_stdin(x) {
                crate::input::STDIN_ARG.to_string()
            } else {
                rel(x)
            }
        }),
        strata: req.strata.as_deref().map(rel),
        read: read.clone(),
        baseline: req.baseline.clone(),
        split,
        trec: req.trec.as_ref().map(|t| TrecInputs {
            qrels: rel(&t.qrels),
            runs: t.runs.iter().map(|x| rel(x)).collect(),
            measure: read
                .measure
                .clone()
                .or_else(|| registered_measure.clone())
                .unwrap_or_else(|| p.target.metric.clone()),
            complete: req.overrides.missing_topics.unwrap_or(p.analysis.missing_topics)
                == crate::protocol::MissingTopics::Zero,
            pool_runs: req.pool_runs.iter().map(|x| rel(x)).collect(),
            pool_partial: req.pool_partial,
        }),
        overrides: req.overrides.clone(),
    }
}

/// The inputs of an analysis, hashed: what its entry records.
///
/// Errors (exit 2): a file that cannot be read.
fn input_hashes(
    req: &AnalyzeRequest,
    lp: &crate::protocol::LoadedProtocol,
    opts: &RunOptions,
    assign_hash: Option<&String>,
    rel: &dyn Fn(&Path) -> String,
) -> Result<Inputs> {
    let mut hashes = Inputs::new();
    hashes.insert(
        InputKey::new(InputRole::Protocol, rel(&lp.path)),
        lp.hash.raw_sha256.clone(),
    );
    for (p, r) in req.scores.iter().zip(&opts.scores) {
        // Standard input is recorded as `-`, with the hash of the bytes read.
        let h = match (&req.read.stdin, p.file_name()) {
            (Some(i), Some(n)) if n == crate::input::STDIN_ARG => i.sha256(),
            _ => crate::io::sha256_file(p)?,
        };
        hashes.insert(InputKey::new(InputRole::Scores, r.clone()), h);
    }
    if let (Some(t), Some(tr)) = (&req.trec, &opts.trec) {
        hashes.insert(
            InputKey::new(InputRole::Qrels, tr.qrels.clone()),
            crate::io::sha256_file(&t.qrels)?,
        );
        for (p, r) in t
            .runs
            .iter()
            .zip(&tr.runs)
            .chain(req.pool_runs.iter().zip(&tr.pool_runs))
        {
            hashes.insert(InputKey::new(InputRole::Run, r.clone()), crate::io::sha256_file(p)?);
        }
    }
    if let (Some(h), Some(r)) = (assign_hash, &opts.components) {
        hashes.insert(InputKey::new(InputRole::Assignment, r.clone()), h.clone());
    }
    if let (Some(p), Some(r)) = (&req.strata, &opts.strata) {
        hashes.insert(InputKey::new(InputRole::Strata, r.clone()), crate::io::sha256_file(p)?);
    }
    Ok(hashes)
}

/// What the registration rules say of appending `draft` (an `analyze` entry) now on `snap`: the
/// refusals (every rule it would break, and a study that is not registered) and the verdict.
fn judge(
    snap: &crate::ledger::Snapshot,
    lp: &crate::protocol::LoadedProtocol,
    draft: &Draft,
    now: DateTime<Utc>,
) -> (Vec<Refusal>, Option<crate::ledger::rules::AnalysisVerdict>) {
    let time = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let Some(v) = snap.preview(std::slice::from_ref(draft), &time).pop() else {
        return (vec![], None);
    };
    let e = crate::ledger::rules::candidate(draft, v.seq, &time, DataAccess::default());
    let path = lp.path.display().to_string();
    let mut refused: Vec<Refusal> = v
        .violations
        .iter()
        .filter(|x| x.is_finding() || **x == Violation::UnregisteredStudy)
        .map(|x| x.refusal(&e, &path))
        .collect();
    refused.dedup();
    (refused, v.analysis)
}

/// The `analyze` draft of study `study` under `lp` with `inputs` (its summary and result are
/// filled in once the analysis ran).
fn analyze_draft(
    study: &str,
    lp: &crate::protocol::LoadedProtocol,
    inputs: &Inputs,
    rel: &dyn Fn(&Path) -> String,
) -> Draft {
    Draft {
        kind: Some(EntryKind::Analyze),
        study_id: study.to_string(),
        protocol_sha256: Some(lp.hash.sha256.clone()),
        protocol_path: Some(rel(&lp.path)),
        inputs: inputs.clone(),
        // The analysis prints its results: from here on they have been seen.
        data_access: Some(DataAccess::ResultsSeen),
        ..Draft::default()
    }
}

/// The error for a study without a registration when a deviation reason was given: there is
/// nothing to deviate from.
fn no_registration(study: &str, lp: &crate::protocol::LoadedProtocol, refused: &[Refusal]) -> Option<Error> {
    let r = refused.iter().find(|r| matches!(r, Refusal::Unregistered { .. }))?;
    Some(
        Error::refused(format!(
            "study `{}` is not registered: there is no registration to deviate from",
            study
        ))
        .caused_by(r.clone())
        .with_hint(format!("register it first: pledge register {}", lp.path.display())),
    )
}

/// The refusal error listing `refused` and every field the analysis uses otherwise.
fn refuse_all(study: &str, refused: Vec<Refusal>, fields: &[FieldDeviation]) -> Error {
    let all: Vec<Refusal> = refused
        .into_iter()
        .chain(fields.iter().map(|f| Refusal::Field(f.to_string())))
        .collect();
    refusal(study, &all)
}

/// The registration text a result carries: the registration it matches, or the deviation and
/// what it overrides.
fn registration_text(
    reg: Option<u64>,
    lp: &crate::protocol::LoadedProtocol,
    deviation: Option<&String>,
    refused: &[Refusal],
    fields: &[FieldDeviation],
) -> String {
    let what: Vec<String> = refused
        .iter()
        .map(|x| x.to_string())
        .chain(fields.iter().map(|f| f.to_string()))
        .collect();
    match (reg, deviation) {
        (Some(seq), None) => format!("protocol registered (entry #{}), sha256 {}", seq, lp.hash.sha256),
        (_, Some(r)) => format!(
            "deviation recorded: {} (overriding: {})",
            r,
            if what.is_empty() {
                "nothing".to_string()
            } else {
                what.join("; ")
            }
        ),
        (None, None) => "unregistered".into(),
    }
}

/// What an analysis computed before it is appended: the result, and the registered analysis on
/// the registered question set when the analyzed set differs from it.
struct Computed {
    result: AnalysisResult,
    registered: Option<RegisteredSet>,
}

/// What an analysis appended: the result, the refusals its deviation overrode, and the rules'
/// verdict.
type Landed = (
    AnalysisResult,
    Vec<Refusal>,
    Option<crate::ledger::rules::AnalysisVerdict>,
);

/// Appends the analysis (with its deviation entry, when a reason is given), its checks run
/// again on the tip it lands on.
fn append_analysis(
    ledger: &Ledger,
    req: &AnalyzeRequest,
    lp: &crate::protocol::LoadedProtocol,
    draft: &Draft,
    base: &Computed,
    fields: &[FieldDeviation],
    now: DateTime<Utc>,
) -> Result<(Vec<Entry>, Landed)> {
    let study = draft.study_id.clone();
    let mut landed: Option<Landed> = None;
    let written = ledger.append_many_with(now, &study, |snap| {
        let (refused, _) = judge(snap, lp, draft, now);
        if let (Some(e), Some(_)) = (no_registration(&study, lp, &refused), &req.deviation) {
            return Err(e);
        }
        if !refused.is_empty() && req.deviation.is_none() {
            return Err(refusal(&study, &refused));
        }
        let reg = snap.rules().study(&study).and_then(|s| s.in_force()).map(|v| v.seq);
        let mut result = base.result.clone();
        result.registration = registration_text(reg, lp, req.deviation.as_ref(), &refused, fields);
        let mut drafts = Vec::new();
        if let Some(reason) = &req.deviation {
            drafts.push(Draft {
                kind: Some(EntryKind::Deviation),
                reason: Some(reason.clone()),
                summary: records::to_value(&DeviationSummary {
                    command: "analyze".into(),
                    overridden: refused.iter().map(|x| x.to_string()).collect(),
                    fields: fields.to_vec(),
                })?,
                data_access: None,
                ..draft.clone()
            });
        }
        drafts.push(Draft {
            rng: Some(RngInfo::chacha8(result.settings.seed)),
            summary: records::to_checked_value(&summary(&result, req.deviation.is_some()), "analysis summary")?,
            result: Some(records::to_checked_value(
                &AnalysisRecord {
                    registered_set: base.registered.clone(),
                    ..AnalysisRecord::from(&result)
                },
                "analysis result",
            )?),
            ..draft.clone()
        });
        let time = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let verdict = snap.preview(&drafts, &time).pop().and_then(|v| v.analysis);
        landed = Some((result, refused, verdict));
        Ok(drafts)
    })?;
    let landed = landed.ok_or_else(|| Error::internal("analyze: nothing was appended"))?;
    Ok((written, landed))
}

/// Runs `pledge analyze`: the checks, the analysis and its ledger entries.
///
/// Errors: refusals without a deviation reason (exit 1, every refusal and every field the
/// analysis uses otherwise than registered listed as a cause); a deviation on a study that is
/// not registered (exit 1: there is nothing to deviate from); bad inputs (exit 2); git failures
/// (exit 70).
pub fn analyze(ledger: &Ledger, req: &AnalyzeRequest, now: DateTime<Utc>) -> Result<AnalyzeOutcome> {
    let lp = load_protocol(&req.protocol)?;
    let study = lp.protocol.study.id.clone();
    if let Some(r) = &req.deviation {
        if r.trim().is_empty() {
            return Err(Error::input("--deviation needs a non-empty reason"));
        }
    }
    let assign_hash = match (&req.components, &req.read.stdin) {
        // Standard input (`--components -`): the hash of the bytes read.
        (Some(p), Some(i)) if crate::input::is_stdin(p) => Some(i.sha256()),
        (Some(p), _) => Some(crate::io::sha256_file(p)?),
        (None, _) => None,
    };
    let rel = |p: &Path| ledger.relative(p);
    let Plan {
        options: opts,
        settings,
        mut fields,
        notes: plan_notes,
    } = plan(&lp, req, &rel);
    // A first look, so that a refused analysis is refused before its inputs are read (the data
    // files are only hashed then); the checks that count run again inside the append.
    let first_look = ledger.snapshot(ledger.tip()?, &study)?;
    let mut early = Inputs::new();
    if let (Some(h), Some(r)) = (&assign_hash, &opts.components) {
        early.insert(InputKey::new(InputRole::Assignment, r.clone()), h.clone());
    }
    let deviated = req.deviation.is_some();
    let check = |inputs: &Inputs| -> Result<()> {
        let (refused, _) = judge(&first_look, &lp, &analyze_draft(&study, &lp, inputs, &rel), now);
        if let (Some(e), true) = (no_registration(&study, &lp, &refused), deviated) {
            return Err(e);
        }
        if (!refused.is_empty() || !fields.is_empty()) && !deviated {
            return Err(refuse_all(&study, refused, &fields));
        }
        Ok(())
    };
    check(&early)?;
    let hashes = input_hashes(req, &lp, &opts, assign_hash.as_ref(), &rel)?;
    check(&hashes)?;
    let (loaded, load_fields, load_notes) = load_registered(&ledger.root(), &opts, &lp.protocol)?;
    fields.extend(load_fields);
    if !fields.is_empty() && !deviated {
        return Err(refuse_all(&study, vec![], &fields));
    }
    if let Some(e) = super::flagged::error(&first_look, &study, &loaded)? {
        return Err(e);
    }
    let mut result = run_registered(
        &ledger.root(),
        &loaded,
        &opts,
        &lp.protocol,
        &settings,
        ("analyze", "", Some(study.clone())),
    )?;
    result.options = Some(opts.clone());
    let registered = super::registered_set::beside(ledger, &first_look, &study, &loaded, &settings, &opts)?;
    let base = Computed { result, registered };
    let draft = analyze_draft(&study, &lp, &hashes, &rel);
    let (written, (result, overridden, verdict)) = append_analysis(ledger, req, &lp, &draft, &base, &fields, now)?;
    let mut written = written.into_iter();
    let deviation = if deviated { written.next() } else { None };
    let entry = written
        .next()
        .ok_or_else(|| Error::internal("analyze: the analyze entry was not appended"))?;
    let mut notes = plan_notes;
    notes.extend(load_notes);
    notes.extend(ledger.take_notes().into_iter().map(super::Note::info));
    notes.extend(landing_notes(
        deviation.as_ref(),
        &entry,
        &overridden,
        &fields,
        verdict.as_ref(),
    ));
    notes.extend(super::registered_set::note(
        &result,
        base.registered.as_ref(),
        &lp.protocol,
    ));
    notes.extend(inputs::untracked_warning(
        ledger,
        entry.inputs.keys().map(|k| k.path.as_str()),
    ));
    Ok(AnalyzeOutcome {
        result,
        entry,
        deviation,
        overridden,
        fields,
        verdict,
        registered_set: base.registered,
        notes,
    })
}

/// The notes on what landed: the deviation entry and what it overrides, the analyze entry and
/// how it stands.
fn landing_notes(
    deviation: Option<&Entry>,
    entry: &Entry,
    overridden: &[Refusal],
    fields: &[FieldDeviation],
    verdict: Option<&crate::ledger::rules::AnalysisVerdict>,
) -> Notes {
    let mut notes = Notes::new();
    if let Some(d) = deviation {
        let what: Vec<String> = overridden
            .iter()
            .map(|x| x.to_string())
            .chain(fields.iter().map(|f| f.to_string()))
            .collect();
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
        "recorded analyze entry #{} (result sha256 {}){}",
        entry.seq,
        entry.result_sha256.as_deref().unwrap_or("-"),
        verdict.map(|v| format!(": {}", v.headline())).unwrap_or_default()
    )));
    notes
}

/// Loads the inputs of `opts` under protocol `p`: with registered systems (format 2:
/// `analysis.systems`, else the systems of the hypotheses) only those are analyzed (others are
/// left out, with a note) and a registered system missing from the inputs is a field deviation.
///
/// Errors (exit 2): as [`inputs::load`].
pub(crate) fn load_registered(
    root: &Path,
    opts: &RunOptions,
    p: &crate::protocol::Protocol,
) -> Result<(crate::stats::Inputs, Vec<FieldDeviation>, Notes)> {
    let mut loaded = inputs::load(root, opts, p.analysis.strata_field.as_deref(), Some(&p.pool))?;
    let mut fields = Vec::new();
    let mut notes = Notes::new();
    let mut wanted: Vec<String> = p.analysis.systems.clone();
    if wanted.is_empty() {
        for h in &p.hypotheses {
            for s in [&h.system, &h.comparator] {
                if !wanted.contains(s) {
                    wanted.push(s.clone());
                }
            }
        }
    }
    if !wanted.is_empty() {
        let table = &mut loaded.scores;
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|w| !table.systems.contains(w))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            let present: Vec<&str> = wanted
                .iter()
                .filter(|w| table.systems.contains(w))
                .map(String::as_str)
                .collect();
            fields.push(dev(
                "analysis.systems",
                wanted.join(", "),
                format!(
                    "{} (missing from the scores: {})",
                    if present.is_empty() {
                        "none".to_string()
                    } else {
                        present.join(", ")
                    },
                    missing.join(", ")
                ),
            ));
        }
        let extra: Vec<String> = table.systems.iter().filter(|s| !wanted.contains(s)).cloned().collect();
        if !extra.is_empty() {
            notes.push(super::Note::info(format!(
                "{} system(s) in the scores are not registered and are not analyzed: {}",
                extra.len(),
                extra.join(", ")
            )));
            retain_systems(table, &wanted);
        }
    }
    Ok((loaded, fields, notes))
}

/// The registered analysis of `loaded` (read with `opts`) under `settings`, labelled with
/// `label` (mode, registration, study id); when the protocol registers a family across metrics
/// (`[family]`), each further metric's analysis of the same inputs and the p-values of all of
/// them adjusted together ([`crate::stats::metric_family::adjust_across`]).
///
/// Errors (exit 2): as [`load_registered`] and [`crate::stats::run`] for each metric; a further
/// metric the inputs do not hold.
pub(crate) fn run_registered(
    root: &Path,
    loaded: &crate::stats::Inputs,
    opts: &RunOptions,
    p: &crate::protocol::Protocol,
    settings: &Settings,
    label: (&str, &str, Option<String>),
) -> Result<AnalysisResult> {
    let (mode, registration, study) = label;
    let result = crate::stats::run(loaded, settings, mode, registration, study.clone())?;
    let Some(family) = &p.family else {
        return Ok(result);
    };
    let mut others = Vec::new();
    for metric in family.metrics.iter().skip(1) {
        let o = with_metric(opts, metric);
        let (inputs, _, _) = load_registered(root, &o, p)?;
        let s = Settings {
            metric: metric.clone(),
            ..settings.clone()
        };
        others.push((
            metric.clone(),
            crate::stats::run(&inputs, &s, mode, registration, study.clone())?,
        ));
    }
    crate::stats::metric_family::adjust_across(result, others, settings.adjust)
}

/// The options that read metric `metric` from the same inputs as `opts`: the measure TREC runs
/// are evaluated with, else the score column when one is read, else the measure.
pub(crate) fn with_metric(opts: &RunOptions, metric: &str) -> RunOptions {
    let mut o = opts.clone();
    match (&mut o.trec, &o.read.column) {
        (Some(t), _) => t.measure = metric.to_string(),
        (None, Some(_)) => o.read.column = Some(metric.to_string()),
        (None, None) => o.read.measure = Some(metric.to_string()),
    }
    o
}

/// Keeps only the systems named in `keep` (in the table's order).
fn retain_systems(t: &mut crate::scores::ScoreTable, keep: &[String]) {
    let idx: Vec<usize> = (0..t.systems.len()).filter(|&i| keep.contains(&t.systems[i])).collect();
    t.select_systems(&idx);
}

/// The settings of an analysis of protocol `p` run with `opts` (a command-line baseline
/// overrides the protocol's).
pub fn settings_for(p: &crate::protocol::Protocol, opts: &RunOptions) -> Settings {
    let mut s = Settings::from_protocol(p);
    if opts.baseline.is_some() {
        s.baseline = opts.baseline.clone();
        // A baseline on the command line replaces the registered comparisons (a deviation).
        s.hypotheses.clear();
    }
    opts.overrides.apply(&mut s);
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
    /// The metrics after the first of one multiplicity family across metrics (each read from
    /// the same inputs as the measure of TREC runs, else as the score column when one is read,
    /// else as the measure; all comparisons adjusted together with the settings' adjustment);
    /// empty for one metric.
    pub family: Vec<String>,
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
    let registration =
        "not checked against a registration; no ledger entry written (use `pledge analyze` for a registered study)";
    let loaded = inputs::load(&req.root, &req.options, req.strata_field.as_deref(), None)?;
    let mut result = crate::stats::run(&loaded, &req.settings, "compare", registration, None)?;
    if !req.family.is_empty() {
        let mut others = Vec::new();
        for metric in &req.family {
            let o = with_metric(&req.options, metric);
            let inputs = inputs::load(&req.root, &o, req.strata_field.as_deref(), None)?;
            let s = Settings {
                metric: metric.clone(),
                ..req.settings.clone()
            };
            others.push((
                metric.clone(),
                crate::stats::run(&inputs, &s, "compare", registration, None)?,
            ));
        }
        result = crate::stats::metric_family::adjust_across(result, others, req.settings.adjust)?;
    }
    Ok(CompareOutcome {
        result,
        notes: vec![super::Note::info(
            "pledge compare does not check a registration and writes no ledger entry",
        )],
    })
}
