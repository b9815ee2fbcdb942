//! `pledge new CASE`: a commented starting protocol for a kind of study. The templates are the
//! example protocols of `protocols/`, compiled in, so what the book shows, what the tests check
//! and what `new` writes are the same files.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

crate::named_enum! {
    /// The kinds of study `pledge new` writes a starting protocol for.
    pub enum Case {
        /// Two models (or systems) on per-question scores: one wide CSV, one hypothesis.
        TwoModels = "two-models",
        /// TREC runs evaluated against qrels, with the pool-bias statement.
        TrecRuns = "trec-runs",
        /// Many systems on the same questions, every pair compared (randomized Tukey HSD).
        ManySystems = "many-systems",
        /// A benchmark built from passages: link rules, splits and a stop rule, applied before
        /// anything is built.
        Benchmark = "benchmark",
    }
}

impl Case {
    /// The commented protocol (`protocols/CASE.toml`).
    pub fn template(self) -> &'static str {
        match self {
            Case::TwoModels => include_str!("../../protocols/two-models.toml"),
            Case::TrecRuns => include_str!("../../protocols/trec-runs.toml"),
            Case::ManySystems => include_str!("../../protocols/many-systems.toml"),
            Case::Benchmark => include_str!("../../protocols/benchmark.toml"),
        }
    }

    /// What to do next with the protocol written to `file`, one command or step a line.
    pub fn next_steps(self, file: &str) -> Vec<String> {
        let edit = format!(
            "edit {}: the [study] id, title and your name, the [target], and the names it marks",
            file
        );
        let tail = match self {
            Case::TwoModels | Case::ManySystems => vec![
                format!("pledge check {} --scores scores.csv", file),
                format!("pledge register {}", file),
                format!("pledge analyze {} --scores scores.csv", file),
            ],
            Case::TrecRuns => vec![
                format!("pledge check {} --qrels qrels.txt --run a.run --run b.run", file),
                format!("pledge register {}", file),
                format!("pledge analyze {} --qrels qrels.txt --run a.run --run b.run", file),
            ],
            Case::Benchmark => vec![
                format!(
                    "pledge check {} --questions questions.jsonl --passages passages.jsonl",
                    file
                ),
                format!("pledge register {}", file),
                format!(
                    "pledge components {} --questions questions.jsonl --passages passages.jsonl --assign",
                    file
                ),
            ],
        };
        std::iter::once(edit).chain(tail).collect()
    }
}

/// What `new` wrote.
#[derive(Debug, Clone)]
pub struct NewOutcome {
    /// The case.
    pub case: Case,
    /// The file written, or `None` when the protocol goes to standard output.
    pub path: Option<PathBuf>,
    /// The protocol text.
    pub text: String,
    /// Whether `registered-by` still holds [`PLACEHOLDER_AUTHOR`] (no identity was given).
    pub placeholder_author: bool,
}

/// The `registered-by` value of the example protocols, which `new` replaces by the git identity
/// when there is one; `register` and `check` warn while a protocol still holds it.
pub const PLACEHOLDER_AUTHOR: &str = "Your Name <you@example.org>";

/// The template of `case` with `registered-by` set to `author` (a TOML basic string, escaped),
/// or left at [`PLACEHOLDER_AUTHOR`] when `author` is `None`.
pub fn with_author(case: Case, author: Option<&str>) -> String {
    let text = case.template();
    match author {
        Some(a) => text.replacen(
            &format!("registered-by = \"{}\"", PLACEHOLDER_AUTHOR),
            &format!("registered-by = {}", toml::Value::String(a.to_string())),
            1,
        ),
        None => text.to_string(),
    }
}

/// Writes the starting protocol of `case` to `path` (a new file; `None` writes nothing and
/// returns the text for standard output), with `registered-by` set to `author` (the git
/// identity `Name <email>`, see [`with_author`]).
///
/// Errors (exit 2): `path` exists (nothing is overwritten) or cannot be written.
pub fn new(case: Case, path: Option<&Path>, author: Option<&str>) -> Result<NewOutcome> {
    let text = with_author(case, author);
    if let Some(p) = path {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => Error::in_file(p, "already exists; nothing was overwritten")
                    .with_hint("choose another file name, or remove the file first"),
                _ => Error::io("writing the protocol", p, e),
            })?;
        f.write_all(text.as_bytes())
            .and_then(|_| f.sync_all())
            .map_err(|e| Error::io("writing the protocol", p, e))?;
    }
    Ok(NewOutcome {
        case,
        path: path.map(Path::to_path_buf),
        placeholder_author: author.is_none(),
        text,
    })
}
