//! `pledge demo`: the bundled HotpotQA example (100 distractor questions and the per-question
//! correctness of six agent configurations, see `tests/data/hotpotqa-100/PROVENANCE.txt`) in a
//! fresh scratch repository, and the pipeline's steps as a user would type them there. The CLI
//! runs the real commands in order; nothing is canned.

use crate::error::{Error, Result};
use chrono::{DateTime, Utc};
use std::path::Path;

const PROTOCOL: &str = include_str!("../../protocols/hotpotqa.toml");
const QUESTIONS: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/questions.json");
const CORRECTNESS: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/correctness.csv");
const PROVENANCE: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/PROVENANCE.txt");
const MARKER: &str = ".pledge-demo";

/// One step of the demo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `pledge ARGS`.
    Pledge(Vec<&'static str>),
    /// `git add PATHS && git commit -m MESSAGE`: what a reviewer's clone needs (the assignment
    /// an analysis reads, the report) is committed, as the untracked-input warnings ask.
    Commit {
        /// Files or directories to add.
        paths: Vec<&'static str>,
        /// The commit message.
        message: &'static str,
    },
}

impl Step {
    /// The step as a user types it.
    pub fn command_line(&self) -> String {
        match self {
            Step::Pledge(args) => format!("pledge {}", args.join(" ")),
            Step::Commit { paths, message } => format!("git add {} && git commit -m '{}'", paths.join(" "), message),
        }
    }
}

/// The demo's steps, as a user would type them in the demo directory: the pipeline, each file a
/// reviewer needs committed, and the reviewer's own check at the end.
pub fn plan() -> Vec<Step> {
    let mut out: Vec<Step> = steps().into_iter().map(Step::Pledge).collect();
    let at = |out: &[Step], cmd: &str| {
        out.iter()
            .position(|s| matches!(s, Step::Pledge(a) if a[0] == cmd))
            .map_or(out.len(), |i| i + 1)
    };
    let i = at(&out, "components");
    out.insert(
        i,
        Step::Commit {
            paths: vec!["components.csv"],
            message: "The component assignment of the count",
        },
    );
    let i = at(&out, "report");
    out.insert(
        i,
        Step::Commit {
            paths: vec!["report"],
            message: "The report",
        },
    );
    out
}

/// The `pledge` commands of the demo, in order (see [`plan`]).
pub fn steps() -> Vec<Vec<&'static str>> {
    vec![
        vec!["init"],
        vec!["register", "protocols/hotpotqa.toml"],
        vec![
            "components",
            "protocols/hotpotqa.toml",
            "--questions",
            "data/questions.json",
            "--out",
            "components.csv",
        ],
        vec![
            "analyze",
            "protocols/hotpotqa.toml",
            "--scores",
            "data/correctness.csv",
            "--components",
            "components.csv",
        ],
        vec!["report", "--out", "report"],
        vec!["verify", "protocols/hotpotqa.toml", "--rerun", "--report", "report"],
    ]
}

/// Creates `dir` afresh with the example files and a git repository whose first commit holds
/// them (so the report can name the commit the study was registered at).
pub fn prepare(dir: &Path, now: DateTime<Utc>) -> Result<()> {
    if dir.exists() {
        let empty = std::fs::read_dir(dir).map(|mut d| d.next().is_none()).unwrap_or(false);
        if dir.join(MARKER).exists() {
            std::fs::remove_dir_all(dir).map_err(|e| Error::io("removing the previous demo in", dir, e))?;
        } else if !empty {
            return Err(
                Error::input(format!("{} exists and is not a pledge demo directory", dir.display()))
                    .with_hint("pass another directory: pledge demo DIR"),
            );
        }
    }
    let files: [(&str, &[u8]); 5] = [
        (
            MARKER,
            b"created by `pledge demo`; the next demo run replaces this directory\n",
        ),
        ("protocols/hotpotqa.toml", PROTOCOL.as_bytes()),
        ("data/questions.json", QUESTIONS),
        ("data/correctness.csv", CORRECTNESS),
        ("data/PROVENANCE.txt", PROVENANCE),
    ];
    for (name, bytes) in files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("creating", parent, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| Error::io("writing", &p, e))?;
    }
    commit_files(dir, now, &files.iter().map(|f| f.0).collect::<Vec<_>>())
}

fn commit_files(dir: &Path, now: DateTime<Utc>, names: &[&str]) -> Result<()> {
    let g = |e| Error::git("preparing the demo repository", e);
    git2::Repository::init(dir).map_err(g)?;
    commit(
        dir,
        now,
        names,
        "Example study: 100 HotpotQA questions and six agents' correctness",
    )
}

/// Adds `paths` (files, or directories whose files are added) of the demo repository in `dir`
/// and commits them with `message` at `now`, as `git add PATHS && git commit -m MESSAGE` does.
///
/// Errors (exit 70): git cannot add or commit.
pub fn commit(dir: &Path, now: DateTime<Utc>, paths: &[&str], message: &str) -> Result<()> {
    let g = |e| Error::git("committing in the demo repository", e);
    let repo = git2::Repository::open(dir).map_err(g)?;
    let mut index = repo.index().map_err(g)?;
    index
        .add_all(paths.iter(), git2::IndexAddOption::DEFAULT, None)
        .map_err(g)?;
    index.write().map_err(g)?;
    let tree = repo.find_tree(index.write_tree().map_err(g)?).map_err(g)?;
    let sig = git2::Signature::new(
        "pledge demo",
        "demo@pledge.invalid",
        &git2::Time::new(now.timestamp(), 0),
    )
    .map_err(g)?;
    let parent = match repo.head() {
        Ok(h) => Some(h.peel_to_commit().map_err(g)?),
        Err(_) => None,
    };
    repo.commit(
        Some("HEAD"),
        &sig,
        &sig,
        message,
        &tree,
        &parent.iter().collect::<Vec<_>>(),
    )
    .map_err(g)?;
    Ok(())
}
