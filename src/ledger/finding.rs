//! What verification finds: a [`Finding`] (or note) with its stable [`FindingCode`], the
//! vocabulary every check of the ledger reports in (the chain, the registration rules, appends,
//! tokens and signatures, exports).

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
        /// A build attempt the registered budget (`[build]`) refuses, without a deviation: a
        /// component count on other inputs past `attempts`, or changing more of the previous
        /// attempt's candidates than `attempt-may-change` allows (or with no record of that
        /// check).
        AttemptRefused = "attempt-refused",
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
        /// (`--rerun`) A recorded analysis or repair-trace test recomputed from its inputs gives another result, or an input changed.
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
        /// A time-stamp token this pledge cannot check: it was built without the `witness`
        /// feature (rebuild with `--features witness`). Nothing is claimed of the token.
        WitnessNotCheckable = "witness-not-checkable",
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
        /// Note: (`--rerun`) a recorded analysis or repair-trace test recomputed to the same result hash.
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
