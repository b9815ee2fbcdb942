//! Oracle: `tests/data/oracles/margins.md` (statsmodels 0.15.0 `ttost_paired`, scipy 1.17.1
//! `ttest_rel`, on data set S of `statistics.md`).

use super::*;
use crate::stats::ttest::paired_t;
use proptest::prelude::*;

const X: [f64; 20] = [
    0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20,
    0.10,
];
const Y: [f64; 20] = [
    0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30,
    0.20,
];
const Z: [f64; 20] = [
    0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40, 0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40,
    0.30,
];

fn diff(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

#[track_caller]
fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() < tol, "{a} vs {b}");
}

fn run(d: &[f64], kind: HypothesisKind, m: f64, dir: Option<Direction>) -> MarginTest {
    let mut draws = d.to_vec();
    draws.sort_by(f64::total_cmp);
    let spec = MarginSpec {
        kind,
        margin: m,
        direction: dir,
        alpha: 0.05,
        percentile: Percentile::Linear,
    };
    margin_test(&paired_t(d, 0.95), &draws, &spec)
}

/// statsmodels ttost_paired(x1, x2, −M, M).
#[test]
fn tost_matches_ttost_paired() {
    for (a, b, m, p, t1, p1, t2, p2) in [
        (
            &X,
            &Y,
            0.05,
            0.7553953463361969,
            3.5262664354557773,
            0.001128344353839073,
            0.705253287091155,
            0.7553953463361969,
        ),
        (
            &X,
            &Y,
            0.2,
            0.001128344353839071,
            7.757786158002712,
            1.318929550593989e-07,
            -3.5262664354557782,
            0.001128344353839071,
        ),
        (
            &Y,
            &Z,
            0.1,
            0.0325345189557203,
            3.2634681268930206,
            0.002044023262432041,
            -1.9580808761358126,
            0.0325345189557203,
        ),
        (
            &X,
            &Z,
            0.2,
            0.06158255229049746,
            4.8399026368560945,
            5.689397504430644e-05,
            -1.6133008789520318,
            0.06158255229049746,
        ),
    ] {
        let r = run(&diff(a, b), HypothesisKind::Equivalence, m, None);
        close(r.p.unwrap(), p, 1e-12);
        close(r.tests[0].t.unwrap(), t1, 1e-9);
        close(r.tests[0].p.unwrap(), p1, 1e-12);
        close(r.tests[1].t.unwrap(), t2, 1e-9);
        close(r.tests[1].p.unwrap(), p2, 1e-12);
        assert_eq!((r.df, r.level), (19, 0.9));
    }
}

/// scipy ttest_rel(a + M, b, alternative='greater') (non-inferiority), ttest_rel(a − M, b,
/// 'greater') (superiority by a margin), ttest_rel(a − M, b, 'less') (non-inferiority when lower
/// is better).
#[test]
fn one_sided_tests_match_shifted_ttest_rel() {
    for (a, b, m, ni, sm, ni_less) in [
        (
            &X,
            &Y,
            0.02,
            0.007407702948556244,
            0.0686330170649184,
            0.9313669829350816,
        ),
        (
            &Y,
            &Z,
            0.05,
            0.03253451895572035,
            0.7391132758007556,
            0.2608867241992444,
        ),
        (
            &Z,
            &X,
            0.1,
            0.4999999999999999,
            0.9977794513472942,
            0.0022205486527057698,
        ),
    ] {
        let d = diff(a, b);
        let g = Some(Direction::Greater);
        close(run(&d, HypothesisKind::NonInferiority, m, g).p.unwrap(), ni, 1e-12);
        close(run(&d, HypothesisKind::SuperiorityByMargin, m, g).p.unwrap(), sm, 1e-12);
        let l = run(&d, HypothesisKind::NonInferiority, m, Some(Direction::Less));
        close(l.p.unwrap(), ni_less, 1e-12);
        assert_eq!(l.tests[0].bound, m);
    }
}

/// DescrStatsW.tconfint_mean(alpha = 0.10): the interval at the tests' level.
#[test]
fn interval_at_the_tests_level() {
    let r = run(&diff(&X, &Y), HypothesisKind::Equivalence, 0.1, None);
    let [lo, hi] = r.t_interval.unwrap();
    close(lo, 0.013705255148357978, 1e-9);
    close(hi, 0.136294744851642, 1e-9);
    // The test rejects exactly when the interval lies inside (−M, M).
    let inside = |m: f64| lo > -m && hi < m;
    for m in [0.05, 0.1, 0.13, 0.14, 0.2] {
        let r = run(&diff(&X, &Y), HypothesisKind::Equivalence, m, None);
        assert_eq!(r.p.unwrap() < 0.05, inside(m), "M = {m}");
    }
}

#[test]
fn constant_differences_have_no_test() {
    let r = run(
        &[0.1; 5],
        HypothesisKind::NonInferiority,
        0.05,
        Some(Direction::Greater),
    );
    assert!(r.p.is_none() && r.flag.is_some() && r.t_interval.is_none());
    assert_eq!(r.bootstrap_interval, [0.1, 0.1]);
}

proptest! {
    /// At margin 0 the TOST p is the larger of the two one-sided paired t-tests of no
    /// difference, max(p_greater, p_less) (so never below ½), and non-inferiority at margin 0 is
    /// the one-sided test of no difference.
    #[test]
    fn tost_at_margin_zero_is_the_two_one_sided_tests(d in proptest::collection::vec(-1.0f64..1.0, 3..30)) {
        let t = paired_t(&d, 0.95);
        prop_assume!(t.se.get().is_some_and(|s| s > 1e-9));
        let r = run(&d, HypothesisKind::Equivalence, 0.0, None);
        let g = one_sided(t.mean, t.se.get(), t.df, 0.0, Direction::Greater).p.unwrap();
        let l = one_sided(t.mean, t.se.get(), t.df, 0.0, Direction::Less).p.unwrap();
        prop_assert!((r.p.unwrap() - g.max(l)).abs() < 1e-12);
        prop_assert!(r.p.unwrap() >= 0.5 - 1e-12);
        prop_assert!((g + l - 1.0).abs() < 1e-9);
        let ni = run(&d, HypothesisKind::NonInferiority, 0.0, Some(Direction::Greater));
        prop_assert!((ni.p.unwrap() - g).abs() < 1e-12);
        // Two-sided t p = 2·min(one-sided).
        prop_assert!((t.p.unwrap() - 2.0 * g.min(l)).abs() < 1e-9);
    }
}
