//! `pledge verify`: parse, call [`crate::ops::verify::verify`], render (exit 1 on findings).

use super::human::render;
use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops;
use crate::output::Format;
use clap::Args;
use std::path::PathBuf;

/// `pledge verify [PROTOCOL...]`.
#[derive(Debug, Args)]
#[command(after_help = "\
Checks every entry's entry_sha256 over its canonical form, the prev_sha256 links, sequence numbers
1..n in order, the stored result.json and protocol.toml against their hashes, and the registration
rules, entry times (RFC 3339, in order), every time-stamp token offline and, with
--allowed-signers, every commit's SSH signature. With PROTOCOL files, also each one's hash against
the latest registration of its study (a difference in line endings only passes with a note). Exit
1 lists every finding; one failing protocol fails the whole run. The output ends with a reviewer
summary per study (registered when and by whom, witnessed or not, amendments, deviations,
analyses, the tip id to cite). With --report, each report is rendered again from the ledger at
the tip and with the template its stamp names, and compared byte for byte.

Examples:
  pledge verify protocols/hotpotqa.toml
  pledge verify protocols/*.toml
  pledge verify protocols/hotpotqa.toml --rerun --report report
  pledge verify --remote ../ledger-mirror.git
  pledge verify --ledger ledger.jsonl --format json
  curl -s https://example.org/ledger.jsonl | pledge verify --ledger - --allowed-signers .allowed_signers
  pledge verify --tsa-trust digicert-ca.pem --allowed-signers .allowed_signers")]
pub struct VerifyArgs {
    /// Also check these protocol files, each against its registration.
    pub protocols: Vec<PathBuf>,
    /// Verify an export (from `pledge export`) offline, without git (`-`: standard input).
    #[arg(long, value_name = "FILE", conflicts_with = "remote")]
    pub ledger: Option<PathBuf>,
    /// Also fetch the ledger published at REMOTE (a path, file:// URL or configured remote) and
    /// check that it is a prefix of the local ledger.
    #[arg(long, value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Also recompute every recorded analysis and repair-trace test from its recorded inputs and
    /// check that the input and result hashes match.
    #[arg(long, conflicts_with = "ledger")]
    pub rerun: bool,
    /// Also check a report (its directory, report.md, the --html page or the --latex table):
    /// render it again from the ledger at the tip and with the template it states, and compare;
    /// an edited report, another template or an unknown tip is a finding. Repeatable.
    #[arg(long, value_name = "DIR|FILE", conflicts_with = "ledger")]
    pub report: Vec<PathBuf>,
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
    /// Accept an export of the old format `pledge-ledger-export/1` (the only older one): its lines
    /// carry no raw commit, so their commit ids are checked for order, not recomputed, and its
    /// tip authenticates nothing. Without, such an export is the finding export-ids-unchecked.
    #[arg(long, value_name = "VERSION", requires = "ledger", value_parser = clap::value_parser!(u32).range(1..=1))]
    pub allow_format: Option<u32>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
    /// The limits of what is read (an export given with --ledger).
    #[command(flatten)]
    pub limits: super::inputs::LimitArgs,
}

pub fn verify(a: VerifyArgs, ctx: &Ctx) -> Outcome {
    let limits = a.limits.limits()?;
    let o = ops::verify::VerifyOptions {
        protocols: a.protocols.iter().map(|p| resolve(ctx, p)).collect(),
        export: a
            .ledger
            .as_deref()
            .map(|p| super::inputs::open(ctx, p, limits))
            .transpose()?,
        remote: a.remote.clone(),
        rerun: a.rerun,
        reports: a.report.iter().map(|p| resolve(ctx, p)).collect(),
        expect_tip: a.expect_tip.clone(),
        tsa_trust: a.tsa_trust.as_deref().map(|p| resolve(ctx, p)),
        allowed_signers: a.allowed_signers.as_deref().map(|p| resolve(ctx, p)),
        allow_format_1: a.allow_format == Some(1),
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
    let mut out = Output::with_code(code, render(&report, a.format), &vec![]);
    if let Some(l) = &ledger {
        let unreadable = report
            .findings
            .iter()
            .any(|f| f.code == crate::ledger::FindingCode::LedgerUnreadable);
        match (unreadable, &report.tip) {
            (true, None) => out.stderr.push_str(&format!("hint: {}\n", l.broken_ref_hint())),
            (true, Some(_)) => out.stderr.push_str(&format!("hint: {}\n", l.unreadable_hint())),
            (false, None) => out.stderr.push_str(&missing_ledger_hint(l)),
            (false, Some(_)) => {}
        }
    }
    Ok(out)
}

/// The hint for a repository without `refs/pledge/ledger`, as a fresh clone is: git does not
/// fetch refs outside `refs/heads` and `refs/tags`, and `pledge publish` pushes the ledger to
/// `refs/pledge/ledger` on the remote, so the clone fetches it with an explicit refspec. The
/// remote is `origin`, or the only remote when there is one other.
fn missing_ledger_hint(l: &crate::ledger::Ledger) -> String {
    format!(
        "hint: this repository has no {}; in a clone, fetch the published ledger with: git fetch {} '{}'\n",
        crate::ledger::LEDGER_REF,
        l.hint_remote(),
        crate::ledger::LEDGER_REFSPEC
    )
}
