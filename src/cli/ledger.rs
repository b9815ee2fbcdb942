//! `init`, `verify`, `log`, `export`, `publish`.

use super::human::render;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `pledge init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// `pledge verify [PROTOCOL]`.
#[derive(Debug, Args)]
#[command(after_help = "\
Checks every entry's entry_sha256 over its canonical form, the prev_sha256 links, sequence numbers
1..n in order, the stored result.json and protocol.toml against their hashes, and the registration
rules. With PROTOCOL, also its hash against the latest registration of its study (a difference in
line endings only passes with a note). Exit 1 lists every finding.

Examples:
  pledge verify protocols/hotpotqa.toml
  pledge verify --remote ../ledger-mirror.git
  pledge verify --ledger ledger.jsonl --format json")]
pub struct VerifyArgs {
    /// Also check this protocol file against its registration.
    pub protocol: Option<PathBuf>,
    /// Verify an export (from `pledge export`) offline, without git.
    #[arg(long, value_name = "FILE", conflicts_with = "remote")]
    pub ledger: Option<PathBuf>,
    /// Also fetch the ledger published at REMOTE (a path, file:// URL or configured remote) and
    /// check that it is a prefix of the local ledger.
    #[arg(long, value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Also recompute every recorded analysis from its recorded inputs and check that the input
    /// and result hashes match.
    #[arg(long, conflicts_with = "ledger")]
    pub rerun: bool,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// `pledge log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// `pledge export FILE`.
#[derive(Debug, Args)]
#[command(after_help = "\
Format pledge-ledger-export/1: one JSON object per line and entry (keys format, commit, parents,
entry, result_json, protocol_toml), enough to verify offline with `pledge verify --ledger FILE`.")]
pub struct ExportArgs {
    /// Where to write the JSON Lines.
    pub file: PathBuf,
    /// Output format of the summary.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// `pledge publish REMOTE`.
#[derive(Debug, Args)]
#[command(after_help = "\
REMOTE is a local repository (a path, a file:// URL, or a configured remote with such a URL),
typically a bare one: `git init --bare ../ledger-mirror.git`. A push that is not a fast-forward
is refused (exit 1).")]
pub struct PublishArgs {
    /// Git remote name, path or file:// URL.
    pub remote: String,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn init(a: InitArgs, ctx: &Ctx) -> Outcome {
    let o = ops::init::init(&ctx.cwd)?;
    Ok(Output::ok(render(&o, a.format), &vec![]))
}

pub fn verify(a: VerifyArgs, ctx: &Ctx) -> Outcome {
    let o = ops::verify::VerifyOptions {
        protocol: a.protocol.as_deref().map(|p| resolve(ctx, p)),
        export: a.ledger.as_deref().map(|p| resolve(ctx, p)),
        remote: a.remote.clone(),
        rerun: a.rerun,
    };
    let ledger = match &o.export {
        Some(_) => None,
        None => Some(open_ledger(ctx)?),
    };
    let report = ops::verify::verify(ledger.as_ref(), &o, &ctx.cwd)?;
    let code = if report.ok { exit::OK } else { exit::FINDINGS };
    Ok(Output::with_code(code, render(&report, a.format), &vec![]))
}

pub fn log(a: LogArgs, ctx: &Ctx) -> Outcome {
    let items = ops::log::log(&open_ledger(ctx)?)?;
    Ok(Output::ok(render(&items, a.format), &vec![]))
}

pub fn export(a: ExportArgs, ctx: &Ctx) -> Outcome {
    let s = ops::export::export(&open_ledger(ctx)?, &resolve(ctx, &a.file))?;
    Ok(Output::ok(render(&s, a.format), &vec![]))
}

pub fn publish(a: PublishArgs, ctx: &Ctx) -> Outcome {
    let r = ops::publish::publish(&open_ledger(ctx)?, &a.remote, &ctx.cwd)?;
    Ok(Output::ok(render(&r, a.format), &vec![]))
}
