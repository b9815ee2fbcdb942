//! `pledge trace`: the registered repair-trace test ([`crate::gate::trace`]) on the original
//! passages of a repair and their replacements, recorded as a `trace` entry.

use crate::components::read::{read_passages_from, PassageSource, Passages, ReadOptions};
use crate::error::{Error, Result};
use crate::gate::trace::{self, Design, Trace};
use crate::input::{Limits, Stream};
use crate::ledger::rules::Violation;
use crate::ledger::{Draft, EntryKind, InputKey, InputRole, Inputs, Ledger, RngInfo};
use crate::protocol::{load_protocol, RepairTrace};
use crate::records::{self, TraceRecord};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What `pledge trace` is asked to do. Paths are absolute.
#[derive(Debug, Clone)]
pub struct TraceOptions {
    /// The protocol file (its `[repair-trace]` and `analysis.seed`).
    pub protocol: PathBuf,
    /// The original passages (any passages layout `components` reads).
    pub original: PathBuf,
    /// The replacement passages.
    pub replacement: PathBuf,
    /// Run the test without touching the ledger.
    pub dry_run: bool,
    /// Where to write the features, folds and out-of-fold scores (JSON Lines, see
    /// [`write_design`]), for an outside check of the classifier.
    pub export_design: Option<PathBuf>,
}

/// What `pledge trace` did.
#[derive(Debug, Serialize)]
pub struct TraceOutcome {
    /// The study id.
    pub study: String,
    /// Whether this was a dry run (nothing written to the ledger).
    pub dry_run: bool,
    /// The test as recorded.
    pub trace: TraceRecord,
    /// The ledger entry written (none in a dry run).
    pub ledger_entry: Option<u64>,
}

/// Runs the registered repair-trace test and records it (unless `o.dry_run`; `ledger` is then
/// not needed).
///
/// Errors: a protocol without `[repair-trace]`, a passages file that cannot be read, a set with
/// fewer passages than folds (exit 2); a protocol that is not the registered one in force
/// (exit 1).
pub fn run(ledger: Option<&Ledger>, o: &TraceOptions, now: DateTime<Utc>) -> Result<TraceOutcome> {
    let lp = load_protocol(&o.protocol)?;
    let spec = lp.protocol.repair_trace.clone().ok_or_else(|| {
        Error::input(format!("{} registers no [repair-trace]", o.protocol.display())).with_hint(
            "add a [repair-trace] table (schema-version = 2) with its threshold, and register it before the test",
        )
    })?;
    let seed = lp.protocol.analysis.seed;
    let (orig, orig_sha) = read(&o.original)?;
    let (repl, repl_sha) = read(&o.replacement)?;
    let (design, t) = test(&orig, &repl, &spec, seed)?;
    if let Some(path) = &o.export_design {
        write_design(path, &orig, &repl, &design, &t, &spec)?;
    }
    let record = TraceRecord::new(&t, &spec, seed);
    let mut out = TraceOutcome {
        study: lp.protocol.study.id.clone(),
        dry_run: o.dry_run,
        trace: record,
        ledger_entry: None,
    };
    let Some(ledger) = ledger.filter(|_| !o.dry_run) else {
        return Ok(out);
    };
    let mut inputs = Inputs::new();
    inputs.insert(
        InputKey::new(InputRole::Original, ledger.relative(&o.original)),
        orig_sha,
    );
    inputs.insert(
        InputKey::new(InputRole::Replacement, ledger.relative(&o.replacement)),
        repl_sha,
    );
    let draft = Draft {
        kind: Some(EntryKind::Trace),
        study_id: out.study.clone(),
        protocol_sha256: Some(lp.hash.sha256.clone()),
        protocol_path: Some(ledger.relative(&lp.path)),
        inputs,
        rng: Some(RngInfo::chacha8(seed)),
        summary: records::to_value(&out.trace.result)?,
        result: Some(records::to_value(&out.trace)?),
        ..Draft::default()
    };
    let path = lp.path.display().to_string();
    let e = ledger.append_with(now, &out.study, |snap| {
        let time = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        if let Some(v) = snap.preview(std::slice::from_ref(&draft), &time).pop() {
            let cand = crate::ledger::rules::candidate(&draft, v.seq, &time, Default::default());
            for x in &v.violations {
                if matches!(x, Violation::UnregisteredStudy | Violation::ProtocolNotInForce { .. }) {
                    return Err(super::query::refusal_error(x.refusal(&cand, &path)));
                }
                if x.is_finding() {
                    return Err(Error::refused(x.message(&cand)));
                }
            }
        }
        Ok(draft.clone())
    })?;
    out.ledger_entry = Some(e.seq);
    Ok(out)
}

/// Reads a passages file (streamed) with its SHA-256.
pub(crate) fn read(path: &Path) -> Result<(Passages, String)> {
    let s = Stream::open(path, Limits::default())?;
    read_passages_from(PassageSource::Stream(s), ReadOptions::default())
}

/// The test on the two sets' texts.
pub(crate) fn test(orig: &Passages, repl: &Passages, spec: &RepairTrace, seed: u64) -> Result<(Design, Trace)> {
    let texts = |p: &Passages| -> Result<Vec<String>> {
        (0..p.len()).map(|i| p.texts.get(i).map(|t| t.into_owned())).collect()
    };
    let (a, b) = (texts(orig)?, texts(repl)?);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    trace::run(&a, &b, spec, seed)
}

/// One passage of an exported design.
#[derive(Serialize)]
struct DesignRow<'a> {
    set: &'static str,
    id: &'a str,
    fold: u32,
    score: f64,
    x: &'a [(u32, f64)],
}

/// Writes the design as JSON Lines: a header `{"features", "folds", "regularization-c",
/// "confidence", "threshold"}`, then one line per passage (originals, then replacements, in file
/// order) `{"set": "original"|"replacement", "id", "fold", "score", "x": [[feature, value],
/// ...]}` with pledge's out-of-fold score. What an outside implementation (the scikit-learn
/// oracle kept with the tests) fits to check the classifier.
///
/// Errors: the file cannot be written (exit 74).
pub fn write_design(
    path: &Path,
    orig: &Passages,
    repl: &Passages,
    d: &Design,
    t: &Trace,
    spec: &RepairTrace,
) -> Result<()> {
    let json = |e: serde_json::Error| Error::input(format!("writing the design: {}", e));
    let mut s = serde_json::to_string(&serde_json::json!({
        "features": d.vocabulary.len(),
        "folds": spec.folds,
        "regularization-c": spec.regularization_c,
        "confidence": spec.confidence,
        "threshold": spec.threshold,
    }))
    .map_err(json)?;
    s.push('\n');
    let ids = orig
        .passages
        .iter()
        .map(|p| ("original", p))
        .chain(repl.passages.iter().map(|p| ("replacement", p)));
    for (i, (set, p)) in ids.enumerate() {
        let row = DesignRow {
            set,
            id: &p.id,
            fold: d.folds[i],
            score: t.scores[i],
            x: &d.rows[i],
        };
        s.push_str(&serde_json::to_string(&row).map_err(json)?);
        s.push('\n');
    }
    crate::io::write_atomic(path, s.as_bytes())
}
