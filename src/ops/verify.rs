//! `pledge verify`: the ledger (the git ref, a published copy, or an export file) and, when
//! given, protocol files against their registrations; with `--rerun`, every recorded analysis
//! recomputed.

use crate::error::{Error, Result};
use crate::ledger::{self, EntryKind, Finding, FindingCode, Ledger, VerifyReport};
use crate::protocol::load_protocol;
use crate::records::{self, DeviationSummary};
use std::path::{Path, PathBuf};

/// What `pledge verify` is asked to check. Paths are absolute.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Protocol files to check, each against its study's latest registration (a pre-commit
    /// hook passes every staged one).
    pub protocols: Vec<PathBuf>,
    /// Verify this export offline instead of the repository's ledger (a file, or standard input
    /// read by the caller).
    pub export: Option<crate::input::Input>,
    /// Also fetch the ledger published at this remote and check it is a prefix of the local one.
    pub remote: Option<String>,
    /// Also recompute every recorded analysis and repair-trace test.
    pub rerun: bool,
    /// Reports to check against the ledger (a report directory, `report.md`, the HTML page or
    /// the LaTeX table): each is rendered again at the tip and with the template its stamp
    /// names, and compared.
    pub reports: Vec<PathBuf>,
    /// The tip commit id (or a prefix of at least 7 hex digits) the ledger must end at, e.g. the
    /// id a reviewer got from a published repository, a paper or a timestamp; another tip is the
    /// finding `tip-mismatch`.
    pub expect_tip: Option<String>,
    /// PEM certificates every time-stamp token's TSA certificate must chain to.
    pub tsa_trust: Option<PathBuf>,
    /// An `allowed_signers` file (`ssh-keygen -Y verify` format): every ledger commit must be
    /// signed by a key it admits.
    pub allowed_signers: Option<PathBuf>,
    /// Accept an export of the old format `pledge-ledger-export/1` (`--allow-format 1`), whose
    /// commit ids cannot be recomputed: a note instead of the finding `export-ids-unchecked`.
    pub allow_format_1: bool,
}

/// Runs the checks. Problems are findings in the report (exit 1), never errors. With several
/// protocols, the report's `protocol` is the first one's check and the findings and notes of
/// every one are listed, each naming its file.
///
/// Errors: an unreadable protocol or export (exit 2); no repository when one is needed (exit 2);
/// git failures (exit 70).
pub fn verify(ledger: Option<&Ledger>, o: &VerifyOptions, cwd: &Path) -> Result<VerifyReport> {
    let lps = o
        .protocols
        .iter()
        .map(|p| load_protocol(p))
        .collect::<Result<Vec<_>>>()?;
    let lp = lps.first();
    let expect = match &o.expect_tip {
        Some(t) => Some(expected_tip(t)?),
        None => None,
    };
    let wo = ledger::witness::WitnessOptions {
        trust: match &o.tsa_trust {
            Some(p) => Some(ledger::tsa::TrustAnchors::load(p)?),
            None => None,
        },
        allowed_signers: match &o.allowed_signers {
            Some(p) => Some(ledger::sshsig::AllowedSigners::load(p)?),
            None => None,
        },
    };
    if let Some(input) = &o.export {
        let mut report = ledger::verify_export(input, lp, o.allow_format_1)?;
        for more in lps.iter().skip(1) {
            merge_protocol(&mut report, ledger::verify_export(input, Some(more), o.allow_format_1)?);
        }
        ledger::witness::check_export(input, &mut report, &wo)?;
        check_tip(&mut report, expect.as_deref());
        report.settle();
        return Ok(report);
    }
    let l = ledger.ok_or_else(|| Error::internal("verify: no ledger to verify"))?;
    let mut report = match &o.remote {
        Some(r) => {
            let remote = ledger::resolve_remote(l, r, cwd)?;
            ledger::verify_remote(l, &remote, lp)?
        }
        None => ledger::verify_ledger(l, lp)?,
    };
    for more in lps.iter().skip(1) {
        merge_protocol(&mut report, ledger::verify_ledger(l, Some(more))?);
    }
    // A clone without the ledger ref verifies nothing: say so, so that a CI job that forgot to
    // fetch it fails instead of passing on an empty ledger.
    let cloned = l.repo().remotes().is_ok_and(|r| !r.is_empty());
    let unreadable = report.findings.iter().any(|f| f.code == FindingCode::LedgerUnreadable);
    if o.remote.is_none() && report.tip.is_none() && cloned && !unreadable {
        report.findings.push(Finding::new(
            FindingCode::LedgerMissing,
            None,
            format!(
                "this clone has no {}: the published ledger was not fetched (or never published), so nothing was verified",
                ledger::LEDGER_REF
            ),
        ));
    }
    // Analyses are recomputed, and deviations listed, from entries read whole: on a ledger that
    // cannot be read whole the finding says why they were not.
    if o.rerun && !unreadable {
        super::rerun::rerun_all(l, &mut report)?;
    }
    let readable = report
        .findings
        .iter()
        .all(|f| !matches!(f.code, FindingCode::MalformedEntry | FindingCode::LedgerUnreadable));
    if readable {
        super::report_check::check_reports(l, &o.reports, &mut report)?;
    }
    ledger::witness::check_ledger(l, ledger::LEDGER_REF, &mut report, &wo)?;
    if readable {
        deviation_notes(l, &mut report)?;
    }
    check_tip(&mut report, expect.as_deref());
    report.settle();
    Ok(report)
}

/// The `--expect-tip` value, lowercased. Errors (exit 2): not 7 to 64 hex digits.
fn expected_tip(t: &str) -> Result<String> {
    let t = t.trim().to_ascii_lowercase();
    if (7..=64).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(t)
    } else {
        Err(Error::input(format!("--expect-tip `{}` is not a commit id", t))
            .with_hint("give the ledger's tip commit id (40 hex digits, or a prefix of at least 7)"))
    }
}

/// A `tip-mismatch` finding when the report's tip does not start with `expect`.
fn check_tip(report: &mut VerifyReport, expect: Option<&str>) {
    let Some(want) = expect else { return };
    if !report.tip_authenticated {
        report.findings.push(Finding::new(
            FindingCode::TipMismatch,
            None,
            format!(
                "the expected tip {} cannot be checked: lines of this export carry no raw commit (format `{}`), so the commit ids up to its tip are not recomputed from the content and a matching tip id would authenticate nothing; export the ledger again (`pledge export`) and verify that",
                want,
                ledger::EXPORT_FORMAT_V1
            ),
        ));
        report.settle();
        return;
    }
    if report.tip.as_deref().is_some_and(|t| t.starts_with(want)) {
        return;
    }
    report.findings.push(Finding::new(
        FindingCode::TipMismatch,
        None,
        format!(
            "the ledger ends at {}, not at the expected tip {}: this copy was rewritten, cut short or extended",
            report.tip.as_deref().unwrap_or("no commit (it is empty)"),
            want
        ),
    ));
    report.settle();
}

/// Adds the protocol findings and notes of `other` (the same ledger checked with another
/// protocol file) to `report`; its chain findings are the ones `report` already has.
fn merge_protocol(report: &mut VerifyReport, other: VerifyReport) {
    let of_protocol = |f: &Finding| {
        matches!(
            f.code,
            FindingCode::ProtocolUnregistered
                | FindingCode::ProtocolChanged
                | FindingCode::PilotChanged
                | FindingCode::LineEndingsOnly
        )
    };
    report.findings.extend(other.findings.into_iter().filter(of_protocol));
    report.notes.extend(other.notes.into_iter().filter(of_protocol));
    report.more_protocols.extend(other.protocol);
}

/// Every deviation entry as a note: a study that deviated from its registration verifies, and
/// says so.
fn deviation_notes(l: &Ledger, report: &mut VerifyReport) -> Result<()> {
    for e in l.entries_of_kind(EntryKind::Deviation)?.iter() {
        let fields = records::read_summary::<DeviationSummary>(&e.entry, "deviation")
            .map(|s| {
                s.overridden
                    .into_iter()
                    .chain(s.fields.iter().map(|f| f.to_string()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        report.notes.push(Finding::new(
            FindingCode::Deviation,
            Some(e.entry.seq),
            format!(
                "study `{}` deviates from its registration: {}{}",
                e.entry.study_id,
                e.entry.reason.as_deref().unwrap_or("(no reason)"),
                if fields.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", fields.join("; "))
                }
            ),
        ));
    }
    Ok(())
}
