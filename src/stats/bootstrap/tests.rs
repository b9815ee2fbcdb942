use super::*;

fn spec(trials: usize) -> BootstrapSpec {
    BootstrapSpec {
        seed: 7,
        stream_base: 0,
        trials,
        level: 0.95,
        percentile: Percentile::Linear,
        tie_tolerance: 1e-12,
    }
}

/// Every ordered resample of `d`: the exact bootstrap distribution of the mean.
fn exact_means(d: &[f64]) -> Vec<f64> {
    let n = d.len();
    let total = n.pow(n as u32);
    let mut out = Vec::with_capacity(total);
    for mut code in 0..total {
        let mut s = 0.0;
        for _ in 0..n {
            s += d[code % n];
            code /= n;
        }
        out.push(s / n as f64);
    }
    out.sort_by(f64::total_cmp);
    out
}

const D5: [f64; 5] = [0.1, 0.0, 0.2, -0.2, 0.0];
const D6: [f64; 6] = [0.1, 0.0, 0.2, -0.2, 0.0, 0.1];

/// Oracle: statistics.md, "Paired bootstrap: exact distributions" (enumeration).
#[test]
fn exact_distributions_match_the_oracle() {
    let e5 = exact_means(&D5);
    let s = spec(e5.len());
    let b = summarize(&e5, 0.02, 5, 1, &s, "topic");
    assert!((b.sd - 0.0593295879).abs() < 1e-9, "{}", b.sd);
    assert!((b.mean - 0.02).abs() < 1e-12);
    for m in [
        Percentile::Linear,
        Percentile::InvertedCdf,
        Percentile::Lower,
        Percentile::Higher,
        Percentile::Nearest,
    ] {
        assert!((quantile(&e5, 0.025, m) + 0.10).abs() < 1e-9);
        assert!((quantile(&e5, 0.5, m) - 0.02).abs() < 1e-9);
        assert!((quantile(&e5, 0.975, m) - 0.12).abs() < 1e-9);
    }
    assert!((b.below_zero - 0.29792).abs() < 1e-12);
    assert!((b.ties_share - 0.12864).abs() < 1e-12);
    let e6 = exact_means(&D6);
    let b = summarize(&e6, 1.0 / 30.0, 6, 1, &spec(e6.len()), "topic");
    assert!((b.sd - 0.0509175077).abs() < 1e-9);
    assert!((b.interval[0] + 0.0666666667).abs() < 1e-9 && (b.interval[1] - 0.1166666667).abs() < 1e-9);
    assert!((b.median - 0.0333333333).abs() < 1e-9);
    assert!((b.reversal_rate.unwrap() - 0.2048611111).abs() < 1e-9);
    assert!((b.ties_share - 0.0969650206).abs() < 1e-9);
}

/// Monte-Carlo estimates are within 4 standard errors of a proportion of the exact values.
#[test]
fn monte_carlo_approaches_the_exact_distribution() {
    let trials = 20_000;
    let se = |p: f64| 4.0 * (p * (1.0 - p) / trials as f64).sqrt();
    for (d, lt, eq, sd) in [
        (&D5[..], 0.29792, 0.12864, 0.0593295879),
        (&D6[..], 0.2048611111, 0.0969650206, 0.0509175077),
    ] {
        let b = bootstrap(&Units::topics(d.to_vec()), &spec(trials), "topic");
        assert!(
            (b.reversal_rate.unwrap() - lt).abs() < se(lt),
            "{} vs {}",
            b.reversal_rate.unwrap(),
            lt
        );
        assert!((b.ties_share - eq).abs() < se(eq), "{} vs {}", b.ties_share, eq);
        assert!((b.sd - sd).abs() < 0.05 * sd);
    }
}

#[test]
fn all_positive_differences_never_reverse_and_swap_negates() {
    let u = Units::topics(vec![0.1, 0.3, 0.2, 0.05, 0.4]);
    let b = bootstrap(&u, &spec(2000), "topic");
    assert_eq!(b.reversal_rate, Some(0.0));
    assert!(b.interval[0] > 0.0);
    let s = bootstrap(&u.negated(), &spec(2000), "topic");
    assert_eq!(s.observed, -b.observed);
    assert_eq!(s.reversal_rate, b.reversal_rate);
    assert_eq!(s.median, -b.median);
    // Exact up to the rounding of numpy's interpolation at the mirrored positions.
    assert!((s.interval[0] + b.interval[1]).abs() < 1e-12 && (s.interval[1] + b.interval[0]).abs() < 1e-12);
}

#[test]
fn result_does_not_depend_on_thread_count() {
    let u = Units::topics((0..97).map(|i| ((i * 37 % 11) as f64 - 5.0) / 10.0).collect());
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| resample(&u, &spec(3000)))
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn strata_keep_their_sizes() {
    // Within each stratum all values are equal, so every stratified resample equals the observed
    // mean; an unstratified resample would not.
    let u = Units {
        values: vec![1.0, 1.0, 1.0, 0.0],
        weights: vec![1.0; 4],
        strata: vec![vec![0, 1, 2], vec![3]],
    };
    let b = bootstrap(&u, &spec(500), "topic (stratified)");
    assert_eq!(b.sd, 0.0);
    assert_eq!(b.interval, [0.75, 0.75]);
}

#[test]
fn degenerate_inputs_do_not_give_nan() {
    let b = bootstrap(&Units::topics(vec![0.0, 0.0]), &spec(100), "topic");
    assert_eq!(b.reversal_rate, None);
    assert_eq!(b.ties_share, 1.0);
    let b = bootstrap(&Units::topics(vec![]), &spec(10), "topic");
    assert!(b.sd.is_finite() && b.median.is_finite());
}

/// Before, a constant difference gave an SD of a few 1e-17 (or 3e-14 on larger scales and with
/// component weights), and six topics of 0.1 had the estimate 0.09999999999999999 outside its own
/// zero-width interval [0.10000000000000002, 0.10000000000000002] (the sequential sum and the
/// resamples' four accumulators round differently). Zero-variance units now give exactly 0 and
/// the estimate, which for constant topics is exactly the constant.
#[test]
fn zero_variance_is_exact() {
    for (units, want) in [
        (Units::topics(vec![0.1; 6]), 0.1),
        (Units::topics(vec![72.3; 7]), 72.3),
        (Units::topics(vec![-0.35; 3]), -0.35),
        // Component sums of a constant 0.1 with 3, 2 and 4 questions (question-weighted).
        (
            Units {
                values: vec![0.1 + 0.1 + 0.1, 0.1 + 0.1, 0.1 + 0.1 + 0.1 + 0.1],
                weights: vec![3.0, 2.0, 4.0],
                strata: vec![vec![0, 1, 2]],
            },
            // The first component's mean, equal to the others' up to rounding.
            (0.1 + 0.1 + 0.1) / 3.0,
        ),
    ] {
        let b = bootstrap(&units, &spec(1000), "topic");
        assert_eq!(b.observed, want);
        assert_eq!(b.sd, 0.0);
        assert_eq!(b.mean, want);
        assert_eq!(b.median, want);
        assert_eq!(b.interval, [want, want]);
        assert_eq!(b.reversal_rate, Some(0.0));
    }
    // The drawn resamples really are off in the last bits: the degenerate case must be handled.
    let drawn = resample(&Units::topics(vec![0.1; 6]), &spec(10));
    assert!(drawn.iter().all(|&x| x == 0.10000000000000002));
}
