//! `pledge compare --estimator ratio | corpus-bleu | quantile` against the oracles of
//! tests/data/oracles/estimators.md (sacrebleu 2.6.0, numpy 2.4.6, scipy 1.17.1; micro-F1 by hand).

use crate::common::Env;
use serde_json::Value;

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{}: {}", e, s))
}

fn env_with(files: &[&str]) -> Env {
    let env = Env::new();
    for f in files {
        env.copy_from_repo(&format!("tests/data/oracles/estimators/{}", f), f);
    }
    env
}

fn estimate(v: &Value, system: &str) -> f64 {
    let s = v["systems"].as_array().unwrap().iter().find(|s| s["name"] == system);
    s.unwrap_or_else(|| panic!("no system {}: {}", system, v))["estimate"]
        .as_f64()
        .unwrap()
}

/// pledge's corpus BLEU from sacrebleu's per-sentence statistics equals sacrebleu's corpus BLEU
/// to 1e-9 for every system (with exp smoothing: C; with no 4-gram at all: D).
#[test]
fn corpus_bleu_from_counts_equals_sacrebleu() {
    let files = ["bleu-A.csv", "bleu-B.csv", "bleu-C.csv", "bleu-D.csv"];
    let env = env_with(&files);
    let mut args = vec![
        "compare",
        "--estimator",
        "corpus-bleu",
        "--scale",
        "points",
        "--trials",
        "300",
    ];
    for f in files {
        args.extend(["--scores", f]);
    }
    args.extend(["--baseline", "bleu-B", "--format", "json"]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    for (s, want) in [
        ("bleu-A", 64.1100928114552),
        ("bleu-B", 27.878204818098094),
        ("bleu-C", 11.694660767539464),
        ("bleu-D", 0.0),
    ] {
        assert!((estimate(&v, s) - want).abs() < 1e-9, "{}: {}", s, estimate(&v, s));
    }
    assert_eq!(v["estimator_kind"], "corpus-bleu");
    assert_eq!(v["scale"], "points");
    let c = &v["comparisons"][0];
    assert_eq!(
        (&c["system"], &c["baseline"]),
        (&Value::from("bleu-A"), &Value::from("bleu-B"))
    );
    let d = c["bootstrap"]["observed"].as_f64().unwrap();
    assert!((d - (64.1100928114552 - 27.878204818098094)).abs() < 1e-9);
    assert_eq!(v["comparisons"].as_array().unwrap().len(), 3);
}

/// Micro-F1 is Σ 2TP / Σ (2TP + FP + FN) (by hand: 30/43 and 28/44), printed with the estimator
/// and the method on every line.
#[test]
fn micro_f1_is_resampled_as_a_ratio_and_named_beside_each_number() {
    let env = env_with(&["f1-A.csv", "f1-B.csv"]);
    let base = [
        "compare",
        "--scores",
        "f1-A.csv",
        "--scores",
        "f1-B.csv",
        "--estimator",
        "ratio",
        "--numerator",
        "2*tp",
        "--denominator",
        "2*tp+fp+fn",
        "--trials",
        "1000",
    ];
    let r = env.run(&[&base[..], &["--format", "json"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(estimate(&v, "f1-A"), 30.0 / 43.0);
    assert_eq!(estimate(&v, "f1-B"), 28.0 / 44.0);
    assert_eq!(v["comparisons"][0]["bootstrap"]["observed"], 30.0 / 43.0 - 28.0 / 44.0);
    assert_eq!(v["rng"]["seed"], 0);
    let r = env.run(&base);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = &r.stdout;
    assert!(
        out.starts_with("estimator: ratio (corpus-level ratio Σ(2*tp) / Σ(2*tp + fp + fn) over the topics)\n"),
        "{}",
        out
    );
    assert!(
        out.contains("6 topics resampled with replacement; B = 1000 bootstrap trials, seed 0"),
        "{}",
        out
    );
    let a = out.lines().find(|l| l.trim_start().starts_with("f1-A ")).unwrap();
    assert!(
        a.contains("0.697674  95% interval [")
            && a.contains("(ratio: bootstrap percentile interval, 6 topics resampled, B = 1000, numpy linear)"),
        "{}",
        a
    );
    let d = out
        .lines()
        .find(|l| l.contains("f1-A − f1-B: +0.061311  95% interval ["))
        .unwrap_or_else(|| panic!("{}", out));
    assert!(
        d.contains("reversal rate ") && d.contains("(ratio difference: paired bootstrap percentile interval"),
        "{}",
        d
    );
    assert!(!out.contains("t-test") && !out.contains("mean"), "{}", out);
    // Same seed, same bytes.
    assert_eq!(env.run(&base).stdout, r.stdout);
}

/// The median and the P90 of a latency table equal numpy's (type 7 by default, type 1 with
/// --percentile inverted_cdf), on the unbounded scale.
#[test]
fn quantiles_of_latencies_equal_numpy() {
    let env = env_with(&["latency.csv"]);
    let base = [
        "compare",
        "--scores",
        "latency.csv",
        "--estimator",
        "quantile",
        "--scale",
        "unbounded",
        "--baseline",
        "fast",
    ];
    for (q, pct, fast, slow) in [
        ("0.5", "linear", 1.085, 1.365),
        ("0.9", "linear", 2.0400000000000005, 2.8150000000000004),
        ("0.9", "inverted-cdf", 2.1, 2.9),
    ] {
        let r = env.run(
            &[
                &base[..],
                &[
                    "--quantile",
                    q,
                    "--percentile",
                    pct,
                    "--trials",
                    "300",
                    "--format",
                    "json",
                ],
            ]
            .concat(),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v = json(&r.stdout);
        assert_eq!(
            (estimate(&v, "fast"), estimate(&v, "slow")),
            (fast, slow),
            "q {} {}",
            q,
            pct
        );
        assert_eq!(v["comparisons"][0]["system"], "slow");
    }
    let r = env.run(&[&base[..], &["--quantile", "0.9", "--trials", "300"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "estimator: quantile (P90 of the per-topic values (numpy quantile, method linear, Hyndman & Fan type 7))"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("slow − fast: +0.775000"), "{}", r.stdout);
    assert!(
        r.stdout.contains("scale unbounded (the values' own unit)") && !r.stdout.contains("fraction"),
        "{}",
        r.stdout
    );
}

/// With an assignment, whole components are resampled (the estimate does not change).
#[test]
fn components_are_resampled_whole() {
    let env = env_with(&["f1-A.csv", "f1-B.csv"]);
    env.write(
        "assign.csv",
        "question,component,unit,split,counted\nt1,c1,t1,,\nt2,c1,t2,,\nt3,c1,t3,,\nt4,c2,t4,,\nt5,c3,t5,,\nt6,c3,t6,,\n",
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "f1-A.csv",
        "--scores",
        "f1-B.csv",
        "--estimator",
        "ratio",
        "--numerator",
        "2*tp",
        "--denominator",
        "2*tp+fp+fn",
        "--components",
        "assign.csv",
        "--trials",
        "200",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(
        (v["unit"].as_str(), v["units"].as_u64(), v["topics"].as_u64()),
        (Some("component"), Some(3), Some(6))
    );
    assert_eq!(estimate(&v, "f1-A"), 30.0 / 43.0);
}

/// Options that do not fit the estimator, missing ones and missing columns are bad input (exit 2).
#[test]
fn bad_estimator_options_are_refused() {
    let env = env_with(&["f1-A.csv", "f1-B.csv", "latency.csv"]);
    let f1 = ["compare", "--scores", "f1-A.csv", "--scores", "f1-B.csv"];
    let cases: [(&[&str], &str); 8] = [
        (
            &["--estimator", "ratio", "--numerator", "tp"],
            "--estimator ratio needs --denominator TERMS",
        ),
        (
            &["--estimator", "ratio", "--numerator", "tp", "--denominator", "tp+tp"],
            "column `tp` appears twice",
        ),
        (
            &["--estimator", "ratio", "--numerator", "tp", "--denominator", "tp+fx"],
            "fx",
        ),
        (&["--quantile", "0.5"], "--quantile does not apply to --estimator mean"),
        (&["--estimator", "quantile"], "needs --quantile Q"),
        (
            &["--estimator", "quantile", "--quantile", "1.5", "--column", "tp"],
            "--quantile must be in (0, 1)",
        ),
        (&["--estimator", "corpus-bleu"], "sys_len"),
        (
            &[
                "--estimator",
                "ratio",
                "--numerator",
                "tp",
                "--denominator",
                "fp",
                "--kind",
                "superiority",
            ],
            "--kind/--mde does not apply",
        ),
    ];
    for (extra, want) in cases {
        let r = env.run(&[&f1[..], extra].concat());
        assert_eq!(r.code, 2, "{:?}: {}", extra, r.stderr);
        assert!(r.stderr.contains(want), "{:?}: {}", extra, r.stderr);
    }
}
