//! `register`, `amend`, `note`.

use super::human::register::{Noted, Registered};
use super::human::Human;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::ledger::{DataAccess, Entry};
use crate::ops;
use crate::output::{to_json, Format};
use crate::protocol::load_protocol;
use clap::Args;
use std::path::PathBuf;

/// `pledge register PROTOCOL`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  pledge register protocols/hotpotqa.toml --access nothing-run")]
pub struct RegisterArgs {
    /// The protocol TOML file.
    pub protocol: PathBuf,
    /// Declared data-access level now (default: the level of the previous entry, or
    /// nothing-run). A registration at results-seen is allowed but marked in every report.
    #[arg(long, value_parser = named::<DataAccess>())]
    pub access: Option<DataAccess>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
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
    #[arg(long, value_parser = named::<DataAccess>())]
    pub access: Option<DataAccess>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
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
    #[arg(long, value_parser = named::<DataAccess>())]
    pub access: Option<DataAccess>,
    /// The study the note concerns (default: the whole ledger).
    #[arg(long, default_value = "")]
    pub study: String,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

fn shown(e: &Entry, verb: &str, format: Format) -> String {
    match format {
        Format::Json => to_json(e),
        Format::Human => Registered(e, verb).human(),
    }
}

pub fn register(a: RegisterArgs, ctx: &Ctx) -> Outcome {
    let lp = load_protocol(&resolve(ctx, &a.protocol))?;
    let o = ops::register::register(&open_ledger(ctx)?, &lp, a.access, ctx.now)?;
    Ok(Output::ok(shown(&o.entry, "Registered", a.format), &o.notes))
}

pub fn amend(a: AmendArgs, ctx: &Ctx) -> Outcome {
    let lp = load_protocol(&resolve(ctx, &a.protocol))?;
    let o = ops::register::amend(&open_ledger(ctx)?, &lp, &a.reason, a.access, ctx.now)?;
    Ok(Output::ok(shown(&o.entry, "Amended", a.format), &o.notes))
}

pub fn note(a: NoteArgs, ctx: &Ctx) -> Outcome {
    let ledger = open_ledger(ctx)?;
    let e = ops::note::note(&ledger, &a.study, a.access, &a.reason, ctx.now)?;
    let out = match a.format {
        Format::Json => to_json(&e),
        Format::Human => Noted(&e).human(),
    };
    let notes: crate::ops::Notes = ledger.take_notes().into_iter().map(crate::ops::Note::info).collect();
    Ok(Output::ok(out, &notes))
}
