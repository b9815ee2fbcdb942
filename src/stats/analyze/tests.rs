use super::*;
use crate::protocol::{Adjust, Estimator, Keep, ResamplingUnit};

/// The clustered-questions oracle of statistics.md: 12 questions in c1×5, c2×2, c3×3, c4×2.
fn oracle_inputs() -> Inputs {
    let a = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
    let b = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
    let comp = ["c1", "c1", "c1", "c1", "c1", "c2", "c2", "c3", "c3", "c3", "c4", "c4"];
    let topics: Vec<String> = (0..12).map(|i| format!("q{:02}", i)).collect();
    let assignment = topics
        .iter()
        .zip(comp)
        .map(|(q, c)| AssignmentRow {
            question: q.clone(),
            component: c.into(),
            unit: q.clone(),
            split: None,
            counted: None,
        })
        .collect();
    Inputs {
        scores: ScoreTable {
            systems: vec!["A".into(), "B".into()],
            topics,
            values: vec![
                a.iter().map(|x| Some(*x)).collect(),
                b.iter().map(|x| Some(*x)).collect(),
            ],
            notes: vec![],
            samples: None,
        },
        assignment: Some(assignment),
        pool_bias: None,
        split: None,
        strata: None,
        strata_field: None,
        prefilled: 0,
    }
}

fn settings(est: Estimator, cap: u32) -> Settings {
    let mut s = Settings::compare_defaults();
    s.trials = 2000;
    s.resampling_unit = ResamplingUnit::Component;
    s.estimator = est;
    s.max_per_component = cap;
    s
}

#[test]
fn component_estimators_and_crv1_through_run() {
    let r = run(
        &oracle_inputs(),
        &settings(Estimator::QuestionWeighted, 12),
        "compare",
        "-",
        None,
    )
    .unwrap();
    let c = &r.comparisons[0];
    assert!((c.difference - 1.0 / 3.0).abs() < 1e-12);
    let cr = c.cluster_robust.as_ref().unwrap();
    assert!((cr.se.get().unwrap() - 0.2078698548).abs() < 1e-9);
    assert_eq!(c.component.as_ref().unwrap().units, 4);
    assert_eq!(c.randomization.assignments, 16, "exact over 4 components");
    // Mean of component means: (3/5 − 1/2 + 1/3 + 1/2) / 4.
    let r = run(
        &oracle_inputs(),
        &settings(Estimator::ComponentMean, 12),
        "compare",
        "-",
        None,
    )
    .unwrap();
    let want = (0.6 - 0.5 + 1.0 / 3.0 + 0.5) / 4.0;
    assert!((r.comparisons[0].difference - want).abs() < 1e-12);
    assert!((r.systems[0].component_mean.unwrap() - (0.8 + 0.5 + 1.0 / 3.0 + 1.0) / 4.0).abs() < 1e-12);
}

#[test]
fn cap_keeps_first_by_id_and_counted_column_wins() {
    let r = run(
        &oracle_inputs(),
        &settings(Estimator::QuestionWeighted, 2),
        "compare",
        "-",
        None,
    )
    .unwrap();
    // c1 keeps q00, q01; c2 both; c3 q07, q08; c4 both: 8 questions.
    assert_eq!(r.topics.analyzed, 8);
    assert_eq!(r.topics.excluded_by_assignment, 4);
    assert!(r.components.as_ref().unwrap().cap.contains("first-by-id"));
    let mut inp = oracle_inputs();
    if let Some(rows) = &mut inp.assignment {
        for (i, row) in rows.iter_mut().enumerate() {
            row.counted = Some(i != 0);
        }
    }
    let r = run(&inp, &settings(Estimator::QuestionWeighted, 2), "compare", "-", None).unwrap();
    assert_eq!(r.topics.analyzed, 11);
    let mut s = settings(Estimator::QuestionWeighted, 2);
    s.keep = Keep::SeededSample;
    let a = run(&oracle_inputs(), &s, "compare", "-", None).unwrap();
    assert_eq!(a, run(&oracle_inputs(), &s, "compare", "-", None).unwrap());
    assert_eq!(a.topics.analyzed, 8);
}

#[test]
fn stratified_bootstrap_and_baseline_errors() {
    let mut inp = oracle_inputs();
    inp.assignment = None;
    inp.strata = Some(
        inp.scores
            .topics
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), if i < 6 { "x" } else { "y" }.to_string()))
            .collect(),
    );
    inp.strata_field = Some("kind".into());
    let mut s = Settings::compare_defaults();
    s.trials = 500;
    let r = run(&inp, &s, "compare", "-", None).unwrap();
    let st = r.comparisons[0].stratified.as_ref().unwrap();
    assert_eq!((st.strata, st.units), (2, 12));
    assert_eq!(
        r.strata.as_ref().unwrap().sizes,
        vec![("x".to_string(), 6), ("y".to_string(), 6)]
    );
    s.baseline = Some("C".into());
    let e = run(&inp, &s, "compare", "-", None).unwrap_err();
    assert!(e.message.contains("baseline system `C`"));
    s.baseline = None;
    s.resampling_unit = ResamplingUnit::Component;
    assert!(run(&inp, &s, "compare", "-", None)
        .unwrap_err()
        .message
        .contains("no component assignment"));
}

#[test]
fn one_component_is_flagged() {
    let mut inp = oracle_inputs();
    if let Some(rows) = &mut inp.assignment {
        rows.iter_mut().for_each(|r| r.component = "c".into());
    }
    let r = run(&inp, &settings(Estimator::ComponentMean, 12), "compare", "-", None).unwrap();
    let c = &r.comparisons[0];
    assert!(c.flags.iter().any(|f| f.contains("one component")));
    assert!(c.t_test.p.is_none() && c.mde.achieved.is_none());
    assert!(serde_json::to_string(&r).unwrap().find("NaN").is_none());
}

/// With two systems the randomized Tukey HSD test is the sign-flip test over the same units, so
/// both p-values agree exactly, over topics and over whole components (both estimators).
#[test]
fn tukey_hsd_with_two_systems_is_the_sign_flip_test() {
    for (unit, est) in [
        (ResamplingUnit::Topic, Estimator::ComponentMean),
        (ResamplingUnit::Component, Estimator::ComponentMean),
        (ResamplingUnit::Component, Estimator::QuestionWeighted),
    ] {
        let mut s = settings(est, 12);
        s.resampling_unit = unit;
        s.adjust = Adjust::TukeyHsd;
        let r = run(&oracle_inputs(), &s, "compare", "-", None).unwrap();
        let c = &r.comparisons[0];
        let t = r.tukey_hsd.as_ref().unwrap();
        assert_eq!(t.method, "exact");
        assert_eq!(t.unit, c.primary_unit);
        assert_eq!(c.p_adjusted.method, "tukey-hsd");
        assert_eq!(c.p_adjusted.family, 1);
        assert!(c.p_adjusted.of.contains("randomized Tukey HSD"), "{}", c.p_adjusted.of);
        assert!(
            (c.p_adjusted.p - c.randomization.p).abs() < 1e-15,
            "{unit:?} {est:?}: {} vs {}",
            c.p_adjusted.p,
            c.randomization.p
        );
        assert!((t.pairs[0].difference - c.difference).abs() < 1e-12);
    }
}

#[test]
fn tukey_hsd_covers_all_pairs_even_with_a_baseline() {
    let mut inp = oracle_inputs();
    inp.scores.systems.push("C".into());
    let c = [0., 1., 1., 0., 1., 0., 0., 1., 1., 0., 0., 1.];
    inp.scores.values.push(c.iter().map(|x| Some(*x)).collect());
    let mut s = settings(Estimator::ComponentMean, 12);
    s.resampling_unit = ResamplingUnit::Topic;
    s.adjust = Adjust::TukeyHsd;
    s.baseline = Some("B".into());
    let r = run(&inp, &s, "compare", "-", None).unwrap();
    let t = r.tukey_hsd.as_ref().unwrap();
    assert_eq!((t.family, t.pairs.len(), r.comparisons.len()), (3, 3, 2));
    // 6^11 assignments are too many to enumerate: Monte-Carlo with the protocol's trials.
    assert_eq!((t.method.as_str(), t.assignments), ("monte-carlo", 10_000));
    for c in &r.comparisons {
        assert_eq!(c.p_adjusted.family, 3);
        assert_eq!(Some(c.p_adjusted.p), t.p_of(&c.system, &c.baseline));
        // The range over three systems is at least the pair's own difference: never below the
        // unadjusted sign-flip p by more than Monte-Carlo noise.
        assert!(c.p_adjusted.p >= c.randomization.p - 0.02);
    }
    assert_eq!(r, run(&inp, &s, "compare", "-", None).unwrap(), "deterministic");
    // Other adjustments leave no Tukey result.
    s.adjust = Adjust::Holm;
    assert!(run(&inp, &s, "compare", "-", None).unwrap().tukey_hsd.is_none());
}

#[test]
fn effect_size_uses_the_t_test_differences() {
    let r = run(
        &oracle_inputs(),
        &settings(Estimator::ComponentMean, 12),
        "compare",
        "-",
        None,
    )
    .unwrap();
    let c = &r.comparisons[0];
    let e = &c.effect_size;
    assert_eq!((e.unit.as_str(), e.n), ("component", 4));
    let sd = c.t_test.variance.get().unwrap().sqrt();
    assert!((e.estimate.unwrap() - c.t_test.mean / sd).abs() < 1e-15);
    let [lo, hi] = e.ci.unwrap();
    assert!(lo < e.estimate.unwrap() && e.estimate.unwrap() < hi);
}

/// A constant per-topic difference: every interval is exactly the difference, SDs are exactly 0,
/// and d_z and the t-test are undefined (never NaN or 0).
#[test]
fn constant_difference_is_exact_everywhere() {
    let mut inp = oracle_inputs();
    inp.scores.values[0] = (0..12).map(|_| Some(0.7)).collect();
    inp.scores.values[1] = (0..12).map(|_| Some(0.6)).collect();
    let r = run(&inp, &settings(Estimator::QuestionWeighted, 12), "compare", "-", None).unwrap();
    let c = &r.comparisons[0];
    let d = 0.7 - 0.6;
    assert_eq!(c.difference, d);
    for b in [Some(&c.paired), c.component.as_ref()].into_iter().flatten() {
        assert_eq!((b.sd, b.interval, b.median, b.mean), (0.0, [d, d], d, d), "{}", b.unit);
    }
    assert!(c.effect_size.estimate.is_none() && c.t_test.p.is_none());
    assert_eq!(c.cluster_robust.as_ref().unwrap().se.get(), Some(0.0));
    assert!(c
        .flags
        .iter()
        .any(|f| f.contains("all per-topic differences are equal")));
}

/// One block, one estimator: with `estimator = "component-mean"` and components resampled,
/// every system's estimate (the systems' table, the ranking) is its mean of component means,
/// and every difference is the difference of those estimates (A 0.6583 vs B 0.4250 here, not
/// the question-weighted 0.6667 vs 0.3333); the question-weighted means stay apart, in
/// `mean`. The same holds for the question-weighted estimator.
#[test]
fn every_number_of_a_block_comes_from_one_estimator() {
    let mut inp = oracle_inputs();
    inp.scores.systems.push("C".into());
    let c = [0., 1., 1., 0., 1., 0., 0., 1., 1., 0., 0., 1.];
    inp.scores.values.push(c.iter().map(|x| Some(*x)).collect());
    for est in [Estimator::ComponentMean, Estimator::QuestionWeighted] {
        let r = run(&inp, &settings(est, 12), "compare", "-", None).unwrap();
        let estimate = |name: &str| {
            let sy = r.systems.iter().find(|s| s.name == name).unwrap();
            let want = match est {
                Estimator::ComponentMean => sy.component_mean.unwrap(),
                Estimator::QuestionWeighted => sy.mean,
            };
            let got = sy.interval.as_ref().unwrap().estimate;
            assert!((got - want).abs() < 1e-12, "{est:?} {name}: {got} vs {want}");
            got
        };
        if est == Estimator::ComponentMean {
            assert!((estimate("A") - (0.8 + 0.5 + 1.0 / 3.0 + 1.0) / 4.0).abs() < 1e-12);
            assert!(
                (r.systems[0].mean - 8.0 / 12.0).abs() < 1e-12,
                "the question-weighted mean stays apart"
            );
        }
        for cmp in &r.comparisons {
            let d = estimate(&cmp.system) - estimate(&cmp.baseline);
            assert!((cmp.difference - d).abs() < 1e-12, "{est:?}: {} vs {d}", cmp.difference);
            assert_eq!(cmp.estimator, r.systems[0].interval.as_ref().unwrap().estimator);
        }
        let ranking = r.ranking.as_ref().unwrap();
        for (sy, rk) in r.systems.iter().zip(&ranking.systems) {
            assert_eq!(rk.estimate, sy.interval.as_ref().unwrap().estimate);
        }
    }
}
