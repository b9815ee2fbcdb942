//! `pledge verify`: checks a ledger copy (the git ref, a published copy, or an export) and, when
//! given, a protocol file against its study's latest registration. Problems are findings in a
//! [`VerifyReport`] (the command exits 1 and lists every one), never errors.

use super::chain::check_chain;
use super::entry::EntryKind;
use super::records::{git_records, Record};
use super::store::{Ledger, LEDGER_REF};
use crate::error::Result;
use crate::protocol::LoadedProtocol;
use crate::text::short;
use serde::Serialize;

crate::named_enum! {
    /// The stable code of a verification finding or note; the book's finding-code reference
    /// (`docs/reference/findings.md`) is generated from these doc lines.
    pub enum FindingCode {
        /// An entry's content does not hash to its `entry_sha256`: it was edited.
        EntryHashMismatch = "entry-hash-mismatch",
        /// `entry.json` is not in canonical form: its bytes were edited.
        EntryNotCanonical = "entry-not-canonical",
        /// `prev_sha256` does not match the entry before it: an entry was inserted, deleted or
        /// moved, or (on the first entry) earlier entries were removed.
        BrokenLink = "broken-link",
        /// A sequence number is missing: an entry was deleted.
        EntryMissing = "entry-missing",
        /// Two entries carry the same number: one was inserted or forged.
        SeqDuplicate = "seq-duplicate",
        /// Sequence numbers go backwards: entries were swapped or moved.
        EntriesReordered = "entries-reordered",
        /// A commit (or export line) holds no valid entry.
        MalformedEntry = "malformed-entry",
        /// The ledger ref, or an object of the ledger (a commit, its tree, or one of its files),
        /// cannot be read from the repository: a shallow clone or fetch, a deleted or damaged
        /// object, or a ref naming no object the repository has. Nothing behind a missing commit
        /// can be checked; the `hint:` line says how to fetch the objects again (`git fetch
        /// --unshallow`, or `git fetch --refetch origin 'refs/pledge/*:refs/pledge/*'`), and `log`,
        /// `export` and appends refuse such a ledger (exit 2, with the same hint).
        LedgerUnreadable = "ledger-unreadable",
        /// A commit's message names another `entry_sha256` than its entry.
        CommitMismatch = "commit-mismatch",
        /// A ledger commit has more than one parent.
        MergeCommit = "merge-commit",
        /// (export) A line's parent commit is not the previous line's commit.
        CommitChain = "commit-chain",
        /// (export) A line's commit id does not recompute from its raw commit, or that commit
        /// names another tree (from the line's files) or other parents: the export was rewritten.
        CommitIdMismatch = "commit-id-mismatch",
        /// (export) The export is in the old format `pledge-ledger-export/1`, whose lines carry no
        /// raw commit: their commit ids (and so the tip) cannot be recomputed from the content.
        /// A note instead with `--allow-format 1`.
        ExportIdsUnchecked = "export-ids-unchecked",
        /// (`--expect-tip`) The ledger ends at another commit than the tip the reviewer expects
        /// (e.g. the id from a published repository or a paper): the copy was rewritten, cut short
        /// or extended; or it is an export of format `/1`, whose tip id cannot be checked.
        TipMismatch = "tip-mismatch",
        /// The repository has a remote (it is a clone) but no `refs/pledge/ledger`: the published
        /// ledger was not fetched, so nothing was verified (the hint gives the `git fetch`
        /// refspec).
        LedgerMissing = "ledger-missing",
        /// `result.json` does not hash to `result_sha256`.
        ResultMismatch = "result-mismatch",
        /// The entry records a result but `result.json` is missing.
        ResultMissing = "result-missing",
        /// A `result.json` is present that the entry does not record.
        ResultUnrecorded = "result-unrecorded",
        /// The stored `protocol.toml` does not hash to `protocol_sha256`.
        ProtocolTextMismatch = "protocol-text-mismatch",
        /// A register or amend entry lacks its `protocol.toml`.
        ProtocolTextMissing = "protocol-text-missing",
        /// A ledger commit holds other files.
        UnexpectedFile = "unexpected-file",
        /// An amend or deviation without a reason.
        MissingReason = "missing-reason",
        /// An amend does not name the study's registered version, or changes nothing (the same
        /// protocol and pilot file as the registration in force).
        AmendLink = "amend-link",
        /// A second `register` of a registered study (with another protocol, instead of `amend`,
        /// or the same one again).
        DuplicateRegistration = "duplicate-registration",
        /// An entry used a protocol hash that was not the study's registered one at the time, or a
        /// study was registered after entries had already used its protocol unregistered.
        UnregisteredProtocol = "unregistered-protocol",
        /// An analysis the registration refuses, without a deviation: after the study's stop rule
        /// said stop; under a stop rule before any count, or without the assignment a `go`
        /// covers; on a component assignment other than the one its latest count recorded; on a
        /// count that the registration in force at the analysis counts otherwise (made under a
        /// protocol version whose link rules, components, splits, stop rule, assignment seed or
        /// derived target differ, or on another pilot file); or on other data (scores, runs,
        /// qrels, strata) than the study's first analysis read. It is what `analyze` refuses,
        /// from the same rules replayed over the chain alone, so an edited local index cannot
        /// hide it.
        AnalysisRefused = "analysis-refused",
        /// A component count the registration refuses, without a deviation: on other
        /// questions, passages, qrels or pairs than the study's previous count, or on another
        /// pilot file than the registration records.
        CountRefused = "count-refused",
        /// Note: a study overlaps an earlier study of the ledger: the same protocol (but for its
        /// `[study]` table) registered under another id, or the same data analyzed.
        StudyOverlap = "study-overlap",
        /// (PROTOCOL) The file differs from the latest registration; the message names the first
        /// differing line.
        ProtocolChanged = "protocol-changed",
        /// (PROTOCOL) Its study is not registered.
        ProtocolUnregistered = "protocol-unregistered",
        /// (PROTOCOL) The file matches its registration, but the pilot file it names (`target.pilot`)
        /// is missing or is not the one the registration hashed.
        PilotChanged = "pilot-changed",
        /// (`--remote`) The published copy has entries the local ledger lost.
        LocalTruncated = "local-truncated",
        /// (`--remote`) The local ledger differs from the published copy from some entry on.
        LedgerRewritten = "ledger-rewritten",
        /// (`--remote`) The remote has no published ledger.
        NotPublished = "not-published",
        /// (`--rerun`) A recorded analysis recomputed from its inputs gives another result, or an input changed.
        RerunMismatch = "rerun-mismatch",
        /// (`--report`) A report differs from the report the ledger gives at the tip it states,
        /// rendered again with the template it names: it was edited (the first differing line is
        /// named), or a file of it is missing.
        ReportEdited = "report-edited",
        /// (`--report`) A report was rendered with another template than pledge's built-in one
        /// (its wording is the author's), or with the built-in template of another pledge.
        ReportTemplate = "report-template",
        /// (`--report`) A report states a ledger tip that is not a commit of this ledger: it was
        /// rendered from another ledger, or this one was rewritten since.
        ReportTipUnknown = "report-tip-unknown",
        /// (`--report`) A file carries no report stamp (or an unreadable one): it is not a pledge
        /// report, or the stamp was removed.
        ReportUnstamped = "report-unstamped",
        /// An entry's time is not an RFC 3339 instant (e.g. `yesterday`).
        TimeMalformed = "time-malformed",
        /// An entry is dated before the entry preceding it, compared in UTC (both entries named).
        TimeDecreased = "time-decreased",
        /// A `timestamp` entry's summary is unreadable, or it covers no earlier entry.
        TimestampMalformed = "timestamp-malformed",
        /// A time-stamp token does not verify: TSA signature, signed digest, certificate, or (with
        /// `--tsa-trust`) the TSA certificate does not chain to the trust file.
        TimestampInvalid = "timestamp-invalid",
        /// A time-stamp token stamps another hash than the covered entry's `entry_sha256`.
        TimestampImprintMismatch = "timestamp-imprint-mismatch",
        /// An entry claims a time more than two minutes (plus the TSA's stated accuracy) after the
        /// time a TSA witnessed it existed: its time was forged forward.
        ClaimedAfterWitnessed = "claimed-after-witnessed",
        /// A register or amend entry lacks what its protocol's `[witness]` requires (or that of
        /// the registered version before it): no valid time-stamp token covers it (`tsa`: the
        /// token was dropped from the ledger, or never obtained), or its commit is not signed
        /// (`signed = true`).
        WitnessMissing = "witness-missing",
        /// A register or amend entry whose protocol requires a time-stamp was first witnessed
        /// more than two minutes (plus the TSA's stated accuracy) after the time it claims: the
        /// token was not obtained at registration, the chain was stamped again later (as a
        /// back-dated chain would be).
        WitnessLate = "witness-late",
        /// (`--allowed-signers`) A ledger commit's SSH signature does not verify (forged, or the
        /// commit was altered after signing).
        SignatureInvalid = "signature-invalid",
        /// (`--allowed-signers`) A ledger commit is signed by a key the allowed-signers file does
        /// not admit (unknown key, namespace or validity interval).
        SignerNotAllowed = "signer-not-allowed",
        /// A ledger commit is not signed: a finding with `--allowed-signers`, a note without.
        EntryUnsigned = "entry-unsigned",
        /// Note: the protocol differs from its registration only in line endings or a BOM.
        LineEndingsOnly = "line-endings-only",
        /// Note: a register/amend declared data access `results-seen`.
        RegisteredAfterResultsSeen = "registered-after-results-seen",
        /// Note: an entry declares a lower data-access level than one declared before.
        AccessLowered = "access-lowered",
        /// Note: (`--remote`) the published copy was compared where it is, but could not be kept
        /// in `refs/pledge/remotes/NAME/ledger` (the repository cannot be written).
        FetchNotRecorded = "fetch-not-recorded",
        /// Note: (`--remote`) local entries are not yet published.
        Unpublished = "unpublished",
        /// Note: verified offline from an export.
        Offline = "offline",
        /// Note: (`--rerun`) a recorded analysis recomputed to the same result hash.
        RerunMatches = "rerun-matches",
        /// Note: (`--rerun`) a recorded analysis read an input from standard input and cannot be
        /// recomputed.
        RerunSkipped = "rerun-skipped",
        /// Note: (`--rerun`) an analysis's input is read with its recorded hash, but it is not
        /// committed as read (untracked, ignored, staged or changed): a clone will not have it.
        InputUntracked = "input-untracked",
        /// Note: (`--report`) a report is what the ledger gives at the tip it states.
        ReportMatches = "report-matches",
        /// Note: a deviation of a study from its registration, recorded with its reason and the
        /// fields it overrode.
        Deviation = "deviation",
        /// Note: an entry concerns a study that is not registered before it: there is nothing to
        /// deviate from (a registration that comes after such entries is itself a finding,
        /// `unregistered-protocol`).
        UnregisteredStudy = "unregistered-study",
        /// Note: entries were written under a fixed clock (`PLEDGE_NOW`): their times are declared.
        ClockFixed = "clock-fixed",
        /// Note: an entry records a clock correction (`pledge note --correct-clock`): it is dated
        /// before the entry preceding it, which was dated ahead of the clock (both times and the
        /// reason are named).
        ClockCorrected = "clock-corrected",
        /// Note: a TSA witnessed an entry more than an hour after the time the entry claims (the
        /// claimed time is unproven for that span; back-dating shows as a long delay).
        WitnessDelayed = "witness-delayed",
        /// Note: time-stamp tokens were checked under the certificates they carry; `--tsa-trust`
        /// names the TSA certificates to trust.
        TsaNotAnchored = "tsa-not-anchored",
        /// Note: signed ledger commits were not checked (no `--allowed-signers`), or lines of a
        /// `/1` export carry no raw commit to check.
        SignaturesUnchecked = "signatures-unchecked",
        /// Note: a registration's signature verifies, but not for the principal its
        /// `registered-by` names.
        RegisteredByUnproven = "registered-by-unproven",
        /// Note: the repository has `git replace` refs (`refs/replace/`): git commands show the
        /// replacement objects, verification reads the ledger's own objects.
        ReplaceRefs = "replace-refs",
    }
}

/// One problem (or note) found by verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable code, e.g. `entry-hash-mismatch` (see [`FindingCode`]).
    pub code: FindingCode,
    /// The entry concerned, when there is one.
    pub seq: Option<u64>,
    /// One sentence for people.
    pub message: String,
}

impl Finding {
    /// A finding with `code`, entry `seq` and `message`.
    pub fn new(code: FindingCode, seq: Option<u64>, message: impl Into<String>) -> Self {
        Finding {
            code,
            seq,
            message: message.into(),
        }
    }
}

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
    pub review: Option<super::witness::Review>,
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
        Some(t) => git_records(ledger, t)?,
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
    let records = git_records(ledger, tip)?;
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
