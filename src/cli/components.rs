//! `pledge components`: parse, call [`ops::components::run`], render; a progress bar on a
//! terminal.

use super::human::{render, stop_line};
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::components::{stop::StopDecision, Progress};
use crate::error::exit;
use crate::ops;
use crate::output::Format;
use std::path::PathBuf;

/// Arguments of `pledge components`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The registered protocol TOML file.
    pub protocol: PathBuf,
    /// Passages: JSON Lines {id, text, ...} (gzip, zstd, bzip2 or xz accepted). Optional with a HotpotQA or MuSiQue
    /// questions file, whose paragraphs are then the passages.
    #[arg(long)]
    pub passages: Option<PathBuf>,
    /// Candidate questions: JSON Lines {id, passages, decoys|decoy, ...}, HotpotQA / MuSiQue /
    /// 2WikiMultihopQA (files or the Hugging Face hub schema), or BEIR queries with --qrels.
    #[arg(long)]
    pub questions: PathBuf,
    /// Qrels whose relevant documents are each question's passages (BEIR queries.jsonl with
    /// qrels/SPLIT.tsv); `-` for any one of the inputs reads standard input.
    #[arg(long)]
    pub qrels: Option<PathBuf>,
    /// Also assign whole components to the protocol's splits (only when the stop rule says go).
    #[arg(long)]
    pub assign: bool,
    /// Where to write the question -> component CSV [default: <study-id>.components.csv].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Count without writing anything: no ledger entry, no assignment file (works on an
    /// unregistered draft protocol; prints the assignment's SHA-256).
    #[arg(long)]
    pub dry_run: bool,
    /// Count on other questions or passages than an earlier count of the study, or as a build
    /// attempt past the registered budget (`[build]`) or changing more than it allows, recording
    /// why (a deviation entry; every count stays in the report).
    #[arg(long, value_name = "REASON")]
    pub deviation: Option<String>,
    /// Near-duplicate passage pairs computed elsewhere (JSON Lines {a, b, intersection, union,
    /// jaccard}, e.g. by the Spark job in spark/): used instead of the near-duplicate rule's
    /// join, hashed into the count entry, a random sample checked exactly.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["sensitivity", "bridges"])]
    pub pairs: Option<PathBuf>,
    /// How many listed pairs to check exactly against the passages (seeded by analysis.seed).
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "pairs")]
    pub pairs_sample: usize,
    /// Write the near-duplicate pairs the count used to FILE (JSON Lines, the form --pairs
    /// reads); written in a dry run too.
    #[arg(long, value_name = "FILE", conflicts_with = "pairs")]
    pub write_pairs: Option<PathBuf>,
    /// Also sweep the near-duplicate rule: the final count at Jaccard thresholds 0.50, 0.55, …,
    /// 1.00 and shingle sizes n−1, n, n+1 around the registered rule, from one join per size (a
    /// diagnostic recorded with the count; it never changes the decision).
    #[arg(long)]
    pub sensitivity: bool,
    /// Write the sensitivity curve as an SVG to FILE (needs --sensitivity; written in a dry run
    /// too).
    #[arg(long, value_name = "FILE", requires = "sensitivity")]
    pub sensitivity_svg: Option<PathBuf>,
    /// Also list the N passages, decoys and field values that join the most units, with how
    /// much the largest component would shrink without each (a diagnostic recorded with the
    /// count; it never changes the decision).
    #[arg(long, value_name = "N")]
    pub bridges: Option<usize>,
    /// Memory the near-duplicate join may use, e.g. 4GiB or 512MiB [default: half of the
    /// memory available (MemAvailable), or 4GiB when unknown]. Past it the join runs out of core,
    /// partitioned by prefix token with spill files in the temporary directory (TMPDIR): the same
    /// pairs and counts, disclosed in the count record.
    #[arg(long, value_name = "SIZE", value_parser = super::values::byte_size)]
    pub memory_limit: Option<u64>,
    /// The key file of a sealed set that a [[contamination-rules]] entry checks against (repeat
    /// it for several sets: each rule takes the key whose SHA-256 it registers). Keep it out of
    /// the repository.
    #[arg(long, value_name = "FILE")]
    pub sealed_key: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
    /// The limits of what is read.
    #[command(flatten)]
    pub limits: super::inputs::LimitArgs,
}

/// One progress bar per stage (reset at each stage): a bar with an ETA when the stage knows its
/// total, a spinner with the elapsed time when it does not.
struct Bar {
    bar: indicatif::ProgressBar,
    counted: Option<indicatif::ProgressStyle>,
    open: Option<indicatif::ProgressStyle>,
}

impl Progress for Bar {
    fn start(&self, stage: &str, total: u64) {
        self.bar.reset();
        self.bar.set_length(total);
        if let Some(style) = if total > 0 { &self.counted } else { &self.open } {
            self.bar.set_style(style.clone());
        }
        self.bar.set_message(stage.to_string());
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn bar(ctx: &Ctx) -> Bar {
    let bar = if ctx.stderr_is_tty {
        let b = indicatif::ProgressBar::new(0);
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let counted = indicatif::ProgressStyle::with_template("{msg:>22} [{bar:40}] {pos}/{len} (ETA {eta})")
        .ok()
        .map(|s| s.progress_chars("=> "));
    let open = indicatif::ProgressStyle::with_template("{msg:>22} {spinner} {elapsed}").ok();
    Bar { bar, counted, open }
}

/// Half of the memory available, or 4 GiB when the system does not say.
fn default_memory_limit(ctx: &Ctx) -> u64 {
    ctx.mem_available.map_or(4 << 30, |m| (m / 2).max(1))
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let ledger = if a.dry_run { None } else { Some(open_ledger(ctx)?) };
    let limits = a.limits.limits()?;
    let named = [
        a.passages.as_deref(),
        Some(a.questions.as_path()),
        a.qrels.as_deref(),
        a.pairs.as_deref(),
    ];
    if named.iter().flatten().filter(|p| crate::input::is_stdin(p)).count() > 1 {
        return Err(crate::error::Error::input(
            "`-` (standard input) can be given only once",
        ));
    }
    let open = |p: &std::path::Path| super::inputs::open(ctx, p, limits);
    let o = ops::components::ComponentsOptions {
        protocol: resolve(ctx, &a.protocol),
        // A passages file is streamed by the count; standard input is read here, whole.
        passages: match a.passages.as_deref() {
            Some(p) if crate::input::is_stdin(p) => Some(ops::components::PassagesInput::Read(open(p)?)),
            Some(p) => Some(ops::components::PassagesInput::File(resolve(ctx, p))),
            None => None,
        },
        questions: open(&a.questions)?,
        qrels: a.qrels.as_deref().map(open).transpose()?,
        assign: a.assign,
        out: a.out.as_deref().map(|p| resolve(ctx, p)),
        default_dir: ctx.cwd.clone(),
        dry_run: a.dry_run,
        deviation: a.deviation.clone(),
        pairs: a.pairs.as_deref().map(open).transpose()?,
        pairs_sample: a.pairs_sample,
        write_pairs: a.write_pairs.as_deref().map(|p| resolve(ctx, p)),
        sensitivity: a.sensitivity,
        bridges: a.bridges,
        sensitivity_svg: a.sensitivity_svg.as_deref().map(|p| resolve(ctx, p)),
        memory_limit: Some(a.memory_limit.unwrap_or_else(|| default_memory_limit(ctx))),
        spill_dir: ctx.temp_dir.clone(),
        sealed_keys: a.sealed_key.iter().map(|p| resolve(ctx, p)).collect(),
        limits,
        exit_soon: true,
    };
    let outcome = ops::components::run(ledger.as_ref(), &o, ctx.now, &bar(ctx))?;
    let mut out = Output::ok(render(&outcome, a.format), &outcome.notes);
    if outcome.stop.decision == StopDecision::Stop {
        out.stderr.push_str(&format!("{}\n", stop_line(&outcome.stop)));
        out.code = exit::STOP;
    }
    Ok(out)
}
