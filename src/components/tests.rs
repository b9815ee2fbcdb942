//! Hand-computed and property tests of the whole counting pipeline.

use super::read::{Corpus, Question};
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
    corpus_in(store::TextStore::in_memory(), passages, questions)
}

/// The corpus with its texts in `texts` (e.g. a store that spills at once).
fn corpus_in(texts: store::TextStore, passages: &[(&str, &str)], questions: &[(&str, &[usize], &[usize])]) -> Corpus {
    let mut c = Corpus {
        texts,
        ..Corpus::default()
    };
    for (id, t) in passages {
        c.push_passage(id.to_string(), t, Default::default()).unwrap();
    }
    c.texts.finish().unwrap();
    Corpus {
        questions: questions
            .iter()
            .map(|(id, p, d)| Question {
                id: id.to_string(),
                passages: p.to_vec(),
                decoys: d.to_vec(),
                distractors: 0,
                fields: Default::default(),
                loc: "q:1".into(),
            })
            .collect(),
        ..c
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
    let texts: Vec<String> = (0..c.passages.len())
        .map(|i| shingle::normalize(&c.texts.get(i).unwrap(), protocol::Normalization::Nfc))
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
        let p = protocol("question", RULES, "");
        let r = count(&p, &c, &NoProgress).unwrap();
        let mut got: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        for row in &r.rows {
            got.entry(row.component.clone()).or_default().insert(row.question.clone());
        }
        let got: BTreeSet<BTreeSet<String>> = got.into_values().collect();
        prop_assert_eq!(got, naive_partition(&c, 3, 0.7));
        // The texts spilled (a 0-byte budget) and a 1-byte memory limit: the same count, the
        // same pairs, the same identical-passage edges.
        let dir = tempfile::tempdir().unwrap();
        let s = corpus_in(store::TextStore::with_budget(0, dir.path()), &pref, &qref);
        prop_assert!(s.texts.is_spilled() || s.texts.bytes() == 0);
        let o = |keep| CountOptions {
            keep_pairs: keep,
            memory: Some(ooc::MemoryLimit { bytes: 1, spill_dir: dir.path() }),
            ..CountOptions::default()
        };
        let rs = count_with(&p, &s, &NoProgress, o(true)).unwrap();
        let rm = count_with(&p, &c, &NoProgress, CountOptions { keep_pairs: true, ..CountOptions::default() }).unwrap();
        prop_assert_eq!(&rs.rows, &r.rows);
        prop_assert_eq!(&rs.near_pairs, &rm.near_pairs);
        let counts = |x: &CountResult| x.ablation.iter().map(|a| (a.links, a.counts.clone())).collect::<Vec<_>>();
        prop_assert_eq!(counts(&rs), counts(&r));
        let g = rules::graph(&c, "question").unwrap();
        let gs = rules::graph(&s, "question").unwrap();
        let (mem_edges, _) = rules::edges(&c, &g, &p.link_rules[0], &mut rules::Texts::default(), &NoProgress).unwrap();
        let (spilled_edges, _) = rules::edges(&s, &gs, &p.link_rules[0], &mut rules::Texts::default(), &NoProgress).unwrap();
        prop_assert_eq!(spilled_edges, mem_edges);
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// The sweep's points against separate full counts with the near-duplicate rule set to each
/// point's shingle size and threshold (the oracle of the sweep).
fn assert_sweep_equals_separate_counts(p: &Protocol, c: &Corpus, thresholds: &[f64], sizes: &[usize]) {
    let spec = sensitivity::SensitivitySpec {
        thresholds: thresholds.to_vec(),
        shingle_sizes: sizes.to_vec(),
    };
    let curve = sensitivity::sweep(p, c, &spec, &NoProgress).unwrap();
    assert_eq!(curve.points.len(), thresholds.len() * sizes.len());
    let near = p
        .link_rules
        .iter()
        .position(|r| r.kind == protocol::LinkKind::NearDuplicatePassage)
        .unwrap();
    for point in &curve.points {
        let mut q = p.clone();
        q.link_rules[near].jaccard = Some(point.jaccard);
        q.link_rules[near].shingle_size = Some(point.shingle_size as u32);
        let full = count(&q, c, &NoProgress).unwrap();
        let last = &full.ablation.last().unwrap().counts;
        assert_eq!(&point.counts, last, "n = {}, J ≥ {}", point.shingle_size, point.jaccard);
        assert_eq!(
            point.pairs, full.ablation[near].links,
            "n = {}, J ≥ {}",
            point.shingle_size, point.jaccard
        );
    }
}

#[test]
fn sensitivity_of_a_chain_by_hand() {
    // n = 1: J(a,b) = 5/6, J(b,c) = 6/7, J(a,c) = 5/7; thresholds in ascending order.
    let rules = "[[link-rules]]\nname = \"near\"\nkind = \"near-duplicate-passage\"\nshingle-size = 1\njaccard = 0.8\n";
    let c = corpus(
        &[("a", "abcde"), ("b", "abcdef"), ("c", "abcdefg")],
        &[("q1", &[0], &[]), ("q2", &[1], &[]), ("q3", &[2], &[])],
    );
    let p = protocol("question", rules, "");
    let grid = [0.7, 0.75, 0.8, 6.0 / 7.0, 0.86, 1.0];
    let spec = sensitivity::SensitivitySpec {
        thresholds: grid.to_vec(),
        shingle_sizes: vec![1],
    };
    let s = sensitivity::sweep(&p, &c, &spec, &NoProgress).unwrap();
    let got: Vec<(f64, usize, usize, bool)> = s
        .points
        .iter()
        .map(|x| (x.jaccard, x.pairs, x.counts.with_candidates, x.registered))
        .collect();
    assert_eq!(
        got,
        vec![
            (0.7, 3, 1, false),
            (0.75, 2, 1, false),
            (0.8, 2, 1, true),
            (6.0 / 7.0, 1, 2, false), // exactly J(b,c): the pair is in (≥)
            (0.86, 0, 3, false),
            (1.0, 0, 3, false),
        ]
    );
    assert_eq!(
        (s.rule.as_str(), s.registered_shingle_size, s.registered_jaccard),
        ("near", 1, 0.8)
    );
    assert_sweep_equals_separate_counts(&p, &c, &grid, &[1, 2, 3]);
}

#[test]
fn sensitivity_of_six_by_hand() {
    // p3 ≈ p4 has J = 7/9 ≈ 0.778 (n = 3): linked at 0.75, not at 0.8; the final count then
    // splits q3 from q4 (4 components, all with candidates).
    let p = protocol("question", RULES, "");
    let spec = sensitivity::SensitivitySpec {
        thresholds: vec![0.75, 0.8],
        shingle_sizes: vec![3],
    };
    let s = sensitivity::sweep(&p, &six(), &spec, &NoProgress).unwrap();
    let got: Vec<_> = s.points.iter().map(|x| (x.pairs, triple(&x.counts))).collect();
    assert_eq!(got, vec![(2, (3, 3, 3, 3)), (1, (4, 4, 3, 3))]);
    assert_sweep_equals_separate_counts(&p, &six(), &[0.5, 0.7, 0.75, 0.8, 1.0], &[2, 3, 4]);
}

#[test]
fn sensitivity_refuses_a_protocol_without_one_near_duplicate_rule() {
    let rules = "[[link-rules]]\nname = \"d\"\nkind = \"decoy\"\n";
    let spec = sensitivity::SensitivitySpec::around(5, 0.8);
    let e = sensitivity::sweep(&protocol("question", rules, ""), &six(), &spec, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("has 0"), "{}", e);
    assert_eq!(e.exit_code(), crate::error::exit::INPUT);
    let bad = sensitivity::SensitivitySpec {
        thresholds: vec![0.0],
        shingle_sizes: vec![5],
    };
    assert!(sensitivity::sweep(&protocol("question", RULES, ""), &six(), &bad, &NoProgress).is_err());
}

#[test]
fn default_sensitivity_grid() {
    let s = sensitivity::SensitivitySpec::around(5, 0.8);
    assert_eq!(s.shingle_sizes, vec![4, 5, 6]);
    assert_eq!(s.thresholds.len(), 11);
    assert_eq!((s.thresholds[0], s.thresholds[6], s.thresholds[10]), (0.5, 0.8, 1.0));
    let s = sensitivity::SensitivitySpec::around(1, 0.72);
    assert_eq!(s.shingle_sizes, vec![1, 2]);
    assert_eq!(s.thresholds.len(), 12);
    assert!(s.thresholds.contains(&0.72));
}

fn repo_file(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn sensitivity_equals_separate_counts_on_the_bundled_data() {
    let grid = [0.5, 0.6, 0.7, 0.8, 0.9];
    let rules = "[[link-rules]]\nname = \"identical\"\nkind = \"identical-passage\"\n[[link-rules]]\nname = \"near\"\nkind = \"near-duplicate-passage\"\nshingle-size = 5\njaccard = 0.8\n[[link-rules]]\nname = \"decoys\"\nkind = \"decoy\"\n";
    let (c, _) = read::read_corpus(
        Some(&repo_file("tests/data/components/passages.jsonl")),
        &repo_file("tests/data/components/questions.jsonl"),
    )
    .unwrap();
    assert_sweep_equals_separate_counts(&protocol("doc", rules, ""), &c, &grid, &[3, 5]);
    let (c, _) = read::read_corpus(None, &repo_file("tests/data/hotpotqa-100/questions.json")).unwrap();
    let (p, _) = protocol::load(&repo_file("protocols/hotpotqa.toml")).unwrap();
    assert_sweep_equals_separate_counts(&p, &c, &grid, &[3, 5, 7]);
}

#[test]
#[ignore = "needs ../shared/data/statutes-kr (2–3 minutes in release mode)"]
fn sensitivity_equals_separate_counts_on_the_statute_corpus() {
    let dir = repo_file("../shared/data/statutes-kr");
    let (c, _) = read::read_corpus(Some(&dir.join("passages.jsonl.gz")), &dir.join("questions.jsonl.gz")).unwrap();
    let (p, _) = protocol::load(&repo_file("protocols/statutes-kr.toml")).unwrap();
    assert_sweep_equals_separate_counts(&p, &c, &[0.6, 0.7, 0.8, 0.9, 1.0], &[5]);
}

#[test]
fn bridges_of_six_by_hand() {
    // Bridges joining ≥ 2 units (questions): {p1, p2} (q1, q2), {p3, p4} (q3, q4), decoy p5
    // (q1 and q5, which uses p5). Decoys p6 and p8 touch one unit each. The largest component
    // {q1, q2, q5} (3 units) falls to 2 without {p1, p2} or without p5, not without {p3, p4}.
    let b = bridges::bridges(&protocol("question", RULES, ""), &six(), 10, &NoProgress).unwrap();
    assert_eq!((b.largest_units, b.largest_questions, b.total), (3, 3, 3));
    let got: Vec<_> = b
        .top
        .iter()
        .map(|x| {
            (
                x.kind,
                x.label.as_str(),
                x.passages,
                x.links,
                x.units,
                x.questions,
                x.largest_units_without,
                x.largest_questions_without,
            )
        })
        .collect();
    use bridges::BridgeKind::{Decoy, Passage};
    assert_eq!(
        got,
        vec![
            (Passage, "p1", 2, 2, 2, 2, 2, 2),
            (Passage, "p3", 2, 1, 2, 2, 3, 3),
            (Decoy, "p5", 1, 1, 2, 2, 2, 2),
        ]
    );
    assert_eq!(b.top[0].rules, vec!["identical", "near"]);
    assert_eq!(b.top[0].excerpt, "alpha beta gamma");
    let one = bridges::bridges(&protocol("question", RULES, ""), &six(), 1, &NoProgress).unwrap();
    assert_eq!((one.total, one.top.len(), one.top[0].label.as_str()), (3, 1, "p1"));
    assert!(bridges::bridges(&protocol("question", RULES, ""), &six(), 0, &NoProgress).is_err());
}

#[test]
fn bridges_of_a_shared_field_value() {
    // law = A on q1, q2, q3; law = B on q4 only: the value A joins 3 units, B none.
    let rules = "[[link-rules]]\nname = \"same law\"\nkind = \"shared-field\"\nfield = \"law\"\n";
    let mut c = corpus(
        &[("p1", "x"), ("p2", "y"), ("p3", "z"), ("p4", "w")],
        &[
            ("q1", &[0], &[]),
            ("q2", &[1], &[]),
            ("q3", &[2], &[]),
            ("q4", &[3], &[]),
        ],
    );
    for (q, law) in c.questions.iter_mut().zip(["A", "A", "A", "B"]) {
        q.fields.insert("law".into(), law.into());
    }
    let b = bridges::bridges(&protocol("question", rules, ""), &c, 5, &NoProgress).unwrap();
    assert_eq!(b.total, 1);
    let x = &b.top[0];
    assert_eq!(
        (x.kind, x.label.as_str(), x.passages, x.links, x.units, x.questions),
        (bridges::BridgeKind::Field, "law = A", 0, 2, 3, 3)
    );
    assert_eq!(
        (b.largest_units, x.largest_units_without, x.largest_questions_without),
        (3, 1, 1)
    );
}
