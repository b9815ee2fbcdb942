//! Oracle: `tests/data/oracles/system-intervals.md` (statsmodels 0.15.0, scipy 1.17.1).

use super::*;
use crate::protocol::Percentile;

const X: [f64; 20] = [
    0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20,
    0.10,
];
const A: [f64; 12] = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
const B: [f64; 12] = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
const G: [usize; 12] = [0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 3];

fn spec(component_of: Option<&[usize]>, unit: ResamplingUnit, est: Estimator, trials: usize) -> IntervalSpec<'_> {
    IntervalSpec {
        component_of,
        unit,
        estimator: est,
        scale_max: 1.0,
        bootstrap: BootstrapSpec {
            seed: 0,
            stream_base: 0,
            trials,
            level: 0.95,
            percentile: Percentile::Linear,
            tie_tolerance: 1e-12,
        },
    }
}

#[track_caller]
fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() < tol, "{a} vs {b}");
}

fn interval_of(v: &[f64], sp: &IntervalSpec) -> SystemInterval {
    let (u, _) = system_units(v, sp);
    system_interval(v, &resampled(&u, sp), sp)
}

/// statsmodels DescrStatsW.tconfint_mean on data set S's X; scipy.stats.bootstrap percentile
/// (1,000,000 resamples) within Monte-Carlo error of B = 20,000.
#[test]
fn t_interval_and_bootstrap_of_a_mean() {
    let r = interval_of(&X, &spec(None, ResamplingUnit::Topic, Estimator::ComponentMean, 20_000));
    close(r.estimate, 0.345, 1e-12);
    close(r.se.get().unwrap(), 0.04945758416642433, 1e-12);
    let [lo, hi] = r.interval.unwrap();
    close(lo, 0.24148408666675036, 1e-9);
    close(hi, 0.4485159133332496, 1e-9);
    assert_eq!((r.n, r.df, r.unit.as_str()), (20, 19, "topic"));
    assert!(r.wilson.is_none(), "not 0/1");
    close(r.bootstrap[0], 0.25, 0.006);
    close(r.bootstrap[1], 0.44, 0.006);
    close(r.bootstrap_se, 0.04815100426536903, 0.001);
    assert!(r.method.contains("Student t over topics"));
}

/// statsmodels proportion_confint(method='wilson').
#[test]
fn wilson_matches_statsmodels() {
    for (k, n, level, lo, hi) in [
        (9.0, 12.0, 0.95, 0.46769466506643426, 0.9110583316059453),
        (4.0, 12.0, 0.9, 0.1594853449258405, 0.5685083866566518),
        (0.0, 10.0, 0.95, 0.0, 0.2775327998628892),
        (10.0, 10.0, 0.95, 0.7224672001371107, 0.9999999999999999),
        (1.0, 1.0, 0.9, 0.269865948784054, 1.0),
        (37.0, 50.0, 0.95, 0.6044684273515117, 0.8412847250644762),
    ] {
        let [a, b] = wilson(k, n, level).unwrap();
        close(a, lo, 1e-12);
        close(b, hi, 1e-12);
    }
    assert!(wilson(0.0, 0.0, 0.95).is_none());
    // Through the system interval: 0/1 scores over topics (A: 8 of 12); on the points scale
    // (0/100) the same interval times 100.
    let r = interval_of(&A, &spec(None, ResamplingUnit::Topic, Estimator::ComponentMean, 100));
    let [a, b] = r.wilson.unwrap();
    close(a, 0.39062208887279953, 1e-12);
    close(b, 0.8618799089087867, 1e-12);
    let pts: Vec<f64> = A.iter().map(|x| x * 100.0).collect();
    let mut sp = spec(None, ResamplingUnit::Topic, Estimator::ComponentMean, 100);
    sp.scale_max = 100.0;
    let [a, b] = interval_of(&pts, &sp).wilson.unwrap();
    close(a, 39.06220888727995, 1e-10);
    close(b, 86.18799089087867, 1e-10);
}

/// statsmodels OLS(y, 1).fit(cov_type='cluster', use_t=True): CRV1 SE and the t interval with
/// G − 1 df; the mean of component means with the t interval over them (DescrStatsW).
#[test]
fn clustered_intervals() {
    for (unit, v, se, lo, hi) in [
        (
            ResamplingUnit::Topic,
            A,
            0.13608276348795437,
            0.2335905787916298,
            1.0997427545417038,
        ),
        (
            ResamplingUnit::Component,
            B,
            0.17568209223157671,
            -0.2257654919935595,
            0.8924321586602264,
        ),
    ] {
        let r = interval_of(&v, &spec(Some(&G), unit, Estimator::QuestionWeighted, 200));
        close(r.se.get().unwrap(), se, 1e-12);
        let [a, b] = r.interval.unwrap();
        close(a, lo, 1e-9);
        close(b, hi, 1e-9);
        assert_eq!((r.n, r.df, r.unit.as_str()), (4, 3, "component"));
        assert!(r.method.contains("CRV1") && r.wilson.is_none(), "{}", r.method);
    }
    let r = interval_of(
        &A,
        &spec(Some(&G), ResamplingUnit::Component, Estimator::ComponentMean, 200),
    );
    close(r.estimate, 0.6583333333333333, 1e-12);
    close(r.se.get().unwrap(), 0.14930394055974097, 1e-12);
    let [a, b] = r.interval.unwrap();
    close(a, 0.18318155933468733, 1e-9);
    close(b, 1.1334851073319794, 1e-9);
    assert!(r.bootstrap_method.contains("over components"));
}

/// The per-system draws are paired: two systems see the same resampled topics, so the draws of
/// `x` and of `x + 0.1` differ by exactly 0.1 (up to rounding) in every trial.
#[test]
fn draws_share_the_resampled_topics() {
    let sp = spec(None, ResamplingUnit::Topic, Estimator::ComponentMean, 512);
    let shifted: Vec<f64> = X.iter().map(|x| x + 0.1).collect();
    let a = resampled(&Units::topics(X.to_vec()), &sp);
    let b = resampled(&Units::topics(shifted), &sp);
    assert!(a.iter().zip(&b).all(|(x, y)| (y - x - 0.1).abs() < 1e-12));
    // A constant system has a zero-width interval exactly at its value.
    let c = interval_of(&[0.3; 5], &sp);
    assert_eq!((c.bootstrap, c.bootstrap_se, c.estimate), ([0.3, 0.3], 0.0, 0.3));
    assert!(c.interval.is_none(), "zero SE: no t interval");
}
