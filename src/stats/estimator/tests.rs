use super::*;

/// Oracle: tests/data/oracles/estimators.md (sacrebleu 2.6.0, numpy 2.4.6, scipy 1.17.1).
const BLEU: [(&str, &str, f64); 4] = [
    (
        "A",
        include_str!("../../../tests/data/oracles/estimators/bleu-A.csv"),
        64.1100928114552,
    ),
    (
        "B",
        include_str!("../../../tests/data/oracles/estimators/bleu-B.csv"),
        27.878204818098094,
    ),
    (
        "C",
        include_str!("../../../tests/data/oracles/estimators/bleu-C.csv"),
        11.694660767539464,
    ),
    (
        "D",
        include_str!("../../../tests/data/oracles/estimators/bleu-D.csv"),
        0.0,
    ),
];
const F1_A: &str = include_str!("../../../tests/data/oracles/estimators/f1-A.csv");
const F1_B: &str = include_str!("../../../tests/data/oracles/estimators/f1-B.csv");
const FAST: [f64; 12] = [0.81, 1.20, 0.95, 3.40, 1.05, 0.88, 1.50, 0.99, 2.10, 1.12, 0.93, 1.31];
const SLOW: [f64; 12] = [1.10, 1.45, 1.30, 5.20, 1.25, 1.02, 2.05, 1.40, 2.90, 1.33, 1.21, 1.70];

/// The rows of a CSV with a header and a topic column: (columns, `[topic][column]`).
fn csv(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').skip(1).map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').skip(1).map(|x| x.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

fn data(systems: &[(&str, Vec<Vec<f64>>)], columns: Vec<String>) -> Data {
    let n = systems[0].1.len();
    Data {
        systems: systems.iter().map(|s| s.0.to_string()).collect(),
        topics: (1..=n).map(|i| format!("t{}", i)).collect(),
        columns,
        values: systems.iter().map(|s| s.1.clone()).collect(),
        units: (0..n).map(|i| vec![i]).collect(),
        unit: "topic".into(),
    }
}

fn spec(trials: usize) -> Spec {
    Spec {
        seed: 7,
        trials,
        level: 0.95,
        percentile: Percentile::Linear,
    }
}

fn micro_f1() -> Statistic {
    Statistic::Ratio {
        numerator: Combination::parse("2*tp").unwrap(),
        denominator: Combination::parse("2*tp + fp + fn").unwrap(),
    }
}

/// pledge's corpus BLEU from sacrebleu's per-sentence statistics equals sacrebleu's corpus
/// BLEU to 1e-9: with every precision, with exp smoothing of a 4-gram precision of 0 and a
/// brevity penalty (C), and with no 4-gram at all (D, 0).
#[test]
fn corpus_bleu_equals_sacrebleu() {
    for (name, text, want) in BLEU {
        let (cols, rows) = csv(text);
        assert_eq!(cols, BLEU_COLUMNS);
        let sums: Vec<f64> = (0..10).map(|c| rows.iter().map(|r| r[c]).sum()).collect();
        let got = corpus_bleu(&sums);
        assert!((got - want).abs() < 1e-9, "{}: {} vs sacrebleu {}", name, got, want);
        let d = data(&[(name, rows)], cols);
        let e = run(&Statistic::CorpusBleu, &d, &spec(200), &[]).unwrap();
        assert!((e.systems[0].estimate - want).abs() < 1e-9, "{}", name);
    }
}

/// Micro-F1 is Σ 2TP / Σ (2TP + FP + FN), not the mean of per-topic F1 (by hand: 30/43 and
/// 28/44); the difference is the difference of the two ratios, with its paired interval around it.
#[test]
fn micro_f1_is_the_ratio_of_sums() {
    let stat = micro_f1();
    let (cols, a) = csv(F1_A);
    let (_, b) = csv(F1_B);
    let d = data(&[("A", a), ("B", b)], cols);
    assert_eq!(stat.columns(), ["tp", "fp", "fn"]);
    let e = run(&stat, &d, &spec(2000), &[(0, 1)]).unwrap();
    assert_eq!(e.systems[0].estimate, 30.0 / 43.0);
    assert_eq!(e.systems[1].estimate, 28.0 / 44.0);
    let c = &e.comparisons[0];
    assert_eq!(c.bootstrap.observed, 30.0 / 43.0 - 28.0 / 44.0);
    assert!(c.bootstrap.interval[0] < c.bootstrap.observed && c.bootstrap.observed < c.bootstrap.interval[1]);
    for s in &e.systems {
        assert!(s.interval[0] <= s.estimate && s.estimate <= s.interval[1], "{:?}", s);
        assert!(s.interval[0] >= 0.0 && s.interval[1] <= 1.0);
    }
    assert_eq!(
        e.estimator,
        "corpus-level ratio Σ(2*tp) / Σ(2*tp + fp + fn) over the topics"
    );
    // Same seed, same numbers; another seed, other draws.
    assert_eq!(run(&stat, &d, &spec(2000), &[(0, 1)]).unwrap(), e);
    let other = run(&stat, &d, &Spec { seed: 8, ..spec(2000) }, &[(0, 1)]).unwrap();
    assert_ne!(other.comparisons[0].bootstrap.interval, c.bootstrap.interval);
}

/// Two identical systems differ by exactly 0 in every paired replicate: nothing to reverse.
#[test]
fn identical_systems_differ_by_zero_in_every_replicate() {
    let (cols, a) = csv(F1_A);
    let d = data(&[("A", a.clone()), ("A2", a)], cols);
    let e = run(&micro_f1(), &d, &spec(500), &[(0, 1)]).unwrap();
    let b = &e.comparisons[0].bootstrap;
    assert_eq!(
        (b.observed, b.interval, b.sd, b.reversal_rate),
        (0.0, [0.0, 0.0], 0.0, None)
    );
}

/// A ratio whose denominator sums to 0 is an error naming the system; replicates where it is 0
/// are counted and left out.
#[test]
fn an_undefined_ratio_is_named_and_undefined_replicates_are_counted() {
    let cols = vec!["tp".to_string(), "fp".into(), "fn".into()];
    let zero = vec![vec![0.0, 0.0, 0.0]; 3];
    let e = run(&micro_f1(), &data(&[("empty", zero)], cols.clone()), &spec(10), &[]).unwrap_err();
    assert!(e.contains("system `empty`"), "{}", e);
    // One topic of three has counts: a resample without it (8/27 of them) is undefined.
    let rows = vec![vec![1.0, 1.0, 0.0], vec![0.0; 3], vec![0.0; 3]];
    let e = run(&micro_f1(), &data(&[("A", rows)], cols), &spec(2000), &[]).unwrap();
    let s = &e.systems[0];
    assert_eq!(s.estimate, 2.0 / 3.0);
    let share = s.undefined as f64 / 2000.0;
    assert!((share - 8.0 / 27.0).abs() < 0.04, "{}", share);
    assert_eq!(s.interval, [2.0 / 3.0, 2.0 / 3.0]);
}

/// Quantile point estimates equal numpy.quantile (linear = Hyndman & Fan type 7, inverted_cdf =
/// type 1); the percentile interval of the median and the P90 is scipy.stats.bootstrap's up to
/// Monte-Carlo error (a different generator).
#[test]
fn quantiles_equal_numpy_and_their_intervals_scipy() {
    let rows = |v: &[f64]| v.iter().map(|&x| vec![x]).collect::<Vec<_>>();
    let d = data(&[("fast", rows(&FAST)), ("slow", rows(&SLOW))], vec!["score".into()]);
    let cases = [
        (0.5, Percentile::Linear, [1.085, 1.365]),
        (0.5, Percentile::InvertedCdf, [1.05, 1.33]),
        (0.9, Percentile::Linear, [2.0400000000000005, 2.8150000000000004]),
        (0.9, Percentile::InvertedCdf, [2.1, 2.9]),
    ];
    for (q, method, want) in cases {
        let e = run(&Statistic::Quantile { q, method }, &d, &spec(100), &[(1, 0)]).unwrap();
        assert_eq!(
            [e.systems[0].estimate, e.systems[1].estimate],
            want,
            "q {} {:?}",
            q,
            method
        );
        assert_eq!(e.comparisons[0].bootstrap.observed, want[1] - want[0]);
    }
    let scipy = [
        (0.5, [[0.94, 1.405], [1.23, 1.875]]),
        (0.9, [[1.192, 3.4], [1.4450000000000003, 5.2]]),
    ];
    for (q, want) in scipy {
        let stat = Statistic::Quantile {
            q,
            method: Percentile::Linear,
        };
        let e = run(&stat, &d, &spec(10_000), &[]).unwrap();
        for (s, w) in e.systems.iter().zip(want) {
            let tol = 0.05 * (w[1] - w[0]);
            assert!(
                (s.interval[0] - w[0]).abs() <= tol && (s.interval[1] - w[1]).abs() <= tol,
                "q {}: {:?} vs scipy {:?}",
                q,
                s.interval,
                w
            );
        }
    }
    let stat = Statistic::Quantile {
        q: 0.9,
        method: Percentile::Linear,
    };
    assert_eq!(
        stat.describe(),
        "P90 of the per-topic values (numpy quantile, method linear, Hyndman & Fan type 7)"
    );
    assert_eq!(quantile_name(0.5), "median");
    assert_eq!(quantile_name(0.975), "quantile 0.975");
}

/// Whole components are resampled: the estimate is the same, the unit count is the components'.
#[test]
fn components_are_resampled_whole() {
    let (cols, a) = csv(F1_A);
    let mut d = data(&[("A", a)], cols);
    d.units = vec![vec![0, 1, 2], vec![3], vec![4, 5]];
    d.unit = "component".into();
    let e = run(&micro_f1(), &d, &spec(300), &[]).unwrap();
    assert_eq!((e.units, e.topics, e.systems[0].estimate), (3, 6, 30.0 / 43.0));
    // With three units, a replicate draws 3 of them: its counts are sums of whole components.
    assert!(e.systems[0].interval[0] < e.systems[0].interval[1]);
}

#[test]
fn combinations_parse_and_refuse_bad_terms() {
    let c = Combination::parse("2*tp + fp+fn").unwrap();
    assert_eq!(
        c.terms,
        vec![(2.0, "tp".to_string()), (1.0, "fp".into()), (1.0, "fn".into())]
    );
    assert_eq!(c.text(), "2*tp + fp + fn");
    for bad in ["", "tp+", "x*tp", "-1*tp", "0*tp", "tp+tp", "2*"] {
        assert!(Combination::parse(bad).is_err(), "{}", bad);
    }
}
