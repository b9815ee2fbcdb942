//! Witnessed time and signed entries at verification: every `timestamp` entry's RFC 3161 token
//! checked offline (see [`super::tsa`]), every ledger commit's SSH signature checked against an
//! allowed-signers file (see [`super::sshsig`]), and the [`Review`] a reviewer cites.
//!
//! A `timestamp` entry holds a token over the `entry_sha256` of an earlier entry (its
//! [`TimestampSummary`]). Since every entry's hash covers the one before it, the token
//! witnesses that the covered entry and every entry before it existed at the token's time
//! (`genTime`). Checks, each a [`FindingCode`]:
//! - the token verifies (TSA signature, signed digest, certificate, and with a trust file the
//!   chain to it): `timestamp-invalid`; its imprint is the covered entry's hash:
//!   `timestamp-imprint-mismatch`;
//! - the covered entry's claimed time is not after the witnessed time by more than
//!   [`CLOCK_TOLERANCE_SECS`] plus the TSA's accuracy: `claimed-after-witnessed`; a witnessed
//!   time more than [`DELAY_NOTE_SECS`] after the claimed one is a note, `witness-delayed`.
//!
//! Signatures: a ledger commit is signed as git signs with `gpg.format = ssh` (its `gpgsig`
//! header); with an allowed-signers file each is verified as `git verify-commit` does (the
//! `git` namespace, at the committer time), unsigned commits are a finding; without one,
//! unsigned and unchecked commits are notes. An export carries each commit's raw object
//! (`commit_raw`), so its signatures are checked the same way, offline.

use super::clock::parse_time;
use super::entry::{Entry, EntryKind};
use super::finding::{Finding, FindingCode};
use super::gitobj::{split_signature, ObjectFormat};
use super::review::{Review, SignatureState, StudyReview, WitnessedTime};
use super::sshsig::{self, AllowedSigners, CommitSignature, SigProblem};
use super::store::Ledger;
use super::tsa::{self, Trust, TrustAnchors};
use super::verify::VerifyReport;
use crate::error::Result;
use crate::input::Input;
use crate::records::{RegistrationSummary, TimestampSummary};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Deserialize as _;

pub use super::rules::WitnessRequired;
use super::rules::{witness::span, Fact, LedgerState, Signed, Token, WitnessEvidence};

/// Clock difference allowed between the machine that wrote an entry and the TSA before a
/// claimed time after the witnessed one is a finding (seconds; the TSA's stated accuracy is
/// added).
pub const CLOCK_TOLERANCE_SECS: i64 = super::clock::MAX_CLOCK_SKEW_SECS;

/// Delay between an entry's claimed time and its witnessed time above which verification notes
/// it (seconds: one hour).
pub const DELAY_NOTE_SECS: i64 = 3600;

/// What verification trusts, beyond the ledger itself.
#[derive(Debug, Clone, Default)]
pub struct WitnessOptions {
    /// TSA certificates (or their CAs) tokens must chain to (`--tsa-trust`); without, each
    /// token is checked under the certificate it carries.
    pub trust: Option<TrustAnchors>,
    /// The signers whose SSH signatures count (`--allowed-signers`).
    pub allowed_signers: Option<AllowedSigners>,
}

/// One entry as these checks read it: the entry and, from git or an export line, its raw commit
/// object and stored protocol text.
struct Item<'a> {
    entry: &'a Entry,
    commit: Option<&'a str>,
    raw: Option<&'a [u8]>,
    protocol: Option<&'a [u8]>,
}

/// A token that verified.
struct Testimony {
    timestamp_seq: u64,
    covers_seq: u64,
    at: DateTime<Utc>,
    accuracy_micros: Option<u64>,
    tsa: String,
    trusted: bool,
}

/// Checks the ledger on `refname` (tokens, signatures) and sets `report.review`. Entries that
/// do not parse are skipped (the chain checks already report them).
///
/// Errors (exit 70): the repository cannot be read.
pub fn check_ledger(ledger: &Ledger, refname: &str, report: &mut VerifyReport, o: &WitnessOptions) -> Result<()> {
    let tip = match ledger.repo().refname_to_id(refname) {
        Ok(oid) => Some(oid),
        // A damaged ref: the chain checks report it (`ledger-unreadable`).
        Err(e) if e.code() == git2::ErrorCode::NotFound || e.class() == git2::ErrorClass::Reference => None,
        Err(e) => return Err(crate::error::Error::git(format!("reading {}", refname), e)),
    };
    let records = match tip {
        Some(t) => ledger.records(t)?,
        None => Default::default(),
    };
    let mut items = Vec::with_capacity(records.len());
    for r in records.iter() {
        if let Ok(entry) = &r.entry {
            items.push(Item {
                entry,
                commit: r.commit.as_deref(),
                raw: r.commit_raw.as_deref(),
                protocol: r.protocol.as_deref(),
            });
        }
    }
    check(&items, report, o);
    Ok(())
}

/// As [`check_ledger`] for an export (a file or standard input): tokens, and each line's
/// signature from its raw commit (`commit_raw`, whose `gpgsig` header is the signature git
/// wrote). Lines without a raw commit (format `/1`) cannot have their signatures checked, which a
/// note says when `--allowed-signers` is given.
///
/// Errors (exit 2): the input is not UTF-8 or not an export (see [`super::verify_export`]).
pub fn check_export(input: &Input, report: &mut VerifyReport, o: &WitnessOptions) -> Result<()> {
    let records = super::export::export_records(input.path(), input.text()?)?;
    let items: Vec<Item> = records
        .iter()
        .filter_map(|r| {
            r.entry.as_ref().ok().map(|entry| Item {
                entry,
                commit: r.commit.as_deref(),
                raw: r.commit_raw.as_deref(),
                protocol: r.protocol.as_deref(),
            })
        })
        .collect();
    let without_raw: Vec<u64> = items
        .iter()
        .filter(|it| it.raw.is_none())
        .map(|it| it.entry.seq)
        .collect();
    if let (Some(first), Some(_)) = (without_raw.first(), &o.allowed_signers) {
        report.notes.push(Finding::new(
            FindingCode::SignaturesUnchecked,
            Some(*first),
            format!(
                "the signature{} of {} {} not checked: {} export line{} carr{} no raw commit (format `{}`); verify the repository, a published copy, or a new export, with --allowed-signers",
                if without_raw.len() == 1 { "" } else { "s" },
                crate::text::seq_list(&without_raw),
                if without_raw.len() == 1 { "was" } else { "were" },
                if without_raw.len() == 1 { "its" } else { "their" },
                if without_raw.len() == 1 { "" } else { "s" },
                if without_raw.len() == 1 { "ies" } else { "y" },
                super::export::EXPORT_FORMAT_V1,
            ),
        ));
    }
    check(&items, report, o);
    // The tip of an export whose commit ids are not recomputed is nothing to cite.
    if !report.tip_authenticated {
        if let Some(r) = &mut report.review {
            r.tip = None;
        }
    }
    Ok(())
}

fn check(items: &[Item], report: &mut VerifyReport, o: &WitnessOptions) {
    let testimonies = check_tokens(items, report, o);
    let states = check_signatures(items, report, o);
    let rules = fold(items);
    let evidence = WitnessEvidence {
        tokens: testimonies.iter().map(Testimony::token).collect(),
        signatures: Some(
            items
                .iter()
                .zip(&states)
                .map(|(it, st)| (it.entry.seq, signed(st.as_ref().map(|s| s.0))))
                .collect(),
        ),
    };
    // The witness rule's findings: the rules' final step on what was checked here.
    for (seq, v) in rules.finish(&evidence) {
        if let Some(it) = items.iter().find(|it| it.entry.seq == seq) {
            report
                .findings
                .push(Finding::new(v.code(), Some(seq), v.message(it.entry)));
        }
    }
    report.review = Some(review(items, &rules, &testimonies, &states, report.tip.clone()));
}

/// The registration rules folded over `items` (the entries that parse, in order).
fn fold(items: &[Item]) -> LedgerState {
    let mut rules = LedgerState::default();
    for it in items {
        let text = match it.entry.kind {
            EntryKind::Register | EntryKind::Amend => it.protocol.and_then(|b| std::str::from_utf8(b).ok()),
            _ => None,
        };
        rules.step(&Fact {
            entry: it.entry,
            protocol_text: text,
            commit: it.commit,
        });
    }
    rules
}

/// A commit's signature state as the witness rule weighs it (`None`: its raw commit is not at
/// hand).
fn signed(state: Option<SignatureState>) -> Signed {
    match state {
        None => Signed::NotCarried,
        Some(SignatureState::Unsigned) => Signed::Unsigned,
        Some(_) => Signed::Signed,
    }
}

impl Testimony {
    /// The token as the witness rule weighs it.
    fn token(&self) -> Token {
        Token {
            timestamp_seq: self.timestamp_seq,
            covers_seq: self.covers_seq,
            at: self.at,
            tolerance_secs: tolerance_secs(self.accuracy_micros),
            tsa: self.tsa.clone(),
        }
    }
}

/// What the witness rule weighs for the report of `entries` (the ledger up to the report's
/// tip): the tokens that verify under the certificates they carry, and whether each `register`
/// and `amend` commit carries a signature (a commit that cannot be read shows none). `verify`
/// checks the same tokens and signatures and reports every problem.
pub fn report_evidence(ledger: &Ledger, entries: &[super::StoredEntry]) -> WitnessEvidence {
    let items: Vec<Item> = entries
        .iter()
        .map(|e| Item {
            entry: &e.entry,
            commit: None,
            raw: None,
            protocol: None,
        })
        .collect();
    let mut scratch = VerifyReport::build(String::new(), None, &[], None);
    let tokens = check_tokens(&items, &mut scratch, &WitnessOptions::default())
        .iter()
        .map(Testimony::token)
        .collect();
    let signatures = entries
        .iter()
        .filter(|e| matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend))
        .map(|e| {
            let format = ObjectFormat::from_hex_len(e.commit.len()).unwrap_or(ObjectFormat::Sha1);
            let state = match ledger.raw_commit(&e.commit) {
                Ok(raw) if split_signature(format, &raw).is_some() => Signed::Signed,
                Ok(_) => Signed::Unsigned,
                Err(_) => Signed::NotCarried,
            };
            (e.entry.seq, state)
        })
        .collect();
    WitnessEvidence {
        tokens,
        signatures: Some(signatures),
    }
}

fn hash_bytes(hex_hash: &str) -> Option<[u8; 32]> {
    hex::decode(hex_hash).ok()?.try_into().ok()
}

/// The clock difference allowed between an entry's claimed time and a TSA's witnessed time, in
/// whole seconds: [`CLOCK_TOLERANCE_SECS`], plus the TSA's stated accuracy (`accuracy_micros`),
/// plus one for times written to the second.
pub(crate) fn tolerance_secs(accuracy_micros: Option<u64>) -> i64 {
    CLOCK_TOLERANCE_SECS + (accuracy_micros.unwrap_or(0) / 1_000_000) as i64 + 1
}

/// Verifies every `timestamp` entry's token; returns what the valid ones witness.
fn check_tokens(items: &[Item], report: &mut VerifyReport, o: &WitnessOptions) -> Vec<Testimony> {
    let mut out = Vec::new();
    let mut untrusted = Vec::new();
    // The signature checks (the costly part) run on every core first; the findings are then
    // made in ledger order from their results.
    let mut verified = token_checks(items, o);
    for (i, it) in items.iter().enumerate() {
        if it.entry.kind != EntryKind::Timestamp {
            continue;
        }
        let Some(t) = check_token(items, i, verified[i].take(), report, o) else {
            continue;
        };
        if !t.trusted {
            untrusted.push(t.timestamp_seq);
        }
        out.push(t);
    }
    if let Some(first) = untrusted.first() {
        report.notes.push(Finding::new(
            FindingCode::TsaNotAnchored,
            Some(*first),
            format!(
                "the token{} of timestamp {} verified under the TSA certificate{} carried in the token; name the TSA's CA with --tsa-trust FILE to check who signed",
                if untrusted.len() == 1 { "" } else { "s" },
                crate::text::seq_list(&untrusted),
                if untrusted.len() == 1 { "" } else { "s" },
            ),
        ));
    }
    out
}

/// What the `timestamp` entry `items[i]` stands on: its summary, the entry it covers, that
/// entry's hash and the DER token. A summary that does not read, a covered entry that is not
/// an earlier entry, or hex that does not decode is a `timestamp-malformed` finding (`None`); a
/// covered hash that is not the covered entry's is a `timestamp-imprint-mismatch` finding.
fn token_target<'a>(
    items: &'a [Item],
    i: usize,
    report: &mut VerifyReport,
) -> Option<(TimestampSummary, &'a Entry, [u8; 32], Vec<u8>)> {
    let e = items[i].entry;
    let mut bad = |code: FindingCode, msg: String| report.findings.push(Finding::new(code, Some(e.seq), msg));
    let s: TimestampSummary = match TimestampSummary::deserialize(&e.summary) {
        Ok(s) => s,
        Err(err) => {
            bad(
                FindingCode::TimestampMalformed,
                format!(
                    "timestamp entry #{}: its summary is not a timestamp summary ({})",
                    e.seq, err
                ),
            );
            return None;
        }
    };
    let Some(covered) = items[..i].iter().map(|x| x.entry).find(|c| c.seq == s.covers_seq) else {
        bad(
            FindingCode::TimestampMalformed,
            format!(
                "timestamp entry #{} covers #{}, which is not an earlier entry of this ledger",
                e.seq, s.covers_seq
            ),
        );
        return None;
    };
    let (Some(hash), Ok(token)) = (hash_bytes(&covered.entry_sha256), hex::decode(&s.token_der)) else {
        bad(
            FindingCode::TimestampMalformed,
            format!("timestamp entry #{}: the token or the covered hash is not hex", e.seq),
        );
        return None;
    };
    if s.covers_sha256 != covered.entry_sha256 {
        bad(
            FindingCode::TimestampImprintMismatch,
            format!(
                "timestamp entry #{} names hash {} for #{}, whose entry_sha256 is {}",
                e.seq,
                crate::text::short(&s.covers_sha256, 12),
                covered.seq,
                crate::text::short(&covered.entry_sha256, 12)
            ),
        );
    }
    Some((s, covered, hash, token))
}

/// Checks the `timestamp` entry `items[i]` (its token verified beforehand as `checked`, or now):
/// the findings of [`token_target`], a token that does not verify or stamps another hash, and the
/// covered entry's claimed time against the witnessed one ([`compare_times`]). Returns its
/// testimony when the token verifies.
fn check_token(
    items: &[Item],
    i: usize,
    checked: Option<Result<tsa::Witness, tsa::TokenProblem>>,
    report: &mut VerifyReport,
    o: &WitnessOptions,
) -> Option<Testimony> {
    let e = items[i].entry;
    let (s, covered, hash, token) = token_target(items, i, report)?;
    let w = match checked.unwrap_or_else(|| tsa::verify_token(&token, &hash, o.trust.as_ref())) {
        Ok(w) => w,
        Err(p @ tsa::TokenProblem::ImprintMismatch { .. }) => {
            report.findings.push(Finding::new(
                FindingCode::TimestampImprintMismatch,
                Some(e.seq),
                format!(
                    "timestamp entry #{}: the token does not stamp entry #{} ({})",
                    e.seq, covered.seq, p
                ),
            ));
            return None;
        }
        Err(p @ tsa::TokenProblem::NotBuilt) => {
            report.findings.push(Finding::new(
                FindingCode::WitnessNotCheckable,
                Some(e.seq),
                format!("timestamp entry #{} ({}): {}", e.seq, s.tsa_url, p),
            ));
            return None;
        }
        Err(p) => {
            report.findings.push(Finding::new(
                FindingCode::TimestampInvalid,
                Some(e.seq),
                format!("timestamp entry #{} ({}): {} [{}]", e.seq, s.tsa_url, p, p.code()),
            ));
            return None;
        }
    };
    compare_times(covered, &w, e.seq, report);
    Some(Testimony {
        timestamp_seq: e.seq,
        covers_seq: covered.seq,
        at: w.gen_time,
        accuracy_micros: w.accuracy_micros,
        tsa: w.tsa_name,
        trusted: matches!(w.trust, Trust::TrustFile(_)),
    })
}

/// `covered`'s claimed time against the time `w` witnessed (by timestamp entry `ts_seq`):
/// claimed more than the tolerance after it is a `claimed-after-witnessed` finding; witnessed
/// more than [`DELAY_NOTE_SECS`] after it a `witness-delayed` note.
fn compare_times(covered: &Entry, w: &tsa::Witness, ts_seq: u64, report: &mut VerifyReport) {
    let Some(claimed) = parse_time(&covered.time) else {
        return;
    };
    let ahead = (claimed - w.gen_time).num_seconds();
    let at = w.gen_time.to_rfc3339_opts(SecondsFormat::Secs, true);
    if ahead > tolerance_secs(w.accuracy_micros) {
        report.findings.push(Finding::new(
            FindingCode::ClaimedAfterWitnessed,
            Some(ts_seq),
            format!(
                "entry #{} claims {}, but {} witnessed it existed at {} (timestamp #{}): its time was set forward",
                covered.seq, covered.time, w.tsa_name, at, ts_seq
            ),
        ));
    } else if -ahead > DELAY_NOTE_SECS {
        report.notes.push(Finding::new(
            FindingCode::WitnessDelayed,
            Some(covered.seq),
            format!(
                "entry #{} claims {}, but was witnessed only at {} by {} (timestamp #{}), {} later: the claimed time is unproven",
                covered.seq,
                covered.time,
                at,
                w.tsa_name,
                ts_seq,
                span(-ahead)
            ),
        ));
    }
}

/// The earliest valid TSA testimony (token checked under the certificate it carries) that covers
/// entry `seq` of `entries` (first to last): a `timestamp` entry over `seq` or a later entry.
/// For the report; `verify` checks the same tokens and reports every problem.
pub fn earliest_witness(entries: &[Entry], seq: u64) -> Option<WitnessedTime> {
    let items: Vec<Item> = entries
        .iter()
        .map(|e| Item {
            entry: e,
            commit: None,
            raw: None,
            protocol: None,
        })
        .collect();
    let mut scratch = VerifyReport::build(String::new(), None, &[], None);
    check_tokens(&items, &mut scratch, &WitnessOptions::default())
        .into_iter()
        .filter(|t| t.covers_seq >= seq)
        .min_by_key(|t| t.at)
        .map(|t| WitnessedTime {
            tsa: t.tsa,
            at: t.at.to_rfc3339_opts(SecondsFormat::Secs, true),
            timestamp_seq: t.timestamp_seq,
            covers_seq: t.covers_seq,
            trusted: t.trusted,
        })
}

/// Each timestamp entry's token verified against the hash of the entry it covers (by index in
/// `items`; `None` where the entry is not a well-formed timestamp, which the sequential pass
/// reports), on every core.
fn token_checks(items: &[Item], o: &WitnessOptions) -> Vec<Option<Result<tsa::Witness, tsa::TokenProblem>>> {
    use rayon::prelude::*;
    let by_seq: std::collections::HashMap<u64, usize> =
        items.iter().enumerate().map(|(i, it)| (it.entry.seq, i)).collect();
    items
        .par_iter()
        .enumerate()
        .map(|(i, it)| {
            if it.entry.kind != EntryKind::Timestamp {
                return None;
            }
            let s = TimestampSummary::deserialize(&it.entry.summary).ok()?;
            let c = *by_seq.get(&s.covers_seq).filter(|&&c| c < i)?;
            let hash = hash_bytes(&items[c].entry.entry_sha256)?;
            let token = hex::decode(&s.token_der).ok()?;
            Some(tsa::verify_token(&token, &hash, o.trust.as_ref()))
        })
        .collect()
}

/// How one commit's signature stands, with the signer a reviewer cites when it verifies.
type State = Option<(SignatureState, Option<String>)>;

/// Verifies every commit's signature (from git, or from an export line's raw commit); returns
/// each item's state (`None` for an item without its raw commit).
fn check_signatures(items: &[Item], report: &mut VerifyReport, o: &WitnessOptions) -> Vec<State> {
    let mut states = Vec::with_capacity(items.len());
    let (mut unsigned, mut unchecked) = (Vec::new(), Vec::new());
    // Every commit signature is verified on every core first; the findings follow in order.
    let mut verified = verify_all(items, o);
    for (i, it) in items.iter().enumerate() {
        let e = it.entry;
        let Some(raw) = it.raw else {
            states.push(None);
            continue;
        };
        let format = object_format(it);
        let Some(signed) = split_signature(format, raw) else {
            unsigned.push(e.seq);
            states.push(Some((SignatureState::Unsigned, None)));
            continue;
        };
        let Some(allowed) = &o.allowed_signers else {
            unchecked.push(e.seq);
            states.push(Some((SignatureState::Unchecked, None)));
            continue;
        };
        let fallback = parse_time(&e.time).unwrap_or_default();
        let checked = verified.get_mut(i).and_then(Option::take);
        let state = match checked.unwrap_or_else(|| sshsig::verify_commit(allowed, format, raw, fallback)) {
            CommitSignature::Verified(v) => {
                let by = registered_by(it, &v, &signed, allowed, report).unwrap_or(v.principal);
                (SignatureState::Verified, Some(by))
            }
            CommitSignature::Bad(p) => {
                let code = match p {
                    SigProblem::UnknownSigner { .. }
                    | SigProblem::NamespaceNotAllowed { .. }
                    | SigProblem::NotValidAtTime { .. } => FindingCode::SignerNotAllowed,
                    _ => FindingCode::SignatureInvalid,
                };
                report.findings.push(Finding::new(
                    code,
                    Some(e.seq),
                    format!("entry #{}'s commit signature: {} [{}]", e.seq, p, p.code()),
                ));
                (SignatureState::Invalid, None)
            }
            CommitSignature::Unsigned => {
                unsigned.push(e.seq);
                (SignatureState::Unsigned, None)
            }
        };
        states.push(Some(state));
    }
    unsigned_notes(&unsigned, &unchecked, report, o);
    states
}

/// The object format of an item's commit id (SHA-1 unless it has 64 hex digits).
fn object_format(it: &Item) -> ObjectFormat {
    it.commit
        .and_then(|c| ObjectFormat::from_hex_len(c.len()))
        .unwrap_or(ObjectFormat::Sha1)
}

/// Every item's commit signature verified against the allowed signers, on every core (empty
/// without an allowed-signers file; `None` for an item without its raw commit).
fn verify_all(items: &[Item], o: &WitnessOptions) -> Vec<Option<CommitSignature>> {
    use rayon::prelude::*;
    let Some(allowed) = &o.allowed_signers else {
        return Vec::new();
    };
    items
        .par_iter()
        .map(|it| {
            let raw = it.raw?;
            let fallback = parse_time(&it.entry.time).unwrap_or_default();
            Some(sshsig::verify_commit(allowed, object_format(it), raw, fallback))
        })
        .collect()
}

/// For a registration signed by `v`: its `registered-by` when that principal's key made the
/// signature, else `None` with a `registered-by-unproven` note.
fn registered_by(
    it: &Item,
    v: &sshsig::Verified,
    signed: &super::gitobj::SignedCommit,
    allowed: &AllowedSigners,
    report: &mut VerifyReport,
) -> Option<String> {
    let e = it.entry;
    if e.kind != EntryKind::Register {
        return None;
    }
    let rb = RegistrationSummary::deserialize(&e.summary).ok()?.registered_by;
    let fallback = parse_time(&e.time).unwrap_or_default();
    let at = it.raw.and_then(signed_time).unwrap_or(fallback);
    match sshsig::verify(
        allowed,
        Some(&rb),
        sshsig::GIT_NAMESPACE,
        &signed.payload,
        &signed.signature,
        at,
    ) {
        Ok(_) => Some(rb),
        Err(_) => {
            report.notes.push(Finding::new(
                FindingCode::RegisteredByUnproven,
                Some(e.seq),
                format!(
                    "entry #{} is signed by `{}` ({}), but its registered-by `{}` is not a principal of that key",
                    e.seq, v.principal, v.fingerprint, rb
                ),
            ));
            None
        }
    }
}

/// The `entry-unsigned` finding (with an allowed-signers file) or note (without) for the
/// `unsigned` entries, and the `signatures-unchecked` note for the signed ones not checked.
fn unsigned_notes(unsigned: &[u64], unchecked: &[u64], report: &mut VerifyReport, o: &WitnessOptions) {
    if let Some(first) = unsigned.first() {
        let list = crate::text::seq_list(unsigned);
        if o.allowed_signers.is_some() {
            report.findings.push(Finding::new(
                FindingCode::EntryUnsigned,
                Some(*first),
                format!(
                    "{} {} not signed, so nothing proves who wrote {}",
                    list,
                    if unsigned.len() == 1 { "is" } else { "are" },
                    if unsigned.len() == 1 { "it" } else { "them" }
                ),
            ));
        } else {
            report.notes.push(Finding::new(
                FindingCode::EntryUnsigned,
                Some(*first),
                format!(
                    "{} {} not signed (sign with git's gpg.format = ssh and user.signingkey, or --sign-key)",
                    list,
                    if unsigned.len() == 1 { "is" } else { "are" }
                ),
            ));
        }
    }
    if let Some(first) = unchecked.first() {
        report.notes.push(Finding::new(
            FindingCode::SignaturesUnchecked,
            Some(*first),
            format!(
                "{} {} signed, but no allowed-signers file was given to check the signatures (--allowed-signers FILE)",
                crate::text::seq_list(unchecked),
                if unchecked.len() == 1 { "is" } else { "are" }
            ),
        ));
    }
}

/// The committer time of a signed commit's payload (what `git verify-commit` checks at).
fn signed_time(raw: &[u8]) -> Option<DateTime<Utc>> {
    let text = std::str::from_utf8(raw).ok()?;
    let line = text
        .split("\n\n")
        .next()?
        .lines()
        .find_map(|l| l.strip_prefix("committer "))?;
    let secs: i64 = line.rsplit(' ').nth(1)?.parse().ok()?;
    DateTime::from_timestamp(secs, 0)
}

fn review(
    items: &[Item],
    rules: &LedgerState,
    testimonies: &[Testimony],
    states: &[State],
    tip: Option<String>,
) -> Review {
    let mut studies = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let e = &it.entry;
        if e.kind != EntryKind::Register || studies.iter().any(|s: &StudyReview| s.study_id == e.study_id) {
            continue;
        }
        let reg = RegistrationSummary::deserialize(&e.summary).ok();
        let count = |k: EntryKind| {
            items
                .iter()
                .filter(|x| x.entry.kind == k && x.entry.study_id == e.study_id)
                .count()
        };
        let witnessed = testimonies
            .iter()
            .filter(|t| t.covers_seq >= e.seq)
            .min_by_key(|t| t.at)
            .map(|t| WitnessedTime {
                tsa: t.tsa.clone(),
                at: t.at.to_rfc3339_opts(SecondsFormat::Secs, true),
                timestamp_seq: t.timestamp_seq,
                covers_seq: t.covers_seq,
                trusted: t.trusted,
            });
        let state = states.get(i).cloned().flatten();
        studies.push(StudyReview {
            study_id: e.study_id.clone(),
            title: reg.as_ref().map(|r| r.title.clone()),
            registered_seq: e.seq,
            registered_at: e.time.clone(),
            clock_fixed: e.clock == Some(super::entry::ClockSource::Fixed),
            witnessed,
            registered_by: reg.map(|r| r.registered_by),
            signature: state.as_ref().map(|s| s.0),
            signed_by: state.and_then(|s| s.1),
            data_access: e.data_access,
            amendments: count(EntryKind::Amend),
            deviations: count(EntryKind::Deviation),
            analyses: count(EntryKind::Analyze),
            overlap: rules
                .study(&e.study_id)
                .map(|st| st.overlap.iter().map(|o| o.to_string()).collect())
                .unwrap_or_default(),
            attempts: rules.study(&e.study_id).and_then(|st| st.attempts_statement()),
        });
    }
    Review { tip, studies }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, kind: &str, time: &str, sha: &str, summary: serde_json::Value) -> Entry {
        serde_json::from_value(serde_json::json!({
            "seq": seq, "kind": kind, "time": time, "prev_sha256": super::super::GENESIS,
            "study_id": "s", "protocol_sha256": null, "protocol_path": null, "amends": null,
            "inputs": {}, "result_sha256": null, "tool": {"name": "pledge", "version": "0"},
            "rng": null, "reason": null, "data_access": "nothing-run", "git_head": null,
            "summary": summary, "entry_sha256": sha,
        }))
        .unwrap()
    }

    /// The fixed openssl token over tests/data/tsa/hash.hex, stored as covering an entry with
    /// that hash: its genTime is 2026-12-01T08:28:17Z (token-ec.txt, openssl's own print).
    fn ledger(claimed: &str) -> Vec<Entry> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tsa");
        let hash = std::fs::read_to_string(dir.join("hash.hex"))
            .unwrap()
            .trim()
            .to_string();
        let token = hex::encode(std::fs::read(dir.join("token-ec.der")).unwrap());
        vec![
            entry(1, "register", claimed, &hash, serde_json::json!({})),
            entry(
                2,
                "timestamp",
                "2026-12-01T08:28:18Z",
                &"ab".repeat(32),
                serde_json::json!({"covers_seq": 1, "covers_sha256": hash, "tsa_url": "http://127.0.0.1/", "token_der": token}),
            ),
        ]
    }

    #[test]
    fn a_stored_token_witnesses_its_entry_and_the_claimed_time_is_compared() {
        let w = earliest_witness(&ledger("2026-12-01T08:28:17Z"), 1).unwrap();
        assert_eq!(w.tsa, "CN=pledge test TSA ec,O=pledge tests");
        assert_eq!(w.at, "2026-12-01T08:28:17Z");
        assert_eq!((w.timestamp_seq, w.covers_seq, w.trusted), (2, 1, false));
        assert_eq!(earliest_witness(&ledger("2026-12-01T08:28:17Z"), 2), None);
        let run = |claimed: &str| {
            let entries = ledger(claimed);
            let items: Vec<Item> = entries
                .iter()
                .map(|entry| Item {
                    entry,
                    commit: None,
                    raw: None,
                    protocol: None,
                })
                .collect();
            let mut r = VerifyReport::build(String::new(), None, &[], None);
            check_tokens(&items, &mut r, &WitnessOptions::default());
            (
                r.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
                r.notes.iter().map(|f| f.code).collect::<Vec<_>>(),
            )
        };
        // Within the tolerance (120 s + the TSA's 1.5001 s accuracy in whole seconds + 1 s for
        // times written to the second): 122 s ahead is fine, 123 s is a finding.
        assert_eq!(run("2026-12-01T08:30:19Z").0, vec![]);
        assert_eq!(run("2026-12-01T08:30:20Z").0, vec![FindingCode::ClaimedAfterWitnessed]);
        // Witnessed over an hour after the claim: a note.
        assert_eq!(
            run("2026-12-01T07:28:16Z").1,
            vec![FindingCode::WitnessDelayed, FindingCode::TsaNotAnchored]
        );
        assert_eq!(run("2026-12-01T07:28:17Z").1, vec![FindingCode::TsaNotAnchored]);
    }

    #[test]
    fn spans_read_as_people_write_them() {
        assert_eq!(span(7 * 60 + 5), "7 min");
        assert_eq!(span(5 * 3600 + 2 * 60), "5 h 2 min");
        assert_eq!(span(3 * 86_400 + 4 * 3600 + 59), "3 days 4 h");
        assert_eq!(span(86_400 + 60), "1 day 0 h");
    }

    #[test]
    fn the_committer_time_is_read_from_the_payload() {
        let raw = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@b> 1700000000 +0000\ncommitter pledge <p@l> 1796040000 +0900\n\nmsg\n";
        assert_eq!(signed_time(raw), DateTime::from_timestamp(1_796_040_000, 0));
        assert_eq!(signed_time(b"garbage"), None);
    }
}
