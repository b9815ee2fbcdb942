//! Hand-computed and property tests of the whole counting pipeline.

use super::read::{Corpus, Passage, Question};
use super::*;
use crate::protocol::{self, Protocol};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;

fn protocol(unit: &str, rules: &str, splits: &str) -> Protocol {
    let text = format!(
        "schema-version = 1\n[study]\nid = \"t\"\ntitle = \"t\"\nregistered-by = \"t\"\n[target]\nmetric = \"accuracy\"\nmde = 0.1\nsd = 0.5\n[components]\nunit = \"{}\"\nmax-per-component = 2\n{}\n{}",
        unit, rules, splits
    );
    protocol::parse(&text, Path::new("t.toml")).unwrap()
}

const RULES: &str = r#"
[[link-rules]]
name = "identical"
kind = "identical-passage"
[[link-rules]]
name = "near"
kind = "near-duplicate-passage"
shingle-size = 3
jaccard = 0.7
[[link-rules]]
name = "decoys"
kind = "decoy"
"#;

fn corpus(passages: &[(&str, &str)], questions: &[(&str, &[usize], &[usize])]) -> Corpus {
    Corpus {
        passages: passages
            .iter()
            .map(|(id, t)| Passage {
                id: id.to_string(),
                text: t.to_string(),
                fields: Default::default(),
            })
            .collect(),
        questions: questions
            .iter()
            .map(|(id, p, d)| Question {
                id: id.to_string(),
                passages: p.to_vec(),
                decoys: d.to_vec(),
                fields: Default::default(),
                loc: "q:1".into(),
            })
            .collect(),
        conflicting_titles: 0,
        notes: vec![],
    }
}

fn six() -> Corpus {
    corpus(
        &[
            ("p1", "alpha beta gamma"),
            ("p2", "alpha beta gamma"),
            ("p3", "abcdefghij"),
            ("p4", "abcdefghiz"), // 3-shingles: 7 of 9 shared with p3, J = 0.778
            ("p5", "zzzzyyyyxxxx"),
            ("p6", "qqqqwwwweeee"),
            ("p7", "mmmmnnnnoooo"),
            ("p8", "kkkkjjjjhhhh"),
        ],
        &[
            ("q1", &[0], &[4]),
            ("q2", &[1], &[]),
            ("q3", &[2], &[]),
            ("q4", &[3], &[5]),
            ("q5", &[4], &[]),
            ("q6", &[6], &[7]),
        ],
    )
}

fn triple(s: &count::Snapshot) -> (usize, usize, usize, usize) {
    (s.components, s.with_candidates, s.largest_units, s.largest_questions)
}

#[test]
fn six_question_ablation_by_hand() {
    let r = count(&protocol("question", RULES, ""), &six(), &NoProgress).unwrap();
    // 14 nodes (6 questions, 8 passages); p6 and p8 are passage-only components at first.
    assert_eq!(triple(&r.before_rules), (8, 6, 1, 1));
    let rows: Vec<_> = r.ablation.iter().map(|a| (a.links, triple(&a.counts))).collect();
    assert_eq!(
        rows,
        vec![
            (1, (7, 5, 2, 2)), // p1 = p2 joins q1, q2
            (2, (6, 4, 2, 2)), // pairs p1 ≈ p2 (J = 1) and p3 ≈ p4; the latter joins q3, q4
            (3, (3, 3, 3, 3)), // q1–p5 brings q5; q4–p6, q6–p8 absorb passage-only nodes
        ]
    );
    assert_eq!((r.components, r.with_candidates), (3, 3));
    let comp: Vec<(&str, &str)> = r
        .rows
        .iter()
        .map(|x| (x.question.as_str(), x.component.as_str()))
        .collect();
    assert_eq!(
        comp,
        vec![
            ("q1", "C1"),
            ("q2", "C1"),
            ("q3", "C2"),
            ("q4", "C2"),
            ("q5", "C1"),
            ("q6", "C3")
        ]
    );
    let largest = r.largest.unwrap();
    assert_eq!((largest.id.as_str(), largest.units, largest.size), ("C1", 3, 3));
    let bins: Vec<_> = r
        .histogram
        .iter()
        .map(|b| (b.min, b.max, b.components, b.questions))
        .collect();
    assert_eq!(bins, vec![(1, 1, 1, 1), (2, 2, 1, 2), (3, 4, 1, 3)]);
}

#[test]
fn chain_of_near_duplicates_is_one_component() {
    // n = 1: J(A,B) = 5/6, J(B,C) = 6/7, J(A,C) = 5/7 < 0.8.
    let rules = "[[link-rules]]\nname = \"near\"\nkind = \"near-duplicate-passage\"\nshingle-size = 1\njaccard = 0.8\n";
    let c = corpus(
        &[("a", "abcde"), ("b", "abcdef"), ("c", "abcdefg")],
        &[("q1", &[0], &[]), ("q2", &[1], &[]), ("q3", &[2], &[])],
    );
    let r = count(&protocol("question", rules, ""), &c, &NoProgress).unwrap();
    assert_eq!(r.ablation[0].links, 2);
    assert_eq!(r.with_candidates, 1);
}

#[test]
fn nfc_nfd_and_empty_and_short_texts() {
    let nfc = "대한민국 헌법 제1조";
    let nfd: String = unicode_normalization::UnicodeNormalization::nfd(nfc).collect();
    let c = corpus(
        &[
            ("a", nfc),
            ("b", &nfd),
            ("c", "café"),
            ("d", "cafe\u{301}"),
            ("e", ""),
            ("f", ""),
            ("g", "ab"),
            ("h", "ab"),
        ],
        &[
            ("q1", &[0], &[]),
            ("q2", &[1], &[]),
            ("q3", &[2], &[]),
            ("q4", &[3], &[]),
            ("q5", &[4], &[]),
            ("q6", &[5], &[]),
            ("q7", &[6], &[]),
            ("q8", &[7], &[]),
        ],
    );
    let ident = "[[link-rules]]\nname = \"i\"\nkind = \"identical-passage\"\nnormalization = \"{}\"\n";
    let r = count(&protocol("question", &ident.replace("{}", "nfc"), ""), &c, &NoProgress).unwrap();
    // a=b, c=d, g=h linked; the empty texts e and f link to nothing.
    assert_eq!(r.with_candidates, 5);
    let r = count(&protocol("question", &ident.replace("{}", "none"), ""), &c, &NoProgress).unwrap();
    assert_eq!(r.with_candidates, 7);
    // Near-duplicates with n = 5: "ab" (shorter than n) is its own only shingle, so g ≈ h;
    // the two empty sets are not duplicates.
    let near = "[[link-rules]]\nname = \"n\"\nkind = \"near-duplicate-passage\"\nnormalization = \"nfc\"\n";
    let r = count(&protocol("question", near, ""), &c, &NoProgress).unwrap();
    assert_eq!(r.ablation[0].links, 3);
    assert_eq!(r.with_candidates, 5);
}

#[test]
fn field_unit_and_shared_field() {
    let mut c = six();
    for (i, q) in c.questions.iter_mut().enumerate() {
        q.fields.insert("doc".into(), format!("d{}", i / 2));
        q.fields.insert(
            "topic".into(),
            if i == 0 || i == 5 {
                "x".into()
            } else {
                format!("t{}", i)
            },
        );
    }
    let r = count(&protocol("doc", "", ""), &c, &NoProgress).unwrap();
    // Units d0 (q1,q2), d1 (q3,q4), d2 (q5,q6): 3 units; 8 passages without `doc` are nodes too.
    assert_eq!((r.units, r.with_candidates, r.components), (3, 3, 5));
    let shared = "[[link-rules]]\nname = \"s\"\nkind = \"shared-field\"\nfield = \"topic\"\n";
    let r = count(&protocol("doc", shared, ""), &c, &NoProgress).unwrap();
    assert_eq!(r.with_candidates, 2);
}

#[test]
fn stop_rule_and_assignment() {
    let splits = "[[splits]]\nname = \"final\"\nrequired-components = 2\n[[splits]]\nname = \"tuning\"\nrequired-components = 1\n";
    let p = protocol("question", RULES, splits);
    let r = count(&p, &six(), &NoProgress).unwrap();
    let d = stop::decide(&p, &r).unwrap();
    assert_eq!((d.decision.as_str(), d.counted, d.required), ("go", 3, Some(3)));
    let a = assign::assign(&p, &r, &d.splits).unwrap();
    assert_eq!(a.splits.iter().map(|s| s.components).collect::<Vec<_>>(), vec![2, 1]);
    // No component straddles two splits; C1 has 3 questions, m = 2: q1, q2 counted, q5 not.
    for x in &a.rows {
        for y in &a.rows {
            if x.component == y.component {
                assert_eq!(x.split, y.split);
            }
        }
    }
    let counted: Vec<_> = a.rows.iter().map(|x| x.counted).collect();
    assert_eq!(
        counted,
        vec![Some(true), Some(true), Some(true), Some(true), Some(false), Some(true)]
    );
    assert_eq!(a, assign::assign(&p, &r, &d.splits).unwrap());
    let p = protocol("question", "", splits.replace("= 2", "= 9").as_str());
    let r = count(&p, &six(), &NoProgress).unwrap();
    let d = stop::decide(&p, &r).unwrap();
    assert_eq!((d.decision.as_str(), d.counted, d.required), ("stop", 6, Some(10)));
}

/// Naive reference: brute-force edges, then components by repeated relabelling.
fn naive_partition(c: &Corpus, n: usize, t: f64) -> BTreeSet<BTreeSet<String>> {
    let np = c.passages.len();
    let nodes = c.questions.len() + np;
    let mut edges = vec![];
    for (qi, q) in c.questions.iter().enumerate() {
        for &p in q.passages.iter().chain(&q.decoys) {
            edges.push((qi, c.questions.len() + p));
        }
    }
    let texts: Vec<String> = c
        .passages
        .iter()
        .map(|p| shingle::normalize(&p.text, protocol::Normalization::Nfc))
        .collect();
    let sets = shingle::token_sets(&texts, n);
    for (a, b) in join::brute_force(&sets, t) {
        edges.push((c.questions.len() + a as usize, c.questions.len() + b as usize));
    }
    for i in 0..np {
        for j in i + 1..np {
            if !texts[i].is_empty() && texts[i] == texts[j] {
                edges.push((c.questions.len() + i, c.questions.len() + j));
            }
        }
    }
    let mut label: Vec<usize> = (0..nodes).collect();
    loop {
        let mut changed = false;
        for &(a, b) in &edges {
            let m = label[a].min(label[b]);
            if label[a] != m || label[b] != m {
                label[a] = m;
                label[b] = m;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut groups: std::collections::BTreeMap<usize, BTreeSet<String>> = Default::default();
    for (qi, q) in c.questions.iter().enumerate() {
        groups.entry(label[qi]).or_default().insert(q.id.clone());
    }
    groups.into_values().collect()
}

proptest! {
    #[test]
    fn components_equal_naive_union_find(
        bases in prop::collection::vec("[abc]{0,10}", 1..5),
        edits in prop::collection::vec((0usize..5, 0usize..10, "[abcd]"), 0..10),
        qs in prop::collection::vec((prop::collection::vec(0usize..20, 0..3), prop::collection::vec(0usize..20, 0..2)), 1..8),
    ) {
        let mut texts = bases.clone();
        for (b, pos, ch) in edits {
            let mut v: Vec<char> = bases[b % bases.len()].chars().collect();
            let p = pos.min(v.len());
            if p < v.len() { v[p] = ch.chars().next().unwrap_or('a'); } else { v.push('d'); }
            texts.push(v.into_iter().collect());
        }
        let passages: Vec<(String, &str)> = texts.iter().enumerate().map(|(i, t)| (format!("p{}", i), t.as_str())).collect();
        let pref: Vec<(&str, &str)> = passages.iter().map(|(a, b)| (a.as_str(), *b)).collect();
        let np = texts.len();
        let qv: Vec<(String, Vec<usize>, Vec<usize>)> = qs.iter().enumerate()
            .map(|(i, (p, d))| (format!("q{}", i), p.iter().map(|x| x % np).collect(), d.iter().map(|x| x % np).collect()))
            .collect();
        let qref: Vec<(&str, &[usize], &[usize])> = qv.iter().map(|(a, b, c)| (a.as_str(), b.as_slice(), c.as_slice())).collect();
        let c = corpus(&pref, &qref);
        let r = count(&protocol("question", RULES, ""), &c, &NoProgress).unwrap();
        let mut got: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        for row in &r.rows {
            got.entry(row.component.clone()).or_default().insert(row.question.clone());
        }
        let got: BTreeSet<BTreeSet<String>> = got.into_values().collect();
        prop_assert_eq!(got, naive_partition(&c, 3, 0.7));
    }
}
