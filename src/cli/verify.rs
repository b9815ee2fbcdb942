//! `pledge verify`: parse, call [`crate::ops::verify::verify`], render (exit 1 on findings).

use super::human::render;
use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `pledge verify [PROTOCOL]`.
#[derive(Debug, Args)]
#[command(after_help = "\
Checks every entry's entry_sha256 over its canonical form, the prev_sha256 links, sequence numbers
1..n in order, the stored result.json and protocol.toml against their hashes, and the registration
rules, entry times (RFC 3339, in order), every time-stamp token offline and, with
--allowed-signers, every commit's SSH signature. With PROTOCOL, also its hash against the latest
registration of its study (a difference in line endings only passes with a note). Exit 1 lists
every finding. The output ends with a reviewer summary per study (registered when and by whom,
witnessed or not, amendments, deviations, analyses, the tip id to cite).

Examples:
  pledge verify protocols/hotpotqa.toml
  pledge verify --remote ../ledger-mirror.git
  pledge verify --ledger ledger.jsonl --format json
  pledge verify --tsa-trust digicert-ca.pem --allowed-signers .allowed_signers")]
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
    /// The tip commit id the ledger must end at (e.g. from a published repository or a paper;
    /// 40 hex digits, or a prefix of at least 7); another tip is the finding `tip-mismatch`.
    #[arg(long, value_name = "ID")]
    pub expect_tip: Option<String>,
    /// PEM certificates (e.g. a TSA's CA certificate) every time-stamp token's TSA certificate
    /// must chain to; without, each token is checked under the certificate it carries.
    #[arg(long, value_name = "FILE")]
    pub tsa_trust: Option<PathBuf>,
    /// An allowed-signers file (the format of `ssh-keygen -Y verify` and git's
    /// gpg.ssh.allowedSignersFile): every ledger commit must carry a valid SSH signature by a key
    /// it admits; unsigned entries become findings.
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn verify(a: VerifyArgs, ctx: &Ctx) -> Outcome {
    let o = ops::verify::VerifyOptions {
        protocol: a.protocol.as_deref().map(|p| resolve(ctx, p)),
        export: a.ledger.as_deref().map(|p| resolve(ctx, p)),
        remote: a.remote.clone(),
        rerun: a.rerun,
        expect_tip: a.expect_tip.clone(),
        tsa_trust: a.tsa_trust.as_deref().map(|p| resolve(ctx, p)),
        allowed_signers: a.allowed_signers.as_deref().map(|p| resolve(ctx, p)),
    };
    let ledger = match &o.export {
        Some(_) => None,
        None => Some(crate::ledger::Ledger::open_env(
            &ctx.cwd,
            ctx.git_dir.as_deref(),
            ctx.git_work_tree.as_deref(),
        )?),
    };
    let report = ops::verify::verify(ledger.as_ref(), &o, &ctx.cwd)?;
    let code = if report.ok { exit::OK } else { exit::FINDINGS };
    Ok(Output::with_code(code, render(&report, a.format), &vec![]))
}
