//! Oracles: exact enumeration of all (k!)^n assignments here (brute force, independent of the
//! implementation's first-unit symmetry) and in tests/data/oracles/tukey-hsd.md (an independent
//! Python computation in exact rationals, and a numpy Monte-Carlo estimate on data set S; the
//! script is in that file's PROVENANCE section).
use super::*;

/// statistics.md data set S (Sakai 2018, Table 5.1).
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

fn names(k: usize) -> Vec<String> {
    (0..k).map(|i| format!("s{i}")).collect()
}

fn rows(x: &[&[f64]]) -> Vec<Vec<f64>> {
    x.iter().map(|r| r.to_vec()).collect()
}

fn ties() -> Ties {
    Ties::new(1e-12, 1.0)
}

/// Brute force: every assignment of every unit's permutation, with a tolerance on the sums.
fn brute(x: &[Vec<f64>], tol: f64) -> (u64, Vec<u64>) {
    let (n, k) = (x.len(), x[0].len());
    let perms = permutations(k);
    let obs: Vec<f64> = (0..k).map(|s| x.iter().map(|r| r[s]).sum()).collect();
    let mut hits = vec![0u64; k * (k - 1) / 2];
    let total = (perms.len() as u64).pow(n as u32);
    for code in 0..total {
        let mut c = code;
        let mut sums = vec![0.0; k];
        for row in x {
            let p = &perms[(c % perms.len() as u64) as usize];
            c /= perms.len() as u64;
            for s in 0..k {
                sums[s] += row[p[s]];
            }
        }
        let range = sums.iter().cloned().fold(f64::MIN, f64::max) - sums.iter().cloned().fold(f64::MAX, f64::min);
        let mut q = 0;
        for i in 0..k {
            for j in i + 1..k {
                hits[q] += u64::from(range >= (obs[i] - obs[j]).abs() - tol);
                q += 1;
            }
        }
    }
    (total, hits)
}

const T1: [[f64; 3]; 4] = [[0.2, 0.5, 0.1], [0.4, 0.4, 0.0], [0.3, 0.9, 0.2], [0.1, 0.6, 0.3]];
const T2: [[f64; 4]; 3] = [[0.1, 0.3, 0.2, 0.6], [0.0, 0.5, 0.5, 0.9], [0.4, 0.2, 0.1, 0.8]];
const T3: [[f64; 3]; 5] = [[1., 0., 1.], [1., 0., 0.], [1., 1., 0.], [0., 0., 0.], [1., 0., 1.]];

/// tests/data/oracles/tukey-hsd.md, "Exact": Python `fractions` over all (k!)^n assignments.
#[test]
fn exact_matches_the_python_oracle() {
    let cases: [(Vec<Vec<f64>>, u64, Vec<u64>); 3] = [
        (T1.iter().map(|r| r.to_vec()).collect(), 1296, vec![228, 1200, 60]),
        (
            T2.iter().map(|r| r.to_vec()).collect(),
            13824,
            vec![13104, 13680, 768, 13776, 5472, 3264],
        ),
        (T3.iter().map(|r| r.to_vec()).collect(), 7776, vec![2304, 4320, 7776]),
    ];
    for (x, total, want) in cases {
        let k = x[0].len();
        let r = randomized_tukey(&x, &names(k), x.len() as f64, "topic", 10_000, 0, ties());
        assert_eq!(r.method, "exact");
        assert!(r.ties.starts_with("integer units"), "{}", r.ties);
        let fact: u64 = (1..=k as u64).product();
        assert_eq!(r.assignments * fact, total);
        for (pair, w) in r.pairs.iter().zip(&want) {
            assert_eq!(pair.hits * fact, *w, "{}-{}", pair.system, pair.other);
            assert!((pair.p - *w as f64 / total as f64).abs() < 1e-15);
        }
        // The brute force agrees, and so does the floating path (π-scaled data).
        let (bt, bh) = brute(&x, 1e-9);
        assert_eq!(bt, total);
        assert_eq!(bh, want);
        let scaled: Vec<Vec<f64>> = x
            .iter()
            .map(|r| r.iter().map(|v| v * std::f64::consts::PI).collect())
            .collect();
        let f = randomized_tukey(&scaled, &names(k), x.len() as f64, "topic", 10_000, 0, ties());
        assert!(f.ties.starts_with("tolerance"), "{}", f.ties);
        let got: Vec<u64> = f.pairs.iter().map(|p| p.hits * fact).collect();
        assert_eq!(got, want);
    }
}

/// With two systems the randomized range is |mean difference| under sign flips: the Tukey HSD
/// p equals the exact sign-flip p of statistics.md data set S, X vs Y: 69,120 of 1,048,576.
#[test]
fn two_systems_equal_the_sign_flip_test() {
    let x: Vec<Vec<f64>> = X.iter().zip(Y).map(|(a, b)| vec![*a, b]).collect();
    let r = randomized_tukey(&x, &names(2), 20.0, "topic", 10_000, 0, ties());
    assert_eq!(r.method, "exact");
    assert_eq!(r.assignments, 1 << 19);
    assert_eq!(r.pairs[0].hits * 2, 69_120);
    assert!((r.pairs[0].p - 0.0659179688).abs() < 1e-10);
    assert!((r.pairs[0].difference - 0.075).abs() < 1e-15);
}

/// tests/data/oracles/tukey-hsd.md, "Monte-Carlo": numpy with 2,000,000 permutations on data set
/// S (X, Y, Z): p(X, Y) = 0.303586, p(X, Z) = 0.106462, p(Y, Z) = 0.891318. Ours with 200,000
/// trials must agree within 4 standard errors of the difference of two proportions.
#[test]
fn monte_carlo_agrees_with_the_independent_python_estimate() {
    let x: Vec<Vec<f64>> = (0..20).map(|t| vec![X[t], Y[t], Z[t]]).collect();
    let trials = 200_000;
    let r = randomized_tukey(&x, &names(3), 20.0, "topic", trials, 11, ties());
    assert_eq!(r.method, "monte-carlo");
    assert_eq!(r.family, 3);
    for (pair, want) in r.pairs.iter().zip([0.303586, 0.106462, 0.891318]) {
        let se = (want * (1.0 - want) * (1.0 / trials as f64 + 1.0 / 2e6)).sqrt();
        assert!(
            (pair.p - want).abs() < 4.0 * se,
            "{}-{}: {} vs {}",
            pair.system,
            pair.other,
            pair.p,
            want
        );
    }
    // Deterministic for a seed.
    assert_eq!(r, randomized_tukey(&x, &names(3), 20.0, "topic", trials, 11, ties()));
}

/// Above the exact limit the Monte-Carlo estimate approaches the exact share (computed here by
/// forcing the enumeration): k = 3 and n = 9 give 6^8 = 1,679,616 assignments.
#[test]
fn monte_carlo_approaches_the_exact_share() {
    let x: Vec<Vec<f64>> = (0..9)
        .map(|t| {
            vec![
                ((t * 7) % 10) as f64 / 10.0,
                ((t * 3 + 1) % 10) as f64 / 10.0,
                ((t * 5 + 2) % 10) as f64 / 10.0,
            ]
        })
        .collect();
    let (ints, _) = integer_units(&x.concat()).unwrap();
    let xi: Vec<Vec<i64>> = ints.chunks(3).map(<[i64]>::to_vec).collect();
    let total = 6u64.pow(8);
    let (_, exact_hits, _) = count(&xi, 0, Some(total), 0, 0);
    let trials = 40_000;
    let r = randomized_tukey(&x, &names(3), 9.0, "topic", trials, 3, ties());
    assert_eq!(r.method, "monte-carlo");
    for (pair, h) in r.pairs.iter().zip(exact_hits) {
        let p = h as f64 / total as f64;
        let se = (p * (1.0 - p) / trials as f64).sqrt().max(1.0 / trials as f64);
        assert!(
            (pair.p - p).abs() < 4.0 * se + 1.0 / trials as f64,
            "{} vs {}",
            pair.p,
            p
        );
    }
}

#[test]
fn result_does_not_depend_on_thread_count() {
    let x: Vec<Vec<f64>> = (0..40)
        .map(|t| (0..4).map(|s| ((t * 13 + s * 7) % 17) as f64 / 17.0).collect())
        .collect();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| randomized_tukey(&x, &names(4), 40.0, "topic", 3000, 9, ties()))
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn degenerate_inputs() {
    let r = randomized_tukey(&[], &names(3), 0.0, "topic", 100, 0, ties());
    assert!(r.flag.is_some() && r.pairs.iter().all(|p| p.p == 1.0));
    assert_eq!(r.pairs.len(), 3);
    let one = rows(&[&[0.3, 0.1, 0.9]]);
    let r = randomized_tukey(&one, &names(3), 1.0, "topic", 100, 0, ties());
    assert!(
        r.pairs.iter().all(|p| p.p == 1.0),
        "one unit: every assignment has the same range"
    );
    let r = randomized_tukey(&one, &names(1)[..], 1.0, "topic", 100, 0, ties());
    assert!(r.flag.is_some() && r.pairs.is_empty());
    assert_eq!(r.p_of("s0", "s1"), None);
}
