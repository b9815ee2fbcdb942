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
