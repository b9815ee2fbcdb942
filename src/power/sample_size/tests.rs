//! Oracle: tests/data/oracles/statistics.md ("Power and sample size"), statsmodels 0.15.0.
use super::*;

fn design() -> Design {
    Design::new(0.05, 0.8, 2).unwrap()
}

#[test]
fn discordant_shares_match_oracle() {
    let d = discordant(0.10, 0.07).unwrap();
    assert!((d.variance - 0.1691).abs() < 1e-15);
    assert!((d.expected_difference - 0.03).abs() < 1e-15);
    let spec = Spec {
        sd: d.sd,
        mde: 0.03,
        design: design(),
        clustering: None,
    };
    let r = requirement(&spec, PowerMethod::Normal).unwrap();
    assert!((r.unrounded - 1474.717292).abs() < 5e-7, "{}", r.unrounded);
    assert_eq!(r.components, 1475);
}

#[test]
fn discordant_shares_rejected() {
    assert!(discordant(-0.1, 0.2).is_err());
    assert!(discordant(0.7, 0.5).unwrap_err().message.contains("exceed 1"));
    assert!(discordant(0.0, 0.0).unwrap_err().message.contains("zero variance"));
    assert!(discordant(1.0, 0.0).is_err());
    assert!(discordant(f64::NAN, 0.1).is_err());
}

#[test]
fn raw_units_normal() {
    let spec = Spec {
        sd: 0.5,
        mde: 0.03,
        design: design(),
        clustering: None,
    };
    let r = requirement(&spec, PowerMethod::Normal).unwrap();
    assert!((r.unrounded - 2180.244371).abs() < 5e-7);
    assert_eq!(r.components, 2181);
    assert_eq!(r.effective_n, 2181.0);
}

#[test]
fn t_requirement_with_clustering_scales_n_iid() {
    let spec = Spec {
        sd: 0.3,
        mde: 0.06, // d = 0.2 → statsmodels 198.150821
        design: design(),
        clustering: Some(Clustering {
            per_component: 4,
            icc: 0.1,
        }),
    };
    let r = requirement(&spec, PowerMethod::T).unwrap();
    assert!((r.independent_n - 198.150821).abs() < 5e-6);
    assert!((r.unrounded - 198.150821 * 1.3 / 4.0).abs() < 5e-6);
    assert_eq!(r.components, 65);
    assert!((r.effective_n - 65.0 * 4.0 / 1.3).abs() < 1e-9);
}

#[test]
fn detectable_matches_oracle() {
    let r = detectable_on_scale(Scale::Fraction, 0.2, 50, design(), None, Some(0.06)).unwrap();
    assert!((r.mde_normal - 0.0792407962).abs() < 1e-10);
    // statsmodels solve_power(nobs=50, power=0.8) = 0.4041829997377859 (effect size).
    assert!((r.mde_t - 0.2 * 0.4041829997377859).abs() < 1e-9);
    let at = r.at_mde.unwrap();
    assert!((at.effect_size - 0.3).abs() < 1e-15);
    assert!((at.power_t - 0.5476570390).abs() < 1e-10);
    let r = detectable_on_scale(Scale::Fraction, 0.3, 261, design(), None, None).unwrap();
    assert!((r.mde_normal - 0.0520241315).abs() < 1e-10);
}

/// Before, `power --n 2` printed a detectable difference of several units on a 0–1 scale without
/// a word. statsmodels 0.15.0 `TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8)`: n = 2 →
/// d = 11.549889754978167; n = 3 → 3.264043552819638; n = 5 → 1.6819970833232674 (its solver
/// stops early: scipy 1.17.1 `brentq(xtol=1e-14)` on statsmodels' own `power` gives
/// 3.264043549699573 and 1.6819969659555545; at n = 2 scipy's `nct` is NaN near the root, and
/// statsmodels' power at 11.54988 / 11.5499 is 0.79999967 / 0.80000045, so the root is
/// 11.5498884, ours to 1e-6).
#[test]
fn detectable_beyond_the_scale_warns() {
    let r = detectable_on_scale(Scale::Fraction, 0.5, 2, design(), None, None).unwrap();
    assert!((r.mde_t / 0.5 - 11.5498884).abs() < 1e-6, "{}", r.mde_t);
    assert_eq!(
        r.warnings.len(),
        1,
        "normal: (1.96 + 0.84)·0.5/√2 < 1: {:?}",
        r.warnings
    );
    assert_eq!(
        r.warnings[0],
        "the detectable difference 5.7749 (paired t-test) exceeds 1, the largest difference on the fraction (0-1) \
         scale: with 2 components no difference the metric can show is detected with power 0.8"
    );
    let r = detectable_on_scale(Scale::Fraction, 0.8, 2, design(), None, None).unwrap();
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings[1].contains("(normal approximation) exceeds 1"));
    let r = detectable_on_scale(Scale::Fraction, 0.45, 3, design(), None, None).unwrap();
    assert!((r.mde_t - 0.45 * 3.264043549699573).abs() < 1e-9);
    assert_eq!(
        r.warnings.len(),
        1,
        "the normal approximation ({}) is within the scale",
        r.mde_normal
    );
    let r = detectable_on_scale(Scale::Points, 45.0, 3, design(), None, None).unwrap();
    assert!(r.warnings[0].contains("exceeds 100, the largest difference on the points (0-100) scale"));
    let r = detectable_on_scale(Scale::Fraction, 0.3, 5, design(), None, None).unwrap();
    assert!((r.mde_t - 0.3 * 1.6819969659555545).abs() < 1e-9);
    assert!(r.warnings.is_empty());
    // On the points scale the same SD in points is far from the bound: no warning.
    let a = detectable_on_scale(Scale::Points, 0.5, 2, design(), None, None).unwrap();
    assert!(a.warnings.is_empty());
}

#[test]
fn detectable_with_clustering_uses_effective_n() {
    let c = Clustering {
        per_component: 4,
        icc: 1.0,
    };
    // ρ = 1: four questions are worth one; equals the unclustered answer.
    let a = detectable_on_scale(Scale::Fraction, 0.2, 50, design(), Some(c), None).unwrap();
    let b = detectable_on_scale(Scale::Fraction, 0.2, 50, design(), None, None).unwrap();
    assert!((a.mde_normal - b.mde_normal).abs() < 1e-15);
    assert_eq!(a.effective_n, 50.0);
    assert!(detectable_on_scale(Scale::Fraction, 0.2, 1, design(), None, None).is_err());
}

#[test]
fn infeasible_requirement_is_an_error() {
    let spec = Spec {
        sd: 1.0,
        mde: 1e-9,
        design: design(),
        clustering: None,
    };
    assert_eq!(requirement(&spec, PowerMethod::Normal).unwrap_err().exit_code(), 2);
    assert_eq!(requirement(&spec, PowerMethod::T).unwrap_err().exit_code(), 2);
}

#[test]
fn ceil_ignores_float_noise() {
    assert_eq!(ceil_count(545.0000000000001), 545);
    assert_eq!(ceil_count(545.0611), 546);
}
