//! `register`, `amend`, `note`.

use super::human::register::{Noted, Registered};
use super::human::Human;
use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::ledger::{DataAccess, Entry, Ledger};
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
    /// Witness the new entry's time with this RFC 3161 Time-Stamping Authority (a `timestamp`
    /// entry follows it; default: the protocol's `[witness] tsa`, else git config `pledge.tsa`),
    /// e.g. http://timestamp.digicert.com.
    #[arg(long, value_name = "URL")]
    pub tsa: Option<String>,
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
    /// Witness the new entry's time with this RFC 3161 Time-Stamping Authority (a `timestamp`
    /// entry follows it; default: the protocol's `[witness] tsa`, else git config `pledge.tsa`),
    /// e.g. http://timestamp.digicert.com.
    #[arg(long, value_name = "URL")]
    pub tsa: Option<String>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// `pledge timestamp --tsa URL [--entry SEQ]`.
#[derive(Debug, Args)]
#[command(after_help = "\
Asks an RFC 3161 Time-Stamping Authority for a token over the entry's entry_sha256 and records the
DER token in a `timestamp` entry. Since each entry's hash covers the one before it, the token
witnesses the whole chain up to that entry. `pledge verify` checks every token offline.

Public TSAs (free, no account): http://timestamp.digicert.com, https://freetsa.org/tsr

Examples:
  pledge timestamp --tsa http://timestamp.digicert.com
  pledge timestamp --entry 1 --tsa https://freetsa.org/tsr --tsa-trust freetsa-cacert.pem")]
pub struct TimestampArgs {
    /// The TSA's URL (default: git config `pledge.tsa`).
    #[arg(long, value_name = "URL")]
    pub tsa: Option<String>,
    /// The entry to witness (default: the last entry).
    #[arg(long, value_name = "SEQ")]
    pub entry: Option<u64>,
    /// PEM certificates the TSA's certificate must chain to (e.g. the TSA's CA certificate).
    #[arg(long, value_name = "FILE")]
    pub tsa_trust: Option<PathBuf>,
    /// Seconds allowed for the exchange with the TSA.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub timeout: u64,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// The TSA URL: the flag, else the protocol's `[witness] tsa` (for `register` and `amend`), else
/// git config `pledge.tsa` of the ledger's repository.
fn tsa_url(flag: &Option<String>, protocol: Option<&crate::protocol::Protocol>, l: &Ledger) -> Option<String> {
    let registered = protocol.and_then(|p| p.witness.as_ref()).and_then(|w| w.tsa.clone());
    flag.clone().or(registered).or_else(|| {
        l.repo()
            .config()
            .and_then(|c| c.get_string("pledge.tsa"))
            .ok()
            .filter(|s| !s.trim().is_empty())
    })
}

fn witnessed_note(t: &ops::timestamp::TimestampOutcome) -> ops::Note {
    ops::Note::info(format!(
        "entry #{} witnessed by {} at {} (timestamp entry #{})",
        t.covers_seq, t.tsa, t.witnessed_at, t.entry.seq
    ))
}

/// `pledge note --reason TEXT [--access LEVEL] [--study ID]`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  pledge note --access results-seen --reason \"looked at the dev-set scores\"\n  pledge note --correct-clock --reason \"#6 was dated 2062 by a PLEDGE_NOW typo\""
)]
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
    /// Append even onto a ledger that fails verification (every other command refuses to),
    /// recording its findings in the note.
    #[arg(long)]
    pub despite_findings: bool,
    /// Record a clock correction: the ledger's last entry is dated more than two minutes after
    /// the system clock (a typo in PLEDGE_NOW, a wrong clock), which blocks every append; this
    /// note is dated by the system clock, earlier than that entry, and `verify` and the report
    /// disclose the correction with --reason.
    #[arg(long)]
    pub correct_clock: bool,
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

fn registered(
    protocol: &std::path::Path,
    reason: Option<&str>,
    access: Option<DataAccess>,
    tsa: &Option<String>,
    format: Format,
    ctx: &Ctx,
) -> Outcome {
    let lp = load_protocol(&resolve(ctx, protocol))?;
    let l = open_ledger(ctx)?;
    let t = tsa_url(tsa, Some(&lp.protocol), &l).map(ops::timestamp::TimestampOptions::new);
    let mut o = ops::register::register_witnessed(&l, &lp, reason, access, t.as_ref(), ctx.now)?;
    if let Some(t) = &o.timestamp {
        o.notes.push(witnessed_note(t));
    }
    let verb = if reason.is_some() { "Amended" } else { "Registered" };
    Ok(Output::ok(shown(&o.entry, verb, format), &o.notes))
}

pub fn register(a: RegisterArgs, ctx: &Ctx) -> Outcome {
    registered(&a.protocol, None, a.access, &a.tsa, a.format, ctx)
}

pub fn amend(a: AmendArgs, ctx: &Ctx) -> Outcome {
    registered(&a.protocol, Some(&a.reason), a.access, &a.tsa, a.format, ctx)
}

pub fn timestamp(a: TimestampArgs, ctx: &Ctx) -> Outcome {
    let l = open_ledger(ctx)?;
    let url = tsa_url(&a.tsa, None, &l).ok_or_else(|| {
        crate::error::Error::input("no TSA named: pass --tsa URL (or set git config pledge.tsa)")
            .with_hint("public TSAs: http://timestamp.digicert.com, https://freetsa.org/tsr")
    })?;
    let o = ops::timestamp::TimestampOptions {
        tsa_url: url,
        entry: a.entry,
        trust: a.tsa_trust.as_deref().map(|p| resolve(ctx, p)),
        timeout: std::time::Duration::from_secs(a.timeout.max(1)),
    };
    let t = ops::timestamp::timestamp(&l, &o, ctx.now)?;
    let out = match a.format {
        Format::Json => to_json(&t.entry),
        Format::Human => format!(
            "Witnessed entry #{} as #{}: {} at {}\n",
            t.covers_seq, t.entry.seq, t.tsa, t.witnessed_at
        ),
    };
    Ok(Output::ok(out, &t.notes))
}

pub fn note(a: NoteArgs, ctx: &Ctx) -> Outcome {
    let mut ledger = open_ledger(ctx)?;
    ledger.set_accept_findings(a.despite_findings);
    ledger.set_clock_correction(a.correct_clock);
    let e = ops::note::note(&ledger, &a.study, a.access, &a.reason, a.despite_findings, ctx.now)?;
    let out = match a.format {
        Format::Json => to_json(&e),
        Format::Human => Noted(&e).human(),
    };
    let notes: crate::ops::Notes = ledger.take_notes().into_iter().map(crate::ops::Note::info).collect();
    Ok(Output::ok(out, &notes))
}
