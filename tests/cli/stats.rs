//! Integration tests of `compare`'s statistics beyond one mean difference: per-system intervals,
//! the per-pair detail. Values from `tests/data/oracles/system-intervals.md`.

use crate::common::Env;
use serde_json::Value;

/// Data set S of `tests/data/oracles/statistics.md` as a wide CSV (topics t00..t19).
pub const S_CSV: &str = "topic,X,Y,Z
t00,0.70,0.50,0.00
t01,0.30,0.10,0.00
t02,0.20,0.00,0.20
t03,0.60,0.20,0.10
t04,0.40,0.40,0.30
t05,0.40,0.30,0.30
t06,0.00,0.00,0.10
t07,0.70,0.50,0.20
t08,0.10,0.30,0.40
t09,0.30,0.30,0.40
t10,0.50,0.40,0.40
t11,0.40,0.40,0.30
t12,0.00,0.10,0.30
t13,0.60,0.40,0.20
t14,0.50,0.20,0.20
t15,0.30,0.10,0.20
t16,0.10,0.10,0.10
t17,0.50,0.60,0.50
t18,0.20,0.30,0.40
t19,0.10,0.20,0.30
";

/// The clustered-questions example of `statistics.md` (A, B: 0/1 over 12 questions).
pub const AB_CSV: &str = "topic,A,B
q00,1,0
q01,1,0
q02,1,1
q03,1,0
q04,0,0
q05,1,1
q06,0,1
q07,0,0
q08,0,0
q09,1,0
q10,1,1
q11,1,0
";

/// Its components c1×5, c2×2, c3×3, c4×2, every question counted (no cap applies).
pub const AB_COMPONENTS: &str = "question,component,unit,split,counted
q00,c1,q00,,1
q01,c1,q01,,1
q02,c1,q02,,1
q03,c1,q03,,1
q04,c1,q04,,1
q05,c2,q05,,1
q06,c2,q06,,1
q07,c3,q07,,1
q08,c3,q08,,1
q09,c3,q09,,1
q10,c4,q10,,1
q11,c4,q11,,1
";

pub fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, s))
}

#[track_caller]
pub fn close(v: &Value, want: f64, tol: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {}", v));
    assert!((got - want).abs() < tol, "{} vs {}", got, want);
}

fn system<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()
}

#[test]
fn compare_gives_each_system_its_interval_with_the_method_named() {
    let env = Env::new();
    env.write("s.csv", S_CSV);
    let r = env.run(&["compare", "--scores", "s.csv", "--baseline", "Y", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let x = &system(&v, "X")["interval"];
    close(&x["estimate"], 0.345, 1e-12);
    close(&x["se"], 0.04945758416642433, 1e-12);
    close(&x["interval"][0], 0.24148408666675036, 1e-9);
    close(&x["interval"][1], 0.4485159133332496, 1e-9);
    assert_eq!(x["method"], "Student t over topics (df = n − 1)");
    // scipy.stats.bootstrap percentile, 1,000,000 resamples: [0.25, 0.44].
    close(&x["bootstrap"][0], 0.25, 0.01);
    close(&x["bootstrap"][1], 0.44, 0.01);
    assert!(x["bootstrap_method"].as_str().unwrap().contains("B = 10000"));
    // X − Y: 10 wins, 5 ties, 5 losses; r 0.7015; paired SE 0.0354 < unpaired 0.0626.
    let d = &v["comparisons"][0]["detail"];
    assert_eq!(
        (d["wins"].as_u64(), d["ties"].as_u64(), d["losses"].as_u64()),
        (Some(10), Some(5), Some(5))
    );
    close(&d["correlation"], 0.7014796950278718, 1e-12);
    close(&d["paired_se"], 0.035448257324844905, 1e-12);
    close(&d["unpaired_se"], 0.06264982043070834, 1e-12);
    assert!(d.get("mcnemar").is_none(), "not 0/1 scores");
    let h = env.run(&["compare", "--scores", "s.csv", "--baseline", "Y"]);
    assert!(
        h.stdout
            .contains("X         0.3450    0.0495      [0.2415, 0.4485]  t, 19 df"),
        "{}",
        h.stdout
    );
    assert!(
        h.stdout.contains("10 wins, 5 ties, 5 losses; correlation r = 0.7015"),
        "{}",
        h.stdout
    );
}

#[test]
fn zero_one_scores_get_wilson_and_mcnemar_and_components_get_crv1() {
    let env = Env::new();
    env.write("ab.csv", AB_CSV);
    env.write("comp.csv", AB_COMPONENTS);
    let r = env.run(&["compare", "--scores", "ab.csv", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let a = &system(&v, "A")["interval"];
    close(&a["wilson"][0], 0.39062208887279953, 1e-12);
    close(&a["wilson"][1], 0.8618799089087867, 1e-12);
    let m = &v["comparisons"][0]["detail"]["mcnemar"];
    assert_eq!((m["b"].as_u64(), m["c"].as_u64()), (Some(5), Some(1)));
    close(&m["exact_p"], 0.21875, 1e-12);
    close(&m["mid_p"], 0.125, 1e-12);
    // 12 topics: the randomization test is exact, and equal to McNemar's exact p.
    close(&v["comparisons"][0]["randomization"]["p"], 0.21875, 1e-12);
    let h = env.run(&["compare", "--scores", "ab.csv"]);
    assert!(
        h.stdout
            .contains("exact p = 0.2188, mid-p = 0.1250 (the exact randomization test above is McNemar's exact test)"),
        "{}",
        h.stdout
    );
    // With the components: CRV1 on G − 1 = 3 df (statsmodels OLS cov_type='cluster', use_t).
    let r = env.run(&[
        "compare",
        "--scores",
        "ab.csv",
        "--components",
        "comp.csv",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let a = &system(&v, "A")["interval"];
    close(&a["se"], 0.13608276348795437, 1e-12);
    close(&a["interval"][0], 0.2335905787916298, 1e-9);
    close(&a["interval"][1], 1.0997427545417038, 1e-9);
    assert_eq!((a["df"].as_u64(), a["unit"].as_str()), (Some(3), Some("component")));
    assert!(a.get("wilson").is_none(), "Wilson assumes independent questions");
}

fn comparison<'a>(v: &'a Value, system: &str) -> &'a Value {
    v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["system"] == system)
        .unwrap()
}

/// Values from `tests/data/oracles/margins.md` (statsmodels `ttost_paired`, scipy `ttest_rel`
/// shifted by the margin, `DescrStatsW.tconfint_mean(alpha=0.10)`).
#[test]
fn compare_tests_equivalence_and_non_inferiority_with_three_valued_verdicts() {
    let env = Env::new();
    env.write("s.csv", S_CSV);
    let args = ["compare", "--scores", "s.csv", "--baseline", "Y", "--format", "json"];
    let r = env.run(&[&args[..], &["--kind", "equivalence", "--margin", "0.2"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let h = &comparison(&v, "X")["hypothesis"];
    assert_eq!(h["kind"], "equivalence");
    assert!(h.get("direction").is_none(), "equivalence has no direction");
    close(&h["p"], 0.001128344353839071, 1e-12);
    let m = &h["margin_test"];
    close(&m["tests"][0]["t"], 7.757786158002712, 1e-9);
    close(&m["tests"][1]["t"], -3.5262664354557782, 1e-9);
    close(&m["t_interval"][0], 0.013705255148357978, 1e-9);
    close(&m["t_interval"][1], 0.136294744851642, 1e-9);
    assert_eq!(h["judgement"]["verdict"], "supported");
    // Z − Y is Y − Z mirrored: the TOST p is the same (0.00010487288788099326).
    close(&comparison(&v, "Z")["hypothesis"]["p"], 0.00010487288788099326, 1e-12);

    let r = env.run(&[&args[..], &["--kind", "non-inferiority", "--margin", "0.02"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let x = &comparison(&v, "X")["hypothesis"];
    close(&x["p"], 0.007407702948556244, 1e-12);
    assert_eq!(x["judgement"]["verdict"], "supported");
    // Z − Y + 0.02 > 0 is ttest_rel(Y − 0.02, Z, 'less'): p 0.5512437874888061; its 90% interval
    // [-0.0912, 0.0412] holds both a shortfall beyond 0.02 and none: inconclusive.
    let z = &comparison(&v, "Z")["hypothesis"];
    close(&z["p"], 0.5512437874888061, 1e-12);
    let j = &z["judgement"];
    assert_eq!(j["verdict"], "inconclusive", "{}", j);
    close(&j["interval"][0], -0.09123064575352487, 1e-9);
    close(&j["interval"][1], 0.04123064575352488, 1e-9);
    // Topics needed at the observed SD σ = 0.1712953743192089 (paired SE·√20 of Y − Z): the
    // one-sided t-test at d = M/σ, statsmodels `TTestPower` root 454.878951107272 → 455, what
    // `pledge power --kind non-inferiority --margin 0.02 --sd σ` says (margins.md, `needed`).
    close(&j["needed"]["sd"], 0.1712953743192089, 1e-12);
    assert_eq!(j["needed"]["units"].as_f64(), Some(455.0));
    let h = env.run(&[
        "compare",
        "--scores",
        "s.csv",
        "--baseline",
        "Y",
        "--kind",
        "non-inferiority",
        "--margin",
        "0.02",
    ]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    assert!(
        h.stdout.contains("INCONCLUSIVE") && h.stdout.contains("verdict: inconclusive"),
        "{}",
        h.stdout
    );
}

#[test]
fn compare_refuses_a_margin_that_does_not_apply() {
    let env = Env::new();
    env.write("s.csv", S_CSV);
    let base = ["compare", "--scores", "s.csv", "--baseline", "Y"];
    for (extra, says) in [
        (
            &["--kind", "superiority", "--margin", "0.1"][..],
            "--margin does not apply to --kind superiority",
        ),
        (
            &["--kind", "non-inferiority"][..],
            "--kind non-inferiority needs --margin M",
        ),
        (
            &["--kind", "equivalence", "--margin", "0.1", "--direction", "less"][..],
            "--direction",
        ),
        (
            &["--kind", "equivalence", "--margin", "0.1", "--adjust", "tukey-hsd"][..],
            "Tukey HSD",
        ),
        (&["--margin", "0.1"][..], "--kind"),
    ] {
        let r = env.run(&[&base[..], extra].concat());
        assert_eq!(r.code, 2, "{:?}: {}", extra, r.stdout);
        assert!(r.stderr.contains(says), "{:?}: {}", extra, r.stderr);
    }
}
