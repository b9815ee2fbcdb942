//! `init`, `log`, `export`, `publish`.

use super::human::render;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
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
Format pledge-ledger-export/2: one JSON object per line and entry (keys format, commit, parents,
entry, result_json, protocol_toml, commit_raw), enough to verify offline with `pledge verify
--ledger FILE`, every commit id recomputed from the content.")]
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

pub fn log(a: LogArgs, ctx: &Ctx) -> Outcome {
    let _reads = UncheckedReads::start();
    let items = ops::log::log(&open_ledger(ctx)?)?;
    Ok(Output::ok(render(&items, a.format), &vec![]))
}

pub fn export(a: ExportArgs, ctx: &Ctx) -> Outcome {
    let _reads = UncheckedReads::start();
    let s = ops::export::export(&open_ledger(ctx)?, &resolve(ctx, &a.file))?;
    Ok(Output::ok(render(&s, a.format), &vec![]))
}

/// libgit2's re-hash of every object it reads (`git2::opts::strict_hash_verification`) and its
/// object cache (`git2::opts::enable_caching`: a walk reads each object once) turned off while
/// it lives, and on again (libgit2's defaults) when it is dropped; held by `log` and `export`
/// only. Both are process-wide settings, so only this layer, which runs one command per
/// process, sets them.
///
/// Neither makes a claim that rests on an object's content hashing to its id: `log` shows the
/// entries as stored (git's own `git log` does not re-hash either; `pledge verify` is the
/// check), and `export` copies the stored bytes together with every id, so `pledge verify
/// --ledger FILE` recomputes each commit and tree id from the exported content and any object
/// whose content does not match its id shows there as `commit-id-mismatch`. `verify`, appends
/// and `publish` keep the check: `--expect-tip`, `--remote` and the append index trust that an id
/// covers its content (ARCHITECTURE.md, "Ledger").
struct UncheckedReads;

impl UncheckedReads {
    fn start() -> UncheckedReads {
        git2::opts::strict_hash_verification(false);
        git2::opts::enable_caching(false);
        UncheckedReads
    }
}

impl Drop for UncheckedReads {
    fn drop(&mut self) {
        git2::opts::strict_hash_verification(true);
        git2::opts::enable_caching(true);
    }
}

pub fn publish(a: PublishArgs, ctx: &Ctx) -> Outcome {
    let r = ops::publish::publish(&open_ledger(ctx)?, &a.remote, &ctx.cwd)?;
    Ok(Output::ok(render(&r, a.format), &vec![]))
}
