//! Re-running a recorded analysis (`pledge verify --rerun`): recompute it from the recorded
//! inputs and compare the result hash with the one in the ledger.

use super::analyze::run;
use super::registered::{load_inputs, settings_for};
use super::settings::RunOptions;
use crate::error::{Error, Result};
use crate::ledger::{EntryKind, Ledger, StoredEntry};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

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
        return Err(Error::input(format!(
            "entry #{} is a {} entry, not analyze",
            e.seq,
            e.kind.as_str()
        )));
    }
    let mut rep = RerunReport {
        seq: e.seq,
        ok: false,
        recorded: e.result_sha256.clone(),
        recomputed: None,
        problems: vec![],
    };
    let bytes = stored
        .result
        .as_ref()
        .ok_or_else(|| Error::input(format!("entry #{} has no stored result", e.seq)))?;
    let old: Value = serde_json::from_slice(bytes)
        .map_err(|x| Error::input(format!("entry #{}: result.json is not JSON", e.seq)).caused_by(x))?;
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
            Ok(h) => rep
                .problems
                .push(format!("{} changed: recorded {}, now {}", k, want, h)),
            Err(x) => rep.problems.push(format!("{}: {}", k, x.message)),
        }
    }
    if !rep.problems.is_empty() {
        return Ok(rep);
    }
    let settings = settings_for(&protocol, &opts);
    let inputs = load_inputs(
        &root,
        &opts,
        protocol.analysis.strata_field.as_deref(),
        Some(&protocol.pool),
    )?;
    let label = |k: &str| old.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut result = run(
        &inputs,
        &settings,
        &label("mode"),
        &label("registration"),
        old.get("study_id").and_then(Value::as_str).map(str::to_string),
    )?;
    result.options = Some(opts);
    let value = serde_json::to_value(&result).map_err(|x| Error::internal("serializing the analysis").caused_by(x))?;
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
