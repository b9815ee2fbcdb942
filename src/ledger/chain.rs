//! The checks every ledger copy must pass (git ref, published copy, or export): each entry's
//! hash over its canonical form, the `prev_sha256` links, gap-free sequence numbers in order,
//! the stored result and protocol blobs against their recorded hashes, and the registration
//! rules ([`super::rules`], replayed over the whole chain).

use super::clock::parse_time;
use super::entry::{EntryKind, GENESIS};
use super::finding::{Finding, FindingCode};
use super::records::Record;
use std::collections::BTreeMap;

/// Findings and notes of one chain.
#[derive(Debug, Default)]
pub(crate) struct ChainCheck {
    pub findings: Vec<Finding>,
    pub notes: Vec<Finding>,
}

impl ChainCheck {
    fn bad(&mut self, code: FindingCode, seq: Option<u64>, message: String) {
        self.findings.push(Finding::new(code, seq, message));
    }
    fn note(&mut self, code: FindingCode, seq: Option<u64>, message: String) {
        self.notes.push(Finding::new(code, seq, message));
    }
}

/// Runs every chain check over `records` (first to last).
pub(crate) fn check_chain(records: &[Record]) -> ChainCheck {
    let mut c = ChainCheck::default();
    let mut prev_hash: Option<(String, Option<u64>)> = None;
    for (i, r) in records.iter().enumerate() {
        check_commit(&mut c, r, i, records.len());
        let e = match &r.entry {
            Ok(e) => e,
            Err(_) if !r.unreadable.is_empty() => {
                prev_hash = None;
                continue;
            }
            Err(why) => {
                c.bad(
                    FindingCode::MalformedEntry,
                    None,
                    format!("{}: not a pledge ledger entry ({})", r.at, why),
                );
                prev_hash = None;
                continue;
            }
        };
        let n = Some(e.seq);
        check_hashes(&mut c, r, e);
        match (i, &prev_hash) {
            (0, _) if e.prev_sha256 != GENESIS => c.bad(
                FindingCode::BrokenLink,
                n,
                format!(
                    "the first entry (#{}) does not start the chain (prev_sha256 is not the genesis value): earlier entries were removed",
                    e.seq
                ),
            ),
            (_, Some((h, pseq))) if *h != e.prev_sha256 => c.bad(
                FindingCode::BrokenLink,
                n,
                format!(
                    "entry #{}'s prev_sha256 does not match the entry before it (#{}): an entry was inserted, deleted or moved here",
                    e.seq,
                    pseq.map(|s| s.to_string()).unwrap_or_else(|| "?".into())
                ),
            ),
            _ => {}
        }
        prev_hash = Some((e.entry_sha256.clone(), n));
        if r.unreadable.is_empty() {
            check_blobs(&mut c, r);
        }
        if !r.other_files.is_empty() {
            c.bad(
                FindingCode::UnexpectedFile,
                n,
                format!(
                    "entry #{} ({}) holds unexpected files: {}",
                    e.seq,
                    r.at,
                    r.other_files.join(", ")
                ),
            );
        }
    }
    check_sequence(&mut c, records);
    check_registrations(&mut c, records);
    check_times(&mut c, records);
    c
}

/// The checks of one ledger commit as read (the `i`th of `count`): a merge commit, and each
/// object that could not be read (saying when no entry before it can be checked).
fn check_commit(c: &mut ChainCheck, r: &Record, i: usize, count: usize) {
    if r.parents.len() > 1 {
        c.bad(
            FindingCode::MergeCommit,
            r.seq(),
            format!("{} has {} parents; ledger commits have one", r.at, r.parents.len()),
        );
    }
    for u in &r.unreadable {
        let cut = match (r.commit_raw.is_none(), i) {
            (true, 0) if count == 1 => "; no entry can be read or checked",
            (true, _) => "; no entry before it can be read or checked",
            _ => "",
        };
        c.bad(
            FindingCode::LedgerUnreadable,
            r.seq(),
            match r.seq() {
                Some(s) => format!("entry #{}: {}{}", s, u, cut),
                None => format!("{}{}", u, cut),
            },
        );
    }
}

/// The hash checks of one entry: its content against its `entry_sha256`, its stored bytes
/// against the canonical form, and the hash its commit message names.
fn check_hashes(c: &mut ChainCheck, r: &Record, e: &super::entry::Entry) {
    let n = Some(e.seq);
    let (hash_form, stored_form) = e.canonical_and_stored_bytes();
    let recomputed = crate::io::sha256_hex(&hash_form);
    if recomputed != e.entry_sha256 {
        c.bad(
            FindingCode::EntryHashMismatch,
            n,
            format!(
                "entry #{} ({}) was edited: its content hashes to {} but it records entry_sha256 {}",
                e.seq, r.at, recomputed, e.entry_sha256
            ),
        );
    } else if r.entry_bytes.as_ref().is_some_and(|b| *b != stored_form) {
        c.bad(
            FindingCode::EntryNotCanonical,
            n,
            format!(
                "entry #{} ({}): entry.json is not in canonical form (its bytes were edited)",
                e.seq, r.at
            ),
        );
    }
    if let Some(m) = &r.message_sha {
        if *m != e.entry_sha256 {
            c.bad(
                FindingCode::CommitMismatch,
                n,
                format!("entry #{}: {} names entry_sha256 {} in its message", e.seq, r.at, m),
            );
        }
    }
}

/// `result.json` and `protocol.toml` against the hashes the entry records.
fn check_blobs(c: &mut ChainCheck, r: &Record) {
    let Ok(e) = &r.entry else { return };
    let n = Some(e.seq);
    match (&e.result_sha256, &r.result) {
        (Some(h), Some(b)) if crate::io::sha256_hex(b) != *h => c.bad(
            FindingCode::ResultMismatch,
            n,
            format!(
                "entry #{}: result.json hashes to {} but the entry records {}",
                e.seq,
                crate::io::sha256_hex(b),
                h
            ),
        ),
        (Some(_), None) => c.bad(
            FindingCode::ResultMissing,
            n,
            format!("entry #{}: result.json is missing", e.seq),
        ),
        (None, Some(_)) => c.bad(
            FindingCode::ResultUnrecorded,
            n,
            format!("entry #{}: holds a result.json the entry does not record", e.seq),
        ),
        _ => {}
    }
    let registers = matches!(e.kind, EntryKind::Register | EntryKind::Amend);
    match (&r.protocol, &e.protocol_sha256) {
        (Some(b), Some(h)) => {
            let got = crate::protocol::protocol_hash(b).sha256;
            if got != *h {
                c.bad(
                    FindingCode::ProtocolTextMismatch,
                    n,
                    format!(
                        "entry #{}: the stored protocol.toml hashes to {} but the entry registers {}",
                        e.seq, got, h
                    ),
                );
            }
        }
        (None, _) if registers => c.bad(
            FindingCode::ProtocolTextMissing,
            n,
            format!("entry #{} ({}): protocol.toml is missing", e.seq, e.kind.as_str()),
        ),
        (Some(_), None) => c.bad(
            FindingCode::ProtocolTextMismatch,
            n,
            format!("entry #{}: holds a protocol.toml but records no protocol hash", e.seq),
        ),
        _ => {}
    }
}

/// Sequence numbers: 1..n, each once, in order. Numbers that records without a readable entry
/// account for are unknown, not missing (their own finding, `malformed-entry` or
/// `ledger-unreadable`, says why): those before a commit that cannot be read (the walk stops
/// there), and a gap between two entries exactly as wide as the records between them.
fn check_sequence(c: &mut ChainCheck, records: &[Record]) {
    let seqs: Vec<u64> = records.iter().filter_map(Record::seq).collect();
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    for s in &seqs {
        *seen.entry(*s).or_default() += 1;
    }
    let mut unknown: Vec<(u64, u64)> = Vec::new();
    let cut = records
        .first()
        .is_some_and(|r| r.commit_raw.is_none() && !r.unreadable.is_empty());
    let (mut before, mut between) = (None::<u64>, 0u64);
    for s in records.iter().map(Record::seq) {
        let Some(s) = s else {
            between += 1;
            continue;
        };
        let lo = before.map_or(1, |b| b.saturating_add(1));
        let width = s.saturating_sub(lo);
        if between > 0 && ((before.is_none() && cut) || width == between) {
            unknown.push((lo, s.saturating_sub(1)));
        }
        (before, between) = (Some(s), 0);
    }
    let max = seqs.iter().copied().max().unwrap_or(0);
    // Cap the listing so a forged huge seq cannot produce millions of findings.
    let missing: Vec<u64> = (1..=max)
        .filter(|s| !seen.contains_key(s) && !unknown.iter().any(|&(lo, hi)| (lo..=hi).contains(s)))
        .take(1000)
        .collect();
    for s in missing {
        c.bad(
            FindingCode::EntryMissing,
            Some(s),
            format!("entry #{} is missing from the chain (deleted)", s),
        );
    }
    for (s, k) in &seen {
        if *k > 1 {
            c.bad(
                FindingCode::SeqDuplicate,
                Some(*s),
                format!("{} entries carry #{}: an entry was inserted or forged", k, s),
            );
        }
    }
    for w in seqs.windows(2) {
        if w[1] < w[0] {
            c.bad(
                FindingCode::EntriesReordered,
                Some(w[1]),
                format!("entry #{} comes after #{}: entries were swapped or moved", w[1], w[0]),
            );
        }
    }
}

/// The registration rules, data-access declarations and overlaps: the fold of
/// [`super::rules`] replayed over the whole chain, each violation a finding or a note. Past a
/// record whose objects cannot be read, what came before is unknown, so the absence of a
/// registration or a count is not a finding.
fn check_registrations(c: &mut ChainCheck, records: &[Record]) {
    let mut state = super::rules::LedgerState::default();
    for r in records {
        let e = match &r.entry {
            Ok(e) => e,
            Err(_) => {
                state.cut |= !r.unreadable.is_empty();
                continue;
            }
        };
        let text = match e.kind {
            EntryKind::Register | EntryKind::Amend => r.protocol.as_deref().and_then(|b| std::str::from_utf8(b).ok()),
            _ => None,
        };
        let verdict = state.step(&super::rules::Fact {
            entry: e,
            protocol_text: text,
            commit: r.commit.as_deref(),
        });
        for v in &verdict.violations {
            if v.is_finding() {
                c.bad(v.code(), Some(e.seq), v.message(e));
            } else {
                c.note(v.code(), Some(e.seq), v.message(e));
            }
        }
    }
}

/// Entry times: each must be an RFC 3339 instant (a finding otherwise), and compared in UTC
/// none may be earlier than the entry before it (a finding naming both), unless it records a
/// clock correction (`"clock": "corrected"`, see [`super::clock`]), which a note discloses with
/// both times and its reason. Entries written under a fixed clock are listed in one note.
fn check_times(c: &mut ChainCheck, records: &[Record]) {
    use super::entry::ClockSource;
    let mut prev: Option<(&super::entry::Entry, chrono::DateTime<chrono::Utc>)> = None;
    let mut fixed: Vec<u64> = Vec::new();
    for e in records.iter().filter_map(|r| r.entry.as_ref().ok()) {
        if e.clock == Some(ClockSource::Fixed) {
            fixed.push(e.seq);
        }
        let Some(t) = parse_time(&e.time) else {
            c.bad(
                FindingCode::TimeMalformed,
                Some(e.seq),
                format!("entry #{} is dated `{}`, which is not an RFC 3339 time", e.seq, e.time),
            );
            continue;
        };
        match prev {
            Some((p, pt)) if t < pt && e.clock == Some(ClockSource::Corrected) => c.note(
                FindingCode::ClockCorrected,
                Some(e.seq),
                format!(
                    "entry #{} corrects the clock: it is dated {}, {} before #{} ({}), which was dated ahead of the clock; reason: {}",
                    e.seq,
                    e.time,
                    super::clock::span((pt - t).num_seconds()),
                    p.seq,
                    p.time,
                    e.reason.as_deref().unwrap_or("none given")
                ),
            ),
            Some((p, pt)) if t < pt => c.bad(
                FindingCode::TimeDecreased,
                Some(e.seq),
                format!(
                    "entry #{} is dated {}, before the entry preceding it, #{} ({}){}",
                    e.seq,
                    e.time,
                    p.seq,
                    p.time,
                    if e.time >= p.time {
                        " (compared in UTC; the texts sort the other way)"
                    } else {
                        ""
                    }
                ),
            ),
            _ => {}
        }
        prev = Some((e, t));
    }
    if let Some(first) = fixed.first() {
        c.note(
            FindingCode::ClockFixed,
            Some(*first),
            format!(
                "{} written under a fixed clock (PLEDGE_NOW): {} declared, not read from the system clock",
                crate::text::seq_list(&fixed),
                if fixed.len() == 1 {
                    "its time was"
                } else {
                    "their times were"
                }
            ),
        );
    }
}

#[cfg(test)]
mod registration_tests {
    use super::*;
    use crate::ledger::{DataAccess, Entry};

    fn entry(seq: u64, kind: EntryKind, study: &str, protocol: Option<&str>) -> Entry {
        Entry {
            seq,
            kind,
            time: "2026-12-01T00:00:00Z".into(),
            prev_sha256: GENESIS.into(),
            study_id: study.into(),
            protocol_sha256: protocol.map(str::to_string),
            protocol_path: None,
            amends: None,
            inputs: Default::default(),
            result_sha256: None,
            tool: super::super::entry::Tool::current(),
            rng: None,
            reason: Some("r".into()),
            data_access: DataAccess::default(),
            git_head: None,
            summary: serde_json::Value::Null,
            canonical: None,
            clock: None,
            entry_sha256: String::new(),
        }
    }

    /// Past an entry that cannot be read, a registration or count it may have held is not
    /// reported missing (the unreadable entry is the finding); without the cut it is.
    #[test]
    fn an_unreadable_entry_hides_no_missing_registration_or_count() {
        let mut analysis = entry(3, EntryKind::Analyze, "s", Some("a"));
        analysis.inputs.insert(
            super::super::entry::InputKey {
                role: super::super::entry::InputRole::Assignment,
                path: "components.csv".into(),
            },
            "f".repeat(64),
        );
        let check = |cut: bool| {
            let mut lost = Record::new("commit 1a2b3c4".into(), Err("cannot be read".into()));
            if cut {
                lost.unreadable.push(super::super::records::Unreadable {
                    what: "commit 1a2b3c4".into(),
                    why: "it is not in this repository".into(),
                });
            }
            let all = [lost, Record::new(String::new(), Ok(analysis.clone()))];
            let mut c = ChainCheck::default();
            check_registrations(&mut c, &all);
            let codes = |v: &[Finding]| v.iter().map(|f| f.code).collect::<Vec<_>>();
            (codes(&c.findings), codes(&c.notes))
        };
        assert_eq!(check(true), (vec![], vec![]));
        assert_eq!(
            check(false),
            (vec![FindingCode::AnalysisRefused], vec![FindingCode::UnregisteredStudy])
        );
    }
}
