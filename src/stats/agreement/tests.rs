//! Oracle: `tests/data/oracles/system-intervals.md` (statsmodels `mcnemar`, scipy `binom`, numpy).

use super::*;

const X: [f64; 20] = [
    0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20,
    0.10,
];
const Y: [f64; 20] = [
    0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30,
    0.20,
];

#[track_caller]
fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() < tol, "{a} vs {b}");
}

#[test]
fn mcnemar_exact_and_mid_p() {
    for (b, c, exact, mid) in [
        (15, 5, 0.04138946533203125, 0.026603698730468747),
        (5, 1, 0.21875, 0.12500000000000003),
        (3, 3, 1.0, 0.9999999999999998),
        (0, 4, 0.125, 0.06250000000000001),
        (40, 22, 0.030015864349067285, 0.02257497267325717),
        (0, 0, 1.0, 1.0),
    ] {
        let m = mcnemar(b, c);
        close(m.exact_p, exact, 1e-12);
        close(m.mid_p, mid, 1e-12);
    }
    // 2·(1 + 5)/2⁶ + … = 7/32 exactly: the text shows 0.2188, not 0.2187.
    assert_eq!((mcnemar(5, 1).exact_p, mcnemar(5, 1).mid_p), (0.21875, 0.125));
    // Counting (n ≤ 100) agrees with the incomplete beta function used beyond.
    for n in 1..=100u64 {
        for k in 0..=n / 2 {
            let (exact, mid) = mcnemar_by_counting(k, n).unwrap();
            close(exact, (2.0 * binom_half_cdf(k, n)).min(1.0), 1e-12);
            let below = if k == 0 { 0.0 } else { binom_half_cdf(k - 1, n) };
            close(mid, (2.0 * (below + 0.5 * binom_half_pmf(k, n))).min(1.0), 1e-12);
        }
    }
    assert!(mcnemar_by_counting(3, 101).is_none());
}

#[test]
fn detail_of_data_set_s_and_the_binary_pair() {
    let t = Ties::of_values(1e-12, &X);
    let d = pair_detail(&X, &Y, t, None);
    assert_eq!((d.wins, d.ties, d.losses), (10, 5, 5));
    close(d.correlation.get().unwrap(), 0.7014796950278718, 1e-12);
    close(d.paired_se.get().unwrap(), 0.035448257324844905, 1e-12);
    close(d.unpaired_se.get().unwrap(), 0.06264982043070834, 1e-12);
    assert!(d.mcnemar.is_none());
    let a = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
    let b = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
    let d = pair_detail(&a, &b, Ties::of_values(1e-12, &a), Some(1.0));
    assert_eq!((d.wins, d.ties, d.losses), (5, 6, 1));
    close(d.correlation.get().unwrap(), 0.125, 1e-12);
    close(d.paired_se.get().unwrap(), 0.18802535827258873, 1e-12);
    close(d.unpaired_se.get().unwrap(), 0.20100756305184242, 1e-12);
    let m = d.mcnemar.unwrap();
    assert_eq!((m.b, m.c), (5, 1));
    close(m.exact_p, 0.21875, 1e-12);
    // The exact sign-flip test on the 0/1 differences is McNemar's exact test.
    let diffs: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let r = crate::stats::randomization::sign_flip(&diffs, 12.0, 10_000, 0, Ties::of_values(1e-12, &a));
    assert_eq!(r.method, "exact");
    close(r.p, m.exact_p, 1e-15);
    // A constant system: no correlation (never NaN).
    assert!(pair_detail(&[0.5; 4], &[0.1, 0.2, 0.3, 0.4], t, None)
        .correlation
        .get()
        .is_none());
}
