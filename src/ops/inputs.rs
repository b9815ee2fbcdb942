//! Loading the inputs of an analysis (`analyze`, `compare`, `verify --rerun`): score files or
//! qrels + runs, the component assignment (restricted to a split), and the strata.

use crate::assignment::AssignmentRow;
use crate::error::{Error, Result};
use crate::stats::settings::{RunOptions, TrecInputs};
use crate::stats::strata::read_strata;
use crate::stats::Inputs;
use std::path::{Path, PathBuf};

/// Loads the inputs named by `opts` (paths resolved against `root`); notes name files by the
/// recorded (relative) path so that the result does not depend on where the repository lies.
///
/// Errors (exit 2): an unreadable or malformed input (file and line named); `--split` without an
/// assignment, or naming no split of it; an assignment with splits and no split chosen; a
/// stratified protocol without a strata column.
pub fn load(
    root: &Path,
    opts: &RunOptions,
    strata_field: Option<&str>,
    pool: Option<&crate::protocol::Pool>,
) -> Result<Inputs> {
    if opts.split.is_some() && opts.components.is_none() {
        return Err(Error::input(
            "--split needs --components FILE (the assignment that names the splits)",
        ));
    }
    let assignment = match &opts.components {
        Some(c) => {
            // `-`: the standard input the caller read into `opts.read.stdin`.
            let rows = match &opts.read.stdin {
                Some(i) if crate::input::is_stdin(Path::new(c)) => crate::assignment::from_text(i.path(), i.text()?)?,
                _ => crate::assignment::read(&root.join(c))?,
            };
            Some(check_split(rows, opts.split.as_deref(), c)?)
        }
        None => None,
    };
    if let Some(t) = &opts.trec {
        return load_trec(root, opts, t, assignment, strata_field, pool);
    }
    let paths: Vec<PathBuf> = opts.scores.iter().map(|p| root.join(p)).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let shown = |text: &mut String| {
        for (p, rel) in paths.iter().zip(&opts.scores) {
            *text = text.replace(&p.display().to_string(), rel);
        }
    };
    let mut scores = crate::scores::read_many(&refs, &opts.read).map_err(|mut e| {
        // The message and hint name the files as given (the hint may be a command to rerun).
        shown(&mut e.message);
        if let Some(h) = &mut e.hint {
            shown(h);
        }
        e
    })?;
    for n in &mut scores.notes {
        shown(n);
    }
    let strata = match strata_field {
        Some(f) => match &opts.strata {
            Some(s) => Some(read_strata(&root.join(s), f)?),
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
        prefilled: 0,
    })
}

/// Checks that `split` names a split of the assignment `rows` (read from `file`).
fn check_split(rows: Vec<AssignmentRow>, split: Option<&str>, file: &str) -> Result<Vec<AssignmentRow>> {
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
    t: &TrecInputs,
    assignment: Option<Vec<AssignmentRow>>,
    strata_field: Option<&str>,
    pool: Option<&crate::protocol::Pool>,
) -> Result<Inputs> {
    use crate::trec::{Duplicates, Qrels, Run};
    let read = |p: &str| crate::input::Input::from_path(&root.join(p), opts.read.limits);
    let qrels = Qrels::from_input(&read(&t.qrels)?, Duplicates::Error)?;
    let run = |r: &String| Run::from_input(&read(r)?, Duplicates::Error);
    let runs = t.runs.iter().map(run).collect::<Result<Vec<_>>>()?;
    let scores = crate::trec::score_table(&qrels, &runs, &t.measure, t.complete)?;
    // With -c semantics a run lacking a topic is scored as an empty ranking (0): count those.
    let prefilled = if t.complete {
        runs.iter()
            .map(|r| scores.topics.iter().filter(|tp| !r.topics.contains_key(*tp)).count())
            .sum()
    } else {
        0
    };
    // The pool check sees every supplied run: the compared ones and those given for the pool.
    let mut all_runs = runs;
    for r in &t.pool_runs {
        all_runs.push(run(r)?);
    }
    let default_pool = crate::protocol::Pool::default();
    let pool_bias = Some(crate::trec::pool_bias(
        &qrels,
        &all_runs,
        pool.unwrap_or(&default_pool),
        &t.measure,
        t.pool_partial,
    )?);
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
        prefilled,
    })
}
