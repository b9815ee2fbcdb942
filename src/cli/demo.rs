//! `pledge demo [DIR]`: the main job. Runs the whole pipeline on the bundled HotpotQA example
//! (100 distractor questions and the per-question correctness of six agent configurations, see
//! `tests/data/hotpotqa-100/PROVENANCE.txt`) in a fresh scratch directory: init, register, count
//! components and apply the stop rule, analyze, report, verify. Every step is the real command,
//! run in-process; nothing is canned.

use super::{resolve, Ctx, Outcome};
use crate::error::{exit, Error, Result};
use std::path::{Path, PathBuf};

const PROTOCOL: &str = include_str!("../../protocols/hotpotqa.toml");
const QUESTIONS: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/questions.json");
const CORRECTNESS: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/correctness.csv");
const PROVENANCE: &[u8] = include_bytes!("../../tests/data/hotpotqa-100/PROVENANCE.txt");
const MARKER: &str = ".pledge-demo";

/// Arguments of `pledge demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scratch directory to create (a previous demo directory there is replaced).
    #[arg(default_value = "pledge-demo")]
    pub dir: PathBuf,
}

/// The pipeline's steps, as a user would type them in the demo directory.
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
            "--label",
            "HALTED=0",
            "--components",
            "components.csv",
        ],
        vec!["report", "--out", "report"],
        vec!["verify", "protocols/hotpotqa.toml"],
    ]
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let dir = resolve(ctx, &a.dir);
    prepare(&dir, ctx)?;
    let mut sub = ctx.clone();
    sub.cwd = dir.clone();
    for step in steps() {
        eprintln!("==> pledge {}", step.join(" "));
        let mut args = vec![std::ffi::OsString::from("pledge")];
        args.extend(step.iter().map(std::ffi::OsString::from));
        let (code, out) = super::run(args, &sub);
        eprint!("{}", indent(&out));
        if code != exit::OK {
            let what = if code == exit::STOP {
                "the stop rule said stop"
            } else {
                "a step failed"
            };
            eprintln!(
                "error: demo: {} at `pledge {}` (exit {}); the scratch directory {} is kept",
                what,
                step.join(" "),
                code,
                dir.display()
            );
            return Ok((code, String::new()));
        }
    }
    let report = dir.join("report").join("report.md");
    eprintln!("The report is at {}", report.display());
    Ok((exit::OK, format!("{}\n", report.display())))
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {}\n", l)).collect()
}

/// Creates `dir` afresh with the example files and a git repository whose first commit holds
/// them (so the report can name the commit the study was registered at).
fn prepare(dir: &Path, ctx: &Ctx) -> Result<()> {
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
    commit_files(dir, ctx, &files.iter().map(|f| f.0).collect::<Vec<_>>())
}

fn commit_files(dir: &Path, ctx: &Ctx, names: &[&str]) -> Result<()> {
    let g = |e| Error::git("preparing the demo repository", e);
    let repo = git2::Repository::init(dir).map_err(g)?;
    let mut index = repo.index().map_err(g)?;
    for n in names {
        index.add_path(Path::new(n)).map_err(g)?;
    }
    index.write().map_err(g)?;
    let tree = repo.find_tree(index.write_tree().map_err(g)?).map_err(g)?;
    let sig = git2::Signature::new(
        "pledge demo",
        "demo@pledge.invalid",
        &git2::Time::new(ctx.now.timestamp(), 0),
    )
    .map_err(g)?;
    repo.commit(
        Some("HEAD"),
        &sig,
        &sig,
        "Example study: 100 HotpotQA questions and six agents' correctness",
        &tree,
        &[],
    )
    .map_err(g)?;
    Ok(())
}
