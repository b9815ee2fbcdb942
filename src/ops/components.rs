//! `pledge components`: count components under the registered link rules, apply the stop rule,
//! optionally assign whole components to splits, and record the decision in the ledger.

use super::{query, Note, Notes};
use crate::assignment;
use crate::components::{self, assign::Assignment, stop::Decision, stop::StopDecision, CountResult, Progress};
use crate::error::{Error, Result};
use crate::ledger::{Draft, EntryKind, InputKey, InputRole, Inputs, Ledger};
use crate::protocol::load_protocol;
use crate::records::{self, AssignRecord, AssignSummary, CountRecord, CountSummary, RECORD_VERSION};
use crate::rng::RngInfo;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `pledge components` is asked to do. Paths are absolute.
#[derive(Debug, Clone)]
pub struct ComponentsOptions {
    /// The protocol file.
    pub protocol: PathBuf,
    /// The passages file (optional for HotpotQA / MuSiQue question files).
    pub passages: Option<PathBuf>,
    /// The candidate questions file.
    pub questions: PathBuf,
    /// Also assign whole components to the protocol's splits (only when the stop rule says go).
    pub assign: bool,
    /// Where to write the assignment CSV; `None`: `<study-id>.components.csv` in `default_dir`.
    pub out: Option<PathBuf>,
    /// The directory of the default output file (the working directory).
    pub default_dir: PathBuf,
    /// Count without touching the ledger or writing any file.
    pub dry_run: bool,
}

/// What `pledge components` did.
#[derive(Debug, Serialize)]
pub struct ComponentsOutcome {
    /// The study id.
    pub study: String,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The count.
    pub count: CountResult,
    /// The stop rule's decision.
    pub stop: Decision,
    /// The split assignment, with `--assign` and a `go`.
    pub assignment: Option<Assignment>,
    /// The assignment file written (`None` in a dry run).
    pub out: Option<String>,
    /// SHA-256 of the assignment file's bytes (computed in a dry run too, to compare with a
    /// recorded one).
    pub out_sha256: String,
    /// Sequence numbers of the entries written.
    pub ledger_entries: Vec<u64>,
    /// Notes for people.
    #[serde(skip)]
    pub notes: Notes,
}

/// Runs `pledge components` (see the module docs); `ledger` is `None` for a dry run.
///
/// Errors: bad input (exit 2, naming file and line); an unregistered or changed protocol
/// (exit 1, checked inside the append); git failures (exit 70). A `stop` decision is not an
/// error: the outcome says so (the CLI exits 3).
pub fn run(
    ledger: Option<&Ledger>,
    o: &ComponentsOptions,
    now: DateTime<Utc>,
    progress: &dyn Progress,
) -> Result<ComponentsOutcome> {
    let lp = load_protocol(&o.protocol)?;
    if !o.dry_run && ledger.is_none() {
        return Err(Error::internal("components: a ledger is needed unless --dry-run"));
    }
    let (corpus, _layout) = components::read::read_corpus(o.passages.as_deref(), &o.questions)?;
    let count = components::count(&lp.protocol, &corpus, progress)?;
    progress.finish();
    let stop = components::stop::decide(&lp.protocol, &count)?;
    let assignment = if o.assign && stop.decision != StopDecision::Stop {
        Some(components::assign::assign(&lp.protocol, &count, &stop.splits)?)
    } else {
        None
    };
    let rows = assignment.as_ref().map_or(&count.rows, |x| &x.rows);
    let bytes = assignment::to_csv(rows);
    let out_sha256 = crate::io::sha256_hex(&bytes);
    let mut outcome = ComponentsOutcome {
        study: lp.protocol.study.id.clone(),
        dry_run: o.dry_run,
        count,
        stop,
        assignment,
        out: None,
        out_sha256: out_sha256.clone(),
        ledger_entries: vec![],
        notes: Notes::new(),
    };
    let Some(ledger) = ledger.filter(|_| !o.dry_run) else {
        outcome.notes.push(Note::info(
            "dry run: nothing was written (no ledger entry, no assignment file)",
        ));
        return Ok(outcome);
    };
    let out = match &o.out {
        Some(p) => p.clone(),
        None => o.default_dir.join(format!("{}.components.csv", lp.protocol.study.id)),
    };
    // The file is written beside its destination first and moved into place only once the
    // ledger entries that record its hash have landed.
    let staged = stage(&out, &bytes)?;
    let mut inputs = Inputs::new();
    if let Some(p) = &o.passages {
        inputs.insert(
            InputKey::new(InputRole::Passages, ledger.relative(p)),
            crate::io::sha256_file(p)?,
        );
    }
    inputs.insert(
        InputKey::new(InputRole::Questions, ledger.relative(&o.questions)),
        crate::io::sha256_file(&o.questions)?,
    );
    inputs.insert(
        InputKey::new(InputRole::Assignment, ledger.relative(&out)),
        out_sha256.clone(),
    );
    let protocol_path = ledger.relative(&lp.path);
    let count_draft = Draft {
        kind: Some(match outcome.stop.decision {
            StopDecision::Stop => EntryKind::Stop,
            StopDecision::Go => EntryKind::Go,
            StopDecision::Count => EntryKind::Count,
        }),
        study_id: outcome.study.clone(),
        protocol_sha256: Some(lp.hash.sha256.clone()),
        protocol_path: Some(protocol_path),
        inputs,
        summary: records::to_value(&CountSummary {
            decision: outcome.stop.decision,
            counted: outcome.stop.counted,
            required: outcome.stop.required,
            count: outcome.stop.count,
            required_rule: outcome.stop.required_rule,
            splits: outcome.stop.splits.clone(),
            components: outcome.count.components,
            with_candidates: outcome.count.with_candidates,
            questions: outcome.count.questions,
            assignment_sha256: out_sha256.clone(),
        })?,
        result: Some(records::to_value(&CountRecord {
            record_version: RECORD_VERSION,
            count: outcome.count.clone(),
            stop: outcome.stop.clone(),
        })?),
        ..Draft::default()
    };
    let assign_draft = match &outcome.assignment {
        Some(asg) => Some(Draft {
            kind: Some(EntryKind::Assign),
            rng: Some(RngInfo::chacha8(asg.seed)),
            summary: records::to_value(&AssignSummary {
                splits: asg.splits.clone(),
                max_per_component: asg.max_per_component,
                keep: asg.keep,
                assignment_sha256: out_sha256.clone(),
            })?,
            result: Some(records::to_value(&AssignRecord::from(asg))?),
            ..count_draft.clone()
        }),
        None => None,
    };
    let written = ledger.append_many_with(now, |entries| {
        query::check_registered(entries, &lp).map_err(query::refusal_error)?;
        Ok(std::iter::once(count_draft.clone())
            .chain(assign_draft.clone())
            .collect())
    })?;
    outcome.ledger_entries = written.iter().map(|e| e.seq).collect();
    staged.persist(&out).map_err(|e| {
        Error::io("writing", &out, e.error)
            .with_hint("the ledger recorded the file's hash: run the command again with --dry-run to compare")
    })?;
    outcome.out = Some(out.display().to_string());
    Ok(outcome)
}

/// Writes `bytes` to a temporary file in `out`'s directory, synced, ready to be renamed.
fn stage(out: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io("creating a file in", dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io("writing", out, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io("syncing", out, e))?;
    Ok(tmp)
}
