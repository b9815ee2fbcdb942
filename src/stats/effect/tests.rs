//! Oracle: tests/data/oracles/effect-size.md (scipy 1.17.1 `nct.cdf` inverted with `brentq`, the
//! method of MBESS `conf.limits.nct`; the script is in that file's PROVENANCE section).
use super::*;

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

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got:.15}, want {want:.15}");
}

#[test]
fn data_set_s_matches_scipy() {
    // (a, b, level, d_z, lower, upper)
    let cases = [
        (
            &X,
            &Y,
            0.95,
            0.4730982873872994,
            0.004520718396817342,
            0.930573463068955,
        ),
        (
            &X,
            &Y,
            0.90,
            0.4730982873872994,
            0.07871111348119668,
            0.8558797375861079,
        ),
        (
            &X,
            &Z,
            0.95,
            0.36074504334969004,
            -0.09650194775250576,
            0.8091492971193703,
        ),
        (
            &X,
            &Z,
            0.90,
            0.36074504334969004,
            -0.023816246854243613,
            0.7362302557119046,
        ),
        (
            &Y,
            &Z,
            0.95,
            0.14594673148273402,
            -0.2966178463886239,
            0.5847383286246148,
        ),
        (
            &Y,
            &Z,
            0.90,
            0.14594673148273402,
            -0.22577662285099795,
            0.5138807879713065,
        ),
        (
            &Z,
            &X,
            0.95,
            -0.36074504334969004,
            -0.8091492971193703,
            0.09650194775250572,
        ),
        (
            &Z,
            &X,
            0.90,
            -0.36074504334969004,
            -0.7362302557119043,
            0.02381624685424377,
        ),
    ];
    for (a, b, level, est, lo, hi) in cases {
        let e = d_z(&diff(a, b), "topic", level);
        close(e.estimate.unwrap(), est, 1e-12);
        let [l, u] = e.ci.unwrap();
        close(l, lo, 1e-9);
        close(u, hi, 1e-9);
        assert!(l < est && est < u);
    }
}

#[test]
fn nct_limits_match_scipy() {
    let cases = [
        (2.0, 9.0, 0.95, -0.20585473927130685, 4.116210097162432),
        (-3.5, 4.0, 0.95, -6.474667538059621, -0.3811284423189195),
        (0.0, 30.0, 0.99, -2.575829303548902, 2.575829303548901),
        (12.0, 99.0, 0.95, 9.40742204523113, 14.556319102311571),
        (1.0, 1.0, 0.95, -1.4173811872739224, 3.1663737857186405),
    ];
    for (t, df, level, lo, hi) in cases {
        let [l, u] = nct_interval(t, df, level).unwrap();
        close(l, lo, 1e-8);
        close(u, hi, 1e-8);
    }
}

#[test]
fn undefined_cases_are_flagged() {
    let e = d_z(&[0.1, 0.1, 0.1], "topic", 0.95);
    assert!(e.estimate.is_none() && e.ci.is_none());
    assert!(e.flag.unwrap().contains("SD 0"));
    let e = d_z(&[0.2], "component", 0.95);
    assert!(e.flag.unwrap().contains("fewer than 2"));
    assert!(nct_interval(1.0, 5.0, 1.0).is_none());
    assert!(nct_interval(f64::NAN, 5.0, 0.95).is_none());
    assert!(nct_interval(1.0, 0.0, 0.95).is_none());
}

#[test]
fn is_unitless() {
    let d = diff(&X, &Y);
    let points: Vec<f64> = d.iter().map(|x| x * 100.0).collect();
    let (a, b) = (d_z(&d, "topic", 0.95), d_z(&points, "topic", 0.95));
    close(a.estimate.unwrap(), b.estimate.unwrap(), 1e-12);
    close(a.ci.unwrap()[0], b.ci.unwrap()[0], 1e-10);
}
