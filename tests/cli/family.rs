//! One multiplicity family across several metrics (`[family]`, `compare` with several
//! `--measure`): the registered analysis of each metric, every comparison's p adjusted together,
//! the verdicts read from the jointly adjusted p, the report's verdict lines, `verify --rerun`,
//! and the protocol's errors. Adjusted values from `tests/data/oracles/metric-family.md`
//! (statsmodels `multipletests` on the same p-values, `metric_family.py`).

use crate::common::{data, Env};
use serde_json::Value;

const RUNS: [&str; 3] = [
    "input.InexpC2.subset.gz",
    "input.uic0301.subset.gz",
    "input.humR03dc.subset.gz",
];

/// A repository with the robust03 subset (10 topics, three runs) and a format-2 protocol whose
/// `[family]` is `family` (empty: none).
fn env_with(family: &str) -> Env {
    let env = Env::init();
    for f in std::iter::once("robust03_qrels.subset.txt.gz").chain(RUNS) {
        env.write(f, std::fs::read(data(&format!("trec/{}", f))).unwrap());
    }
    env.write(
        "p.toml",
        format!(
            r#"schema-version = 2

[study]
id = "robust03-family"
title = "Do uic0301 and humR03dc beat InexpC2 in nDCG@10 and recall@100?"
registered-by = "Test <t@example.org>"

[target]
metric = "ndcg_cut.10"
mde = 0.05

[scores]
layout = "trec-runs"

[analysis]
seed = 11
trials = 2000
randomization-trials = 2000
systems = ["InexpC2", "uic0301", "humR03dc"]
missing-topics = "zero"

[[hypotheses]]
name = "uic0301 beats InexpC2"
system = "uic0301"
comparator = "InexpC2"
direction = "greater"

[[hypotheses]]
name = "humR03dc beats InexpC2"
system = "humR03dc"
comparator = "InexpC2"
direction = "greater"
{family}"#
        ),
    );
    env
}

fn analyze(env: &Env) -> crate::common::Run {
    let mut args = vec!["analyze", "p.toml", "--qrels", "robust03_qrels.subset.txt.gz"];
    for r in RUNS {
        args.extend(["--run", r]);
    }
    args.extend(["--format", "json"]);
    env.run(&args)
}

/// Every comparison's hypothesis in family order: the first metric's, then each further one's.
fn family_hypotheses(v: &Value) -> Vec<&Value> {
    let first = v["comparisons"].as_array().unwrap().iter();
    let rest = v["metric_family"]["others"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["comparisons"].as_array().unwrap().iter());
    first.chain(rest).map(|c| &c["hypothesis"]).collect()
}

const HOLM: &str = r#"
[family]
metrics = ["ndcg_cut.10", "recall.100"]
adjust = "holm"
alpha = 0.05
"#;

#[test]
fn family_across_metrics_adjusts_every_hypothesis_together_as_statsmodels() {
    let env = env_with(HOLM);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = analyze(&env);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let f = &v["metric_family"];
    assert_eq!(f["method"], "holm");
    assert_eq!(f["metrics"], serde_json::json!(["ndcg_cut.10", "recall.100"]));
    assert_eq!(f["size"], 4);
    assert_eq!(f["secondary_size"], 0);
    assert_eq!(f["others"][0]["metric"], "recall.100");
    let hs = family_hypotheses(&v);
    assert_eq!(hs.len(), 4);
    // The raw two-sided randomization p-values (exact: 2^10 sign assignments) and statsmodels'
    // holm adjustment of them (tests/data/oracles/metric-family.md, "analyze").
    let raw: Vec<f64> = hs.iter().map(|h| h["p"].as_f64().unwrap()).collect();
    let adjusted: Vec<f64> = hs.iter().map(|h| h["p_adjusted"].as_f64().unwrap()).collect();
    for (got, want) in raw.iter().zip(ANALYZE_RAW) {
        assert!((got - want).abs() < 1e-12, "raw {:?}", raw);
    }
    for (got, want) in adjusted.iter().zip(ANALYZE_HOLM) {
        assert!((got - want).abs() < 1e-12, "adjusted {:?}", adjusted);
    }
    for h in &hs {
        assert_eq!(h["family_size"], 4);
        let supported = h["direction_holds"].as_bool().unwrap() && h["p_adjusted"].as_f64().unwrap() < 0.05;
        assert_eq!(h["supported"].as_bool().unwrap(), supported, "{}", h);
        assert_eq!(h["judgement"]["verdict"] == "supported", supported, "{}", h);
    }
    let c = &v["comparisons"][0];
    assert_eq!(c["p_adjusted"]["family"], 4);
    assert_eq!(
        c["p_adjusted"]["of"],
        "randomization (2-sided), primary hypotheses of 2 metrics"
    );
    // The recall@100 means come from the runs evaluated with recall.100 (trec_eval's `all` rows).
    let others = &f["others"][0]["systems"];
    assert_eq!(others.as_array().unwrap().len(), 3);
    // The ledger's analysis reruns to the same result, and the report names every metric.
    let re = env.run(&["verify", "--rerun"]);
    assert_eq!(re.code, 0, "{}\n{}", re.stdout, re.stderr);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    for line in [
        "uic0301 beats InexpC2 [ndcg_cut.10]",
        "humR03dc beats InexpC2 [recall.100]",
        "holm over 4 primary hypotheses of 2 metrics",
    ] {
        assert!(md.contains(line), "{}: {}", line, md);
    }
    // The human output shows the family and the further metric's comparisons.
    let mut args = vec!["compare", "--qrels", "robust03_qrels.subset.txt.gz"];
    for r in RUNS {
        args.extend(["--run", r]);
    }
    args.extend([
        "--measure",
        "ndcg_cut.10",
        "--measure",
        "recall.100",
        "--baseline",
        "InexpC2",
    ]);
    let h = env.run(&args);
    assert_eq!(h.code, 0, "{}", h.stderr);
    assert!(
        h.stdout
            .contains("family across metrics: holm over 4 p-values of 2 metrics (ndcg_cut.10, recall.100)"),
        "{}",
        h.stdout
    );
    assert!(h.stdout.contains("\nmetric recall.100: mean "), "{}", h.stdout);
}

#[test]
fn compare_with_several_measures_is_one_bh_family() {
    let env = env_with("");
    let mut args = vec!["compare", "--qrels", "robust03_qrels.subset.txt.gz"];
    for r in RUNS {
        args.extend(["--run", r]);
    }
    args.extend([
        "--measure",
        "ndcg_cut.10",
        "--measure",
        "recall.100",
        "--measure",
        "P.10",
        "--baseline",
        "InexpC2",
        "--adjust",
        "bh",
        "--seed",
        "5",
        "--format",
        "json",
    ]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let f = &v["metric_family"];
    assert_eq!(f["method"], "fdr_bh");
    assert_eq!(f["size"], 6);
    let cs: Vec<&Value> = v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .chain(
            f["others"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|m| m["comparisons"].as_array().unwrap().iter()),
        )
        .collect();
    // Without hypotheses: each comparison's two-sided randomization p, statsmodels fdr_bh of
    // them (tests/data/oracles/metric-family.md, "compare").
    let raw: Vec<f64> = cs.iter().map(|c| c["randomization"]["p"].as_f64().unwrap()).collect();
    let adjusted: Vec<f64> = cs.iter().map(|c| c["p_adjusted"]["p"].as_f64().unwrap()).collect();
    for (got, want) in raw.iter().zip(COMPARE_RAW) {
        assert!((got - want).abs() < 1e-12, "raw {:?}", raw);
    }
    for (got, want) in adjusted.iter().zip(COMPARE_BH) {
        assert!((got - want).abs() < 1e-12, "adjusted {:?}", adjusted);
    }
    assert!(cs.iter().all(|c| c["p_adjusted"]["family"] == 6));
    // Tukey HSD is not a correction of p-values; analyze takes the family from the protocol.
    let mut bad = args.clone();
    let i = bad.iter().position(|a| *a == "bh").unwrap();
    bad[i] = "tukey-hsd";
    let e = env.run(&bad);
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("adjusted with holm or bh"), "{}", e.stderr);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let e = env.run(&[
        "analyze",
        "p.toml",
        "--qrels",
        "robust03_qrels.subset.txt.gz",
        "--run",
        RUNS[0],
        "--measure",
        "ndcg_cut.10",
        "--measure",
        "P.10",
    ]);
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("[family] metrics"), "{}", e.stderr);
}

#[test]
fn family_protocol_errors_name_the_file_and_key() {
    // (the [family] table, the line of the key named, the message; the table starts on line 33)
    for (family, line, message) in [
        (
            "\n[family]\nmetrics = [\"recall.100\", \"ndcg_cut.10\"]\nadjust = \"holm\"\n",
            35,
            "metrics: the first metric of the family must be target.metric (`ndcg_cut.10`), got `recall.100`",
        ),
        (
            "\n[family]\nmetrics = [\"ndcg_cut.10\"]\nadjust = \"holm\"\n",
            35,
            "metrics: a family across metrics needs at least two metrics, got 1",
        ),
        (
            "\n[family]\nmetrics = [\"ndcg_cut.10\", \"P.10\", \"P.10\"]\nadjust = \"bh\"\n",
            35,
            "metrics: metric `P.10` is listed twice",
        ),
        (
            "\n[family]\nmetrics = [\"ndcg_cut.10\", \"P.10\"]\nadjust = \"tukey-hsd\"\n",
            36,
            "adjust: the family's adjustment must be `holm` or `bh`",
        ),
        (
            "\n[family]\nmetrics = [\"ndcg_cut.10\", \"P.10\"]\nadjust = \"holm\"\nalpha = 1.5\n",
            37,
            "alpha must be in (0, 1), got 1.5",
        ),
        (
            "\n[family]\nmetrics = [\"ndcg_cut.10\", \"P.10\"]\nadjust = \"holm\"\nlevel = 0.1\n",
            37,
            "level",
        ),
    ] {
        let env = env_with(family);
        let r = env.run(&["register", "p.toml"]);
        assert_eq!(r.code, 2, "{}: {}", family, r.stderr);
        assert!(
            r.stderr.contains(&format!("p.toml:{}:", line)),
            "{}: {}",
            line,
            r.stderr
        );
        assert!(r.stderr.contains(message), "{}: {}", message, r.stderr);
    }
    // Format 1 has no [family].
    let env = Env::init();
    env.write(
        "p.toml",
        "schema-version = 1\n[study]\nid = \"s\"\ntitle = \"t\"\nregistered-by = \"r\"\n[target]\nmetric = \"map\"\nmde = 0.05\n[family]\nmetrics = [\"map\", \"P.10\"]\nadjust = \"holm\"\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("[family] needs schema-version = 2"), "{}", r.stderr);
}

// tests/data/oracles/metric-family.md.
const ANALYZE_RAW: [f64; 4] = [0.064453125, 0.4609375, 0.0546875, 0.8203125];
const ANALYZE_HOLM: [f64; 4] = [0.21875, 0.921875, 0.21875, 0.921875];
const COMPARE_RAW: [f64; 6] = [0.064453125, 0.4609375, 0.0546875, 0.8203125, 0.203125, 0.3125];
const COMPARE_BH: [f64; 6] = [0.193359375, 0.553125, 0.193359375, 0.8203125, 0.40625, 0.46875];
