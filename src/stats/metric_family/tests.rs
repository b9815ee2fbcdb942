use super::*;
use crate::scores::ScoreTable;
use crate::stats::analyze::{run, Inputs};
use crate::stats::Settings;

/// Three systems on 20 topics (data set S of the oracles' statistics.md, Sakai 2018 Table 5.1),
/// scaled by `f` per system so that a second "metric" has other differences.
fn inputs(f: [f64; 3]) -> Inputs {
    let x = [
        0.7, 0.3, 0.2, 0.6, 0.4, 0.4, 0.0, 0.7, 0.1, 0.3, 0.5, 0.4, 0.0, 0.6, 0.5, 0.3, 0.1, 0.5, 0.2, 0.1,
    ];
    let y = [
        0.5, 0.1, 0.0, 0.2, 0.4, 0.3, 0.0, 0.5, 0.3, 0.3, 0.4, 0.4, 0.1, 0.4, 0.2, 0.1, 0.1, 0.6, 0.3, 0.2,
    ];
    let z = [
        0.0, 0.0, 0.2, 0.1, 0.3, 0.3, 0.1, 0.2, 0.4, 0.4, 0.4, 0.3, 0.3, 0.2, 0.2, 0.2, 0.1, 0.5, 0.4, 0.3,
    ];
    let col = |v: &[f64; 20], k: f64| v.iter().map(|a| Some(a * k)).collect();
    Inputs {
        scores: ScoreTable {
            systems: vec!["X".into(), "Y".into(), "Z".into()],
            topics: (0..20).map(|t| format!("t{:02}", t)).collect(),
            values: vec![col(&x, f[0]), col(&y, f[1]), col(&z, f[2])],
            notes: vec![],
            samples: None,
        },
        assignment: None,
        pool_bias: None,
        split: None,
        strata: None,
        strata_field: None,
        prefilled: 0,
    }
}

fn settings(metric: &str) -> Settings {
    let mut s = Settings::compare_defaults();
    s.trials = 500;
    s.randomization_trials = 500;
    s.baseline = Some("Y".into());
    s.metric = metric.into();
    s
}

#[test]
fn every_comparison_of_every_metric_is_one_family() {
    let a = run(&inputs([1.0, 1.0, 1.0]), &settings("m1"), "compare", "-", None).unwrap();
    let b = run(&inputs([1.0, 1.3, 1.6]), &settings("m2"), "compare", "-", None).unwrap();
    let raw: Vec<f64> = a
        .comparisons
        .iter()
        .chain(&b.comparisons)
        .map(|c| c.randomization.p)
        .collect();
    for adjust in [Adjust::Holm, Adjust::Bh] {
        let r = adjust_across(a.clone(), vec![("m2".into(), b.clone())], adjust).unwrap();
        let f = r.metric_family.as_ref().unwrap();
        assert_eq!(f.metrics, ["m1", "m2"]);
        assert_eq!((f.size, f.secondary_size), (4, 0));
        let got: Vec<f64> = r
            .comparisons
            .iter()
            .chain(&f.others[0].comparisons)
            .map(|c| c.p_adjusted.p)
            .collect();
        assert_eq!(got, multiple::adjust(&raw, adjust).unwrap());
        assert!(r
            .comparisons
            .iter()
            .chain(&f.others[0].comparisons)
            .all(|c| c.p_adjusted.family == 4 && c.p_adjusted.of == "randomization, every comparison of 2 metrics"));
        assert_eq!(f.method, multiple::method_name(adjust));
        // The first metric's systems and everything but the adjusted p are unchanged.
        assert_eq!(r.systems, a.systems);
        assert_eq!(r.comparisons[0].randomization, a.comparisons[0].randomization);
    }
}

#[test]
fn a_family_needs_two_metrics_a_p_value_correction_and_the_same_comparisons() {
    let a = run(&inputs([1.0, 1.0, 1.0]), &settings("m1"), "compare", "-", None).unwrap();
    let e = adjust_across(a.clone(), vec![], Adjust::Holm).unwrap_err();
    assert!(e.to_string().contains("at least two metrics"), "{}", e);
    let e = adjust_across(a.clone(), vec![("m2".into(), a.clone())], Adjust::TukeyHsd).unwrap_err();
    assert!(e.to_string().contains("holm or bh"), "{}", e);
    let mut other = settings("m2");
    other.baseline = Some("X".into());
    let b = run(&inputs([1.0, 1.0, 1.0]), &other, "compare", "-", None).unwrap();
    let e = adjust_across(a, vec![("m2".into(), b)], Adjust::Holm).unwrap_err();
    assert!(
        e.to_string().contains("the comparisons are not those of metric `m1`"),
        "{}",
        e
    );
}
