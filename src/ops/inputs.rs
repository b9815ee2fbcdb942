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
    let scores = crate::scores::score_table(&qrels, &runs, &t.measure, t.complete)?;
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

crate::named_enum! {
    /// How a file an entry recorded stands in git, when a clone of the repository would not hold
    /// it as it was read.
    pub enum Tracking {
        /// Never added to git: a clone does not have it.
        Untracked = "untracked",
        /// Ignored by git (`.gitignore`): a clone does not have it.
        Ignored = "ignored",
        /// Added but not committed: a clone does not have it.
        Staged = "staged, not committed",
        /// Committed, but changed since: a clone has another version.
        Changed = "changed since it was committed",
        /// Outside the repository: a rerun does not read it.
        Outside = "outside the repository",
    }
}

/// How the input `path` (relative to the repository root, as entries record it) stands in the
/// repository's git, when a clone would not hold it as read; `None` when it is committed as it
/// is, when it was read from standard input, or when git cannot tell (a bare repository, a path
/// git does not know at all).
pub fn tracking(repo: &git2::Repository, path: &str) -> Option<Tracking> {
    use git2::Status;
    if path == crate::input::STDIN_ARG {
        return None;
    }
    let p = Path::new(path);
    if p.is_absolute() || p.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
        return Some(Tracking::Outside);
    }
    repo.workdir()?;
    let s = repo.status_file(p).ok()?;
    if s.contains(Status::IGNORED) {
        Some(Tracking::Ignored)
    } else if s.contains(Status::WT_NEW) {
        Some(Tracking::Untracked)
    } else if s
        .intersects(Status::WT_MODIFIED | Status::INDEX_MODIFIED | Status::WT_TYPECHANGE | Status::INDEX_TYPECHANGE)
    {
        Some(Tracking::Changed)
    } else if s.contains(Status::INDEX_NEW) {
        Some(Tracking::Staged)
    } else {
        None
    }
}

/// One warning naming every file of `paths` (relative to the repository root, as entries
/// record inputs) that a reviewer's clone would not hold as it was read ([`tracking`]): the
/// file, how it stands, that reviewers cannot rerun from it, and the `git add` that fixes it.
/// `None` when every file is committed as read.
pub fn untracked_warning<'a>(
    ledger: &crate::ledger::Ledger,
    paths: impl IntoIterator<Item = &'a str>,
) -> Option<super::Note> {
    let mut listed: Vec<(String, Tracking)> = Vec::new();
    for path in paths {
        if let Some(t) = tracking(ledger.repo(), path) {
            if !listed.iter().any(|(p, _)| p == path) {
                listed.push((path.to_string(), t));
            }
        }
    }
    if listed.is_empty() {
        return None;
    }
    let files: Vec<String> = listed.iter().map(|(p, t)| format!("{} ({})", p, t)).collect();
    let to_add: Vec<String> = listed
        .iter()
        .filter(|(_, t)| *t != Tracking::Outside)
        .map(|(p, _)| crate::text::shell_word(p))
        .collect();
    let force = if listed.iter().any(|(_, t)| *t == Tracking::Ignored) {
        " -f"
    } else {
        ""
    };
    let fix = match (to_add.is_empty(), listed.iter().any(|(_, t)| *t == Tracking::Outside)) {
        (true, _) => "copy the files into the repository and commit them".to_string(),
        (false, outside) => format!(
            "git add{} {} && git commit{}",
            force,
            to_add.join(" "),
            if outside {
                " (and copy the files outside the repository into it)"
            } else {
                ""
            }
        ),
    };
    Some(super::Note::warning(format!(
        "not committed to the repository: {}; reviewers who clone it cannot rerun from {} (pledge verify --rerun); fix: {}",
        files.join(", "),
        if listed.len() == 1 { "it" } else { "them" },
        fix
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with `committed.csv` committed, then: `new.csv` never added, `staged.csv`
    /// added only, `ignored.csv` matched by `.gitignore`, and `changed.csv` edited after its
    /// commit.
    #[test]
    fn tracking_tells_what_a_clone_would_lack() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        for f in ["committed.csv", "changed.csv"] {
            write(f, "a\n");
        }
        write(".gitignore", "ignored.csv\n");
        let mut index = repo.index().unwrap();
        for f in ["committed.csv", "changed.csv", ".gitignore"] {
            index.add_path(Path::new(f)).unwrap();
        }
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@example.org", &git2::Time::new(0, 0)).unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "c", &tree, &[]).unwrap();
        write("changed.csv", "a\nb\n");
        write("new.csv", "x\n");
        write("ignored.csv", "x\n");
        write("staged.csv", "x\n");
        index.add_path(Path::new("staged.csv")).unwrap();
        index.write().unwrap();
        let t = |p: &str| tracking(&repo, p);
        assert_eq!(t("committed.csv"), None);
        assert_eq!(t("new.csv"), Some(Tracking::Untracked));
        assert_eq!(t("ignored.csv"), Some(Tracking::Ignored));
        assert_eq!(t("staged.csv"), Some(Tracking::Staged));
        assert_eq!(t("changed.csv"), Some(Tracking::Changed));
        assert_eq!(t("/etc/hosts"), Some(Tracking::Outside));
        assert_eq!(t("../x.csv"), Some(Tracking::Outside));
        assert_eq!(t("-"), None);
        assert_eq!(t("no-such-file.csv"), None);
    }
}
