//! Command-line parsing and printing. Each command is a thin wrapper: it parses arguments,
//! calls the library, and renders the returned data (human text or `--format json`) into the
//! stdout buffer; progress and notes go to stderr.

use crate::error::{exit, Error};
use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

mod analyze;
mod components;
mod demo;
mod eval;
mod inputs;
mod ledger_cmds;
mod power;
mod report;

/// What `main` reads from the environment and hands to every command.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The clock (`PLEDGE_NOW` when set, for reproducible tests; the system clock otherwise).
    pub now: DateTime<Utc>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Whether stderr is a terminal (progress bars are hidden otherwise).
    pub stderr_is_tty: bool,
}

/// A command's result: exit code and what goes to stdout.
pub type Outcome = crate::error::Result<(u8, String)>;

const EXIT_CODES: &str = "\
Exit codes:
  0   ok (for verify: the ledger and protocol check out; for components: the stop rule said go)
  1   verification found a problem, or the registration refuses the action (every finding listed)
  2   bad usage or bad input (file, line and what was expected are named)
  3   the stop rule said stop (too few components)
  70  internal error";

/// pledge keeps evaluation benchmarks honest: register the rules before seeing data, count
/// independent components, analyze with paired resampling, and prove later that the rules held.
#[derive(Debug, Parser)]
#[command(name = "pledge", version, about, after_help = EXIT_CODES, max_term_width = 100)]
pub struct Cli {
    /// Run as if started in DIR (like `git -C`).
    #[arg(short = 'C', global = true, value_name = "DIR", id = "chdir")]
    pub dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Use the enclosing git repository for the ledger, or create one.
    Init(ledger_cmds::InitArgs),
    /// Register a protocol: its SHA-256 goes into the ledger.
    Register(ledger_cmds::RegisterArgs),
    /// Register a new version of a registered protocol, with a mandatory reason.
    Amend(ledger_cmds::AmendArgs),
    /// Record a change of the declared data-access level, or a note.
    Note(ledger_cmds::NoteArgs),
    /// Check the ledger's hash chain and the protocol against its registration.
    Verify(ledger_cmds::VerifyArgs),
    /// Show the ledger's entries.
    Log(ledger_cmds::LogArgs),
    /// Write the ledger as portable JSON Lines.
    Export(ledger_cmds::ExportArgs),
    /// Push the ledger ref to a git remote.
    Publish(ledger_cmds::PublishArgs),
    /// Count components under the registered link rules and apply the stop rule.
    Components(components::Args),
    /// Components needed for a target difference, or the difference a count can detect.
    Power(power::Args),
    /// Paired, stratified and component bootstrap and tests, verified against the registration.
    Analyze(analyze::AnalyzeArgs),
    /// The same methods as analyze on a score file, without a ledger.
    Compare(analyze::CompareArgs),
    /// Per-topic measures of TREC runs against qrels, as trec_eval computes them.
    Eval(eval::Args),
    /// Render the reviewer-facing Markdown report from the ledger.
    Report(report::Args),
    /// Run the whole pipeline on the bundled HotpotQA example in a scratch directory.
    Demo(demo::Args),
}

/// Parses `args` and runs the command; returns the exit code and the stdout text. Errors are
/// printed to stderr here (`error:`, `Caused by:`, `hint:`).
pub fn run(args: Vec<OsString>, ctx: &Ctx) -> (u8, String) {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::INPUT } else { exit::OK };
            let rendered = e.render().to_string();
            if e.use_stderr() {
                eprint!("{}", rendered);
                return (code, String::new());
            }
            return (code, rendered);
        }
    };
    let mut ctx = ctx.clone();
    if let Some(d) = &cli.dir {
        ctx.cwd = if d.is_absolute() { d.clone() } else { ctx.cwd.join(d) };
    }
    let res: Outcome = match cli.command {
        Command::Init(a) => ledger_cmds::init(a, &ctx),
        Command::Register(a) => ledger_cmds::register(a, &ctx),
        Command::Amend(a) => ledger_cmds::amend(a, &ctx),
        Command::Note(a) => ledger_cmds::note(a, &ctx),
        Command::Verify(a) => ledger_cmds::verify(a, &ctx),
        Command::Log(a) => ledger_cmds::log(a, &ctx),
        Command::Export(a) => ledger_cmds::export(a, &ctx),
        Command::Publish(a) => ledger_cmds::publish(a, &ctx),
        Command::Components(a) => components::run(a, &ctx),
        Command::Power(a) => power::run(a, &ctx),
        Command::Analyze(a) => analyze::analyze(a, &ctx),
        Command::Compare(a) => analyze::compare(a, &ctx),
        Command::Eval(a) => eval::run(a, &ctx),
        Command::Report(a) => report::run(a, &ctx),
        Command::Demo(a) => demo::run(a, &ctx),
    };
    match res {
        Ok((code, out)) => (code, out),
        Err(e) => {
            eprintln!("{}", e);
            (e.exit_code(), String::new())
        }
    }
}

/// Resolves a user-given path against the context's working directory.
pub(crate) fn resolve(ctx: &Ctx, p: &std::path::Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        ctx.cwd.join(p)
    }
}

/// The error a command returns until it is implemented.
#[allow(dead_code)]
pub(crate) fn not_yet(what: &str) -> Error {
    Error::internal(format!("`pledge {}` is not implemented yet", what))
}
