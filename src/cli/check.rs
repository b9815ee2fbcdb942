//! `pledge check PROTOCOL` and `pledge new CASE`.

use super::human::render;
use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops::check::CheckOptions;
use crate::ops::new::Case;
use crate::ops::Note;
use crate::output::Format;
use std::path::PathBuf;

/// `pledge check PROTOCOL [--scores FILE]... [--qrels FILE --run FILE...] [--questions FILE]`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Checks a draft protocol as `pledge register` would (TOML, keys, ranges, the metric, the pilot,
the derived requirement, and that an analysis can follow it), and reads the inputs you give as
the analysis or the count will: score files with the protocol's [scores] settings, qrels and runs
evaluated with its measure, questions and passages as `pledge components` reads them. Nothing is
written, and no git repository is needed. Exit 0: ready to register; 1: problems, each with its
line and the fix; 2: the protocol file cannot be read.

Examples:
  pledge check study.toml --scores scores.csv
  pledge check trec.toml --qrels qrels.txt --run bm25.run --run dense.run
  pledge check benchmark.toml --questions questions.jsonl --passages passages.jsonl")]
pub struct CheckArgs {
    /// The draft protocol TOML file.
    pub protocol: PathBuf,
    /// A score file the analysis will read (repeatable): per-topic scores in any format `pledge
    /// formats` lists, read with the protocol's [scores] settings.
    #[arg(long, value_name = "FILE")]
    pub scores: Vec<PathBuf>,
    /// TREC qrels (`qid iter docno rel`, BEIR or ranx qrels), evaluated with the runs.
    #[arg(long, value_name = "FILE", requires = "run")]
    pub qrels: Option<PathBuf>,
    /// A TREC run (`qid Q0 docno rank score tag`; repeatable), with --qrels.
    #[arg(long, value_name = "FILE", requires = "qrels")]
    pub run: Vec<PathBuf>,
    /// The candidate questions a count will read (JSON Lines `{"id", "passages": [...],
    /// "decoy": ...}`, a JSON array, Parquet, HotpotQA, MuSiQue or BEIR queries).
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,
    /// The passages the questions use (JSON Lines `{"id", "text", ...}`), with --questions.
    #[arg(long, value_name = "FILE", requires = "questions")]
    pub passages: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn check(a: CheckArgs, ctx: &Ctx) -> Outcome {
    let opts = CheckOptions {
        scores: a.scores.iter().map(|p| resolve(ctx, p)).collect(),
        qrels: a.qrels.as_deref().map(|p| resolve(ctx, p)),
        runs: a.run.iter().map(|p| resolve(ctx, p)).collect(),
        questions: a.questions.as_deref().map(|p| resolve(ctx, p)),
        passages: a.passages.as_deref().map(|p| resolve(ctx, p)),
    };
    let out = crate::ops::check::check(&resolve(ctx, &a.protocol), &opts)?;
    let code = if out.problems.is_empty() {
        exit::OK
    } else {
        exit::FINDINGS
    };
    Ok(Output::with_code(code, render(&out, a.format), &out.notes))
}

/// `pledge new CASE [FILE]`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes a commented starting protocol for CASE to FILE (default protocol.toml; `-` prints it).
An existing file is never overwritten. Then edit it, check it against a sample of your inputs
with `pledge check`, and register it before you look at the results.

Cases:
  two-models     two models (or systems) on per-question scores: one wide CSV, one hypothesis
  trec-runs      TREC runs evaluated against qrels, with the pool-bias statement
  many-systems   many systems on the same questions, every pair compared (randomized Tukey HSD)
  benchmark      a benchmark built from passages: link rules, splits and a stop rule

Examples:
  pledge new two-models study.toml
  pledge new benchmark - | less")]
pub struct NewArgs {
    /// The kind of study.
    #[arg(value_parser = named::<Case>())]
    pub case: Case,
    /// The protocol file to write (`-`: standard output).
    #[arg(default_value = "protocol.toml")]
    pub file: PathBuf,
}

pub fn new(a: NewArgs, ctx: &Ctx) -> Outcome {
    if a.file.as_os_str() == "-" {
        let out = crate::ops::new::new(a.case, None, ctx.author.as_deref())?;
        return Ok(Output::ok(out.text, &vec![]));
    }
    let path = resolve(ctx, &a.file);
    let out = crate::ops::new::new(a.case, Some(&path), ctx.author.as_deref())?;
    let shown = a.file.display().to_string();
    let mut notes = vec![Note::info(format!("wrote {} (a {} protocol); next:", shown, a.case))];

    notes.extend(
        a.case
            .next_steps(&shown)
            .into_iter()
            .map(|s| Note::info(format!("  {}", s))),
    );
    if out.placeholder_author {
        notes.push(Note::info(format!(
            "registered-by is the placeholder `{}`: git knows no user.name and user.email here",
            crate::ops::new::PLACEHOLDER_AUTHOR
        )));
    }
    Ok(Output::ok(format!("{}\n", path.display()), &notes))
}
