//! Tests of the protocol wiring. Oracle: tests/data/oracles/statistics.md.
use super::*;
use crate::protocol::{PowerMethod, Scale};

fn target(mde: f64, sd: Option<f64>, icc: Option<f64>, method: PowerMethod) -> Target {
    Target {
        metric: "accuracy".into(),
        scale: Scale::Fraction,
        mde,
        alpha: 0.05,
        power: 0.8,
        sides: 2,
        sd,
        sd_source: None,
        pilot: None,
        icc,
        method,
        lower_is_better: false,
    }
}

#[test]
fn normal_with_design_effect_matches_oracle() {
    let comps = Components::default(); // m = 4
    let r = required_components(&target(0.03, Some(0.5), Some(0.1), PowerMethod::Normal), &comps).unwrap();
    assert!((r.independent_n - 2180.244371).abs() < 5e-7);
    assert!((r.design_effect - 1.3).abs() < 1e-15);
    assert!((r.unrounded - 708.5794).abs() < 5e-5);
    assert_eq!(r.components, 709);
    assert_eq!(r.per_component, Some(4));
    let r0 = required_components(&target(0.03, Some(0.5), Some(0.0), PowerMethod::Normal), &comps).unwrap();
    assert!((r0.unrounded - 545.0611).abs() < 5e-5);
    assert_eq!(r0.components, 546);
    let r1 = required_components(&target(0.03, Some(0.5), Some(1.0), PowerMethod::Normal), &comps).unwrap();
    assert!((r1.unrounded - 2180.2444).abs() < 5e-5);
    assert_eq!(r1.components, 2181);
}

#[test]
fn t_method_without_clustering_matches_statsmodels() {
    // d = 0.1: σ = 0.3, δ = 0.03 → statsmodels solve_power 786.808940 → 787.
    let r = required_components(&target(0.03, Some(0.3), None, PowerMethod::T), &Components::default()).unwrap();
    assert!((r.unrounded - 786.808940).abs() < 1e-5, "{}", r.unrounded);
    assert_eq!(r.components, 787);
    assert_eq!(r.method, crate::protocol::PowerMethod::T);
    assert_eq!(r.design_effect, 1.0);
    assert_eq!(r.icc, None);
}

#[test]
fn raw_units_normal_match_oracle() {
    let r = required_components(
        &target(0.05, Some(0.2), None, PowerMethod::Normal),
        &Components::default(),
    )
    .unwrap();
    assert!((r.unrounded - 125.582076).abs() < 5e-7);
    assert_eq!(r.components, 126);
}

#[test]
fn missing_or_bad_sd_is_an_input_error() {
    let e = required_components(&target(0.03, None, None, PowerMethod::T), &Components::default()).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let e = required_components(&target(0.03, Some(-1.0), None, PowerMethod::T), &Components::default()).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let e = required_components(
        &target(0.03, Some(0.5), Some(1.2), PowerMethod::T),
        &Components::default(),
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn requirement_serializes_deterministically() {
    let r = required_components(
        &target(0.03, Some(0.5), Some(0.1), PowerMethod::Normal),
        &Components::default(),
    )
    .unwrap();
    let a = serde_json::to_string(&r).unwrap();
    assert_eq!(a, serde_json::to_string(&r.clone()).unwrap());
    assert!(a.starts_with("{\"components\":709,\"unrounded\":708.579"));
}
