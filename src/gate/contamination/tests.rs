//! Hand-computed and property tests of the contamination check against the brute-force overlap.

use super::*;
use crate::components::read::Question;
use crate::components::store;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

fn key(b: u8) -> Key {
    Key::from_bytes(&[b; 32], Path::new("k")).unwrap()
}

fn rule(roles: &[PassageRole], n: u32, measure: OverlapMeasure, t: f64) -> ContaminationRule {
    ContaminationRule {
        name: "r".into(),
        roles: roles.to_vec(),
        fingerprint: "f".into(),
        fingerprint_sha256: "0".repeat(64),
        key_sha256: "0".repeat(64),
        shingle_size: n,
        normalization: Normalization::Nfc,
        measure,
        threshold: t,
        stop_share: None,
        stop_count: None,
    }
}

/// A question: id, supporting, distractors, decoys (indices into the passages).
type Q<'a> = (&'a str, Vec<usize>, Vec<usize>, Vec<usize>);

fn corpus(passages: &[(String, String)], questions: &[Q]) -> Corpus {
    let mut c = Corpus {
        texts: store::TextStore::in_memory(),
        ..Corpus::default()
    };
    for (id, t) in passages {
        c.push_passage(id.clone(), t, Default::default()).unwrap();
    }
    c.texts.finish().unwrap();
    Corpus {
        questions: questions
            .iter()
            .map(|(id, s, d, x)| Question {
                id: id.to_string(),
                passages: s.clone(),
                decoys: d.iter().chain(x).copied().collect(),
                distractors: d.len(),
                fields: Default::default(),
                loc: "q:1".into(),
            })
            .collect(),
        ..c
    }
}

/// The brute-force check: every candidate passage in the rule's roles against every sealed
/// passage, by the keyed hashes of their shingle sets. (question id, passage id, sealed
/// fingerprint ids met).
fn brute(
    c: &Corpus,
    sealed: &[(String, String)],
    k: &Key,
    r: &ContaminationRule,
) -> BTreeSet<(String, String, Vec<String>)> {
    let set = |t: &str| -> HashSet<u64> {
        let norm = shingle::normalized(t, r.normalization);
        shingle::ngrams(&norm, r.shingle_size as usize)
            .into_iter()
            .map(|s| k.shingle(s))
            .collect()
    };
    let sealed_sets: Vec<(String, HashSet<u64>)> = sealed
        .iter()
        .map(|(id, t)| (fingerprint::id_hex(k.passage_id(id)), set(t)))
        .collect();
    let mut out = BTreeSet::new();
    for q in &c.questions {
        for &role in &r.roles {
            for &p in q.role(role) {
                let a = set(&c.texts.get(p).unwrap());
                let mut met: Vec<String> = sealed_sets
                    .iter()
                    .filter(|(_, s)| meets(r.measure, a.intersection(s).count(), a.len(), s.len(), r.threshold))
                    .map(|(id, _)| id.clone())
                    .collect();
                met.sort();
                if !met.is_empty() {
                    out.insert((q.id.clone(), c.passages[p].id.clone(), met));
                }
            }
        }
    }
    out
}

fn found(out: &Contamination) -> BTreeSet<(String, String, Vec<String>)> {
    out.flags
        .iter()
        .flat_map(|f| {
            f.passages.iter().map(|p| {
                let ids = p.matches.iter().map(|m| m.fingerprint.clone()).collect();
                (f.question.clone(), p.passage.clone(), ids)
            })
        })
        .collect()
}

fn run(c: &Corpus, sealed: &[(String, String)], k: &Key, rules: &[ContaminationRule]) -> Contamination {
    let pairs: Vec<(&str, &str)> = sealed.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let n = rules[0].shingle_size as usize;
    let fp = fingerprint::make(&pairs, k, n, Normalization::Nfc).unwrap();
    let inputs: Vec<RuleInput> = rules
        .iter()
        .map(|rule| RuleInput {
            rule,
            key: k,
            fingerprint: &fp,
            fingerprint_sha256: "sha",
        })
        .collect();
    check(c, &inputs).unwrap()
}

fn s(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn hand_computed_flags_by_role_and_the_funnel() {
    // 3-shingles. "abcdefgh" has 6: abc bcd cde def efg fgh. Sealed s1 = "abcdefxy" holds abc
    // bcd cde def (4 of 6: containment 0.667, Jaccard 4/8 = 0.5); sealed s2 = "zzzz".
    let passages = s(&[
        ("p1", "abcdefgh"), // supporting of q1
        ("p2", "mnopqrst"), // distractor of q1, and q2's supporting
        ("p3", "zzzzz"),    // decoy of q2: 3 shingles, all "zzz" → one, in s2
        ("p4", "klmnopqr"),
    ]);
    let c = corpus(
        &passages,
        &[
            ("q1", vec![0], vec![1], vec![]),
            ("q2", vec![1], vec![3], vec![2]),
            ("q3", vec![3], vec![], vec![]),
        ],
    );
    let sealed = s(&[("s1", "abcdefxy"), ("s2", "zzzz")]);
    let k = key(7);
    use OverlapMeasure::*;
    use PassageRole::*;
    let all = [Supporting, Distractors, Decoys];
    // Containment 0.6: p1 (0.667) and p3 (1.0) meet; q1 by its supporting, q2 by its decoy.
    let out = run(&c, &sealed, &k, &[rule(&all, 3, Containment, 0.6)]);
    assert_eq!(out.candidates, 3);
    assert_eq!(out.passed, 1);
    let row = &out.rules[0];
    assert_eq!((row.questions_flagged, row.removed, row.remaining), (2, 2, 1));
    assert_eq!(
        row.passages_checked,
        RoleCounts {
            supporting: 3,
            distractors: 2,
            decoys: 1
        }
    );
    assert_eq!(
        row.passages_flagged,
        RoleCounts {
            supporting: 1,
            distractors: 0,
            decoys: 1
        }
    );
    assert_eq!(out.flagged_by, vec![Some(0), Some(0), None]);
    let m = &out.flags[0].passages[0].matches[0];
    assert_eq!(
        (m.overlap, m.fingerprint.clone()),
        (4, fingerprint::id_hex(k.passage_id("s1")))
    );
    assert!((m.value - 4.0 / 6.0).abs() < 1e-12);
    // Containment 0.7: only p3. Jaccard 0.5: p1 (exactly 0.5) and p3 (1/1).
    assert_eq!(run(&c, &sealed, &k, &[rule(&all, 3, Containment, 0.7)]).passed, 2);
    let j = run(&c, &sealed, &k, &[rule(&all, 3, Jaccard, 0.5)]);
    assert_eq!(j.passed, 1);
    assert!((j.flags[0].passages[0].matches[0].value - 0.5).abs() < 1e-12);
    // Distractors only: nothing (p2 and p4 are clean); decoys only: q2.
    assert_eq!(
        run(&c, &sealed, &k, &[rule(&[Distractors], 3, Containment, 0.6)]).passed,
        3
    );
    let d = run(&c, &sealed, &k, &[rule(&[Decoys], 3, Containment, 0.6)]);
    assert_eq!(d.flags.len(), 1);
    assert_eq!(
        (d.flags[0].question.as_str(), d.flags[0].passages[0].role),
        ("q2", Decoys)
    );
    // Two rules: the second removes only what the first left; stop-count 2 stops at the first.
    let mut first = rule(&[Supporting], 3, Containment, 0.6);
    first.stop_count = Some(2);
    let mut second = rule(&all, 3, Containment, 0.6);
    second.name = "second".into();
    second.stop_share = Some(0.5);
    let two = run(&c, &sealed, &k, &[first, second]);
    assert_eq!((two.rules[0].removed, two.rules[0].stop), (1, false));
    assert_eq!(
        (
            two.rules[1].questions_flagged,
            two.rules[1].removed,
            two.rules[1].remaining
        ),
        (2, 1, 1)
    );
    assert!(two.rules[1].stop);
    assert_eq!(two.stopped_by.as_deref(), Some("second"));
}

#[test]
fn the_flags_file_holds_fingerprint_ids_and_never_sealed_text() {
    let passages = s(&[("p1", "the sealed validation passage text")]);
    let c = corpus(&passages, &[("q1", vec![0], vec![], vec![])]);
    let sealed = s(&[("secret-id", "the sealed validation passage text")]);
    let out = run(
        &c,
        &sealed,
        &key(9),
        &[rule(&[PassageRole::Supporting], 5, OverlapMeasure::Containment, 0.9)],
    );
    let text = String::from_utf8(flags_jsonl(&out.flags)).unwrap();
    assert!(
        text.contains(&fingerprint::id_hex(key(9).passage_id("secret-id"))),
        "{}",
        text
    );
    assert!(!text.contains("secret-id"));
    let summary = serde_json::to_string(&out).unwrap();
    assert!(
        !summary.contains("secret-id") && !summary.contains("validation"),
        "{}",
        summary
    );
}

fn texts(max: usize) -> impl Strategy<Value = Vec<String>> {
    // A small alphabet so that overlaps are common; empty and short texts included.
    prop::collection::vec("[abc ]{0,14}", 1..max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn equals_brute_force_overlap_for_each_role(
        cand in texts(10),
        seal in texts(8),
        qs in prop::collection::vec(
            (prop::collection::vec(0usize..10, 0..3), prop::collection::vec(0usize..10, 0..3), prop::collection::vec(0usize..10, 0..3)),
            1..6,
        ),
        n in 1u32..5,
        jaccard in any::<bool>(),
        t in prop::sample::select(vec![0.1, 0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 0.75, 1.0]),
        roles in prop::sample::subsequence(vec![PassageRole::Supporting, PassageRole::Distractors, PassageRole::Decoys], 1..=3),
    ) {
        let passages: Vec<(String, String)> = cand.iter().enumerate().map(|(i, t)| (format!("p{}", i), t.clone())).collect();
        let sealed: Vec<(String, String)> = seal.iter().enumerate().map(|(i, t)| (format!("s{}", i), t.clone())).collect();
        let np = passages.len();
        let fix = |v: &Vec<usize>| v.iter().map(|&i| i % np).collect::<Vec<_>>();
        let names: Vec<String> = (0..qs.len()).map(|i| format!("q{}", i)).collect();
        let questions: Vec<Q> = qs.iter().zip(&names).map(|((a, b, c), id)| (id.as_str(), fix(a), fix(b), fix(c))).collect();
        let c = corpus(&passages, &questions);
        let measure = if jaccard { OverlapMeasure::Jaccard } else { OverlapMeasure::Containment };
        let r = rule(&roles, n, measure, t);
        let k = key(3);
        let out = run(&c, &sealed, &k, std::slice::from_ref(&r));
        prop_assert_eq!(found(&out), brute(&c, &sealed, &k, &r));
        let flagged: BTreeMap<_, _> = out.flags.iter().map(|f| (f.question.clone(), ())).collect();
        prop_assert_eq!(out.passed, c.questions.len() - flagged.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// The early-stopping, galloping intersection against the plain merge, with `b` up to 40
    /// times longer than `a` (both paths).
    #[test]
    fn overlap_at_least_equals_the_merge(
        a in prop::collection::btree_set(0u32..400, 0..12),
        b in prop::collection::btree_set(0u32..400, 0..300),
        least in 0usize..14,
    ) {
        let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
        let n = join::intersection(&a, &b);
        prop_assert_eq!(overlap_at_least(&a, &b, least), (n >= least).then_some(n));
    }
}
