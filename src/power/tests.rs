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
        samples_per_topic: None,
        sd_within: None,
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

/// A format-2 protocol: σ 0.1, target δ 0.03, `extra` in `[target]`, `hypotheses` appended.
fn protocol(extra: &str, hypotheses: &str) -> crate::protocol::Protocol {
    toml::from_str(&format!(
        "schema-version = 2\n[study]\nid = \"s\"\ntitle = \"t\"\nregistered-by = \"r\"\n\
         [target]\nmetric = \"score\"\nmde = 0.03\nsd = 0.1\n{}\n{}",
        extra, hypotheses
    ))
    .unwrap()
}

fn hypothesis(kind: &str, margin: f64) -> String {
    format!(
        "[[hypotheses]]\nname = \"h\"\nsystem = \"A\"\ncomparator = \"B\"\nkind = \"{}\"\nmargin = {}\n",
        kind, margin
    )
}

/// The protocol's requirement for each margin kind is the exact root of `power --kind`
/// (tests/data/oracles/margins.md): non-inferiority M 0.02 at σ 0.1 → 156 (155.92567158568062);
/// superiority by M 0.02 with target.mde 0.03 beyond it (Δ₀ 0.05) → 71 (70.06790520007296);
/// equivalence ±0.05 → 36 (35.65267690294304), normal 35; K = 3 samples (σ_topic 0.3,
/// σ_within 0.4) with margin 0.1 → 90 (89.98501073013877); superiority with K as
/// tests/data/oracles/samples-power.md's K = 3 row at δ 0.1 → 115. An inconclusive verdict at
/// the same σ asks for the same number.
#[test]
fn a_protocol_is_sized_with_its_registered_kind_margin_and_k() {
    for (kind, margin, root, n) in [
        ("non-inferiority", 0.02, 155.92567158568062, 156),
        ("superiority-by-margin", 0.02, 70.06790520007296, 71),
        ("equivalence", 0.05, 35.65267690294304, 36),
    ] {
        let p = protocol("", &hypothesis(kind, margin));
        let r = required_by_protocol(&p).unwrap();
        assert!((r.independent_n - root).abs() < 1e-7, "{}: {}", kind, r.independent_n);
        assert_eq!((r.components, r.sides, r.margin), (n, 1, Some(margin)), "{}", kind);
        assert_eq!(r.kind.map(|k| k.to_string()), Some(kind.to_string()));
        // The verdict's units needed at the same σ, inconclusive.
        let h = &p.hypotheses[0];
        let j = crate::stats::verdict::judge(&crate::stats::verdict::Case {
            kind: h.kind,
            direction: h.direction,
            margin: h.margin,
            target: Some(p.target.mde),
            expected: 0.0,
            rejected: false,
            interval: [-0.03, 0.06],
            level: 0.9,
            interval_method: String::new(),
            alpha: 0.05,
            power: 0.8,
            sides: 1,
            sd: Some(0.1),
            unit: "component".into(),
        });
        assert_eq!(j.needed.map(|n| n.units), Some(n), "{}: {}", kind, j.reason);
    }
    let mut p = protocol("", &hypothesis("equivalence", 0.05));
    p.target.method = PowerMethod::Normal;
    assert_eq!(required_by_protocol(&p).unwrap().components, 35);
    let k = "samples-per-topic = 3\nsd-within = 0.4\n";
    let mut p = protocol(k, &hypothesis("non-inferiority", 0.1));
    p.target.sd = Some(0.3);
    let r = required_by_protocol(&p).unwrap();
    assert!((r.sd - 0.37859388972001823).abs() < 1e-15);
    assert!((r.independent_n - 89.98501073013877).abs() < 1e-6);
    assert_eq!((r.components, r.samples_per_topic), (90, Some(3)));
    let mut p = protocol(k, "");
    p.target.sd = Some(0.3);
    p.target.mde = 0.1;
    let r = required_by_protocol(&p).unwrap();
    assert_eq!((r.components, r.kind, r.sd_within), (115, None, Some(0.4)));
    // A superiority hypothesis keeps the target's sizing.
    let p = protocol(
        "",
        "[[hypotheses]]\nname = \"h\"\nsystem = \"A\"\ncomparator = \"B\"\ndirection = \"greater\"\n",
    );
    assert_eq!(
        required_by_protocol(&p).unwrap(),
        required_components(&p.target, &p.components).unwrap()
    );
}
