//! The rules' unit tests and the property test: the state an append steps (kept in the index
//! between appends, so serialized and read back) says of every entry what the whole chain's
//! replay says.

use super::*;
use crate::ledger::entry::{DataAccess, InputKey, InputRole, GENESIS};
use crate::ledger::FindingCode;

pub(super) fn entry(seq: u64, kind: EntryKind, study: &str, protocol: Option<&str>) -> Entry {
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
        tool: Tool::current(),
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

/// The codes of the findings each entry of `chain` gets, replayed from the start.
fn replay(chain: &[(Entry, Option<&str>)]) -> Vec<Vec<FindingCode>> {
    let mut s = LedgerState::default();
    chain
        .iter()
        .map(|(e, t)| {
            s.step(&Fact {
                entry: e,
                protocol_text: *t,
                commit: None,
            })
            .findings()
            .map(|v| v.code())
            .collect()
        })
        .collect()
}

/// An entry on another protocol than the registered one is flagged, unless a deviation of the
/// same hash comes with it; a second registration is flagged.
#[test]
fn entries_are_judged_on_the_registration_in_force() {
    let reg = (entry(1, EntryKind::Register, "s", Some("a")), None);
    let codes = |new: Vec<Entry>| -> Vec<FindingCode> {
        let mut chain = vec![reg.clone()];
        chain.extend(new.into_iter().map(|e| (e, None)));
        replay(&chain).into_iter().skip(1).flatten().collect()
    };
    assert_eq!(codes(vec![entry(2, EntryKind::Analyze, "s", Some("a"))]), vec![]);
    assert_eq!(
        codes(vec![entry(2, EntryKind::Analyze, "s", Some("b"))]),
        vec![FindingCode::UnregisteredProtocol]
    );
    assert_eq!(
        codes(vec![
            entry(2, EntryKind::Deviation, "s", Some("b")),
            entry(3, EntryKind::Analyze, "s", Some("b"))
        ]),
        vec![]
    );
    assert_eq!(
        codes(vec![entry(2, EntryKind::Register, "s", Some("b"))]),
        vec![FindingCode::DuplicateRegistration]
    );
    assert_eq!(
        codes(vec![entry(2, EntryKind::Register, "s", Some("a"))]),
        vec![FindingCode::DuplicateRegistration]
    );
}

fn protocol(splits: bool) -> String {
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocols/hotpotqa.toml")).unwrap();
    if splits {
        return base;
    }
    let (at, end) = (base.find("[[splits]]").unwrap(), base.find("[stop-rule]").unwrap());
    format!("{}{}", &base[..at], &base[end..])
}

fn with_input(mut e: Entry, role: InputRole, path: &str, hash: &str) -> Entry {
    e.inputs.insert(InputKey::new(role, path), hash.repeat(64));
    e
}

/// The disagreement the rules were written once to end: an analysis without its assignment
/// after a `go` that covers one is refused by the rules (and so by `analyze`) and flagged by
/// the replay, from the chain alone.
#[test]
fn an_analysis_without_the_assignment_a_go_covers_is_flagged() {
    let text = protocol(true);
    let reg = entry(1, EntryKind::Register, "s", Some("p"));
    let go = with_input(
        with_input(
            entry(2, EntryKind::Go, "s", Some("p")),
            InputRole::Assignment,
            "c.csv",
            "a",
        ),
        InputRole::Questions,
        "q.json",
        "q",
    );
    let bare = with_input(
        entry(3, EntryKind::Analyze, "s", Some("p")),
        InputRole::Scores,
        "s.csv",
        "s",
    );
    let chain = [(reg, Some(text.as_str())), (go, None), (bare.clone(), None)];
    assert_eq!(replay(&chain)[2], vec![FindingCode::AnalysisRefused]);
    let mut s = LedgerState::default();
    for (e, t) in &chain[..2] {
        s.step(&Fact {
            entry: e,
            protocol_text: *t,
            commit: None,
        });
    }
    let v = s.clone().step(&Fact {
        entry: &bare,
        protocol_text: None,
        commit: None,
    });
    assert_eq!(v.violations, vec![Violation::GoWithoutAssignment { seq: 2 }]);
    assert_eq!(
        v.violations[0].message(&bare),
        "entry #3 analyzes study `s` without a component assignment, although its stop rule's go (entry #2) covers one, without a deviation"
    );
    let with = with_input(bare, InputRole::Assignment, "c.csv", "a");
    let v = s.step(&Fact {
        entry: &with,
        protocol_text: None,
        commit: None,
    });
    assert!(v.violations.is_empty(), "{:?}", v.violations);
    assert_eq!(v.analysis.unwrap().classification, Classification::Confirmatory);
}

#[test]
fn a_pilot_change_counts_only_when_the_pilot_gives_the_requirement_its_sd() {
    use crate::ledger::Inputs;
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocols/hotpotqa.toml")).unwrap();
    let parse = |t: &str| crate::protocol::parse(t, std::path::Path::new("p.toml")).unwrap();
    let with_pilot = parse(&base.replacen("sd = 0.45\n", "pilot = \"pilot.csv\"\n", 1));
    let inputs = |h: Option<&str>| -> Inputs {
        let mut i = Inputs::new();
        i.insert(InputKey::new(InputRole::Protocol, "p.toml"), "f".repeat(64));
        if let Some(h) = h {
            i.insert(InputKey::new(InputRole::Pilot, "pilot.csv"), h.repeat(64));
        }
        i
    };
    assert_eq!(
        super::pilot_change(&with_pilot, &inputs(Some("a")), &inputs(Some("b"))),
        Some(format!(
            "the pilot file's SHA-256: {} → {}",
            "a".repeat(12),
            "b".repeat(12)
        ))
    );
    assert_eq!(
        super::pilot_change(&with_pilot, &inputs(None), &inputs(Some("b"))),
        Some(format!("the pilot file's SHA-256: none → {}", "b".repeat(12)))
    );
    assert_eq!(
        super::pilot_change(&with_pilot, &inputs(Some("a")), &inputs(Some("a"))),
        None
    );
    // With target.sd the pilot is not what the count used.
    assert_eq!(
        super::pilot_change(&parse(&base), &inputs(Some("a")), &inputs(Some("b"))),
        None
    );
}

/// One action of a random ledger history: what a command (or a hand-made entry) appends.
#[derive(Debug, Clone)]
enum Act {
    Register {
        study: u8,
        text: u8,
    },
    Amend {
        study: u8,
        text: u8,
        link: bool,
        reason: bool,
    },
    Count {
        study: u8,
        text: u8,
        kind: u8,
        questions: u8,
        assignment: u8,
    },
    Assign {
        study: u8,
        text: u8,
        assignment: u8,
    },
    Analyze {
        study: u8,
        text: u8,
        scores: u8,
        assignment: Option<u8>,
    },
    Deviation {
        study: u8,
        text: u8,
        reason: bool,
    },
    Note {
        study: Option<u8>,
        access: u8,
    },
}

/// Three protocol texts: with splits, without, with splits and another requirement.
fn texts() -> [String; 3] {
    let with = protocol(true);
    let other = with.replacen("max-per-component = 4", "max-per-component = 3", 1);
    [with, protocol(false), other]
}

fn act() -> impl proptest::strategy::Strategy<Value = Act> {
    use proptest::prelude::*;
    let s = 0u8..2;
    let t = 0u8..3;
    prop_oneof![
        2 => (s.clone(), t.clone()).prop_map(|(study, text)| Act::Register { study, text }),
        1 => (s.clone(), t.clone(), any::<bool>(), prop::bool::weighted(0.9))
            .prop_map(|(study, text, link, reason)| Act::Amend { study, text, link, reason }),
        3 => (s.clone(), t.clone(), 0u8..3, 0u8..2, 0u8..2).prop_map(|(study, text, kind, questions, assignment)| Act::Count {
            study,
            text,
            kind,
            questions,
            assignment
        }),
        1 => (s.clone(), t.clone(), 0u8..3).prop_map(|(study, text, assignment)| Act::Assign { study, text, assignment }),
        4 => (s.clone(), t.clone(), 0u8..2, proptest::option::of(0u8..2)).prop_map(|(study, text, scores, assignment)| Act::Analyze {
            study,
            text,
            scores,
            assignment
        }),
        2 => (s.clone(), t.clone(), prop::bool::weighted(0.9)).prop_map(|(study, text, reason)| Act::Deviation { study, text, reason }),
        1 => (proptest::option::of(s), 0u8..4).prop_map(|(study, access)| Act::Note { study, access }),
    ]
}

/// The draft `a` is, on a ledger whose rules' state is `state`.
fn draft(a: &Act, state: &LedgerState, texts: &[String; 3]) -> Draft {
    let hash = |t: u8| crate::protocol::protocol_hash(texts[t as usize].as_bytes()).sha256;
    let name = |s: u8| format!("s{}", s);
    let with = |role: InputRole, path: &str, h: u8, d: &mut Draft| {
        d.inputs
            .insert(InputKey::new(role, path), format!("{:x}", h).repeat(64));
    };
    let mut d = Draft::default();
    match *a {
        Act::Register { study, text } | Act::Amend { study, text, .. } => {
            d.kind = Some(if matches!(a, Act::Register { .. }) {
                EntryKind::Register
            } else {
                EntryKind::Amend
            });
            d.study_id = name(study);
            d.protocol_sha256 = Some(hash(text));
            d.protocol_text = Some(texts[text as usize].clone());
            if let Act::Amend { link, reason, .. } = *a {
                let in_force = state
                    .study(&d.study_id)
                    .and_then(|s| s.in_force())
                    .map(|v| v.hash.clone());
                d.amends = if link { in_force } else { Some(hash((text + 1) % 3)) };
                d.reason = reason.then(|| "a reason".to_string());
            }
        }
        Act::Count {
            study,
            text,
            kind,
            questions,
            assignment,
        } => {
            d.kind = Some([EntryKind::Count, EntryKind::Stop, EntryKind::Go][kind as usize]);
            d.study_id = name(study);
            d.protocol_sha256 = Some(hash(text));
            with(InputRole::Questions, "q.json", questions + 1, &mut d);
            with(InputRole::Assignment, "c.csv", assignment + 10, &mut d);
        }
        Act::Assign {
            study,
            text,
            assignment,
        } => {
            d.kind = Some(EntryKind::Assign);
            d.study_id = name(study);
            d.protocol_sha256 = Some(hash(text));
            with(InputRole::Assignment, "c.csv", assignment + 10, &mut d);
        }
        Act::Analyze {
            study,
            text,
            scores,
            assignment,
        } => {
            d.kind = Some(EntryKind::Analyze);
            d.study_id = name(study);
            d.protocol_sha256 = Some(hash(text));
            d.data_access = Some(DataAccess::ResultsSeen);
            with(InputRole::Scores, "s.csv", scores + 3, &mut d);
            if let Some(a) = assignment {
                with(InputRole::Assignment, "c.csv", a + 10, &mut d);
            }
        }
        Act::Deviation { study, text, reason } => {
            d.kind = Some(EntryKind::Deviation);
            d.study_id = name(study);
            d.protocol_sha256 = Some(hash(text));
            d.reason = reason.then(|| "a reason".to_string());
            d.summary = serde_json::json!({"command": "analyze", "overridden": [], "fields": []});
        }
        Act::Note { study, access } => {
            d.kind = Some(EntryKind::Note);
            d.study_id = study.map(name).unwrap_or_default();
            d.reason = Some("a note".into());
            d.data_access = Some(
                [
                    DataAccess::NothingRun,
                    DataAccess::PilotOnly,
                    DataAccess::ResultsUnseen,
                    DataAccess::ResultsSeen,
                ][access as usize],
            );
        }
    }
    d
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// The state an append judges a new entry on is the index's, kept between appends as JSON:
    /// stepped entry by entry through that round trip, it says of every entry exactly what the
    /// replay of the whole chain (`verify`) says, and what a command's preview of the entry said
    /// before it was written.
    #[test]
    fn appends_and_the_replay_agree_on_every_entry(acts in proptest::collection::vec(act(), 1..24)) {
        let texts = texts();
        let mut kept = LedgerState::default();
        let mut chain: Vec<(Entry, Option<String>)> = Vec::new();
        let mut stepped = Vec::new();
        for (i, a) in acts.iter().enumerate() {
            let d = draft(a, &kept, &texts);
            let seq = i as u64 + 1;
            let preview = kept.preview(std::slice::from_ref(&d), seq, "2026-12-01T00:00:00Z");
            let e = candidate(&d, seq, "2026-12-01T00:00:00Z", kept.access.in_force(&d.study_id));
            let v = kept.step(&Fact { entry: &e, protocol_text: d.protocol_text.as_deref(), commit: None });
            proptest::prop_assert_eq!(&preview, &vec![v.clone()]);
            // What the index writes and reads back between two appends.
            kept = serde_json::from_str(&serde_json::to_string(&kept).unwrap()).unwrap();
            stepped.push(v);
            chain.push((e, d.protocol_text.clone()));
        }
        let mut whole = LedgerState::default();
        let replayed: Vec<Verdict> = chain
            .iter()
            .map(|(e, t)| whole.step(&Fact { entry: e, protocol_text: t.as_deref(), commit: None }))
            .collect();
        proptest::prop_assert_eq!(stepped, replayed);
        proptest::prop_assert_eq!(kept, whole);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// On a real ledger: each random entry is appended (onto a ledger that may already fail,
    /// as `note --despite-findings` does), and the append says whether it would have refused
    /// it; `verify` then flags exactly the entries the appends refused.
    #[test]
    fn an_append_is_refused_exactly_when_verify_flags_the_entry(acts in proptest::collection::vec(act(), 1..14)) {
        use chrono::TimeZone;
        let texts = texts();
        let dir = tempfile::tempdir().unwrap();
        let (mut l, _) = crate::ledger::Ledger::init(dir.path()).unwrap();
        l.set_accept_findings(true);
        let now = chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap();
        let mut refused = std::collections::BTreeSet::new();
        for a in &acts {
            let d = {
                let snap = l.snapshot(l.tip().unwrap(), "").unwrap();
                draft(a, snap.rules(), &texts)
            };
            let e = l.append(&d, now).unwrap();
            if l.take_notes().iter().any(|n| n.starts_with("the entries appended fail verification")) {
                refused.insert(e.seq);
            }
        }
        let report = crate::ledger::verify_ledger(&l, None).unwrap();
        let flagged: std::collections::BTreeSet<u64> = report.findings.iter().filter_map(|f| f.seq).collect();
        proptest::prop_assert_eq!(refused, flagged, "{:?}", report.findings);
    }
}

/// The witness rule, judged at the chain's end: a required token missing, late, or in time;
/// an amendment bound by the version before it even when it drops the requirement; signatures
/// judged only when examined.
#[test]
fn the_witness_rule_is_the_final_step() {
    let mut s = LedgerState::default();
    let tsa = "[witness]\ntsa = \"http://127.0.0.1/tsr\"\nsigned = true\n";
    let reg = entry(1, EntryKind::Register, "s", Some("a"));
    let mut amend = entry(2, EntryKind::Amend, "s", Some("b"));
    amend.amends = Some("a".into());
    for (e, t) in [(&reg, Some(tsa)), (&amend, Some("schema-version = 1\n"))] {
        s.step(&Fact {
            entry: e,
            protocol_text: t,
            commit: None,
        });
    }
    let at = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().to_utc();
    let token = |covers: u64, when: &str| Token {
        timestamp_seq: 3,
        covers_seq: covers,
        at: at(when),
        tolerance_secs: 122,
        tsa: "T".into(),
    };
    let rules = |e: &WitnessEvidence| -> Vec<(u64, FindingCode)> {
        s.finish(e).into_iter().map(|(seq, v)| (seq, v.code())).collect()
    };
    // Nothing covers either entry; signatures not examined.
    assert_eq!(
        rules(&WitnessEvidence::default()),
        vec![(1, FindingCode::WitnessMissing), (2, FindingCode::WitnessMissing)]
    );
    // A token over entry 2 covers both (122 s of tolerance: in time).
    let mut e = WitnessEvidence {
        tokens: vec![token(2, "2026-12-01T00:02:02Z")],
        signatures: None,
    };
    assert_eq!(rules(&e), vec![]);
    // 123 s after the claim: late, with the span in words.
    e.tokens = vec![token(2, "2026-12-01T00:02:03Z")];
    let late = s.finish(&e);
    assert_eq!(late.len(), 2);
    assert_eq!(late[0].1.code(), FindingCode::WitnessLate);
    assert_eq!(
        late[0].1.message(&reg),
        "entry #1 claims 2026-12-01T00:00:00Z, but was first witnessed at 2026-12-01T00:02:03Z by T (timestamp #3), 2 min later; its protocol requires a time-stamp at registration ([witness] tsa), so the chain was stamped again later (back-dated?)"
    );
    // Signatures examined: the registration signed, the amendment not, by the version before it.
    e.tokens = vec![token(2, "2026-12-01T00:00:00Z")];
    e.signatures = Some([(1, Signed::Signed), (2, Signed::Unsigned)].into_iter().collect());
    let found = s.finish(&e);
    assert_eq!(found.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(), vec![2]);
    assert_eq!(
        found[0].1.message(&amend),
        "entry #2 amends study `s` under a protocol that requires a signed commit ([witness] signed = true), but its commit is not signed"
    );
}
