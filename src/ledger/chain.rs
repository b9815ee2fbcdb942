//! The checks every ledger copy must pass (git ref, published copy, or export): each entry's
//! hash over its canonical form, the `prev_sha256` links, gap-free sequence numbers in order,
//! the stored result and protocol blobs against their recorded hashes, and the registration
//! rules (an amend names the version it replaces and has a reason).

use super::entry::{DataAccess, Entry, EntryKind, GENESIS};
use super::records::Record;
use super::verify::{Finding, FindingCode};
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
        if r.parents.len() > 1 {
            c.bad(
                FindingCode::MergeCommit,
                r.seq(),
                format!("{} has {} parents; ledger commits have one", r.at, r.parents.len()),
            );
        }
        for u in &r.unreadable {
            let cut = match (r.commit_raw.is_none(), i) {
                (true, 0) if records.len() == 1 => "; no entry can be read or checked",
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

/// The findings of the registration rules ([`check_chain`]'s, the same code) that the entries
/// `new` would have if appended after `history`: the latest entry of each kind of their study and
/// of the ledger-wide entries, then the ledger's last entry, in ledger order (as a
/// [`super::index::Snapshot`] holds them). Those rules look only at the latest registration of a
/// study, whether it was ever registered, and the entry just before, so this gives what a full
/// check of the extended chain would say about `new`, without reading the chain.
pub(crate) fn new_entry_findings(history: &[Entry], new: &[Entry]) -> Vec<Finding> {
    let record = |e: &Entry| Record::new(format!("entry #{}", e.seq), Ok(e.clone()));
    let records: Vec<Record> = history.iter().chain(new).map(record).collect();
    let mut c = ChainCheck::default();
    check_registrations(&mut c, &records);
    let fresh: std::collections::BTreeSet<u64> = new.iter().map(|e| e.seq).collect();
    c.findings
        .into_iter()
        .filter(|f| f.seq.is_some_and(|s| fresh.contains(&s)))
        // Time order against the entry before is checked (and refused) before writing.
        .filter(|f| f.code != FindingCode::TimeDecreased)
        .collect()
}

/// When analysis `e` rests on `count` (its study's latest count before it: with splits in the
/// analysis's protocol, or when it used a component assignment) and that count was made under
/// another protocol version that counted otherwise ([`crate::protocol::count_basis_changes`])
/// or on another pilot than the one `reg` (the registration in force) records
/// ([`crate::protocol::pilot_change`]): the count's number and the changes. `None` as well
/// when a protocol text needed is not among `texts` (an append's check sees only the latest
/// entries; the full check has every text).
fn counted_otherwise(
    e: &Entry,
    count: Option<&Entry>,
    reg: Option<&Entry>,
    texts: &BTreeMap<&str, &str>,
    assignment: bool,
) -> Option<(u64, String)> {
    let count = count?;
    let (now, then) = (e.protocol_sha256.as_deref()?, count.protocol_sha256.as_deref()?);
    let pilot = super::entry::InputRole::Pilot;
    // The common case, read without parsing a protocol: the same version and pilot.
    let same_pilot =
        |r: &Entry| super::entry::hashes_of(&r.inputs, pilot) == super::entry::hashes_of(&count.inputs, pilot);
    if now == then && reg.is_none_or(same_pilot) {
        return None;
    }
    let path = std::path::Path::new("protocol.toml");
    let new_text = texts.get(now)?;
    let new = crate::protocol::parse(new_text, path).ok()?;
    if new.splits.is_empty() && !assignment {
        return None;
    }
    let mut changes = Vec::new();
    if now != then {
        let old_text = texts.get(then)?;
        let old = crate::protocol::parse(old_text, path).ok()?;
        changes = crate::protocol::count_basis_changes(&old, old_text, &new, new_text);
    }
    changes.extend(reg.and_then(|r| crate::protocol::pilot_change(&new, &count.inputs, &r.inputs)));
    (!changes.is_empty()).then(|| (count.seq, changes.join("; ")))
}

/// Registration rules, data-access declarations and time order.
fn check_registrations(c: &mut ChainCheck, records: &[Record]) {
    let ever_registered: std::collections::BTreeSet<&str> = records
        .iter()
        .filter_map(|r| r.entry.as_ref().ok())
        .filter(|e| matches!(e.kind, EntryKind::Register | EntryKind::Amend))
        .map(|e| e.study_id.as_str())
        .collect();
    let mut registered: BTreeMap<&str, String> = BTreeMap::new();
    let mut seen: Vec<&super::entry::Entry> = Vec::new();
    let mut levels = super::entry::AccessLevels::default();
    // Per study: its latest stop-rule decision, and its latest components entry with the
    // assignment hashes it records (what `analyze` checks an analysis against).
    let mut decision: BTreeMap<&str, &Entry> = BTreeMap::new();
    let mut counted: BTreeMap<&str, &Entry> = BTreeMap::new();
    // Per study: its latest count (`count`, `stop` or `go`); per protocol hash: the text a
    // register or amend entry stored (when the records hold it).
    let mut latest_count: BTreeMap<&str, &Entry> = BTreeMap::new();
    let mut latest_reg: BTreeMap<&str, &Entry> = BTreeMap::new();
    let mut texts: BTreeMap<&str, &str> = BTreeMap::new();
    type BasisKey = (Option<u64>, Option<String>, Option<u64>, bool);
    let mut basis_answers: BTreeMap<BasisKey, Option<(u64, String)>> = BTreeMap::new();
    let assignments = |e: &Entry| -> Vec<String> {
        e.inputs
            .iter()
            .filter(|(k, _)| k.role == super::entry::InputRole::Assignment)
            .map(|(_, h)| h.clone())
            .collect()
    };
    // Set once an entry that cannot be read has been passed (a missing or damaged object): what
    // came before it is unknown, so its absence (no registration, no count) is not a finding.
    let mut cut = false;
    for r in records {
        let e = match &r.entry {
            Ok(e) => e,
            Err(_) => {
                cut |= !r.unreadable.is_empty();
                continue;
            }
        };
        let n = Some(e.seq);
        let id = e.study_id.as_str();
        // A deviation entry, and the entry written with it (the next one, of the same study and
        // protocol hash: `analyze --deviation` appends both at once), may use another protocol
        // than the registered one: the deviation records and discloses that it does.
        let disclosed = e.kind == EntryKind::Deviation
            || seen.last().is_some_and(|p| {
                p.kind == EntryKind::Deviation && p.study_id == e.study_id && p.protocol_sha256 == e.protocol_sha256
            });
        let needs_reason = matches!(e.kind, EntryKind::Amend | EntryKind::Deviation);
        if needs_reason && e.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            c.bad(
                FindingCode::MissingReason,
                n,
                format!("entry #{} ({}) has no reason", e.seq, e.kind.as_str()),
            );
        }
        match e.kind {
            EntryKind::Register => {
                if let Some(h) = registered.get(id) {
                    if Some(h) != e.protocol_sha256.as_ref() {
                        c.bad(
                            FindingCode::DuplicateRegistration,
                            n,
                            format!(
                                "entry #{} registers study `{}` again with a different protocol instead of amending it",
                                e.seq, id
                            ),
                        );
                    }
                }
            }
            EntryKind::Amend => {
                if registered.get(id) != e.amends.as_ref() || e.amends.is_none() {
                    c.bad(
                        FindingCode::AmendLink,
                        n,
                        format!(
                            "entry #{} amends study `{}` but does not name its registered version ({})",
                            e.seq,
                            id,
                            registered.get(id).map(String::as_str).unwrap_or("none registered")
                        ),
                    );
                }
            }
            _ => {
                if let (Some(h), Some(reg)) = (&e.protocol_sha256, registered.get(id)) {
                    if h != reg && !disclosed {
                        c.bad(
                            FindingCode::UnregisteredProtocol,
                            n,
                            format!(
                                "entry #{} ({}) used protocol {} but study `{}` was registered with {} at that time",
                                e.seq,
                                e.kind.as_str(),
                                crate::text::short(h, 12),
                                id,
                                crate::text::short(reg, 12)
                            ),
                        );
                    }
                } else if cut {
                    // Registered, perhaps, in an entry that cannot be read.
                } else if e.protocol_sha256.is_some() && !id.is_empty() && !ever_registered.contains(id) {
                    // A study never registered anywhere in the ledger: nothing to deviate from,
                    // and no registered study is affected. Disclosed, not a failure.
                    c.note(
                        FindingCode::UnregisteredStudy,
                        n,
                        format!(
                            "entry #{} ({}) concerns study `{}`, which is never registered in this ledger",
                            e.seq,
                            e.kind.as_str(),
                            id
                        ),
                    );
                } else if e.protocol_sha256.is_some() && !id.is_empty() {
                    c.bad(
                        FindingCode::UnregisteredProtocol,
                        n,
                        format!(
                            "entry #{} ({}) uses a protocol of study `{}`, which was not registered before it",
                            e.seq,
                            e.kind.as_str(),
                            id
                        ),
                    );
                }
            }
        }
        if e.kind == EntryKind::Analyze && !disclosed {
            if let Some(stop) = decision.get(id).filter(|d| d.kind == EntryKind::Stop) {
                c.bad(
                    FindingCode::AnalysisRefused,
                    n,
                    format!(
                        "entry #{} analyzes study `{}` after its stop rule said stop (entry #{}), without a deviation",
                        e.seq, id, stop.seq
                    ),
                );
            }
            let used = assignments(e);
            if !used.is_empty() {
                let problem = match counted.get(id) {
                    None if cut => None,
                    None => Some("no components entry of the study records one before it".to_string()),
                    Some(k) if !assignments(k).iter().any(|h| used.contains(h)) => Some(format!(
                        "it is not the one its latest count (entry #{}) recorded",
                        k.seq
                    )),
                    Some(_) => None,
                };
                if let Some(p) = problem {
                    c.bad(
                        FindingCode::AnalysisRefused,
                        n,
                        format!(
                            "entry #{} analyzes study `{}` on a component assignment, and {}, without a deviation",
                            e.seq, id, p
                        ),
                    );
                }
            }
        }
        if e.kind == EntryKind::Analyze && !disclosed {
            let (count, reg) = (latest_count.get(id).copied(), latest_reg.get(id).copied());
            // Analyses on the same count, protocol and registration get the same answer: asked
            // once (it parses two protocols), so a long ledger of them is read at git's pace.
            let key = (
                count.map(|k| k.seq),
                e.protocol_sha256.clone(),
                reg.map(|r| r.seq),
                !assignments(e).is_empty(),
            );
            let answer = match basis_answers.get(&key) {
                Some(a) => a.clone(),
                None => {
                    let a = counted_otherwise(e, count, reg, &texts, key.3);
                    basis_answers.insert(key, a.clone());
                    a
                }
            };
            if let Some(p) = answer {
                c.bad(
                    FindingCode::AnalysisRefused,
                    n,
                    format!(
                        "entry #{} analyzes study `{}` on its count (entry #{}), which the registration then in force counts otherwise ({}), without a deviation",
                        e.seq, id, p.0, p.1
                    ),
                );
            }
        }
        if matches!(e.kind, EntryKind::Stop | EntryKind::Go) {
            decision.insert(id, e);
        }
        if matches!(e.kind, EntryKind::Count | EntryKind::Stop | EntryKind::Go) {
            latest_count.insert(id, e);
        }
        if matches!(e.kind, EntryKind::Register | EntryKind::Amend) {
            latest_reg.insert(id, e);
        }
        if let (EntryKind::Register | EntryKind::Amend, Some(h), Some(text)) = (
            e.kind,
            &e.protocol_sha256,
            r.protocol.as_deref().and_then(|b| std::str::from_utf8(b).ok()),
        ) {
            texts.insert(h.as_str(), text);
        }
        if matches!(
            e.kind,
            EntryKind::Count | EntryKind::Stop | EntryKind::Go | EntryKind::Assign
        ) {
            counted.insert(id, e);
        }
        if matches!(e.kind, EntryKind::Register | EntryKind::Amend) {
            if let Some(h) = &e.protocol_sha256 {
                registered.insert(id, h.clone());
            }
            if e.data_access == DataAccess::ResultsSeen {
                c.note(
                    FindingCode::RegisteredAfterResultsSeen,
                    n,
                    format!(
                        "entry #{} {}s study `{}` after results were seen (declared data access: results-seen)",
                        e.seq,
                        e.kind.as_str(),
                        id
                    ),
                );
            }
        }
        let before = levels.in_force(id);
        if !seen.is_empty() && e.data_access < before {
            c.note(
                FindingCode::AccessLowered,
                n,
                format!(
                    "entry #{} declares data access {} after {} was declared{}",
                    e.seq,
                    e.data_access.as_str(),
                    before.as_str(),
                    if id.is_empty() {
                        String::new()
                    } else {
                        format!(" for study `{}`", id)
                    }
                ),
            );
        }
        seen.push(e);
        levels.push(e);
    }
}

/// Entry times: each must be an RFC 3339 instant (a finding otherwise), and compared in UTC
/// none may be earlier than the entry before it (a finding naming both). Entries written under
/// a fixed clock are listed in one note.
fn check_times(c: &mut ChainCheck, records: &[Record]) {
    let mut prev: Option<(&super::entry::Entry, chrono::DateTime<chrono::Utc>)> = None;
    let mut fixed: Vec<u64> = Vec::new();
    for e in records.iter().filter_map(|r| r.entry.as_ref().ok()) {
        if e.clock.is_some() {
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
        if let Some((p, pt)) = prev {
            if t < pt {
                c.bad(
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
                );
            }
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

/// An RFC 3339 instant in UTC, or `None`.
pub(crate) fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod new_entry_tests {
    use super::*;

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

    /// An entry on another protocol than the registered one is what the full check would flag,
    /// unless a deviation of the same hash comes with it.
    #[test]
    fn new_entries_are_checked_as_the_full_chain_would_be() {
        let history = [entry(1, EntryKind::Register, "s", Some("a"))];
        let codes = |new: &[Entry]| -> Vec<FindingCode> {
            new_entry_findings(&history, new).into_iter().map(|f| f.code).collect()
        };
        assert_eq!(codes(&[entry(2, EntryKind::Analyze, "s", Some("a"))]), vec![]);
        assert_eq!(
            codes(&[entry(2, EntryKind::Analyze, "s", Some("b"))]),
            vec![FindingCode::UnregisteredProtocol]
        );
        assert_eq!(
            codes(&[
                entry(2, EntryKind::Deviation, "s", Some("b")),
                entry(3, EntryKind::Analyze, "s", Some("b"))
            ]),
            vec![]
        );
        assert_eq!(
            codes(&[entry(2, EntryKind::Register, "s", Some("b"))]),
            vec![FindingCode::DuplicateRegistration]
        );
        // The full check agrees on the same chain.
        let mut all: Vec<Record> = Vec::new();
        for e in [
            entry(1, EntryKind::Register, "s", Some("a")),
            entry(2, EntryKind::Analyze, "s", Some("b")),
        ] {
            all.push(Record::new(String::new(), Ok(e)));
        }
        let mut c = ChainCheck::default();
        check_registrations(&mut c, &all);
        assert_eq!(
            c.findings.iter().map(|f| f.code).collect::<Vec<_>>(),
            vec![FindingCode::UnregisteredProtocol]
        );
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
