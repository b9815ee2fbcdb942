//! Oracle: tests/data/oracles/anova-power.md (statsmodels 0.15.0 `FTestAnovaPower`, scipy 1.17.1;
//! the script is in that file's PROVENANCE section).
use super::*;

fn spec(systems: u32, min_range: f64, variance: f64, alpha: f64, power: f64) -> AnovaSpec {
    AnovaSpec {
        systems,
        min_range,
        variance,
        alpha,
        power,
    }
}

/// (k, D, σ², α, power, statsmodels solve_power nobs / k, ceil, power at ceil, power at ceil − 1)
type Row = (u32, f64, f64, f64, f64, f64, u64, f64, f64);
const STATSMODELS: [Row; 7] = [
    (
        2,
        0.1,
        0.05,
        0.05,
        0.8,
        79.46046742621678,
        80,
        0.8026805117999476,
        0.7976876938123874,
    ),
    (
        3,
        0.1,
        0.05,
        0.05,
        0.8,
        97.35243869829488,
        98,
        0.8028092370917222,
        0.7984571860833212,
    ),
    (
        5,
        0.05,
        0.02,
        0.05,
        0.8,
        191.91571728215365,
        192,
        0.8001983687658627,
        0.797834580648617,
    ),
    (
        10,
        0.1,
        0.03,
        0.05,
        0.8,
        94.74780999791888,
        95,
        0.8012996388358943,
        0.7961077452046031,
    ),
    (
        10,
        0.1,
        0.03,
        0.01,
        0.9,
        157.8214802454428,
        158,
        0.9004681650464487,
        0.8978218570848229,
    ),
    (
        20,
        0.05,
        0.0381,
        0.05,
        0.8,
        627.2817699937518,
        628,
        0.8005935276098286,
        0.7997667940809934,
    ),
    (
        4,
        0.2,
        0.1,
        0.05,
        0.7,
        44.950024466017446,
        45,
        0.7005491725874592,
        0.6894195264796714,
    ),
];

#[test]
fn topic_set_sizes_match_statsmodels() {
    for (k, d, var, a, pw, n_real, n, p_at, p_below) in STATSMODELS {
        let r = topics_for_systems(&spec(k, d, var, a, pw), Scale::Fraction).unwrap();
        assert_eq!(r.topics, n, "k = {k}");
        // statsmodels' solver stops at about 1e-6 of n (its exact roots are below).
        assert!(
            (r.unrounded - n_real).abs() < 1e-5 * n_real,
            "{} vs {}",
            r.unrounded,
            n_real
        );
        assert!(
            (r.achieved_power - p_at).abs() < 1e-10,
            "{} vs {}",
            r.achieved_power,
            p_at
        );
        assert!((r.power_below.unwrap() - p_below).abs() < 1e-10);
        assert!((r.effect_size_f - d / (2.0 * f64::from(k) * var).sqrt()).abs() < 1e-15);
        assert_eq!(
            (r.df_between, r.df_within),
            (f64::from(k) - 1.0, f64::from(k) * (n as f64 - 1.0))
        );
    }
}

/// scipy `brentq(xtol=1e-12, rtol=1e-15)` on statsmodels' own power function.
#[test]
fn real_valued_roots_match_exact_statsmodels_roots() {
    for (k, d, var, a, pw, root) in [
        (2, 0.1, 0.05, 0.05, 0.8, 79.46046770641387),
        (3, 0.1, 0.05, 0.05, 0.8, 97.35243866106636),
        (10, 0.1, 0.03, 0.05, 0.8, 94.7478099979189),
        (4, 0.2, 0.1, 0.05, 0.7, 44.95002463105591),
    ] {
        let r = topics_for_systems(&spec(k, d, var, a, pw), Scale::Fraction).unwrap();
        assert!((r.unrounded - root).abs() < 1e-8 * root, "{} vs {}", r.unrounded, root);
    }
}

/// With two systems the one-way ANOVA is the two-sample t test (F = t²): statsmodels
/// `TTestIndPower().solve_power(effect_size=D/σ, alpha=0.05, power=0.8)` = 79.46046705275211
/// per group (its solver tolerance again).
#[test]
fn two_systems_equal_the_two_sample_t_test() {
    let r = topics_for_systems(&spec(2, 0.1, 0.05, 0.05, 0.8), Scale::Fraction).unwrap();
    assert!((r.unrounded - 79.46046705275211).abs() < 1e-5);
}

#[test]
fn points_scale_gives_the_same_topics() {
    let a = topics_for_systems(&spec(10, 0.1, 0.03, 0.05, 0.8), Scale::Fraction).unwrap();
    let b = topics_for_systems(&spec(10, 10.0, 300.0, 0.05, 0.8), Scale::Points).unwrap();
    assert_eq!(a.topics, b.topics);
    assert!((a.delta - b.delta).abs() < 1e-12);
}

#[test]
fn huge_effects_need_two_topics_and_bad_input_is_an_error() {
    let r = topics_for_systems(&spec(3, 0.9, 0.0001, 0.05, 0.8), Scale::Fraction).unwrap();
    assert_eq!((r.topics, r.unrounded, r.power_below), (2, 2.0, None));
    assert!(r.achieved_power >= 0.8);
    for (s, scale, msg) in [
        (spec(1, 0.1, 0.03, 0.05, 0.8), Scale::Fraction, "at least 2"),
        (
            spec(3, 0.0, 0.03, 0.05, 0.8),
            Scale::Fraction,
            "must be a finite positive number",
        ),
        (spec(3, 1.5, 0.03, 0.05, 0.8), Scale::Fraction, "exceeds 1"),
        (spec(3, 0.1, 0.0, 0.05, 0.8), Scale::Fraction, "variance must be > 0"),
        (
            spec(3, 0.1, f64::NAN, 0.05, 0.8),
            Scale::Fraction,
            "variance must be > 0",
        ),
        (spec(3, 0.1, 2.0, 0.05, 0.8), Scale::Fraction, "exceeds 1"),
        (spec(3, 0.1, 0.03, 0.05, 0.04), Scale::Fraction, "not above alpha"),
        (
            spec(3, 1e-7, 0.2, 0.05, 0.8),
            Scale::Fraction,
            "no feasible topic set size",
        ),
    ] {
        let e = topics_for_systems(&s, scale).unwrap_err();
        assert!(e.message.contains(msg), "{}", e.message);
        assert_eq!(e.exit_code(), 2);
    }
    assert!(anova_power(1, 10.0, 0.1, 0.05).is_nan());
    assert!(anova_power(3, 1.0, 0.1, 0.05).is_nan());
}
