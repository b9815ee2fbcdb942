use super::*;

fn case(kind: HypothesisKind, rejected: bool, interval: [f64; 2]) -> Case {
    Case {
        kind,
        direction: (kind != HypothesisKind::Equivalence).then_some(Direction::Greater),
        margin: kind.has_margin().then_some(0.05),
        target: Some(0.03),
        expected: 0.0,
        rejected,
        interval,
        level: 0.9,
        interval_method: "t interval".into(),
        alpha: 0.05,
        power: 0.8,
        sides: 1,
        sd: Some(0.2),
        unit: "topic".into(),
    }
}

#[test]
fn three_outcomes_of_each_kind() {
    use HypothesisKind::*;
    use Verdict::*;
    for (kind, rejected, iv, want) in [
        (Superiority, true, [0.01, 0.06], Supported),
        (Superiority, false, [-0.02, 0.02], NotSupported), // rules out the target 0.03
        (Superiority, false, [-0.02, 0.04], Inconclusive),
        (NonInferiority, true, [-0.04, 0.02], Supported),
        (NonInferiority, false, [-0.09, -0.06], NotSupported), // worse by more than 0.05
        (NonInferiority, false, [-0.07, 0.01], Inconclusive),
        (SuperiorityByMargin, false, [0.0, 0.04], NotSupported),
        (SuperiorityByMargin, false, [0.02, 0.08], Inconclusive),
        (Equivalence, true, [-0.04, 0.04], Supported),
        (Equivalence, false, [0.06, 0.09], NotSupported),
        (Equivalence, false, [-0.02, 0.07], Inconclusive),
    ] {
        let j = judge(&case(kind, rejected, iv));
        assert_eq!(j.verdict, want, "{kind} {iv:?}: {}", j.reason);
        assert_eq!(j.needed.is_some(), want == Inconclusive);
    }
    // Direction `less` mirrors the bounds: non-inferiority when lower is better is ruled out by
    // an interval entirely above +M.
    let mut c = case(NonInferiority, false, [0.06, 0.09]);
    c.direction = Some(Direction::Less);
    assert_eq!(judge(&c).verdict, NotSupported);
    assert_eq!(judge(&c).relevant, Some(0.05));
}

/// A test that does not reject while the interval lies wholly on the claimed side (the t-test is
/// undefined when every difference is equal, while the bootstrap interval is the point [1, 1])
/// is inconclusive, and the reason says the two disagree instead of claiming the interval holds
/// both outcomes.
#[test]
fn a_test_that_disagrees_with_its_interval_says_so() {
    use HypothesisKind::*;
    for (kind, iv) in [
        (NonInferiority, [1.0, 1.0]),
        (Superiority, [0.01, 0.05]),
        (SuperiorityByMargin, [0.06, 0.07]),
        (Equivalence, [0.0, 0.0]),
    ] {
        let j = judge(&case(kind, false, iv));
        assert_eq!(j.verdict, Verdict::Inconclusive, "{kind}");
        assert_eq!(
            j.reason,
            "the test does not reject at α = 0.05, yet the 90% interval lies wholly on the claimed side: the test and the interval disagree (an undefined test, e.g. all differences equal, is one way)",
            "{kind}"
        );
    }
    // Mirrored for `less`: an interval wholly below +M is the claimed side of non-inferiority
    // when lower is better.
    let mut c = case(NonInferiority, false, [0.0, 0.04]);
    c.direction = Some(Direction::Less);
    assert!(
        judge(&c).reason.starts_with("the test does not reject"),
        "{}",
        judge(&c).reason
    );
}

/// The units needed at the observed SD are the exact roots `pledge power --kind` finds, against
/// tests/data/oracles/margins.md: non-inferiority at M = 0.05, σ = 0.2 (d = 0.25, one-sided):
/// statsmodels `TTestPower` root 100.28766216584387 → 101; equivalence at M = 0.05, σ = 0.1: the
/// exact TOST root 35.65267690294304 → 36; superiority by a margin with the target 0.03 beyond it
/// at σ = 0.1 (d = 0.3, the oracle's shifted effect (Δ₀ − M)/σ = (0.05 − 0.02)/0.1): root
/// 70.06790520007296 → 71.
#[test]
fn units_needed_when_inconclusive() {
    let j = judge(&case(HypothesisKind::NonInferiority, false, [-0.07, 0.01]));
    assert_eq!(j.needed.as_ref().unwrap().units, 101);
    let mut c = case(HypothesisKind::Equivalence, false, [-0.02, 0.07]);
    c.sd = Some(0.1);
    assert_eq!(judge(&c).needed.as_ref().unwrap().units, 36);
    let mut c = case(HypothesisKind::SuperiorityByMargin, false, [0.02, 0.08]);
    c.sd = Some(0.1);
    assert_eq!(judge(&c).needed.as_ref().unwrap().units, 71);
    // Superiority at the target 0.03, σ = 0.2 one-sided: d = 0.15, statsmodels' root by the
    // exact solver of `pledge power`.
    let mut c = case(HypothesisKind::Superiority, false, [-0.02, 0.04]);
    let n = crate::stats::sizing::t_n(0.15, 0.05, 0.8, 1).unwrap();
    assert_eq!(judge(&c).needed.as_ref().unwrap().units, n.ceil() as u64);
    c.sides = 2;
    let n2 = crate::stats::sizing::t_n(0.15, 0.05, 0.8, 2).unwrap();
    assert!(n2 > n);
    assert_eq!(judge(&c).needed.as_ref().unwrap().units, n2.ceil() as u64);
    // Without a target a superiority verdict is supported or not, never inconclusive.
    let mut c = case(HypothesisKind::Superiority, false, [-0.02, 0.04]);
    c.target = None;
    assert_eq!(judge(&c).verdict, Verdict::NotSupported);
}
