//! `init`, `register`, `amend`, `note`, `verify`, `log`, `export`, `publish`.

use super::{resolve, Ctx, Outcome};
use crate::error::{exit, Error};
use crate::ledger::{self, DataAccess, Ledger};
use crate::output::{render, Format};
use crate::study;
use clap::Args;
use std::path::PathBuf;

/// `pledge init`.
#[derive(Debug, Args)]
pub struct InitArgs {}

/// `pledge register PROTOCOL`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  pledge register protocols/hotpotqa.toml --access nothing-run")]
pub struct RegisterArgs {
    /// The protocol TOML file.
    pub protocol: PathBuf,
    /// Declared data-access level now (default: the level of the previous entry, or
    /// nothing-run). A registration at results-seen is allowed but marked in every report.
    #[arg(long, value_enum)]
    pub access: Option<DataAccess>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `pledge amend PROTOCOL --reason TEXT`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  pledge amend protocols/hotpotqa.toml --reason \"pilot SD was 0.40, not 0.45\"")]
pub struct AmendArgs {
    /// The new version of the protocol file.
    pub protocol: PathBuf,
    /// Why the protocol changes (mandatory; disclosed in the report).
    #[arg(long)]
    pub reason: String,
    /// Declared data-access level now.
    #[arg(long, value_enum)]
    pub access: Option<DataAccess>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `pledge note --reason TEXT [--access LEVEL] [--study ID]`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  pledge note --access results-seen --reason \"looked at the dev-set scores\"")]
pub struct NoteArgs {
    /// What happened (mandatory).
    #[arg(long)]
    pub reason: String,
    /// The data-access level declared from now on.
    #[arg(long, value_enum)]
    pub access: Option<DataAccess>,
    /// The study the note concerns (default: the whole ledger).
    #[arg(long, default_value = "")]
    pub study: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
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
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `pledge log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
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
    #[arg(long, value_enum, default_value_t)]
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
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn init(_a: InitArgs, ctx: &Ctx) -> Outcome {
    let (ledger, created) = Ledger::init(&ctx.cwd)?;
    let verb = if created {
        "Created a git repository at"
    } else {
        "Using the git repository at"
    };
    Ok((
        exit::OK,
        format!(
            "{} {} for the ledger ({})\n",
            verb,
            ledger.root().display(),
            ledger::LEDGER_REF
        ),
    ))
}

fn registered(e: &ledger::Entry, verb: &str, format: Format) -> String {
    if e.summary.get("results_seen_at_registration") == Some(&serde_json::Value::Bool(true)) {
        eprintln!("note: registered after results were seen (--access results-seen); every report discloses this");
    }
    match format {
        Format::Json => crate::output::to_json(e),
        Format::Human => format!(
            "{} study `{}` as entry #{}\nprotocol sha256 {}\n",
            verb,
            e.study_id,
            e.seq,
            e.protocol_sha256.as_deref().unwrap_or("-")
        ),
    }
}

pub fn register(a: RegisterArgs, ctx: &Ctx) -> Outcome {
    let lp = study::load_protocol(&resolve(ctx, &a.protocol))?;
    let ledger = Ledger::open(&ctx.cwd)?;
    let e = study::register(&ledger, &lp, None, a.access, ctx.now)?;
    Ok((exit::OK, registered(&e, "Registered", a.format)))
}

pub fn amend(a: AmendArgs, ctx: &Ctx) -> Outcome {
    if a.reason.trim().is_empty() {
        return Err(Error::input(
            "amend needs a non-empty --reason (it is disclosed in the report)",
        ));
    }
    let lp = study::load_protocol(&resolve(ctx, &a.protocol))?;
    let ledger = Ledger::open(&ctx.cwd)?;
    let e = study::register(&ledger, &lp, Some(&a.reason), a.access, ctx.now)?;
    Ok((exit::OK, registered(&e, "Amended", a.format)))
}

pub fn note(a: NoteArgs, ctx: &Ctx) -> Outcome {
    let ledger = Ledger::open(&ctx.cwd)?;
    let e = study::note(&ledger, &a.study, a.access, &a.reason, ctx.now)?;
    let out = match a.format {
        Format::Json => crate::output::to_json(&e),
        Format::Human => format!("Noted as entry #{} (data access {})\n", e.seq, e.data_access.as_str()),
    };
    Ok((exit::OK, out))
}

pub fn verify(a: VerifyArgs, ctx: &Ctx) -> Outcome {
    let lp = match &a.protocol {
        Some(p) => Some(study::load_protocol(&resolve(ctx, p))?),
        None => None,
    };
    let report = if let Some(file) = &a.ledger {
        ledger::verify_export(&resolve(ctx, file), lp.as_ref())?
    } else {
        let l = Ledger::open(&ctx.cwd)?;
        let mut report = match &a.remote {
            Some(r) => {
                let remote = ledger::resolve_remote(&l, r, &ctx.cwd)?;
                ledger::verify_remote(&l, &remote, lp.as_ref())?
            }
            None => ledger::verify_ledger(&l, lp.as_ref())?,
        };
        if a.rerun {
            rerun_analyses(&l, &mut report)?;
        }
        report
    };
    let code = if report.ok { exit::OK } else { exit::FINDINGS };
    Ok((code, render(&report, a.format)))
}

/// `verify --rerun`: recomputes each `analyze` entry (see `stats::registered::rerun`); a
/// mismatch is a finding, a match a note.
fn rerun_analyses(l: &Ledger, report: &mut ledger::VerifyReport) -> crate::error::Result<()> {
    for e in l
        .entries()?
        .iter()
        .filter(|e| e.entry.kind == crate::ledger::EntryKind::Analyze)
    {
        let r = crate::stats::registered::rerun(l, e)?;
        if r.ok {
            let msg = format!(
                "analysis recomputed from its recorded inputs: result sha256 {} matches",
                r.recomputed.as_deref().unwrap_or("-")
            );
            report
                .notes
                .push(ledger::Finding::new("rerun-matches", Some(r.seq), msg));
        } else {
            report.ok = false;
            report.findings.push(ledger::Finding::new(
                "rerun-mismatch",
                Some(r.seq),
                r.problems.join("; "),
            ));
        }
    }
    Ok(())
}

pub fn log(a: LogArgs, ctx: &Ctx) -> Outcome {
    let l = Ledger::open(&ctx.cwd)?;
    Ok((exit::OK, render(&ledger::log(&l)?, a.format)))
}

pub fn export(a: ExportArgs, ctx: &Ctx) -> Outcome {
    let l = Ledger::open(&ctx.cwd)?;
    let s = ledger::export_to(&l, &resolve(ctx, &a.file))?;
    Ok((exit::OK, render(&s, a.format)))
}

pub fn publish(a: PublishArgs, ctx: &Ctx) -> Outcome {
    let l = Ledger::open(&ctx.cwd)?;
    let remote = ledger::resolve_remote(&l, &a.remote, &ctx.cwd)?;
    Ok((exit::OK, render(&ledger::publish(&l, &remote)?, a.format)))
}
