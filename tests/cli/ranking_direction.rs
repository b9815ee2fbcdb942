//! Lower-is-better metrics (cost, latency, error rate) rank the lowest first: `compare
//! --lower-is-better` and the protocol's `target.lower-is-better`.

use crate::common::Env;
use serde_json::Value;

/// Three systems' costs: `cheap` is lowest on every topic, so with --lower-is-better it is rank 1
/// with P(rank 1) = 1, first in the ranking table; without the flag it would be last.
#[test]
fn lower_is_better_ranks_the_cheapest_first() {
    let env = Env::new();
    env.write(
        "cost.csv",
        "topic,cheap,mid,dear\nq1,1,5,9\nq2,2,6,10\nq3,1,7,11\nq4,3,5,12\nq5,2,6,9\nq6,1,8,10\n",
    );
    let base = [
        "compare",
        "--scores",
        "cost.csv",
        "--scale",
        "unbounded",
        "--trials",
        "300",
        "--randomization-trials",
        "300",
    ];
    let r = env.run(&[&base[..], &["--lower-is-better", "--format", "json"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let rk = &v["ranking"];
    assert_eq!(rk["lower_is_better"], true);
    let by = |n: &str| {
        rk["systems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (by("cheap")["rank"].as_f64(), by("cheap")["p_first"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(
        (by("dear")["rank"].as_f64(), by("dear")["p_first"].as_f64()),
        (Some(3.0), Some(0.0))
    );
    assert_eq!(v["settings"]["lower_is_better"], true);
    let r = env.run(&[&base[..], &["--lower-is-better"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("ranked, 1 = lowest (lower is better)"),
        "{}",
        r.stdout
    );
    let first = |out: &str, a: &str, b: &str| out.find(a).unwrap() < out.find(b).unwrap();
    let table = &r.stdout[r.stdout.find("ranking:").unwrap()..];
    assert!(first(table, "cheap", "mid") && first(table, "mid", "dear"), "{}", table);
    // Higher is better by default: the dearest ranks first.
    let r = env.run(&[&base[..], &["--format", "json"]].concat());
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["ranking"].get("lower_is_better").is_none() && v["settings"].get("lower_is_better").is_none());
    let dear = v["ranking"]["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "dear")
        .unwrap()
        .clone();
    assert_eq!(dear["rank"].as_f64(), Some(1.0));
}

/// `target.lower-is-better` is a format-2 key: `check` finds it in a format-1 protocol (exit 1).
#[test]
fn lower_is_better_needs_format_2() {
    let env = Env::new();
    assert_eq!(env.sh(".", "git init -q && pledge new two-models study.toml").code, 0);
    let text = std::fs::read_to_string(env.join("study.toml")).unwrap();
    let text = text.replacen("[target]\n", "[target]\nlower-is-better = true\n", 1);
    let v1 = text.replacen("schema-version = 2", "schema-version = 1", 1);
    env.write("v1.toml", &v1);
    env.write("v2.toml", &text);
    let r = env.run(&["check", "v1.toml"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("target.lower-is-better needs schema-version = 2"),
        "{}",
        r.stdout
    );
    let r = env.run(&["check", "v2.toml"]);
    assert!(!r.stdout.contains("lower-is-better"), "{}", r.stdout);
}
