//! Registered hypotheses of every kind: the protocol's `kind` and `margin`, their validation,
//! the registered analysis and the report's verdict lines. Values from
//! `tests/data/oracles/margins.md` (statsmodels `ttost_paired`, scipy `ttest_rel` shifted by the
//! margin, `DescrStatsW.tconfint_mean(alpha=0.10)`).

use crate::common::Env;
use crate::stats::{close, json, S_CSV};
use serde_json::Value;

/// A format-2 protocol over data set S (systems X, Y, Z; wide CSV) with `hypotheses` appended.
fn protocol(hypotheses: &str) -> String {
    format!(
        r#"schema-version = 2

[study]
id = "margins"
title = "Is X equivalent to Y, and Z not worse than Y?"
registered-by = "Test <t@example.org>"

[target]
metric = "score"
mde = 0.1
alpha = 0.05

[scores]
layout = "wide"

[analysis]
seed = 3
trials = 2000
randomization-trials = 2000
systems = ["X", "Y", "Z"]
{hypotheses}"#
    )
}

const TWO_KINDS: &str = r#"
[[hypotheses]]
name = "X equivalent to Y"
system = "X"
comparator = "Y"
kind = "equivalence"
margin = 0.2

[[hypotheses]]
name = "Z not worse than Y"
system = "Z"
comparator = "Y"
kind = "non-inferiority"
margin = 0.02
direction = "greater"
"#;

fn hypothesis<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["hypothesis"])
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no hypothesis {}", name))
}

#[test]
fn registered_equivalence_and_non_inferiority_are_answered_with_the_oracle_p_values() {
    let env = Env::init();
    env.write("p.toml", protocol(TWO_KINDS));
    env.write("s.csv", S_CSV);
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["analyze", "p.toml", "--scores", "s.csv", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["comparisons"].as_array().unwrap().len(), 2);

    // Equivalence X − Y within ±0.2: ttost_paired p 0.001128344353839071 (the upper test).
    let x = hypothesis(&v, "X equivalent to Y");
    assert_eq!(x["kind"], "equivalence");
    assert!(x.get("direction").is_none(), "equivalence has no direction");
    assert_eq!(x["sides"], 1);
    close(&x["p"], 0.001128344353839071, 1e-12);
    close(&x["margin_test"]["tests"][0]["t"], 7.757786158002712, 1e-9);
    close(&x["margin_test"]["tests"][1]["t"], -3.5262664354557782, 1e-9);
    let j = &x["judgement"];
    assert_eq!(j["verdict"], "supported");
    close(&j["level"], 0.9, 1e-12);
    close(&j["interval"][0], 0.013705255148357978, 1e-9);
    close(&j["interval"][1], 0.136294744851642, 1e-9);

    // Non-inferiority Z − Y > −0.02: ttest_rel(Y − 0.02, Z, 'less') p 0.5512437874888061.
    let z = hypothesis(&v, "Z not worse than Y");
    assert_eq!(
        (z["kind"].as_str(), z["direction"].as_str()),
        (Some("non-inferiority"), Some("greater"))
    );
    close(&z["p"], 0.5512437874888061, 1e-12);
    close(&z["margin_test"]["tests"][0]["bound"], -0.02, 1e-15);
    let j = &z["judgement"];
    assert_eq!(j["verdict"], "inconclusive", "{}", j);
    close(&j["interval"][0], -0.09123064575352487, 1e-9);
    close(&j["interval"][1], 0.04123064575352488, 1e-9);
    // Topics needed at the observed SD σ = 0.1712953743192089 (paired SE·√20 of Y − Z): the
    // one-sided t-test at d = M/σ, statsmodels `TTestPower` root 454.878951107272 → 455, what
    // `pledge power --kind non-inferiority --margin 0.02 --sd σ` says (margins.md, `needed`).
    close(&j["needed"]["sd"], 0.1712953743192089, 1e-12);
    assert_eq!(j["needed"]["units"].as_f64(), Some(455.0));

    // Holm over the two primary hypotheses: 2 × 0.001128… and max(0.5512…, that).
    close(&x["p_adjusted"], 2.0 * 0.001128344353839071, 1e-12);
    close(&z["p_adjusted"], 0.5512437874888061, 1e-12);
    assert_eq!(x["family_size"], 2);

    // The report's verdict card names each kind and margin, reads the 90% t interval, and says
    // what would decide the inconclusive one.
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    let card: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| X equivalent") || l.starts_with("| Z not worse"))
        .collect();
    assert_eq!(card.len(), 2, "{}", md);
    assert_eq!(
        card[0],
        "| X equivalent to Y (X − Y; equivalence, margin ±0.2000) | **supported** at α = 0.05 | +0.0750 [+0.0137, +0.1363] (90%) | 0.0023 (holm over 2 primary hypotheses) |"
    );
    assert!(
        card[1].starts_with("| Z not worse than Y (Z − Y; non-inferiority, margin 0.0200) | **inconclusive** at α = 0.05; the difference is not on the claimed side; about ")
            && card[1].contains("about 455 topics would decide it at the observed SD 0.1713 and power 0.8")
            && card[1].contains("| -0.0250 [-0.0912, +0.0412] (90%) |"),
        "{}",
        card[1]
    );
    assert!(
        md.contains("two one-sided paired t-tests (TOST) against ±0.2000")
            && md.contains("one-sided paired t-test against -0.0200"),
        "{}",
        md
    );
}

/// Each rule of `kind`, `margin`, `direction` and `sides`, with the whole error text of
/// `register` (exit 2, nothing written).
#[test]
fn hypothesis_kind_keys_are_validated_at_their_line() {
    let env = Env::init();
    let dir = env.path().display().to_string();
    let cases = [
        (
            "superiority with a margin",
            "kind = \"superiority\"\nmargin = 0.1\ndirection = \"greater\"",
        ),
        (
            "margin kind without margin",
            "kind = \"non-inferiority\"\ndirection = \"greater\"",
        ),
        (
            "margin out of range",
            "kind = \"superiority-by-margin\"\nmargin = 1.5\ndirection = \"greater\"",
        ),
        ("negative margin", "kind = \"equivalence\"\nmargin = -0.1"),
        (
            "equivalence with a direction",
            "kind = \"equivalence\"\nmargin = 0.1\ndirection = \"less\"",
        ),
        ("no direction", "kind = \"non-inferiority\"\nmargin = 0.1"),
        (
            "sides with a margin",
            "kind = \"non-inferiority\"\nmargin = 0.1\ndirection = \"less\"\nsides = 2",
        ),
        (
            "unknown kind",
            "kind = \"non-inferior\"\nmargin = 0.1\ndirection = \"less\"",
        ),
    ];
    let mut out = String::new();
    for (what, keys) in cases {
        let hyp = format!(
            "\n[[hypotheses]]\nname = \"h\"\nsystem = \"X\"\ncomparator = \"Y\"\n{}\n",
            keys
        );
        env.write("p.toml", protocol(&hyp));
        let r = env.run(&["register", "p.toml"]);
        assert_eq!(r.code, 2, "{}: {}", what, r.stderr);
        out.push_str(&format!("## {}\n{}\n", what, r.stderr.replace(&dir, ".").trim_end()));
    }
    // Tukey HSD tests differences of 0 only.
    let tukey = protocol(TWO_KINDS).replace("systems = [", "adjust = \"tukey-hsd\"\nsystems = [");
    env.write("p.toml", tukey);
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    out.push_str(&format!(
        "## tukey-hsd with a margin\n{}\n",
        r.stderr.replace(&dir, ".").trim_end()
    ));
    // Format 1 takes no hypotheses at all.
    env.write(
        "p.toml",
        protocol(TWO_KINDS)
            .replace("schema-version = 2", "schema-version = 1")
            .replace("[scores]\nlayout = \"wide\"\n", "")
            .replace("systems = [\"X\", \"Y\", \"Z\"]\n", ""),
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    out.push_str(&format!("## format 1\n{}\n", r.stderr.replace(&dir, ".").trim_end()));
    insta::assert_snapshot!("hypothesis_kind_errors", out);
}

/// `pledge power --kind`: the shifted one-sided t-test (statsmodels `TTestPower` with the
/// shifted effect) and the exact paired TOST power, values from `tests/data/oracles/margins.md`.
#[test]
fn power_sizes_each_margin_kind_by_its_oracle() {
    let env = Env::new();
    let run = |args: &[&str]| {
        let r = env.run(&[&["power", "--format", "json"][..], args].concat());
        assert_eq!(r.code, 0, "{:?}: {}", args, r.stderr);
        json(&r.stdout)
    };
    // Non-inferiority, margin 0.02, SD 0.1, true difference 0: d = 0.2, n 155.92567158568062
    // (the root to machine precision; statsmodels' solve_power stops at 155.92567158567618).
    let v = run(&["--kind", "non-inferiority", "--margin", "0.02", "--sd", "0.1"]);
    assert_eq!(v["mode"], "margin");
    let m = &v["margin"];
    close(&m["effect_size"], 0.2, 1e-12);
    close(&m["t"]["independent_n"], 155.92567158568062, 1e-7);
    assert_eq!(m["t"]["components"], 156);
    // The same at a true difference of −0.01 and margin 0.03.
    let v = run(&[
        "--kind",
        "non-inferiority",
        "--margin",
        "0.03",
        "--expected",
        "-0.01",
        "--sd",
        "0.1",
    ]);
    close(&v["margin"]["t"]["independent_n"], 155.92567158568073, 1e-7);
    // Superiority by a margin 0.02 at a true 0.05: d = 0.3, n 70.06790520007296; power at 50.
    let v = run(&[
        "--kind",
        "superiority-by-margin",
        "--margin",
        "0.02",
        "--expected",
        "0.05",
        "--sd",
        "0.1",
    ]);
    close(&v["margin"]["t"]["independent_n"], 70.06790520007296, 1e-7);
    let v = run(&[
        "--kind",
        "superiority-by-margin",
        "--margin",
        "0.02",
        "--expected",
        "0.05",
        "--sd",
        "0.1",
        "--n",
        "50",
    ]);
    close(&v["margin"]["at"]["power_t"], 0.6725739831252316, 1e-9);
    // Equivalence within ±0.05, SD 0.1: exact TOST n 35.65267690294304 (normal 34.25538940267192).
    let v = run(&["--kind", "equivalence", "--margin", "0.05", "--sd", "0.1"]);
    let m = &v["margin"];
    assert!(m["effect_size"].is_null());
    close(&m["t"]["independent_n"], 35.65267690294304, 1e-7);
    close(&m["normal"]["independent_n"], 34.25538940267192, 1e-9);
    assert_eq!(
        (m["t"]["components"].as_u64(), m["normal"]["components"].as_u64()),
        (Some(36), Some(35))
    );
    // Its power at 40 pairs and a true difference of 0.01: exact 0.7811065018149467.
    let v = run(&[
        "--kind",
        "equivalence",
        "--margin",
        "0.05",
        "--expected",
        "0.01",
        "--sd",
        "0.1",
        "--n",
        "40",
    ]);
    close(&v["margin"]["at"]["power_t"], 0.7811065018149467, 1e-9);
    close(&v["margin"]["at"]["power_normal"], 0.796130818663213, 1e-12);
    // The human answer names the method.
    let r = env.run(&["power", "--kind", "equivalence", "--margin", "0.05", "--sd", "0.1"]);
    assert!(
        r.stdout
            .contains("exact paired TOST power (integral over the sample SD): 36 components")
            && r.stdout.contains("Answer (method t): 36 components"),
        "{}",
        r.stdout
    );
    // Refusals: an expected difference no sample size can show, a side count, a missing margin.
    for (args, says) in [
        (
            &[
                "--kind",
                "equivalence",
                "--margin",
                "0.05",
                "--expected",
                "0.05",
                "--sd",
                "0.1",
            ][..],
            "within ±0.05",
        ),
        (
            &[
                "--kind",
                "non-inferiority",
                "--margin",
                "0.05",
                "--sd",
                "0.1",
                "--sides",
                "2",
            ][..],
            "--sides does not apply",
        ),
        (
            &["--kind", "non-inferiority", "--sd", "0.1"][..],
            "needs --sd S and --margin M",
        ),
        (
            &[
                "--kind",
                "non-inferiority",
                "--margin",
                "0.05",
                "--sd",
                "0.1",
                "--mde",
                "0.1",
            ][..],
            "do not give --mde",
        ),
    ] {
        let r = env.run(&[&["power"][..], args].concat());
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stdout);
        assert!(r.stderr.contains(says), "{:?}: {}", args, r.stderr);
    }
}

/// Twelve identical systems S01..S12 and X, 40 topics of 0/1 scores: X disagrees with them on
/// 32 topics (20 the others answer alone, 12 X answers alone), as in `statistics.md`'s example.
fn twelve_and_one() -> String {
    let names: Vec<String> = (1..=12).map(|i| format!("S{:02}", i)).collect();
    let mut csv = format!("topic,X,{}\n", names.join(","));
    for t in 0..40 {
        let (x, s) = match t {
            0..=19 => (0, 1),
            20..=31 => (1, 0),
            _ => (0, 0),
        };
        csv.push_str(&format!("t{:02},{}{}\n", t, x, format!(",{}", s).repeat(12)));
    }
    csv
}

/// The Tukey-adjusted p can be below the pair's own randomization p: compare and the report say
/// so in one line and leave the numbers as they are.
#[test]
fn a_tukey_p_below_the_pairwise_p_is_explained() {
    let env = Env::init();
    env.write("s.csv", twelve_and_one());
    let args = [
        "compare",
        "--scores",
        "s.csv",
        "--baseline",
        "S01",
        "--adjust",
        "tukey-hsd",
        "--seed",
        "0",
    ];
    let v = json(&env.run(&[&args[..], &["--format", "json"]].concat()).stdout);
    let x = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["system"] == "X")
        .unwrap();
    let (tukey, own) = (
        x["p_adjusted"]["p"].as_f64().unwrap(),
        x["randomization"]["p"].as_f64().unwrap(),
    );
    assert!(tukey < own, "{} vs {}", tukey, own);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let warning = format!(
        "warning: the Tukey-adjusted p of X − S01 ({:.4}) is below its unadjusted randomization p ({:.4}): the randomized Tukey HSD tests whether all systems perform alike, not the pair alone (why: docs/explanation/statistics.md, \"Effect size, Tukey HSD and topic filters\"; adjust = holm gives a per-pair guarantee)",
        tukey, own
    );
    assert!(r.stdout.contains(&warning), "{}\n{}", warning, r.stdout);
    // Holm on the pairwise p-values: no warning.
    let holm = env.run(&["compare", "--scores", "s.csv", "--baseline", "S01", "--seed", "0"]);
    assert!(!holm.stdout.contains("warning: the Tukey"), "{}", holm.stdout);

    // The report of the same analysis, registered.
    env.write(
        "p.toml",
        r#"schema-version = 2
[study]
id = "tukey"
title = "Twelve alike and one"
registered-by = "Test <t@example.org>"
[target]
metric = "accuracy"
mde = 0.1
[scores]
layout = "wide"
[analysis]
seed = 0
baseline = "S01"
adjust = "tukey-hsd"
"#,
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let a = env.run(&["analyze", "p.toml", "--scores", "s.csv", "--format", "json"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(
        md.contains("> **Note:** the Tukey-adjusted p of X − S01 (")
            && md.contains("Effect size, Tukey HSD and topic filters"),
        "{}",
        md
    );
}

/// `pledge power PROTOCOL` sizes the registered primary hypothesis with its kind and margin
/// (statsmodels `TTestPower` at the shifted effect, the exact TOST power), the numbers of
/// `pledge power --kind` (tests/data/oracles/margins.md): non-inferiority margin 0.02 at σ 0.1 →
/// 156 (root 155.92567158568062); superiority by the margin 0.02 with target.mde 0.03 beyond it
/// (Δ₀ = 0.05) → 71 (root 70.06790520007296); equivalence within ±0.05 → 36 (exact TOST root
/// 35.65267690294304; normal 35). A `"from-target"` split's requirement is the same number, and
/// the verdict's units needed at σ 0.1712953743192089 is what `power --kind` says there (455).
#[test]
fn power_from_a_protocol_sizes_the_registered_margin_kind() {
    let env = Env::init();
    let with = |kind: &str, margin: f64| {
        let direction = if kind == "equivalence" {
            ""
        } else {
            "direction = \"greater\"\n"
        };
        protocol(&format!(
            "\n[[hypotheses]]\nname = \"h\"\nsystem = \"X\"\ncomparator = \"Y\"\nkind = \"{}\"\nmargin = {}\n{}",
            kind, margin, direction
        ))
        .replace("mde = 0.1\n", "mde = 0.03\nsd = 0.1\n")
    };
    for (kind, margin, root, t, normal) in [
        ("non-inferiority", 0.02, 155.92567158568062, 156, None),
        ("superiority-by-margin", 0.02, 70.06790520007296, 71, None),
        ("equivalence", 0.05, 35.65267690294304, 36, Some(35)),
    ] {
        env.write("p.toml", with(kind, margin));
        let r = env.run(&["power", "p.toml", "--format", "json"]);
        assert_eq!(r.code, 0, "{}: {}", kind, r.stderr);
        let v = json(&r.stdout);
        assert_eq!(v["mode"], "margin", "{}", r.stdout);
        let m = &v["margin"];
        assert_eq!(m["kind"], kind);
        close(&m["t"]["independent_n"], root, 1e-7);
        assert_eq!(m["t"]["components"].as_u64(), Some(t), "{}", kind);
        if let Some(n) = normal {
            assert_eq!(m["normal"]["components"].as_u64(), Some(n));
        }
        let human = env.run(&["power", "p.toml"]);
        assert!(
            human.stdout.contains(&format!("Answer (method t): {} components", t)),
            "{}",
            human.stdout
        );
    }
    // The superiority-by-margin sizing assumes Δ₀ = margin + target.mde.
    env.write("p.toml", with("superiority-by-margin", 0.02));
    let v = json(&env.run(&["power", "p.toml", "--format", "json"]).stdout);
    close(&v["margin"]["expected"], 0.05, 1e-15);
    // What an inconclusive verdict says it needs is what `power --kind` says at that SD.
    let r = env.run(&[
        "power",
        "--kind",
        "non-inferiority",
        "--margin",
        "0.02",
        "--sd",
        "0.1712953743192089",
        "--format",
        "json",
    ]);
    close(&json(&r.stdout)["margin"]["t"]["independent_n"], 454.878951107272, 1e-6);
    assert_eq!(json(&r.stdout)["margin"]["t"]["components"].as_u64(), Some(455));
    // Sizing options come from the protocol: combining them is refused.
    let r = env.run(&["power", "p.toml", "--sd", "0.2"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    // A protocol without target.sd or target.pilot has nothing to size.
    env.write("p.toml", protocol(TWO_KINDS));
    let r = env.run(&["power", "p.toml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("has no sd"), "{}", r.stderr);
}
