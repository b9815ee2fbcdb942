//! `init`, `register`, `amend`, `verify`, `log`, `export`, `publish`.

use super::{not_yet, resolve, Ctx, Outcome};
use crate::error::exit;
use crate::ledger::{DataAccess, Ledger};
use crate::output::Format;
use crate::study;
use clap::Args;
use std::path::PathBuf;

/// `pledge init`.
#[derive(Debug, Args)]
pub struct InitArgs {}

/// `pledge register PROTOCOL`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The protocol TOML file.
    pub protocol: PathBuf,
    /// Declared data-access level at registration.
    #[arg(long, value_enum)]
    pub access: Option<DataAccess>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `pledge amend PROTOCOL --reason TEXT`.
#[derive(Debug, Args)]
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

/// `pledge verify [PROTOCOL]`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Also check this protocol file against its registration.
    pub protocol: Option<PathBuf>,
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
pub struct ExportArgs {
    /// Where to write the JSON Lines.
    pub file: PathBuf,
}

/// `pledge publish REMOTE`.
#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Git remote name or URL.
    pub remote: String,
}

pub fn init(_a: InitArgs, ctx: &Ctx) -> Outcome {
    let (ledger, created) = Ledger::init(&ctx.cwd)?;
    let msg = if created {
        format!(
            "Created a git repository at {} for the ledger ({})\n",
            ledger.root().display(),
            crate::ledger::LEDGER_REF
        )
    } else {
        format!(
            "Using the git repository at {} for the ledger ({})\n",
            ledger.root().display(),
            crate::ledger::LEDGER_REF
        )
    };
    Ok((exit::OK, msg))
}

pub fn register(a: RegisterArgs, ctx: &Ctx) -> Outcome {
    let lp = study::load_protocol(&resolve(ctx, &a.protocol))?;
    let ledger = Ledger::open(&ctx.cwd)?;
    let e = study::register(&ledger, &lp, None, a.access, ctx.now)?;
    let out = match a.format {
        Format::Json => crate::output::to_json(&e),
        Format::Human => format!(
            "Registered study `{}` as entry #{}\nprotocol sha256 {}\n",
            e.study_id, e.seq, lp.hash.sha256
        ),
    };
    Ok((exit::OK, out))
}

pub fn amend(a: AmendArgs, ctx: &Ctx) -> Outcome {
    let lp = study::load_protocol(&resolve(ctx, &a.protocol))?;
    let ledger = Ledger::open(&ctx.cwd)?;
    let e = study::register(&ledger, &lp, Some(&a.reason), a.access, ctx.now)?;
    let out = match a.format {
        Format::Json => crate::output::to_json(&e),
        Format::Human => format!(
            "Amended study `{}` as entry #{}\nprotocol sha256 {}\n",
            e.study_id, e.seq, lp.hash.sha256
        ),
    };
    Ok((exit::OK, out))
}

pub fn verify(_a: VerifyArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("verify"))
}

pub fn log(_a: LogArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("log"))
}

pub fn export(_a: ExportArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("export"))
}

pub fn publish(_a: PublishArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("publish"))
}
