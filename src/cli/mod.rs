//! Command-line parsing and printing. Each command is a thin wrapper: it parses arguments, calls
//! one op ([`crate::ops`]), and renders the returned data (human text from [`human`], or
//! `--format json`) into the stdout buffer; notes, warnings and errors go to the stderr buffer.
//! Nothing under `cli/` computes; nothing below it prints.

use crate::error::{exit, Error};
use crate::ops::{Note, Notes};
use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

mod analyze;
mod check;
mod compare;
mod components;
mod demo;
mod eval;
mod fingerprint;
mod formats;
pub mod human;
mod inputs;
mod ledger;
mod power;
mod register;
mod report;
mod shell;
mod trace;
mod values;
mod verify;

/// What `main` reads from the environment and hands to every command.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The clock (`PLEDGE_NOW` when set, for reproducible tests; the system clock otherwise).
    pub now: DateTime<Utc>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Whether stderr is a terminal (progress bars are hidden otherwise).
    pub stderr_is_tty: bool,
    /// Whether `now` is a fixed clock (`PLEDGE_NOW`) rather than the system clock: entries
    /// written then record `"clock": "fixed"`.
    pub clock_fixed: bool,
    /// The SSH key to sign ledger commits with (the global `--sign-key`, set by [`run`]; `None`:
    /// git's own signing settings).
    pub sign_key: Option<PathBuf>,
    /// `GIT_DIR`, when set: the repository to use instead of discovering one from `cwd`.
    pub git_dir: Option<PathBuf>,
    /// `GIT_WORK_TREE`, when set: the work tree of the `GIT_DIR` repository.
    pub git_work_tree: Option<PathBuf>,
    /// The memory the system says is available for new work (`MemAvailable` of
    /// `/proc/meminfo`), in bytes, when known: the default `--memory-limit` is half of it.
    pub mem_available: Option<u64>,
    /// The directory for temporary files (the platform's, e.g. `TMPDIR`).
    pub temp_dir: PathBuf,
    /// Reads the system clock (`chrono::Utc::now`): appends read it after taking the ledger's
    /// lock, and refuse a fixed clock (`now`) far ahead of it.
    pub system_clock: fn() -> DateTime<Utc>,
    /// Who is running pledge, as git names an author (`Name <email>`: `GIT_AUTHOR_NAME` and
    /// `GIT_AUTHOR_EMAIL`, else git's `user.name` and `user.email`), when known: `pledge new`
    /// writes it as the protocol's `registered-by`.
    pub author: Option<String>,
}

/// What a command produced: its exit code and the text for stdout and stderr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Exit code (see [`crate::error::exit`]).
    pub code: u8,
    /// Data.
    pub stdout: String,
    /// Notes, warnings, errors (each line ends with a newline).
    pub stderr: String,
}

impl Output {
    /// Exit 0 with `stdout` and the `notes` on stderr.
    pub(crate) fn ok(stdout: String, notes: &Notes) -> Output {
        Output::with_code(exit::OK, stdout, notes)
    }

    /// Exit `code` with `stdout` and the `notes` on stderr.
    pub(crate) fn with_code(code: u8, stdout: String, notes: &Notes) -> Output {
        let mut o = Output {
            code,
            stdout,
            stderr: String::new(),
        };
        o.notes(notes);
        o
    }

    /// Appends `notes` to stderr, one `note:` / `warning:` line each.
    pub(crate) fn notes(&mut self, notes: &[Note]) {
        for n in notes {
            self.stderr.push_str(&format!("{}: {}\n", n.level, n.text));
        }
    }
}

/// A command's result.
pub(crate) type Outcome = crate::error::Result<Output>;

/// The `Exit codes:` section of `--help`, from [`crate::error::EXIT_CODE_SUMMARIES`].
fn exit_codes_help() -> String {
    let mut s = String::from("Exit codes:");
    for (code, what) in crate::error::EXIT_CODE_SUMMARIES {
        s.push_str(&format!("\n  {:<3} {}", code, what));
    }
    s
}

/// pledge keeps evaluation benchmarks honest: register the rules before seeing data, count
/// independent components, analyze with paired resampling, and prove later that the rules held.
#[derive(Debug, Parser)]
#[command(name = "pledge", version, about, after_help = exit_codes_help(), max_term_width = 100)]
pub struct Cli {
    /// Run as if started in DIR (like `git -C`).
    #[arg(short = 'C', global = true, value_name = "DIR", id = "chdir")]
    pub dir: Option<PathBuf>,
    /// Sign the ledger commits this command writes with this SSH private key (as git's
    /// `gpg.format = ssh`; default: git's own `commit.gpgsign` / `user.signingkey` settings).
    #[arg(long, global = true, value_name = "KEY")]
    pub sign_key: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Use the enclosing git repository for the ledger, or create one.
    Init(ledger::InitArgs),
    /// Write a commented starting protocol for a kind of study.
    New(check::NewArgs),
    /// Check a draft protocol as register would, and read sample inputs with it; writes nothing.
    Check(check::CheckArgs),
    /// Register a protocol: its SHA-256 goes into the ledger.
    Register(register::RegisterArgs),
    /// Register a new version of a registered protocol, with a mandatory reason.
    Amend(register::AmendArgs),
    /// Record a change of the declared data-access level, or a note.
    Note(register::NoteArgs),
    /// Witness an entry's time with an RFC 3161 Time-Stamping Authority.
    Timestamp(register::TimestampArgs),
    /// Check the ledger's hash chain and the protocol against its registration.
    Verify(verify::VerifyArgs),
    /// Show the ledger's entries.
    Log(ledger::LogArgs),
    /// Write the ledger as portable JSON Lines.
    Export(ledger::ExportArgs),
    /// Push the ledger ref to a git remote.
    Publish(ledger::PublishArgs),
    /// Count components under the registered link rules and apply the stop rule.
    Components(components::Args),
    /// Make the keyed fingerprint of a sealed passage set, for a contamination rule to register.
    Fingerprint(fingerprint::Args),
    /// Test whether a classifier tells a repair's replacement passages from the originals.
    Trace(trace::Args),
    /// Components needed for a target difference, or the difference a count can detect.
    Power(power::Args),
    /// Paired, stratified and component bootstrap and tests, verified against the registration.
    Analyze(analyze::AnalyzeArgs),
    /// The same methods as analyze on a score file, without a ledger.
    Compare(compare::CompareArgs),
    /// Per-topic measures of TREC runs against qrels, as trec_eval computes them.
    Eval(eval::Args),
    /// List the input formats pledge reads, how each is detected, and the command to run.
    Formats(formats::Args),
    /// Render the reviewer-facing Markdown report from the ledger.
    Report(report::Args),
    /// Run the whole pipeline on the bundled HotpotQA example in a scratch directory.
    Demo(demo::Args),
    /// Print the shell completion script (bash, elvish, fish, powershell, zsh).
    Completions(shell::CompletionsArgs),
    /// Print the man page pledge(1) in roff, or write every page into a directory (--dir).
    Man(shell::ManArgs),
}

/// Parses `args` and runs the command; returns the exit code and what goes to stdout and
/// stderr. An error becomes its `error:` / `Caused by:` / `hint:` text on stderr, or one JSON
/// object there under `--format json` (see [`error_output_json`]).
pub fn run(args: Vec<OsString>, ctx: &Ctx) -> Output {
    let json = wants_json(&args);
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let rendered = e.render().to_string();
            return if e.use_stderr() && json {
                usage_error_json(&rendered)
            } else if e.use_stderr() {
                Output {
                    code: exit::INPUT,
                    stdout: String::new(),
                    stderr: rendered,
                }
            } else {
                Output {
                    code: exit::OK,
                    stdout: rendered,
                    stderr: String::new(),
                }
            };
        }
    };
    let mut ctx = ctx.clone();
    if let Some(d) = &cli.dir {
        // As git: relative GIT_DIR and GIT_WORK_TREE are relative to where pledge was started.
        let start = ctx.cwd.clone();
        ctx.git_dir = ctx.git_dir.map(|g| start.join(g));
        ctx.git_work_tree = ctx.git_work_tree.map(|w| start.join(w));
        ctx.cwd = resolve(&ctx, d);
    }
    if let Some(k) = &cli.sign_key {
        ctx.sign_key = Some(resolve(&ctx, k));
    }
    let res: Outcome = match cli.command {
        Command::Init(a) => ledger::init(a, &ctx),
        Command::New(a) => check::new(a, &ctx),
        Command::Check(a) => check::check(a, &ctx),
        Command::Register(a) => register::register(a, &ctx),
        Command::Amend(a) => register::amend(a, &ctx),
        Command::Note(a) => register::note(a, &ctx),
        Command::Timestamp(a) => register::timestamp(a, &ctx),
        Command::Verify(a) => verify::verify(a, &ctx),
        Command::Log(a) => ledger::log(a, &ctx),
        Command::Export(a) => ledger::export(a, &ctx),
        Command::Publish(a) => ledger::publish(a, &ctx),
        Command::Components(a) => components::run(a, &ctx),
        Command::Fingerprint(a) => fingerprint::run(a, &ctx),
        Command::Trace(a) => trace::run(a, &ctx),
        Command::Power(a) => power::run(a, &ctx),
        Command::Analyze(a) => analyze::analyze(a, &ctx),
        Command::Compare(a) => compare::compare(a, &ctx),
        Command::Eval(a) => eval::run(a, &ctx),
        Command::Formats(a) => formats::run(a, &ctx),
        Command::Report(a) => report::run(a, &ctx),
        Command::Demo(a) => demo::run(a, &ctx),
        Command::Completions(a) => shell::completions(a, &ctx),
        Command::Man(a) => shell::man(a, &ctx),
    };
    res.unwrap_or_else(|e| if json { error_output_json(&e) } else { error_output(&e) })
}

/// Whether the command line asks for `--format json` (`--format json` or `--format=json`
/// before any `--`). Read from the raw arguments so that a usage error, which clap reports
/// before any command is parsed, is JSON too.
fn wants_json(args: &[OsString]) -> bool {
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        match a.as_ref() {
            "--" => return false,
            "--format=json" => return true,
            "--format" if it.next().as_deref() == Some("json") => return true,
            _ => {}
        }
    }
    false
}

/// The output of a failed command under `--format json`: on stderr one JSON object
/// `{"error": MESSAGE, "causes": [CAUSE, ...], "hint": HINT or null, "exit_code": N}` and a
/// newline, the same fields as the `error:` / `Caused by:` / `hint:` lines.
pub fn error_output_json(e: &Error) -> Output {
    json_error(&e.message, e.causes(), e.hint.as_deref(), e.exit_code())
}

fn json_error(message: &str, causes: Vec<String>, hint: Option<&str>, code: u8) -> Output {
    let v = serde_json::json!({
        "error": message,
        "causes": causes,
        "hint": hint,
        "exit_code": code,
    });
    Output {
        code,
        stdout: String::new(),
        stderr: format!("{}\n", v),
    }
}

/// A usage error from clap under `--format json`: `{"error": MESSAGE, "causes": [], "hint":
/// HINT or null, "usage": USAGE or null, "exit_code": 2}`. The message is clap's `error:` text
/// (with its continuation lines, e.g. the missing arguments); the hint its `tip:` lines and
/// possible values only; the usage line (`pledge report [OPTIONS]`) is a field of its own, and
/// the pointer to `--help` is dropped.
fn usage_error_json(rendered: &str) -> Output {
    let (mut message, mut hints, mut usage) = (Vec::new(), Vec::new(), Vec::new());
    let mut in_message = true;
    let mut in_usage = false;
    for line in rendered.lines() {
        let l = line.trim();
        if l.is_empty() {
            in_message = false;
            in_usage = false;
            continue;
        }
        if let Some(v) = l.strip_prefix("[possible values: ").and_then(|v| v.strip_suffix(']')) {
            hints.push(format!("possible values: {}", v));
        } else if let Some(t) = l.strip_prefix("tip: ") {
            hints.push(t.to_string());
        } else if let Some(u) = l.strip_prefix("Usage: ") {
            in_usage = true;
            usage.push(u.to_string());
        } else if in_usage {
            usage.push(l.to_string());
        } else if in_message {
            message.push(l.strip_prefix("error: ").unwrap_or(l).to_string());
        }
    }
    let message = if message.is_empty() {
        "bad usage".to_string()
    } else {
        message.join(" ")
    };
    let v = serde_json::json!({
        "error": message,
        "causes": Vec::<String>::new(),
        "hint": (!hints.is_empty()).then(|| hints.join("; ")),
        "usage": (!usage.is_empty()).then(|| usage.join(" ")),
        "exit_code": exit::INPUT,
    });
    Output {
        code: exit::INPUT,
        stdout: String::new(),
        stderr: format!("{}\n", v),
    }
}

/// The output of a failed command: the error's rendering on stderr and its exit code.
pub fn error_output(e: &Error) -> Output {
    Output {
        code: e.exit_code(),
        stdout: String::new(),
        stderr: format!("{}\n", e.render()),
    }
}

/// Resolves a user-given path against the context's working directory.
pub(crate) fn resolve(ctx: &Ctx, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        ctx.cwd.join(p)
    }
}

/// Opens the ledger of the repository enclosing the working directory, for a command that may
/// append: entries record a fixed clock when `ctx.clock_fixed`, and commits are signed with
/// `--sign-key`, else as git's `commit.gpgsign` / `gpg.format = ssh` settings say.
///
/// Errors (exit 2): no repository; the signing key cannot be read.
pub(crate) fn open_ledger(ctx: &Ctx) -> crate::error::Result<crate::ledger::Ledger> {
    use crate::ledger::{ClockSource, CommitSigner, Ledger};
    let mut l = Ledger::open_env(&ctx.cwd, ctx.git_dir.as_deref(), ctx.git_work_tree.as_deref())?;
    if ctx.clock_fixed {
        l.set_clock(Some(ClockSource::Fixed));
    }
    l.set_system_clock(Some(ctx.system_clock));
    let signer = match &ctx.sign_key {
        Some(k) => Some(CommitSigner::from_key_file(k, "ssh-keygen")?),
        None => CommitSigner::from_git_config(l.repo(), &l.root())?,
    };
    l.set_signer(signer);
    Ok(l)
}

/// Who is running pledge, as git names a commit's author: `Name <email>` from `name` and `email`
/// (the values of `GIT_AUTHOR_NAME` and `GIT_AUTHOR_EMAIL`, read by `main`), each falling back to
/// `user.name` and `user.email` of the git configuration in force at `cwd` (the repository's,
/// else the global and system files). `None` when either part is unknown or empty.
pub fn git_author(name: Option<String>, email: Option<String>, cwd: &std::path::Path) -> Option<String> {
    let config = git2::Repository::discover(cwd)
        .and_then(|r| r.config())
        .or_else(|_| git2::Config::open_default())
        .ok();
    let from_config = |key: &str| config.as_ref().and_then(|c| c.get_string(key).ok());
    let nonempty = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let name = nonempty(name).or_else(|| nonempty(from_config("user.name")))?;
    let email = nonempty(email).or_else(|| nonempty(from_config("user.email")))?;
    Some(format!("{} <{}>", name, email))
}
