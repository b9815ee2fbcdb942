//! The two-level bootstrap and the variance split against tests/data/oracles/two-level-bootstrap.md
//! (exact enumeration of every two-level resample; the split by hand with numpy).

use super::*;
use crate::scores::Sample;

fn p(x: &[f64]) -> Cell {
    Cell::Paired(x.to_vec())
}

fn cases() -> Vec<(&'static str, Vec<Cell>)> {
    vec![
        ("system", vec![p(&[1.0, 0.0]), p(&[1.0, 1.0]), p(&[0.0, 0.5])]),
        (
            "paired-difference",
            vec![p(&[1.0, 0.0]), p(&[1.0, 1.0]), p(&[-1.0, 0.0])],
        ),
        (
            "unpaired-difference",
            vec![
                Cell::Unpaired(vec![1.0, 0.0], vec![0.0, 1.0, 1.0]),
                Cell::Unpaired(vec![1.0, 1.0], vec![0.0, 0.5]),
            ],
        ),
    ]
}

/// The oracle's exact mean and variance (fractions 7/12 and 43/864, 1/3 and 17/108, 7/24 and
/// 281/1728).
const EXACT: [(f64, f64); 3] = [
    (7.0 / 12.0, 43.0 / 864.0),
    (1.0 / 3.0, 17.0 / 108.0),
    (7.0 / 24.0, 281.0 / 1728.0),
];

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{}: {} vs {}", what, a, b);
}

#[test]
fn the_exact_moments_equal_the_enumeration() {
    for ((name, cells), (m, v)) in cases().iter().zip(EXACT) {
        let (em, ev) = exact_moments(cells);
        close(em, m, 1e-15, name);
        close(ev, v, 1e-15, name);
    }
}

/// 200,000 trials: the bootstrap's mean within 4 Monte-Carlo SEs of the exact mean, its
/// variance within 2% of the exact variance (the SE of a variance estimate is about
/// Var·√(2/B) = 0.3% of it).
#[test]
fn the_two_level_bootstrap_draws_the_enumerated_distribution() {
    let b = 200_000;
    for ((name, cells), (m, v)) in cases().iter().zip(EXACT) {
        let d = two_level(cells, b, 7, 0);
        let mean = d.iter().sum::<f64>() / b as f64;
        let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / b as f64;
        close(mean, m, 4.0 * (v / b as f64).sqrt(), name);
        close(var, v, 0.02 * v, name);
        // Deterministic from the seed; another seed draws otherwise.
        assert_eq!(d, two_level(cells, b, 7, 0), "{}", name);
        assert_ne!(d, two_level(cells, b, 8, 0), "{}", name);
    }
}

#[test]
fn the_variance_split_equals_the_hand_computation() {
    // The oracle's values: (K, σ²_topic, σ²_within, SE, share, SE with 2K, SE unlimited).
    let want = [
        (
            2.0,
            0.041666666666666644,
            0.20833333333333334,
            0.2204792759220492,
            0.7142857142857144,
            0.17677669529663687,
            0.11785113019775789,
        ),
        (
            2.0,
            0.41666666666666663,
            0.3333333333333333,
            0.4409585518440984,
            0.28571428571428575,
            0.408248290463863,
            0.3726779962499649,
        ),
        (
            2.2622950819672134,
            0.2083333333333333,
            0.4791666666666667,
            0.4583333333333333,
            0.5041322314049588,
            0.39638119980084263,
            0.32274861218395134,
        ),
    ];
    for ((name, cells), w) in cases().iter().zip(want) {
        let s = variance_split(cells).unwrap();
        assert_eq!(s.topics, cells.len());
        let got = [
            s.samples_per_topic,
            s.between,
            s.within,
            s.se,
            s.within_share,
            s.se_double_samples,
            s.se_unlimited_samples,
        ];
        let want = [w.0, w.1, w.2, w.3, w.4, w.5, w.6];
        for (g, x) in got.iter().zip(want) {
            close(*g, x, 1e-12, name);
        }
    }
    // By hand for the one system: topic means 0.5, 1, 0.25 (s²_m = 0.145833), within variances
    // 0.5, 0, 0.125 (mean 0.208333): σ²_w / K = 0.104167 is 5/7 of s²_m.
    let s = variance_split(&cases()[0].1).unwrap();
    close(s.within_share, 5.0 / 7.0, 1e-15, "share");
    close(s.se_with(2.0), s.se, 1e-15, "se at K");
    // One topic, or no topic with two samples: no split.
    assert!(variance_split(&[p(&[1.0, 0.0])]).is_none());
    assert!(variance_split(&[p(&[1.0]), p(&[0.0])]).is_none());
}

#[test]
fn samples_pair_by_key_only_when_both_systems_have_the_same_keys() {
    let s = |v: &[(&str, f64)]| -> Vec<Sample> {
        v.iter()
            .map(|(k, x)| Sample {
                key: k.to_string(),
                value: *x,
            })
            .collect()
    };
    let a = s(&[("1", 1.0), ("2", 0.0)]);
    assert_eq!(
        difference_cells(&a, &s(&[("2", 1.0), ("1", 0.25)])),
        Some(Cell::Paired(vec![0.75, -1.0]))
    );
    assert_eq!(
        difference_cells(&a, &s(&[("1", 0.0), ("3", 1.0)])),
        Some(Cell::Unpaired(vec![1.0, 0.0], vec![0.0, 1.0]))
    );
    assert_eq!(difference_cells(&a, &[]), None);
}
