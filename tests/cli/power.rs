//! Integration tests: `pledge power`. Oracle values: tests/data/oracles/statistics.md ("Power and
//! sample size"; statsmodels 0.15.0 TTestPower, scipy 1.17.1), asserted to the digits given.

use crate::common::Env;
use serde_json::Value;

fn json(env: &Env, args: &[&str]) -> Value {
    let mut a = vec!["power"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--format", "json"]);
    let r = env.run(&a);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {}", e, r.stdout))
}

fn num(v: &Value, path: &str) -> f64 {
    let mut cur = v;
    for k in path.split('.') {
        cur = &cur[k];
    }
    cur.as_f64().unwrap_or_else(|| panic!("{} missing in {}", path, v))
}

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got:.12}, want {want:.12}");
}

/// Runs `pledge power ARGS` expecting exit 2 and an error naming `needle`.
fn bad(env: &Env, args: &[&str], needle: &str) {
    let mut a = vec!["power"];
    a.extend_from_slice(args);
    let r = env.run(&a);
    assert_eq!(r.code, 2, "args {:?}: stdout {} stderr {}", args, r.stdout, r.stderr);
    assert!(
        r.stderr.contains(needle),
        "args {:?}: stderr {:?} lacks {:?}",
        args,
        r.stderr,
        needle
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn components_needed_t_and_normal_match_statsmodels() {
    let env = Env::new();
    // d = 0.1 (σ = 0.3, δ = 0.03): t 786.808940 (787), normal 784.887973 (785).
    let v = json(&env, &["--sd", "0.3", "--mde", "0.03"]);
    assert_eq!(v["mode"], "required");
    assert_eq!(v["method"], "t");
    assert_eq!(v["scale"], "fraction");
    close(num(&v, "requirements.t.unrounded"), 786.808940, 1e-5); // statsmodels xtol 1e-5
    assert_eq!(v["requirements"]["t"]["components"], 787);
    close(num(&v, "requirements.normal.unrounded"), 784.887973, 5e-6);
    assert_eq!(v["requirements"]["normal"]["components"], 785);
    // α = .01, d = 0.5: t 50.064694 (51), normal 46.715873 (47).
    let v = json(&env, &["--sd", "0.2", "--mde", "0.1", "--alpha", "0.01"]);
    close(num(&v, "requirements.t.unrounded"), 50.064694, 1e-5);
    assert_eq!(v["requirements"]["t"]["components"], 51);
    close(num(&v, "requirements.normal.unrounded"), 46.715873, 5e-6);
    // power .90, d = 0.2: 264.613685 (265) / 262.685577 (263).
    let v = json(&env, &["--sd", "0.25", "--mde", "0.05", "--power", "0.9"]);
    close(num(&v, "requirements.t.unrounded"), 264.613685, 1e-5);
    assert_eq!(v["requirements"]["normal"]["components"], 263);
}

#[test]
fn a_tiny_alpha_gives_the_sample_size_not_an_infeasible_error() {
    let env = Env::new();
    // d = 0.5 at α = 1e-8 and 1e-16, power 0.8, two-sided. Oracle: scipy 1.17.1 brentq on the
    // power nct.sf(c, n − 1, d√n) + nct.sf(c, n − 1, −d√n), c = t.isf(α/2, n − 1) (as
    // src/power/paired.rs); normal ((norm.isf(α/2) + norm.ppf(0.8))/d)².
    let v = json(&env, &["--sd", "0.2", "--mde", "0.1", "--alpha", "1e-8"]);
    close(num(&v, "requirements.t.unrounded"), 188.8960347360413, 1e-7);
    assert_eq!(v["requirements"]["t"]["components"], 189);
    close(num(&v, "requirements.normal.unrounded"), 172.78314, 1e-5);
    let v = json(&env, &["--sd", "0.2", "--mde", "0.1", "--alpha", "1e-16"]);
    close(num(&v, "requirements.t.unrounded"), 368.2458313219743, 1e-7);
    assert_eq!(v["requirements"]["t"]["components"], 369);
    // (8.304785425194112 + 0.8416212335729143)/0.5 squared: 1 − 5e-17 is 1 in f64.
    close(num(&v, "requirements.normal.unrounded"), 334.6270190701514, 1e-8);
    // The detectable difference at those counts and the power at δ are finite too.
    let v = json(&env, &["--sd", "0.2", "--n", "369", "--mde", "0.1", "--alpha", "1e-16"]);
    let d = num(&v, "detectable.mde_t");
    assert!(d > 0.099 && d < 0.1, "{v}");
    let p = num(&v, "detectable.at_mde.power_t");
    assert!(p > 0.8 && p < 0.81, "{v}");
}

#[test]
fn human_output_states_units_and_both_methods() {
    let env = Env::new();
    let r = env.run(&["power", "--sd", "0.5", "--mde", "0.03", "--method", "normal"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("fraction (0-1 scale)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("2181 components (unrounded 2180.244371"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Answer (method normal): 2181"), "{}", r.stdout);
    // Same in points: σ = 50, δ = 3 points.
    let r = env.run(&[
        "power", "--sd", "50", "--mde", "3", "--scale", "points", "--method", "normal",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("difference of 3 points"), "{}", r.stdout);
    assert!(r.stdout.contains("Answer (method normal): 2181"), "{}", r.stdout);
}

#[test]
fn design_effect_matches_oracle() {
    let env = Env::new();
    let base = [
        "--sd",
        "0.5",
        "--mde",
        "0.03",
        "--per-component",
        "4",
        "--method",
        "normal",
    ];
    for (icc, unrounded, comps) in [("0", 545.0611, 546), ("0.1", 708.5794, 709), ("1", 2180.2444, 2181)] {
        let mut a = base.to_vec();
        a.extend_from_slice(&["--icc", icc]);
        let v = json(&env, &a);
        close(num(&v, "requirements.normal.unrounded"), unrounded, 5e-5);
        assert_eq!(v["requirements"]["normal"]["components"], comps);
        close(num(&v, "requirements.normal.independent_n"), 2180.244371, 5e-7);
    }
    let v = json(&env, &["--sd", "0.5", "--mde", "0.03", "-m", "4", "--icc", "0.1"]);
    close(num(&v, "requirements.t.design_effect"), 1.3, 1e-12);
}

#[test]
fn detectable_difference_and_power_match_oracle() {
    let env = Env::new();
    let v = json(&env, &["--sd", "0.2", "--n", "50", "--mde", "0.06"]);
    assert_eq!(v["mode"], "detectable");
    close(num(&v, "detectable.mde_normal"), 0.0792407962, 1e-10);
    close(num(&v, "detectable.mde_t"), 0.2 * 0.4041829997377859, 1e-9);
    close(num(&v, "detectable.at_mde.power_t"), 0.5476570390, 1e-10);
    let v = json(&env, &["--sd", "0.3", "--n", "261", "--mde", "0.06"]);
    close(num(&v, "detectable.mde_normal"), 0.0520241315, 1e-10);
    close(num(&v, "detectable.at_mde.power_t"), 0.8960169454, 1e-10);
    let r = env.run(&["power", "--sd", "0.2", "--n", "50", "--mde", "0.06"]);
    assert!(
        r.stdout
            .contains("Power at a difference of 0.06 (d = 0.300000): t-test 0.547657"),
        "{}",
        r.stdout
    );
}

#[test]
fn discordant_shares_match_oracle() {
    let env = Env::new();
    let v = json(
        &env,
        &["--discordant", "0.10,0.07", "--mde", "0.03", "--method", "normal"],
    );
    assert_eq!(v["mode"], "discordant");
    close(num(&v, "discordant.variance"), 0.1691, 1e-12);
    close(num(&v, "requirements.normal.unrounded"), 1474.717292, 5e-7);
    assert_eq!(v["requirements"]["normal"]["components"], 1475);
    // Without --mde the difference is p10 − p01 = 0.03: same answer.
    let w = json(&env, &["--discordant", "0.10,0.07", "--method", "normal"]);
    assert_eq!(w["requirements"]["normal"]["components"], 1475);
    // Points: δ = 3 points, same count.
    let p = json(&env, &["--discordant", "0.10,0.07", "--mde", "3", "--scale", "points"]);
    assert_eq!(p["requirements"]["normal"]["components"], 1475);
}

#[test]
fn bad_input_is_a_clear_error() {
    let env = Env::new();
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--alpha", "0"],
        "alpha must be in (0, 1)",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--alpha", "1.5"],
        "alpha must be in (0, 1)",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--power", "1"],
        "power must be in (0, 1)",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--power", "-0.2"],
        "power must be in (0, 1)",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--power", "0.04"],
        "not above alpha",
    );
    bad(&env, &["--sd", "0.5", "--mde", "0"], "must be a finite positive number");
    bad(
        &env,
        &["--sd", "0.5", "--mde", "-0.03", "--sides", "1"],
        "must be a finite positive number",
    );
    bad(
        &env,
        &["--sd", "0", "--mde", "0.03"],
        "SD of the paired difference must be a finite positive number, got 0",
    );
    bad(
        &env,
        &["--sd", "-1", "--mde", "0.03"],
        "must be a finite positive number",
    );
    bad(
        &env,
        &["--sd", "nan", "--mde", "0.03"],
        "must be a finite positive number",
    );
    bad(&env, &["--sd", "5", "--mde", "0.03"], "--scale points");
    bad(&env, &["--sd", "0.5", "--mde", "0.03", "--sides", "3"], "sides");
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "-m", "0", "--icc", "0.1"],
        "at least 1",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "-m", "4", "--icc", "1.2"],
        "[0, 1]",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "-m", "4", "--icc", "-0.1"],
        "[0, 1]",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "-m", "4"],
        "--per-component needs --icc",
    );
    bad(
        &env,
        &["--sd", "0.5", "--mde", "0.03", "--icc", "0.1"],
        "--icc needs --per-component",
    );
    bad(
        &env,
        &["--discordant", "-0.1,0.07", "--mde", "0.03"],
        "must be in [0, 1]",
    );
    bad(&env, &["--discordant", "0.6,0.5", "--mde", "0.03"], "exceed 1");
    bad(&env, &["--discordant", "0.1", "--mde", "0.03"], "two shares");
    bad(&env, &["--discordant", "0.05,0.07"], "must be a finite positive number");
    bad(&env, &["--sd", "1", "--mde", "1e-9"], "no feasible sample size");
    bad(&env, &["--sd", "0.2", "--n", "1"], "at least 2");
    bad(&env, &["--sd", "0.5"], "--mde");
    bad(&env, &[], "nothing to compute");
    // An infinite value alone is named as what it is, not as "nothing to compute".
    bad(
        &env,
        &["--mde", "inf"],
        "error: the minimum detectable difference must be a finite positive number, got inf",
    );
    bad(
        &env,
        &["--sd", "inf", "--mde", "0.1"],
        "error: the SD of the paired difference must be a finite positive number, got inf",
    );
}

const PILOT: &str = "topic,system,score
q01,A,1\nq02,A,1\nq03,A,1\nq04,A,1\nq05,A,0\nq06,A,1\nq07,A,0\nq08,A,0\nq09,A,0\nq10,A,1\nq11,A,1\nq12,A,1
q01,B,0\nq02,B,0\nq03,B,1\nq04,B,0\nq05,B,0\nq06,B,1\nq07,B,1\nq08,B,0\nq09,B,0\nq10,B,0\nq11,B,1\nq12,B,0
";

const ASSIGN: &str = "question,component,unit,split,counted
q01,c1,c1,,\nq02,c1,c1,,\nq03,c1,c1,,\nq04,c1,c1,,\nq05,c1,c1,,\nq06,c2,c2,,\nq07,c2,c2,,
q08,c3,c3,,\nq09,c3,c3,,\nq10,c3,c3,,\nq11,c4,c4,,\nq12,c4,c4,,
";

/// Depends on `crate::scores::read` (long CSV `topic,system,score`), written on another branch.
#[test]
fn pilot_estimates_sd_and_icc() {
    let env = Env::new();
    env.write("pilot.csv", PILOT);
    env.write("assign.csv", ASSIGN);
    let v = json(
        &env,
        &[
            "--pilot",
            "pilot.csv",
            "--components",
            "assign.csv",
            "--mde",
            "0.5",
            "-m",
            "4",
        ],
    );
    assert_eq!(v["mode"], "pilot");
    // The clustered example of the oracle file; SDs and ρ by the documented formulas (numpy).
    close(num(&v, "pilot.sd_question"), 0.6513389472789296, 1e-12);
    close(num(&v, "pilot.sd_component"), 0.501109879279097, 1e-12);
    close(num(&v, "pilot.icc.estimate"), 0.19226519337016565, 1e-12);
    assert_eq!(v["pilot"]["components"], 4);
    close(num(&v, "clustered.t.icc"), 0.19226519337016565, 1e-12);
    assert!(v["requirements"]["t"]["components"].as_u64().unwrap() >= 2);
}

#[test]
fn pilot_errors_name_the_problem() {
    let env = Env::new();
    env.write("assign.csv", ASSIGN);
    bad(&env, &["--pilot", "missing.csv"], "missing.csv");
    bad(&env, &["--components", "assign.csv"], "--pilot");
    bad(&env, &["--pilot", "missing.csv", "--sd", "0.2"], "do not combine");
}

/// Sakai's ANOVA design through the CLI. Oracle: tests/data/oracles/anova-power.md
/// (statsmodels FTestAnovaPower, k = 3, D = 0.1, σ² = 0.05: n = 97.35243869829488, ceil 98).
#[test]
fn k_systems_gives_the_anova_topic_set_size() {
    let env = Env::new();
    let sd = 0.05f64.sqrt().to_string();
    let r = env.run(&[
        "power",
        "--k-systems",
        "3",
        "--sd",
        &sd,
        "--mde",
        "0.1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["mode"], "anova");
    assert_eq!(v["anova"]["topics"], 98);
    assert!((v["anova"]["unrounded"].as_f64().unwrap() - 97.35243869829488).abs() < 1e-4);
    let bad = env.run(&["power", "--k-systems", "3", "--sd", &sd]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--k-systems needs --sd"), "{}", bad.stderr);
}

/// A detectable difference beyond the scale is said so.
#[test]
fn a_detectable_difference_beyond_the_scale_is_warned() {
    let env = Env::new();
    let r = env.run(&["power", "--sd", "0.5", "--n", "2"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("warning: the detectable difference"), "{}", r.stdout);
    assert!(r.stdout.contains("exceeds 1"), "{}", r.stdout);
}
