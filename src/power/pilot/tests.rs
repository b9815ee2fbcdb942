//! Hand-checked values: the clustered example of tests/data/oracles/statistics.md (12 questions in
//! components c1×5, c2×2, c3×3, c4×2, D = A − B); SDs and the ANOVA terms recomputed with numpy
//! 2.4.6 by the formulas in the module docs (MSB = 0.6, MSW = 43/120, n₀ = 17/6 exactly).
use super::*;

const A: [f64; 12] = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
const B: [f64; 12] = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
const COMP: [&str; 12] = ["c1", "c1", "c1", "c1", "c1", "c2", "c2", "c3", "c3", "c3", "c4", "c4"];

fn table() -> ScoreTable {
    ScoreTable {
        systems: vec!["A".into(), "B".into()],
        topics: (1..=12).map(|i| format!("q{:02}", i)).collect(),
        values: vec![
            A.iter().map(|&x| Some(x)).collect(),
            B.iter().map(|&x| Some(x)).collect(),
        ],
        notes: vec![],
        samples: None,
    }
}

fn rows() -> Vec<AssignmentRow> {
    COMP.iter()
        .enumerate()
        .map(|(i, c)| AssignmentRow {
            question: format!("q{:02}", i + 1),
            component: c.to_string(),
            unit: c.to_string(),
            split: None,
            counted: None,
        })
        .collect()
}

fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-12, "got {got:.15}, want {want:.15}");
}

#[test]
fn estimates_sd_and_icc_with_components() {
    let e = estimate(&table(), None, Some(&rows())).unwrap();
    assert_eq!(e.systems, vec!["A", "B"]);
    assert_eq!((e.questions, e.components, e.max_per_component), (12, 4, 5));
    close(e.mean_difference, 1.0 / 3.0);
    close(e.sd_question, 0.6513389472789296);
    close(e.sd_component, 0.501109879279097);
    let icc = e.icc.unwrap();
    close(icc.msb, 0.6);
    close(icc.msw, 43.0 / 120.0);
    close(icc.n0, 17.0 / 6.0);
    close(icc.estimate, 0.19226519337016565);
    assert_eq!(icc.used, icc.estimate);
}

#[test]
fn without_components_each_question_is_one() {
    let e = estimate(&table(), Some(("B", "A")), None).unwrap();
    assert_eq!(e.components, 12);
    close(e.mean_difference, -1.0 / 3.0);
    close(e.sd_component, e.sd_question);
    assert!(e.icc.is_none());
}

#[test]
fn missing_and_uncounted_questions_are_left_out() {
    let mut t = table();
    t.values[1][0] = None; // q01 has no B score
    let mut r = rows();
    r[11].counted = Some(false); // q12 left out by the cap
    let e = estimate(&t, None, Some(&r)).unwrap();
    assert_eq!((e.questions, e.missing, e.not_counted), (10, 1, 1));
}

#[test]
fn negative_icc_is_reported_and_zero_used() {
    // Two components whose means agree exactly but whose questions vary: MSB = 0.
    let t = ScoreTable {
        systems: vec!["A".into(), "B".into()],
        topics: vec!["a".into(), "b".into(), "c".into(), "d".into()],
        values: vec![vec![Some(1.0), Some(0.0), Some(1.0), Some(0.0)], vec![Some(0.0); 4]],
        notes: vec![],
        samples: None,
    };
    let r: Vec<AssignmentRow> = ["a", "b", "c", "d"]
        .iter()
        .zip(["x", "x", "y", "y"])
        .map(|(q, c)| AssignmentRow {
            question: q.to_string(),
            component: c.into(),
            unit: c.into(),
            split: None,
            counted: None,
        })
        .collect();
    let e = estimate(&t, None, Some(&r)).unwrap();
    let icc = e.icc.unwrap();
    assert!(icc.estimate < 0.0);
    assert_eq!(icc.used, 0.0);
    assert!(e.notes.iter().any(|n| n.contains("negative")));
    close(e.sd_component, 0.0);
}

#[test]
fn bad_pilots_are_input_errors() {
    let mut t = table();
    t.systems.push("C".into());
    t.values.push(vec![Some(0.5); 12]);
    assert!(estimate(&t, None, None).unwrap_err().message.contains("3 systems"));
    assert!(estimate(&t, Some(("A", "Z")), None)
        .unwrap_err()
        .message
        .contains("`Z`"));
    assert!(estimate(&t, Some(("A", "A")), None).is_err());
    let r = &rows()[1..]; // q01 has no component
    let e = estimate(&table(), None, Some(r)).unwrap_err();
    assert!(e.message.contains("q01"));
    assert_eq!(e.exit_code(), 2);
    let one: Vec<AssignmentRow> = rows()
        .into_iter()
        .map(|mut x| {
            x.component = "c".into();
            x
        })
        .collect();
    assert!(estimate(&table(), None, Some(&one))
        .unwrap_err()
        .message
        .contains("1 component"));
}
