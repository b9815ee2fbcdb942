//! `pledge verify`: checks a ledger copy (the git ref, a published copy, or an export) and, when
//! given, a protocol file against its study's latest registration. Problems are findings in a
//! [`VerifyReport`] (the command exits 1 and lists every one), never errors.

use super::chain::check_chain;
use super::entry::EntryKind;
use super::finding::{Finding, FindingCode};
use super::records::Record;
use super::store::Ledger;
use super::LEDGER_REF;
use crate::error::Result;
use crate::protocol::LoadedProtocol;
use crate::text::short;
use serde::Serialize;

crate::named_enum! {
    /// How a protocol file compares with its study's latest registration.
    pub enum CheckStatus {
        /// The file's hash is the registered one.
        Matches = "matches",
        /// The raw bytes differ only in line endings or a byte-order mark (passes with a note).
        LineEndingsOnly = "line-endings-only",
        /// The file differs from the latest registration (a finding).
        Changed = "changed",
        /// The file's study is not registered (a finding).
        Unregistered = "unregistered",
        /// The file matches, its pilot file does not (a finding).
        PilotChanged = "pilot-changed",
    }
}

/// How a protocol file compares with its study's latest registration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtocolCheck {
    /// The file as given.
    pub path: String,
    /// Its study id.
    pub study_id: String,
    /// Its normalized SHA-256 (BOM removed, CRLF → LF).
    pub sha256: String,
    /// The latest register/amend entry of the study, if any.
    pub registered_seq: Option<u64>,
    /// The hash registered there.
    pub registered_sha256: Option<String>,
    /// The outcome.
    pub status: CheckStatus,
}

/// How the local ledger compares with a published copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteCheck {
    /// The remote as given.
    pub remote: String,
    /// Local ref the published ledger was fetched into.
    pub fetched_ref: String,
    /// Entries in the published copy.
    pub published_entries: usize,
    /// Local entries not yet published.
    pub unpublished_entries: usize,
}

/// The result of `pledge verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// True when there is no finding (notes do not count).
    pub ok: bool,
    /// What was verified: `refs/pledge/ledger`, or the export file.
    pub source: String,
    /// Number of entries (ledger commits or export lines) read.
    pub entries: usize,
    /// The tip commit of the ledger (hex), if any.
    pub tip: Option<String>,
    /// Every problem found, in chain order, then protocol and remote findings.
    pub findings: Vec<Finding>,
    /// Facts that pass but are disclosed (line endings only, a registration after results were
    /// seen, a lowered data-access level, unpublished entries).
    pub notes: Vec<Finding>,
    /// The protocol check, when a protocol was given (the first, when several were).
    pub protocol: Option<ProtocolCheck>,
    /// The checks of the protocols given after the first, in order (a pre-commit hook passes
    /// every staged protocol file to one run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_protocols: Vec<ProtocolCheck>,
    /// The comparison with a published copy, for `--remote`.
    pub remote: Option<RemoteCheck>,
    /// What a reviewer cites: per study, when and by whom it was registered and what followed
    /// (filled by `pledge verify` when the entries can be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<super::review::Review>,
    /// Whether the tip's commit id is bound to the content up to it: true for a repository
    /// (git ids) and for an export whose every line carries its raw commit; false for an export
    /// with lines of format `/1`, whose commit ids are not recomputed, so that an expected tip
    /// (`--expect-tip`) authenticates nothing.
    #[serde(skip)]
    pub tip_authenticated: bool,
}

impl VerifyReport {
    /// Builds a report over `records` from `source`, running the chain checks and, when
    /// `protocol` is given, the protocol check.
    pub(crate) fn build(source: String, tip: Option<String>, records: &[Record], lp: Option<&LoadedProtocol>) -> Self {
        let chain = check_chain(records);
        // A commit that cannot be read is not an entry read.
        let unread = records
            .iter()
            .filter(|r| r.commit_raw.is_none() && !r.unreadable.is_empty())
            .count();
        let mut r = VerifyReport {
            ok: true,
            source,
            entries: records.len() - unread,
            tip,
            findings: chain.findings,
            notes: chain.notes,
            protocol: None,
            more_protocols: Vec::new(),
            remote: None,
            review: None,
            tip_authenticated: true,
        };
        if let Some(lp) = lp {
            r.protocol = Some(check_protocol(&mut r, records, lp));
        }
        r.ok = r.findings.is_empty();
        r
    }

    /// Recomputes `ok` after findings were added.
    pub fn settle(&mut self) {
        self.ok = self.findings.is_empty();
    }
}

/// Verifies the ledger on [`LEDGER_REF`] and, when given, `protocol` against its registration.
///
/// Errors (exit 70) only when the repository cannot be read; every problem of the ledger is a
/// finding in the report.
pub fn verify_ledger(ledger: &Ledger, protocol: Option<&LoadedProtocol>) -> Result<VerifyReport> {
    verify_ref(ledger, LEDGER_REF, protocol)
}

/// As [`verify_ledger`] for the ledger on `refname` (e.g. a fetched published copy).
pub fn verify_ref(ledger: &Ledger, refname: &str, protocol: Option<&LoadedProtocol>) -> Result<VerifyReport> {
    let tip = match ledger.repo().refname_to_id(refname) {
        Ok(oid) => Some(oid),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        // A ref file that names no object id: nothing can be read, which is the finding.
        Err(e) if e.class() == git2::ErrorClass::Reference => {
            let mut r = VerifyReport::build(refname.to_string(), None, &[], protocol);
            r.findings.insert(
                0,
                Finding::new(
                    FindingCode::LedgerUnreadable,
                    None,
                    format!(
                        "{} cannot be read ({}): no entry can be read or checked",
                        refname,
                        e.message()
                    ),
                ),
            );
            r.settle();
            return Ok(r);
        }
        Err(e) => return Err(crate::error::Error::git(format!("reading {}", refname), e)),
    };
    let records = match tip {
        Some(t) => ledger.records(t)?,
        None => Default::default(),
    };
    let mut report = VerifyReport::build(refname.to_string(), tip.map(|t| t.to_string()), &records, protocol);
    report.notes.extend(replace_refs_note(ledger, &records));
    Ok(report)
}

/// As [`verify_ledger`] for the chain that ends at commit `tip` (a commit of the ledger, e.g.
/// the tip a report was rendered from): the ledger as it stood then.
///
/// Errors (exit 70): the repository cannot be read.
pub fn verify_at(ledger: &Ledger, tip: git2::Oid) -> Result<VerifyReport> {
    let records = ledger.records(tip)?;
    let mut report = VerifyReport::build(LEDGER_REF.to_string(), Some(tip.to_string()), &records, None);
    report.notes.extend(replace_refs_note(ledger, &records));
    Ok(report)
}

/// The `replace-refs` note when the repository has refs under `refs/replace/` (`git replace`):
/// git honours them (`git log`, `git show` print the replacement), libgit2 and the raw reader
/// of the records do not, so what was verified are the ledger's own objects. Names the ledger
/// commits among the replaced ids.
pub(crate) fn replace_refs_note(ledger: &Ledger, records: &[Record]) -> Option<Finding> {
    let names: Vec<String> = ledger
        .repo()
        .references_glob("refs/replace/*")
        .ok()?
        .names()
        .flatten()
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        return None;
    }
    let replaced: Vec<String> = records
        .iter()
        .filter(|r| {
            r.commit
                .as_deref()
                .is_some_and(|c| names.iter().any(|n| n.ends_with(&format!("/{}", c))))
        })
        .map(|r| r.at.clone())
        .collect();
    Some(Finding::new(
        FindingCode::ReplaceRefs,
        None,
        format!(
            "the repository has {} under refs/replace/ (git replace){}: git commands show the replacements, but pledge verified the ledger's own objects",
            crate::text::plural(names.len() as u64, "replace ref", "replace refs"),
            if replaced.is_empty() {
                String::new()
            } else {
                format!(", replacing ledger {}", replaced.join(", "))
            }
        ),
    ))
}

/// Compares `lp` with the latest registration of its study among `records`.
fn check_protocol(r: &mut VerifyReport, records: &[Record], lp: &LoadedProtocol) -> ProtocolCheck {
    let id = lp.protocol.study.id.clone();
    let path = lp.path.display().to_string();
    let regs: Vec<&Record> = records
        .iter()
        .filter(|x| {
            x.entry
                .as_ref()
                .is_ok_and(|e| e.study_id == id && matches!(e.kind, EntryKind::Register | EntryKind::Amend))
        })
        .collect();
    let latest = regs.last().and_then(|x| x.entry.as_ref().ok());
    let mut pc = ProtocolCheck {
        path: path.clone(),
        study_id: id.clone(),
        sha256: lp.hash.sha256.clone(),
        registered_seq: latest.map(|e| e.seq),
        registered_sha256: latest.and_then(|e| e.protocol_sha256.clone()),
        status: CheckStatus::Matches,
    };
    let Some(reg) = latest else {
        pc.status = CheckStatus::Unregistered;
        r.findings.push(Finding::new(
            FindingCode::ProtocolUnregistered,
            None,
            format!("{}: study `{}` is not registered in this ledger", path, id),
        ));
        return pc;
    };
    if pc.registered_sha256.as_deref() == Some(lp.hash.sha256.as_str()) {
        let raw_registered: Vec<&String> = reg
            .inputs
            .iter()
            .filter(|(k, _)| k.role == super::entry::InputRole::Protocol)
            .map(|(_, v)| v)
            .collect();
        if let Some(f) = pilot_finding(reg, lp) {
            pc.status = CheckStatus::PilotChanged;
            r.findings.push(f);
            return pc;
        }
        if lp.hash.line_endings_normalized && !raw_registered.contains(&&lp.hash.raw_sha256) {
            pc.status = CheckStatus::LineEndingsOnly;
            r.notes.push(Finding::new(
                FindingCode::LineEndingsOnly,
                Some(reg.seq),
                format!(
                    "{} differs from its registration (#{}) only in line endings or a byte-order mark; the normalized hash matches",
                    path, reg.seq
                ),
            ));
        }
        return pc;
    }
    pc.status = CheckStatus::Changed;
    let older = regs[..regs.len() - 1]
        .iter()
        .rev()
        .filter_map(|x| x.entry.as_ref().ok())
        .find(|e| e.protocol_sha256.as_deref() == Some(lp.hash.sha256.as_str()));
    let stored = regs.last().and_then(|x| x.protocol.as_deref());
    let mut msg = format!(
        "{} changed since study `{}` was registered (#{}): registered sha256 {}, file now {}",
        path,
        id,
        reg.seq,
        short(pc.registered_sha256.as_deref().unwrap_or("-"), 12),
        short(&lp.hash.sha256, 12)
    );
    if let Some(line) = stored.and_then(|s| first_difference(s, lp.text.as_bytes())) {
        msg.push_str(&format!("; first difference at line {}", line));
    }
    if let Some(o) = older {
        msg.push_str(&format!(" (the file is the superseded version of #{})", o.seq));
    }
    r.findings
        .push(Finding::new(FindingCode::ProtocolChanged, Some(reg.seq), msg));
    pc
}

/// When `lp` names a pilot file (`target.pilot`, relative to the protocol file) and the
/// registration `reg` hashed one: a finding when the file is missing or its SHA-256 (raw bytes)
/// is not the registered one.
fn pilot_finding(reg: &super::entry::Entry, lp: &LoadedProtocol) -> Option<Finding> {
    let pilot = lp.protocol.target.pilot.as_deref()?;
    let registered = reg
        .inputs
        .iter()
        .find(|(k, _)| k.role == super::entry::InputRole::Pilot)
        .map(|(_, h)| h)?;
    let file = lp.path.parent().unwrap_or(std::path::Path::new(".")).join(pilot);
    let now = match crate::io::sha256_file(&file) {
        Ok(h) if h == *registered => return None,
        Ok(h) => format!("file now {}", short(&h, 12)),
        Err(_) => "the file cannot be read".to_string(),
    };
    Some(Finding::new(
        FindingCode::PilotChanged,
        Some(reg.seq),
        format!(
            "{} matches its registration (#{}), but its pilot file {} does not: registered sha256 {}, {} (register the new pilot with `pledge amend`)",
            lp.path.display(),
            reg.seq,
            pilot,
            short(registered, 12),
            now
        ),
    ))
}

/// 1-based line of the first difference between two texts, line endings normalized.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let norm = |x: &[u8]| -> Vec<Vec<u8>> {
        crate::input::strip_bom(x)
            .split(|c| *c == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
            .collect()
    };
    let (la, lb) = (norm(a), norm(b));
    let n = la.len().max(lb.len());
    (0..n).find(|&i| la.get(i) != lb.get(i)).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_ignores_crlf() {
        assert_eq!(first_difference(b"a\nb\nc\n", b"a\r\nb\r\nc\r\n"), None);
        assert_eq!(first_difference(b"a\nb\nc\n", b"a\nB\nc\n"), Some(2));
        assert_eq!(first_difference(b"a\n", b"a\nb\n"), Some(2));
    }
}
