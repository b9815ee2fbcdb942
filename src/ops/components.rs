//! `pledge components`: count components under the registered link rules, apply the stop rule,
//! optionally assign whole components to splits, and record the decision in the ledger.

use super::{query, Note, Notes};
use crate::assignment;
use crate::components::{
    self, assign::Assignment, stop::Decision, stop::StopDecision, CountResult, Diagnostics, Progress,
};
use crate::error::{Error, Result};
use crate::input::Input;
use crate::ledger::{Draft, EntryKind, InputKey, InputRole, Inputs, Ledger};
use crate::protocol::load_protocol;
use crate::records::FieldDeviation;
use crate::records::{self, AssignRecord, AssignSummary, CountRecord, CountSummary, RECORD_VERSION};
use crate::rng::RngInfo;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `pledge components` is asked to do. Paths are absolute; inputs are read by the caller
/// (a file, or standard input), and their hashes are of exactly the bytes read.
#[derive(Debug)]
pub struct ComponentsOptions {
    /// The protocol file.
    pub protocol: PathBuf,
    /// The passages (optional for question files that carry their paragraphs): a file, read as
    /// a stream, or an input already read (standard input).
    pub passages: Option<PassagesInput>,
    /// The candidate questions, as read.
    pub questions: Input,
    /// Qrels whose relevant documents are each question's passages (BEIR), as read.
    pub qrels: Option<Input>,
    /// Also assign whole components to the protocol's splits (only when the stop rule says go).
    pub assign: bool,
    /// Where to write the assignment CSV; `None`: `<study-id>.components.csv` in `default_dir`.
    pub out: Option<PathBuf>,
    /// The directory of the default output file (the working directory).
    pub default_dir: PathBuf,
    /// Count without touching the ledger or writing any file.
    pub dry_run: bool,
    /// The reason for a recount on other inputs than an earlier count of the study (recorded
    /// as a deviation entry with the count).
    pub deviation: Option<String>,
    /// Near-duplicate pairs computed elsewhere (JSON Lines, see [`components::pairs`]) that
    /// stand in for the near-duplicate rule's join, as read; hashed into the count entry.
    pub pairs: Option<Input>,
    /// How many listed pairs to check exactly against the passages (seeded by
    /// `analysis.seed`).
    pub pairs_sample: usize,
    /// Where to write the near-duplicate pairs the count used (JSON Lines, the format
    /// `pairs` reads); written in a dry run too.
    pub write_pairs: Option<PathBuf>,
    /// Also sweep the near-duplicate rule over the default grid around it
    /// ([`components::sensitivity::SensitivitySpec::around`]; a diagnostic, recorded with the
    /// count).
    pub sensitivity: bool,
    /// Where to write the sensitivity curve's SVG (written in a dry run too; after the ledger
    /// entry landed otherwise).
    pub sensitivity_svg: Option<PathBuf>,
    /// Also find this many top bridges (a diagnostic, recorded with the count; see
    /// [`components::bridges`]).
    pub bridges: Option<usize>,
    /// The memory limit of the near-duplicate join in bytes (past it the join runs out of core,
    /// with the same pairs; [`components::ooc`]); `None`: always in memory.
    pub memory_limit: Option<u64>,
    /// The directory for the out-of-core join's spill files (unlinked as soon as created).
    pub spill_dir: PathBuf,
    /// The key files of the sealed sets the protocol's contamination rules check against.
    pub sealed_keys: Vec<PathBuf>,
    /// The size limits a streamed passages file is read under (its raw bytes; the content is
    /// never held whole).
    pub limits: crate::input::Limits,
    /// The process exits as soon as the outcome is shown: the corpus is left allocated when the
    /// count is done instead of freed piece by piece (on the statute corpus, freeing it took 4% of
    /// the run). A library caller leaves this false.
    pub exit_soon: bool,
}

/// The corpus read, freed when dropped unless the process is about to exit
/// ([`ComponentsOptions::exit_soon`]: then its memory goes back to the system with the process).
struct Held {
    corpus: Option<components::read::Corpus>,
    leak: bool,
}

impl Held {
    fn corpus(&self) -> &components::read::Corpus {
        self.corpus.as_ref().expect("the corpus is held until dropped")
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.leak {
            std::mem::forget(self.corpus.take());
        }
    }
}

/// Where the passages come from.
#[derive(Debug)]
pub enum PassagesInput {
    /// A file, streamed ([`crate::input::Stream`]): a JSON Lines file is parsed as it is
    /// decompressed, its raw bytes hashed as they pass.
    File(PathBuf),
    /// An input already read whole (standard input).
    Read(Input),
}

impl PassagesInput {
    /// The name shown in messages and recorded in the ledger.
    pub fn path(&self) -> &Path {
        match self {
            PassagesInput::File(p) => p,
            PassagesInput::Read(i) => i.path(),
        }
    }
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
    /// The contamination rules' outcome, before the count (absent without rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contamination: Option<crate::gate::contamination::Contamination>,
    /// For a new build attempt under a registered budget (`[build]`): what it changed of the
    /// previous attempt's candidates, against what the registration allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<records::AttemptCheck>,
    /// The diagnostics asked for (sensitivity, bridges); they never change the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
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
    let (corpus, contamination, passages_sha256, attempt) = read_screened(ledger, &lp, o)?;
    let held = Held {
        corpus: Some(corpus),
        leak: o.exit_soon,
    };
    let corpus = held.corpus();
    let count = count_corpus(&lp, o, corpus, progress)?;
    progress.finish();
    let read_notes = count_notes(o, corpus, &count)?;
    let (pilot, stop, assignment) = decide(ledger, o, &lp, &count, contamination.as_ref())?;
    // Diagnostics run after the decision and are not inputs to it.
    let diagnostics = diagnostics(o, &lp, corpus, progress)?;
    let rows = assignment.as_ref().map_or(&count.rows, |x| &x.rows);
    let bytes = assignment::to_csv(rows);
    let out_sha256 = crate::io::sha256_hex(&bytes);
    let mut outcome = ComponentsOutcome {
        study: lp.protocol.study.id.clone(),
        dry_run: o.dry_run,
        count,
        stop,
        contamination,
        attempt,
        assignment,
        diagnostics,
        out: None,
        out_sha256: out_sha256.clone(),
        ledger_entries: vec![],
        notes: read_notes,
    };
    if let Some(c) = &outcome.contamination {
        outcome.notes.extend(contamination_notes(c));
    }
    if outcome.diagnostics.is_some() {
        outcome.notes.push(Note::info(
            "the sensitivity sweep and bridges are diagnostics: the count and the stop rule's decision rest on the registered rules alone",
        ));
    }
    let svg = match (
        &o.sensitivity_svg,
        outcome.diagnostics.as_ref().and_then(|d| d.sensitivity.as_ref()),
    ) {
        (Some(path), Some(curve)) => Some((
            path.clone(),
            crate::report::diagnostics::sensitivity_svg(&crate::records::count::Sensitivity::from(curve))?,
        )),
        _ => None,
    };
    let Some(ledger) = ledger.filter(|_| !o.dry_run) else {
        outcome.notes.push(Note::info(
            "dry run: nothing was written (no ledger entry, no assignment file)",
        ));
        write_svg(&mut outcome, svg.as_ref())?;
        return Ok(outcome);
    };
    let pilot_input = pilot.as_ref().map(|(file, sha, _)| (file.as_str(), sha.as_str()));
    let inputs = record(
        ledger,
        o,
        &lp,
        now,
        &mut outcome,
        pilot_input,
        passages_sha256.as_ref(),
        &bytes,
    )?;
    write_svg(&mut outcome, svg.as_ref())?;
    let role = |k: &&InputKey, out: bool| (k.role == InputRole::Assignment) == out;
    outcome.notes.extend(super::inputs::untracked_warning(
        ledger,
        inputs.keys().filter(|k| role(k, false)).map(|k| k.path.as_str()),
    ));
    outcome.notes.extend(
        inputs
            .keys()
            .filter(|k| role(k, true))
            .find_map(|k| commit_note(ledger, &k.path)),
    );
    Ok(outcome)
}

/// The component file a count just wrote is untracked by construction: a note says to commit it
/// before `analyze` reads it (the inputs the count read get [`super::inputs::untracked_warning`]).
fn commit_note(ledger: &Ledger, path: &str) -> Option<Note> {
    super::inputs::tracking(ledger.repo(), path)?;
    Some(Note::info(format!(
        "commit the component file before analyze reads it, so a reviewer's clone has it: git add {} && git commit",
        crate::text::shell_word(path)
    )))
}

/// Reads the corpus and screens it: refuses `--sensitivity` and `--bridges` on spilled texts
/// (exit 2), then runs the protocol's contamination rules, whose flagged questions are left out
/// of the count. Returns the corpus, the contamination outcome, the passages' SHA-256 and, for
/// a new build attempt under a registered budget, what it changed of the previous attempt's
/// candidates (checked on every candidate, before the flagged ones are left out).
#[allow(clippy::type_complexity)]
fn read_screened(
    ledger: Option<&Ledger>,
    lp: &crate::protocol::LoadedProtocol,
    o: &ComponentsOptions,
) -> Result<(
    components::read::Corpus,
    Option<crate::gate::contamination::Contamination>,
    Option<String>,
    Option<records::AttemptCheck>,
)> {
    let source = match &o.passages {
        Some(PassagesInput::File(p)) => Some(components::read::PassageSource::Stream(crate::input::Stream::open(
            p, o.limits,
        )?)),
        Some(PassagesInput::Read(i)) => Some(components::read::PassageSource::Input(i)),
        None => None,
    };
    // The texts stay in memory while they take at most a quarter of the memory limit.
    let read_options = components::read::ReadOptions {
        text_budget: o.memory_limit.map(|m| (m / 4, o.spill_dir.as_path())),
    };
    let (mut corpus, _layout, passages_sha256) =
        components::read::read_corpus_from(source, &o.questions, o.qrels.as_ref(), read_options)?;
    if corpus.texts.is_spilled() {
        let flag = match (o.sensitivity, o.bridges.is_some()) {
            (true, _) => Some("--sensitivity"),
            (false, true) => Some("--bridges"),
            _ => None,
        };
        if let Some(flag) = flag {
            return Err(Error::input(format!(
                "{} needs the passages' texts in memory, and their {} bytes of text are past a quarter of the memory limit ({} bytes), so they were spilled to a file",
                flag,
                corpus.texts.bytes(),
                o.memory_limit.unwrap_or(0)
            ))
            .with_hint(format!("give {} a --memory-limit of at least {} bytes, or leave it out for this corpus", flag, 4 * corpus.texts.bytes())));
        }
    }
    let attempt = super::attempt::check(ledger, o, lp, &corpus, passages_sha256.as_ref())?;
    // The contamination rules run first: the questions they flag are left out of the count.
    let contamination = crate::gate::registered::run(
        &lp.protocol.contamination_rules,
        lp.path.parent().unwrap_or(Path::new(".")),
        &o.sealed_keys,
        &corpus,
    )?;
    if let Some(c) = &contamination {
        crate::gate::registered::keep_unflagged(&mut corpus, c);
    }
    Ok((corpus, contamination, passages_sha256, attempt))
}

/// Counts the corpus's components under the registered rules, with the listed pairs, the
/// memory limit and whether to keep the pairs as the options ask.
fn count_corpus(
    lp: &crate::protocol::LoadedProtocol,
    o: &ComponentsOptions,
    corpus: &components::read::Corpus,
    progress: &dyn Progress,
) -> Result<CountResult> {
    components::count_with(
        &lp.protocol,
        corpus,
        progress,
        components::CountOptions {
            listed: o.pairs.as_ref().map(|input| components::ListedPairs {
                input,
                sample: o.pairs_sample,
                seed: lp.protocol.analysis.seed,
            }),
            keep_pairs: o.write_pairs.is_some(),
            memory: o.memory_limit.map(|bytes| components::ooc::MemoryLimit {
                bytes,
                spill_dir: &o.spill_dir,
            }),
        },
    )
}

/// The notes of the read and the count (the reader's notes, a memory limit below the corpus,
/// listed pairs), and the near-duplicate pairs written with `--write-pairs`.
fn count_notes(o: &ComponentsOptions, corpus: &components::read::Corpus, count: &CountResult) -> Result<Notes> {
    let mut read_notes: Notes = corpus.notes.iter().map(|n| Note::info(n.clone())).collect();
    // A limit below what the corpus itself holds cannot be kept: say so, since the join then runs
    // in very many small partitions (the pairs and counts stay exact, only slower).
    if let Some(limit) = o.memory_limit.filter(|&m| m < corpus.resident_bytes()) {
        read_notes.push(Note::warning(format!(
            "the memory limit ({}) is below what the passages' ids, fields and questions alone hold in memory ({}), so the count used more than the limit; the near-duplicate join ran in small partitions, which is exact but slow",
            crate::text::bytes(limit),
            crate::text::bytes(corpus.resident_bytes())
        )));
    }
    if let Some(c) = count.ablation.iter().find_map(|r| r.listed.as_ref()) {
        read_notes.push(Note::info(format!(
            "near-duplicate pairs read from {} instead of joined: {} pairs, {} of them (seed {}) checked exactly against the passages; missing pairs cannot be detected this way",
            o.pairs.as_ref().map_or(String::new(), |i| i.path().display().to_string()),
            c.pairs,
            c.checked,
            c.seed
        )));
        if c.repeated_lines > 0 {
            read_notes.push(Note::warning(format!(
                "{} repeats pairs: {} of its lines list a pair an earlier line lists (with the same sizes), and each pair counts once; a job that wrote one pair from two partitions writes such lines",
                o.pairs.as_ref().map_or(String::new(), |i| i.path().display().to_string()),
                c.repeated_lines,
            )));
        }
        if c.pairs == 0 {
            read_notes.push(Note::warning(format!(
                "{} lists no pair, so the near-duplicate rule adds no link; the empty output of a job that failed reads the same",
                o.pairs.as_ref().map_or(String::new(), |i| i.path().display().to_string()),
            )));
        }
    }
    if let Some(path) = &o.write_pairs {
        let ids: Vec<&str> = corpus.passages.iter().map(|p| p.id.as_str()).collect();
        let mut buf = Vec::new();
        components::pairs::write_pairs(&mut buf, &count.near_pairs, &ids)
            .map_err(|e| Error::io("writing pairs to", path, e))?;
        crate::io::write_atomic(path, &buf)?;
        read_notes.push(Note::info(format!(
            "wrote {} to {}",
            crate::text::plural(
                count.near_pairs.len() as u64,
                "near-duplicate pair",
                "near-duplicate pairs"
            ),
            path.display()
        )));
    }
    Ok(read_notes)
}

/// The registered pilot's estimate (path, SHA-256, summary) when σ comes from it, the stop
/// rule's decision (a stop when a contamination rule stopped), and the assignment asked for
/// with `--assign` when the decision is not a stop.
#[allow(clippy::type_complexity)]
fn decide(
    ledger: Option<&Ledger>,
    o: &ComponentsOptions,
    lp: &crate::protocol::LoadedProtocol,
    count: &CountResult,
    contamination: Option<&crate::gate::contamination::Contamination>,
) -> Result<(
    Option<(String, String, records::PilotSummary)>,
    Decision,
    Option<Assignment>,
)> {
    // σ of a `from-target` requirement: target.sd, else the registered pilot's estimate.
    let mut decided = lp.protocol.clone();
    let pilot = match (&lp.protocol.target.sd, &lp.protocol.target.pilot) {
        (None, Some(_)) => super::register::estimate_pilot(lp, |f| match ledger {
            Some(l) => l.relative(f),
            None => f.display().to_string(),
        })?,
        _ => None,
    };
    if let Some((_, _, est)) = &pilot {
        decided.target.sd = Some(est.sd_for(&lp.protocol.target));
    }
    let mut stop = components::stop::decide(&decided, count)?;
    if contamination.is_some_and(|c| c.stopped_by.is_some()) {
        stop.decision = StopDecision::Stop;
    }
    let assignment = if o.assign && stop.decision != StopDecision::Stop {
        Some(components::assign::assign(&lp.protocol, count, &stop.splits)?)
    } else {
        None
    };
    Ok((pilot, stop, assignment))
}

/// The diagnostics asked for (`--sensitivity`, `--bridges`), or `None`.
fn diagnostics(
    o: &ComponentsOptions,
    lp: &crate::protocol::LoadedProtocol,
    corpus: &components::read::Corpus,
    progress: &dyn Progress,
) -> Result<Option<Diagnostics>> {
    if !o.sensitivity && o.bridges.is_none() {
        return Ok(None);
    }
    let sensitivity = if o.sensitivity {
        let near = lp
            .protocol
            .link_rules
            .iter()
            .find(|r| r.kind == crate::protocol::LinkKind::NearDuplicatePassage);
        let spec = near.map_or_else(
            || components::sensitivity::SensitivitySpec::around(5, 0.8),
            |r| components::sensitivity::SensitivitySpec::around(r.shingle_size(), r.jaccard()),
        );
        Some(components::sensitivity::sweep(&lp.protocol, corpus, &spec, progress)?)
    } else {
        None
    };
    let bridges = match o.bridges {
        Some(n) => Some(components::bridges::bridges(&lp.protocol, corpus, n, progress)?),
        None => None,
    };
    Ok(Some(Diagnostics { sensitivity, bridges }))
}

/// Writes the sensitivity curve's SVG when one was asked for, with a note.
fn write_svg(outcome: &mut ComponentsOutcome, svg: Option<&(PathBuf, String)>) -> Result<()> {
    if let Some((path, text)) = svg {
        crate::io::write_atomic(path, text.as_bytes())?;
        outcome
            .notes
            .push(Note::info(format!("sensitivity curve written to {}", path.display())));
    }
    Ok(())
}

/// Records the count (and its assignment, after a deviation entry when a reason is given) in
/// one append, then moves the staged assignment file into place. Returns the inputs the count
/// entry records.
#[allow(clippy::too_many_arguments)]
fn record(
    ledger: &Ledger,
    o: &ComponentsOptions,
    lp: &crate::protocol::LoadedProtocol,
    now: DateTime<Utc>,
    outcome: &mut ComponentsOutcome,
    pilot_input: Option<(&str, &str)>,
    passages_sha256: Option<&String>,
    bytes: &[u8],
) -> Result<Inputs> {
    let out = match &o.out {
        Some(p) => p.clone(),
        None => o.default_dir.join(format!("{}.components.csv", lp.protocol.study.id)),
    };
    let out_sha256 = outcome.out_sha256.clone();
    // The file is written beside its destination first and moved into place only once the
    // ledger entries that record its hash have landed.
    let staged = stage(&out, bytes)?;
    let inputs = count_inputs(ledger, o, pilot_input, passages_sha256, &out, &out_sha256);
    let protocol_path = ledger.relative(&lp.path);
    let (count_summary, count_record) = count_records(outcome);
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
        summary: records::to_value(&count_summary)?,
        result: Some(records::to_value(&count_record)?),
        ..Draft::default()
    };
    let assign_draft = match &outcome.assignment {
        Some(asg) => Some(Draft {
            kind: Some(EntryKind::Assign),
            rng: Some(RngInfo::chacha8(asg.seed)),
            summary: records::to_value(&AssignSummary {
                splits: asg.splits.iter().map(Into::into).collect(),
                max_per_component: asg.max_per_component,
                keep: asg.keep,
                assignment_sha256: out_sha256.clone(),
            })?,
            result: Some(records::to_value(&AssignRecord::from(asg))?),
            ..count_draft.clone()
        }),
        None => None,
    };
    if let Some(r) = &o.deviation {
        if r.trim().is_empty() {
            return Err(Error::input("--deviation needs a non-empty reason"));
        }
    }
    let written = ledger.append_many_with(now, &outcome.study, |snap| {
        let count_draft = with_question_change(ledger, snap, count_draft.clone(), &count_summary, &count_record)?;
        count_drafts(snap, lp, o.deviation.as_ref(), &count_draft, assign_draft.as_ref(), now)
    })?;
    outcome.ledger_entries = written.iter().map(|e| e.seq).collect();
    outcome.notes.extend(ledger.take_notes().into_iter().map(Note::info));
    staged.persist(&out).map_err(|e| {
        Error::io("writing", &out, e.error)
            .with_hint("the ledger recorded the file's hash: run the command again with --dry-run to compare")
    })?;
    outcome.out = Some(out.display().to_string());
    Ok(count_draft.inputs)
}

/// The inputs a count entry records: the registered pilot (`pilot`: its path and SHA-256), the
/// passages, questions, qrels and pairs read (standard input as `-`), and the assignment file
/// `out` the count writes.
fn count_inputs(
    ledger: &Ledger,
    o: &ComponentsOptions,
    pilot: Option<(&str, &str)>,
    passages_sha256: Option<&String>,
    out: &Path,
    out_sha256: &str,
) -> Inputs {
    let mut inputs = counted_inputs(ledger, o, passages_sha256);
    if let Some((file, sha)) = pilot {
        inputs.insert(InputKey::new(InputRole::Pilot, file.to_string()), sha.to_string());
    }
    inputs.insert(
        InputKey::new(InputRole::Assignment, ledger.relative(out)),
        out_sha256.to_string(),
    );
    inputs
}

/// The counted inputs of a count: the passages, questions, qrels and pairs read (standard input
/// as `-`).
pub(super) fn counted_inputs(ledger: &Ledger, o: &ComponentsOptions, passages_sha256: Option<&String>) -> Inputs {
    let mut inputs = Inputs::new();
    // Standard input is recorded as `-`: its bytes' hash, with no file to re-read.
    let shown = |i: &Input| {
        if i.path() == Path::new(crate::input::STDIN_NAME) {
            crate::input::STDIN_ARG.to_string()
        } else {
            ledger.relative(i.path())
        }
    };
    if let (Some(p), Some(sha)) = (&o.passages, passages_sha256) {
        let name = match p {
            PassagesInput::Read(i) => shown(i),
            PassagesInput::File(f) => ledger.relative(f),
        };
        inputs.insert(InputKey::new(InputRole::Passages, name), sha.clone());
    }
    inputs.insert(
        InputKey::new(InputRole::Questions, shown(&o.questions)),
        o.questions.sha256(),
    );
    if let Some(q) = &o.qrels {
        inputs.insert(InputKey::new(InputRole::Qrels, shown(q)), q.sha256());
    }
    if let Some(p) = &o.pairs {
        inputs.insert(InputKey::new(InputRole::Pairs, shown(p)), p.sha256());
    }
    inputs
}

/// The count entry's summary and `result.json` record, from the count and its decision (the
/// counted question ids sorted, each once; no question change yet: that is read against the
/// ledger inside the append).
fn count_records(outcome: &ComponentsOutcome) -> (CountSummary, CountRecord) {
    let count_summary = CountSummary {
        decision: outcome.stop.decision.into(),
        counted: outcome.stop.counted,
        required: outcome.stop.required,
        count: outcome.stop.count,
        required_rule: outcome.stop.required_rule,
        splits: outcome.stop.splits.iter().map(Into::into).collect(),
        components: outcome.count.components,
        with_candidates: outcome.count.with_candidates,
        questions: outcome.count.questions,
        assignment_sha256: outcome.out_sha256.clone(),
        question_change: None,
        attempt: outcome.attempt.clone(),
    };
    let mut question_ids: Vec<String> = outcome.count.rows.iter().map(|r| r.question.clone()).collect();
    question_ids.sort();
    question_ids.dedup();
    let count_record = CountRecord {
        record_version: RECORD_VERSION,
        count: (&outcome.count).into(),
        stop: (&outcome.stop).into(),
        diagnostics: outcome.diagnostics.as_ref().map(Into::into),
        contamination: outcome.contamination.as_ref().map(Into::into),
        question_ids,
        question_change: None,
    };
    (count_summary, count_record)
}

/// `draft` (a count: `summary` and `record` as drafted) with, when it counts other questions,
/// passages, qrels or pairs than the study's registered count (its first `go`), which questions
/// left and which joined, read against that count's record (not when it holds no question ids:
/// written before they were recorded).
///
/// Errors: the registered count's commit cannot be read, or its record does not parse.
fn with_question_change(
    ledger: &Ledger,
    snap: &crate::ledger::Snapshot,
    mut draft: Draft,
    summary: &CountSummary,
    record: &CountRecord,
) -> Result<Draft> {
    let Some(registered) = snap
        .rules()
        .study(&draft.study_id)
        .and_then(|s| s.registered_set.clone())
    else {
        return Ok(draft);
    };
    let (Some(commit), false) = (
        registered.commit.as_deref().and_then(|c| git2::Oid::from_str(c).ok()),
        crate::ledger::rules::counted_changes(&registered, &draft.inputs).is_empty(),
    ) else {
        return Ok(draft);
    };
    let stored: CountRecord = records::read_result(&ledger.read_commit(commit)?, "count")?;
    if stored.question_ids.is_empty() {
        return Ok(draft);
    }
    let change = records::QuestionChange::between(registered.seq, &stored.question_ids, &record.question_ids);
    draft.summary = records::to_value(&CountSummary {
        question_change: Some(change.counts()),
        ..summary.clone()
    })?;
    draft.result = Some(records::to_value(&CountRecord {
        question_change: Some(change),
        ..record.clone()
    })?);
    Ok(draft)
}

/// The entries a count appends on `snap`: the count (and its assignment), after a deviation
/// entry when a reason is given, as the registration rules allow them: refused (exit 1) under a
/// protocol that is not the registered one in force or another pilot than the registered one,
/// and on other inputs than the study's previous count without a reason.
fn count_drafts(
    snap: &crate::ledger::Snapshot,
    lp: &crate::protocol::LoadedProtocol,
    deviation: Option<&String>,
    count: &Draft,
    assign: Option<&Draft>,
    now: DateTime<Utc>,
) -> Result<Vec<Draft>> {
    use crate::ledger::rules::Violation;
    let time = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let Some(verdict) = snap.preview(std::slice::from_ref(count), &time).pop() else {
        return Ok(vec![]);
    };
    let e = crate::ledger::rules::candidate(count, verdict.seq, &time, Default::default());
    let path = lp.path.display().to_string();
    let mut changed: Vec<FieldDeviation> = Vec::new();
    let mut attempt: Vec<Violation> = Vec::new();
    for v in &verdict.violations {
        match v {
            Violation::UnregisteredStudy | Violation::ProtocolNotInForce { .. } => {
                return Err(query::refusal_error(v.refusal(&e, &path)))
            }
            Violation::PilotNotRegistered { path: file, seq } => {
                return Err(Error::refused(format!(
                    "the pilot {} is not the one registered (entry #{}): the requirement would rest on other data",
                    file, seq
                ))
                .with_hint("restore the registered pilot file, or register the change with `pledge amend`"))
            }
            Violation::CountOnOtherInputs { fields, .. } => changed = fields.clone(),
            Violation::AttemptOverBudget { .. }
            | Violation::AttemptChangeNotAllowed { .. }
            | Violation::AttemptUnchecked { .. } => attempt.push(v.clone()),
            other if other.is_finding() => return Err(Error::refused(other.message(&e))),
            _ => {}
        }
    }
    if let (None, Some(v)) = (deviation, attempt.first()) {
        return Err(Error::refused(format!("study `{}` is counted {}", count.study_id, v.attempt_clause()))
            .with_hint("count the previous attempt's inputs again, or record why with --deviation \"reason\" (the attempt is then shown in the report's verdict card and by verify)"));
    }
    let mut drafts = Vec::new();
    match (deviation, changed.is_empty()) {
        (None, false) => {
            let refusals: Vec<crate::error::Refusal> = changed
                .iter()
                .map(|f| crate::error::Refusal::Field(f.to_string()))
                .collect();
            return Err(crate::error::refused_by(
                format!(
                    "study `{}` was counted before on other inputs: a recount on these needs a reason",
                    count.study_id
                ),
                &refusals,
                "recount on the inputs of the earlier count, or record why with --deviation \"reason\" (every count stays in the report)",
            ));
        }
        (Some(reason), _) => drafts.push(Draft {
            kind: Some(EntryKind::Deviation),
            reason: Some(reason.clone()),
            summary: records::to_value(&records::DeviationSummary {
                command: "components".into(),
                overridden: attempt
                    .iter()
                    .map(|v| format!("counted {}", v.attempt_clause()))
                    .collect(),
                fields: changed,
            })?,
            result: None,
            rng: None,
            ..count.clone()
        }),
        (None, true) => {}
    }
    drafts.push(count.clone());
    drafts.extend(assign.cloned());
    Ok(drafts)
}

/// One line per contamination rule (what it flagged, by role, and what was left), and the
/// stop when a rule's stop threshold was reached.
fn contamination_notes(c: &crate::gate::contamination::Contamination) -> Notes {
    let mut notes: Notes = c
        .rules
        .iter()
        .map(|r| {
            let f = &r.passages_flagged;
            Note::info(format!(
                "contamination rule `{}`: {} of {} candidate questions flagged ({} supporting, {} distractor and {} decoy passages meet it), {} left out, {} left",
                r.rule, r.questions_flagged, c.candidates, f.supporting, f.distractors, f.decoys, r.removed, r.remaining
            ))
        })
        .collect();
    if let Some(rule) = &c.stopped_by {
        notes.push(Note::warning(format!(
            "contamination rule `{}` reached its stop threshold: the build stops",
            rule
        )));
    }
    notes
}

/// Writes `bytes` to a temporary file in `out`'s directory, synced, ready to be renamed.
fn stage(out: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = crate::io::temp_file_in(dir)?;
    tmp.write_all(bytes).map_err(|e| Error::io("writing", out, e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io("syncing", out, e))?;
    Ok(tmp)
}
