//! `pledge check PROTOCOL`: everything `register` would check of a draft protocol, and whether
//! the inputs it will be used with can be read as it says, without a ledger. Also the
//! usability checks `register` and `amend` refuse on ([`usable`]): a protocol that parses but
//! that no analysis could follow (`layout = "per-system"` without a `column`, an
//! `analysis.split` that names no split or several splits and none named, a baseline that is
//! not a registered system).

use super::{Note, Notes};
use crate::error::{Error, Result};
use crate::protocol::{error_at_key, LoadedProtocol, ScoreLayout};
use crate::scores::ReadOptions;
use crate::stats::settings::{RunOptions, TrecInputs};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The inputs to try the draft with (all optional): a sample of the score files or of the qrels
/// and runs an analysis will read, and the questions (and passages) a count will read.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Score files (`--scores`), read with the protocol's `[scores]` settings.
    pub scores: Vec<PathBuf>,
    /// A qrels file (`--qrels`), evaluated with the runs.
    pub qrels: Option<PathBuf>,
    /// Run files (`--run`).
    pub runs: Vec<PathBuf>,
    /// A questions file (`--questions`), read as `pledge components` reads it.
    pub questions: Option<PathBuf>,
    /// A passages file (`--passages`).
    pub passages: Option<PathBuf>,
}

/// One problem of the draft: where (`FILE:LINE:COL`, or the input file), what, and the fix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// The message, starting with its location (`FILE:LINE:COL: ...` for a protocol key).
    pub message: String,
    /// Further causes, if any.
    pub causes: Vec<String>,
    /// How to fix it, when pledge can say.
    pub fix: Option<String>,
}

impl From<Error> for Problem {
    fn from(e: Error) -> Problem {
        Problem {
            causes: e.causes(),
            message: e.message,
            fix: e.hint,
        }
    }
}

/// What `check` found.
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    /// The protocol file checked.
    pub protocol: PathBuf,
    /// Its study id, when it parses.
    pub study: Option<String>,
    /// What each input held, one line each (e.g. `scores.csv: 2 systems, 100 topics`).
    pub inputs: Vec<String>,
    /// Every problem found; empty when the draft can be registered and used.
    pub problems: Vec<Problem>,
    /// Notes for people.
    #[serde(skip)]
    pub notes: Notes,
}

/// Checks the draft at `path` as `register` would (syntax, keys, ranges, the metric, the pilot,
/// a derivable requirement, [`usable`]) and reads the inputs of `opts` as the analysis and the
/// count would. Nothing is written anywhere.
///
/// Errors (exit 2): the protocol file cannot be read. Problems of the draft and of its inputs
/// are results, listed in [`CheckOutcome::problems`].
pub fn check(path: &Path, opts: &CheckOptions) -> Result<CheckOutcome> {
    let raw = std::fs::read(path).map_err(|e| Error::io("reading protocol", path, e))?;
    let mut out = CheckOutcome {
        protocol: path.to_path_buf(),
        study: None,
        inputs: Vec::new(),
        problems: Vec::new(),
        notes: Notes::new(),
    };
    let text = match std::str::from_utf8(crate::input::strip_bom(&raw)) {
        Ok(t) => t.to_owned(),
        Err(_) => {
            out.problems
                .push(Error::in_file(path, "protocol is not valid UTF-8").into());
            return Ok(out);
        }
    };
    let (protocol, problems) = crate::protocol::parse_all(&text, path);
    out.problems.extend(problems.into_iter().map(Problem::from));
    let Some(protocol) = protocol else {
        return Ok(out);
    };
    out.study = Some(protocol.study.id.clone());
    let lp = LoadedProtocol {
        path: path.to_path_buf(),
        protocol,
        text,
        hash: crate::protocol::protocol_hash(&raw),
    };
    if out.problems.is_empty() {
        out.problems
            .extend(registration_problems(&lp).into_iter().map(Problem::from));
    }
    inputs(&lp, opts, &mut out);
    if let Some(w) = super::checks::placeholder_author(&lp) {
        out.notes.push(Note::warning(format!(
            "{}; put your name and e-mail there before registering",
            w
        )));
    }
    if out.problems.is_empty() {
        out.notes.push(Note::info(format!(
            "nothing written: register it with `pledge register {}`",
            path.display()
        )));
    }
    Ok(out)
}

/// What `register` checks beyond parsing: the metric, the pilot, a derivable requirement, and
/// the usability checks.
fn registration_problems(lp: &LoadedProtocol) -> Vec<Error> {
    let mut out = Vec::new();
    if let Err(e) = super::checks::metric(lp) {
        out.push(e);
    }
    let pilot = super::register::estimate_pilot(lp, |f| f.display().to_string());
    match pilot {
        Ok(pilot) => {
            let sd = pilot.as_ref().map(|(_, _, p)| p.sd_for(&lp.protocol.target));
            if let Err(e) = super::checks::target_feasible(lp, sd) {
                out.push(e);
            }
        }
        Err(e) => out.push(e),
    }
    out.extend(usability(lp));
    out
}

/// The first usability problem of `lp` as an error (exit 2), for `register` and `amend`.
///
/// Errors (exit 2, at the key's line, with the fix as the hint): see [`usability`].
pub fn usable(lp: &LoadedProtocol) -> Result<()> {
    match usability(lp).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Problems that make a protocol that parses unusable by any analysis: `layout = "per-system"`
/// without the `column` that holds the score; an `analysis.split` that names no `[[splits]]`,
/// or several splits and no `analysis.split` (the split analyzed must be registered, not
/// chosen after the data are seen); an `analysis.baseline` that is not among `analysis.systems`. Each is located at its key, with
/// the fix as the hint.
pub fn usability(lp: &LoadedProtocol) -> Vec<Error> {
    let p = &lp.protocol;
    let at = |keys: &[&str], msg: String, fix: String| error_at_key(&lp.path, &lp.text, keys, msg).with_hint(fix);
    let mut out = Vec::new();
    if let Some(sc) = &p.scores {
        if sc.layout == ScoreLayout::PerSystem && sc.column.is_none() {
            out.push(at(
                &["scores", "layout"],
                "layout = \"per-system\" reads one file per system, and the protocol does not say which column holds the score".into(),
                "add `column = \"NAME\"` under [scores] (the score column of each system's file), or use layout = \"wide\" for one file with a column per system".into(),
            ));
        }
    }
    if let Some(split) = &p.analysis.split {
        let names: Vec<&str> = p.splits.iter().map(|s| s.name.as_str()).collect();
        if !names.contains(&split.as_str()) {
            let fix = match names.is_empty() {
                true => format!("add a [[splits]] named \"{}\", or remove analysis.split", split),
                false => format!("use one of the splits: {}", names.join(", ")),
            };
            out.push(at(
                &["analysis", "split"],
                format!("analysis.split = \"{}\" names no split of the protocol", split),
                fix,
            ));
        }
    }
    if p.splits.len() > 1 && p.analysis.split.is_none() {
        let names: Vec<&str> = p.splits.iter().map(|s| s.name.as_str()).collect();
        let key: &[&str] = if lp.text.contains("[analysis]") {
            &["analysis"]
        } else {
            &["splits"]
        };
        out.push(at(
            key,
            format!(
                "the protocol has {} splits ({}) but does not say which one the analysis reads: the analyst would choose it after seeing the data",
                names.len(),
                names.join(", ")
            ),
            format!(
                "add `split = \"{}\"` under [analysis] (one of: {})",
                names[0],
                names.join(", ")
            ),
        ));
    }
    if let Some(b) = &p.analysis.baseline {
        if !p.analysis.systems.is_empty() && !p.analysis.systems.contains(b) {
            out.push(at(
                &["analysis", "baseline"],
                format!("analysis.baseline = \"{}\" is not among analysis.systems", b),
                format!("add \"{}\" to analysis.systems, or name one of them as the baseline", b),
            ));
        }
    }
    out
}

/// Reads the inputs of `opts` as the protocol says, recording what they hold and any problem.
fn inputs(lp: &LoadedProtocol, opts: &CheckOptions, out: &mut CheckOutcome) {
    if !opts.scores.is_empty() || opts.qrels.is_some() {
        match score_inputs(lp, opts) {
            Ok((line, problems)) => {
                out.inputs.push(line);
                out.problems.extend(problems);
            }
            Err(e) => out.problems.push(e.into()),
        }
    }
    if let Some(q) = &opts.questions {
        match question_inputs(lp, q, opts.passages.as_deref()) {
            Ok((line, problems)) => {
                out.inputs.push(line);
                out.problems.extend(problems);
            }
            Err(e) => out.problems.push(e.into()),
        }
    }
}

/// The score files (or qrels and runs) read with the protocol's registered reading: the systems
/// and topics found, and the registered systems missing from them.
fn score_inputs(lp: &LoadedProtocol, opts: &CheckOptions) -> Result<(String, Vec<Problem>)> {
    let p = &lp.protocol;
    let sc = p.scores.clone().unwrap_or_default();
    let trec = opts.qrels.as_ref().map(|q| TrecInputs {
        qrels: q.display().to_string(),
        runs: opts.runs.iter().map(|r| r.display().to_string()).collect(),
        measure: super::checks::measure_of(lp).map_or(p.target.metric.clone(), |(m, _)| m),
        complete: p.analysis.missing_topics == crate::protocol::MissingTopics::Zero,
        pool_runs: Vec::new(),
        pool_partial: true,
    });
    let mut problems = Vec::new();
    let v2 = p.schema_version >= 2;
    if v2 && sc.layout == ScoreLayout::TrecRuns && trec.is_none() {
        problems.push(layout_problem(
            lp,
            "score files (--scores)",
            "pass the qrels and runs: --qrels FILE --run FILE",
        ));
    }
    if v2 && trec.is_some() && !matches!(sc.layout, ScoreLayout::TrecRuns | ScoreLayout::Auto) {
        problems.push(layout_problem(
            lp,
            "TREC runs (--qrels, --run)",
            "pass score files (--scores), or register layout = \"trec-runs\"",
        ));
    }
    let run = RunOptions {
        scores: opts.scores.iter().map(|s| s.display().to_string()).collect(),
        read: read_options(lp),
        trec,
        ..Default::default()
    };
    let loaded = super::inputs::load(Path::new(""), &run, p.analysis.strata_field.as_deref(), Some(&p.pool))?;
    let table = &loaded.scores;
    let mut want: Vec<&str> = p.analysis.systems.iter().map(String::as_str).collect();
    if want.is_empty() {
        want = p
            .hypotheses
            .iter()
            .flat_map(|h| [h.system.as_str(), h.comparator.as_str()])
            .collect();
    }
    for s in want.iter().filter(|s| !table.systems.iter().any(|t| t == *s)) {
        problems.push(Problem {
            message: format!("the inputs hold no system `{}` (they hold: {})", s, table.systems.join(", ")),
            causes: Vec::new(),
            fix: Some(format!("name the systems as the inputs do in analysis.systems and [[hypotheses]], or rename `{}` in the inputs", s)),
        });
    }
    let line = format!(
        "scores: {} systems ({}), {} topics",
        table.systems.len(),
        table.systems.join(", "),
        table.topics.len()
    );
    Ok((line, problems))
}

/// A problem with what is read against the registered `[scores] layout`.
fn layout_problem(lp: &LoadedProtocol, read: &str, fix: &str) -> Problem {
    let layout = lp.protocol.scores.clone().unwrap_or_default().layout;
    let e = error_at_key(
        &lp.path,
        &lp.text,
        &["scores", "layout"],
        format!(
            "the protocol registers layout = \"{}\", but the inputs are {}",
            layout, read
        ),
    );
    e.with_hint(fix).into()
}

/// The reader options the registered `[scores]` implies (as `analyze` reads without flags).
fn read_options(lp: &LoadedProtocol) -> ReadOptions {
    let p = &lp.protocol;
    let sc = p.scores.clone().unwrap_or_default();
    let v2 = p.schema_version >= 2;
    let measure = match (v2, sc.layout) {
        (true, ScoreLayout::TrecEval) => super::checks::measure_of(lp).map(|(m, _)| m),
        (false, _) => None,
        _ => sc.measure.clone(),
    };
    ReadOptions {
        measure,
        column: sc.column.clone(),
        labels: p.labels(),
        topic_column: sc.topic_column.clone(),
        sample_column: sc.sample_column.clone(),
        sample_aggregation: Some(sc.sample_aggregation).filter(|a| !a.is_default()),
        sample_files: sc.sample_files.clone(),
        format: match sc.layout {
            ScoreLayout::TrecEval => Some(crate::scores::ScoreFormat::TrecEval),
            ScoreLayout::Jsonl => Some(crate::scores::ScoreFormat::Jsonl),
            _ => None,
        },
        ..Default::default()
    }
}

/// The questions (and passages) read as `pledge components` reads them: their counts, and the
/// fields and passages the protocol's unit and link rules need.
fn question_inputs(lp: &LoadedProtocol, questions: &Path, passages: Option<&Path>) -> Result<(String, Vec<Problem>)> {
    let (corpus, layout) = crate::components::read::read_corpus(passages, questions)?;
    let p = &lp.protocol;
    let mut problems = Vec::new();
    let mut fields: Vec<(&str, &[&str])> = Vec::new();
    if p.components.unit != "question" {
        fields.push((p.components.unit.as_str(), &["components", "unit"]));
    }
    for r in &p.link_rules {
        if let Some(f) = &r.field {
            fields.push((f.as_str(), &["link-rules"]));
        }
    }
    for (field, keys) in fields {
        if !corpus.questions.iter().any(|q| q.fields.contains_key(field)) {
            let e = error_at_key(
                &lp.path,
                &lp.text,
                keys,
                format!("no question of {} has the field `{}`", questions.display(), field),
            );
            problems.push(
                e.with_hint("name a field the questions carry, or add it to each question")
                    .into(),
            );
        }
    }
    let needs_text = p.link_rules.iter().any(|r| {
        matches!(
            r.kind,
            crate::protocol::LinkKind::IdenticalPassage | crate::protocol::LinkKind::NearDuplicatePassage
        )
    });
    if needs_text && corpus.passages.is_empty() {
        let e = error_at_key(
            &lp.path,
            &lp.text,
            &["link-rules"],
            "the link rules compare passages, but the inputs hold none",
        );
        problems.push(e.with_hint("pass the passages with --passages FILE").into());
    }
    let line = format!(
        "questions: {} questions, {} passages ({} layout)",
        corpus.questions.len(),
        corpus.passages.len(),
        layout
    );
    Ok((line, problems))
}
