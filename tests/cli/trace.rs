//! Integration tests: the repair-trace test (`pledge trace`, `[repair-trace]`): its AUC and
//! DeLong interval against scikit-learn and a reference DeLong implementation
//! (`tests/data/oracles/repair-trace.md`, made by `tests/data/oracles/repair_trace.py` from the
//! design pledge exports), its ledger entry and its failure paths.

use crate::common::Env;
use serde_json::Value;

/// A format-2 protocol with `[repair-trace]` keys `trace` (its threshold first).
fn protocol(trace: &str) -> String {
    format!(
        "schema-version = 2\n[study]\nid = \"repair\"\ntitle = \"t\"\nregistered-by = \"r\"\n[target]\nmetric = \"accuracy\"\nmde = 0.1\n[scores]\ncolumn = \"accuracy\"\n[repair-trace]\nthreshold = 0.6\n{}",
        trace
    )
}

/// The second oracle case's keys (and `analysis.seed = 7`).
const CASE2: &str = "ngram-size = 4\nregularization-c = 10.0\nfolds = 4\nnormalization = \"nfkc\"\nlowercase = false\nconfidence = 0.9\n[analysis]\nseed = 7\n";

fn env_with_sets() -> Env {
    let env = Env::init();
    env.copy_from_repo("tests/data/trace/original.jsonl", "original.jsonl");
    env.copy_from_repo("tests/data/trace/replacement.jsonl", "replacement.jsonl");
    env
}

fn trace(env: &Env, more: &[&str]) -> crate::common::Run {
    let args = [
        "trace",
        "p.toml",
        "--original",
        "original.jsonl",
        "--replacement",
        "replacement.jsonl",
    ];
    env.run(&[&args[..], more].concat())
}

/// Values of `tests/data/oracles/repair-trace.md` (scikit-learn 1.9.1 `LogisticRegression` +
/// `roc_auc_score`, the reference numpy DeLong): the AUC to 1e-6 on identical folds, the
/// bounds to 1e-6 (the out-of-fold scores agree to 1e-7).
#[test]
fn trace_auc_and_interval_match_the_sklearn_oracle() {
    let env = env_with_sets();
    let cases = [
        ("", 0.68359375, 0.4925281829120489, 0.8746593170879511, 3794),
        (CASE2, 0.7578125, 0.6115960382247796, 0.9040289617752204, 8976),
    ];
    for (keys, auc, lower, upper, features) in cases {
        env.write("p.toml", protocol(keys));
        let r = trace(&env, &["--dry-run", "--format", "json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let t = &v["trace"];
        let got = |k: &str| t["result"][k].as_f64().unwrap();
        assert!((got("auc") - auc).abs() < 1e-6, "{}", t);
        assert!((got("lower") - lower).abs() < 1e-6, "{}", t);
        assert!((got("upper") - upper).abs() < 1e-6, "{}", t);
        assert_eq!(t["result"]["verdict"], "left-a-trace");
        assert_eq!(
            (t["originals"].as_u64(), t["replacements"].as_u64()),
            (Some(16), Some(16))
        );
        assert_eq!(t["features"], features);
        assert!(
            t["folds"].as_array().unwrap().iter().all(|f| f["converged"] == true),
            "{}",
            t
        );
        assert_eq!(v["ledger_entry"], Value::Null);
    }
    // The human text leads with the verdict.
    env.write("p.toml", protocol(""));
    let r = trace(&env, &["--dry-run"]);
    assert_eq!(
        r.stdout,
        "study repair: the repair left a trace\n  AUC 0.684, 95% DeLong interval [0.493, 0.875]; registered threshold 0.6 (no detectable trace when the upper bound is below it)\n  16 original vs 16 replacement passages; character 3-grams (3794 features), L2 logistic regression C = 1, 5-fold stratified cross-validation (seed 0)\n  dry run: nothing recorded\n"
    );
}

/// A threshold above the interval's upper bound: no detectable trace (same data, threshold
/// 0.9 > 0.875).
#[test]
fn trace_below_the_threshold_is_no_detectable_trace() {
    let env = env_with_sets();
    env.write("p.toml", protocol("").replace("threshold = 0.6", "threshold = 0.9"));
    let r = trace(&env, &["--dry-run", "--format", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["trace"]["result"]["verdict"], "no-detectable-trace", "{}", r.stdout);
}

#[test]
fn trace_is_recorded_only_under_the_registered_protocol() {
    let env = env_with_sets();
    env.write("p.toml", protocol(""));
    // Not registered: refused, nothing written.
    let r = trace(&env, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("not registered"), "{}", r.stderr);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = trace(&env, &["--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["ledger_entry"], 2);
    let log: Value = serde_json::from_str(&env.run(&["log", "--format", "json"]).stdout).unwrap();
    let e = log
        .as_array()
        .map(|a| a[1].clone())
        .unwrap_or_else(|| log["entries"][1].clone());
    assert_eq!(e["kind"], "trace", "{}", e);
    assert_eq!(env.run(&["verify"]).code, 0);
    // Another threshold than the registered one: refused.
    env.write("p.toml", protocol("").replace("threshold = 0.6", "threshold = 0.9"));
    let r = trace(&env, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
}

#[test]
fn trace_refuses_sets_smaller_than_the_folds_and_bad_keys() {
    let env = env_with_sets();
    env.write("p.toml", protocol(""));
    let four: String = std::fs::read_to_string(env.join("replacement.jsonl"))
        .unwrap()
        .lines()
        .take(4)
        .map(|l| format!("{}\n", l))
        .collect();
    env.write("replacement.jsonl", four);
    let r = trace(&env, &["--dry-run"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: the replacement set has 4 passage(s), fewer than the 5 folds the protocol registers ([repair-trace] folds = 5): each fold needs at least one passage of each set\nhint: give at least as many passages of each set as folds\n"
    );
    // Keys are validated with the file, line and key.
    env.write("p.toml", protocol("").replace("threshold = 0.6", "threshold = 0.4"));
    let r = trace(&env, &["--dry-run"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("p.toml:12:13: threshold must be an AUC in (0.5, 1] (0.5 is chance), got 0.4"),
        "{}",
        r.stderr
    );
    env.write("p.toml", protocol("folds = 1\n"));
    let r = trace(&env, &["--dry-run"]);
    assert!(
        r.stderr.contains("p.toml:13:9: folds must be ≥ 2, got 1"),
        "{}",
        r.stderr
    );
    env.write("p.toml", protocol("c = 1.0\n"));
    let r = trace(&env, &["--dry-run"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("p.toml:13:1") && r.stderr.contains("`c`"),
        "{}",
        r.stderr
    );
    // A protocol without [repair-trace].
    env.write("p.toml", protocol("").replace("[repair-trace]\nthreshold = 0.6\n", ""));
    let r = trace(&env, &["--dry-run"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("registers no [repair-trace]"), "{}", r.stderr);
}

/// `verify --rerun` recomputes a recorded repair-trace test from its recorded inputs (the two
/// passage files, the stored method and seed): a match is a note; a changed input, or a stored
/// record that the inputs do not give back, is a `rerun-mismatch` finding naming the entry
/// (exit 1). The human output of the finding is pinned.
#[test]
fn trace_is_recomputed_by_verify_rerun() {
    let env = env_with_sets();
    env.write("p.toml", protocol(""));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    assert_eq!(trace(&env, &[]).code, 0);
    env.git(&["add", "original.jsonl", "replacement.jsonl"]);
    env.git(&["commit", "-q", "-m", "the repair's passages"]);
    let v = env.run(&["verify", "--rerun", "--format", "json"]);
    assert_eq!(v.code, 0, "{}\n{}", v.stdout, v.stderr);
    let j: Value = serde_json::from_str(&v.stdout).unwrap();
    let note = j["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["code"] == "rerun-matches")
        .unwrap_or_else(|| panic!("{}", v.stdout));
    assert_eq!(note["seq"], 2, "{}", note);
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .starts_with("repair-trace test recomputed from its recorded inputs: result sha256 "),
        "{}",
        note
    );
    // The recorded record, forged (another AUC): the recomputation names what differs.
    let ledger = pledge::ledger::Ledger::open(env.path()).unwrap();
    let entries = ledger.entries().unwrap();
    let mut forged = entries[1].clone();
    let mut rec: Value = serde_json::from_slice(forged.result.as_deref().unwrap()).unwrap();
    rec["result"]["auc"] = serde_json::json!(0.5);
    forged.result = Some(serde_json::to_vec_pretty(&rec).unwrap());
    let rep = pledge::ops::rerun::rerun_trace(&ledger, &forged).unwrap();
    assert!(!rep.ok);
    assert_eq!(rep.problems.len(), 1, "{:?}", rep.problems);
    assert!(
        rep.problems[0].starts_with("recorded AUC 0.5 [0.49")
            && rep.problems[0].contains("(left-a-trace), recomputed AUC 0.68359375 [0.49"),
        "{:?}",
        rep.problems
    );
    // A replacement passage edited after the test: the finding names the entry and the input.
    let text = std::fs::read_to_string(env.join("replacement.jsonl")).unwrap();
    env.write(
        "replacement.jsonl",
        text.replacen("\"text\": \"", "\"text\": \"x", 1)
            .replacen("\"text\":\"", "\"text\":\"x", 1),
    );
    let v = env.run(&["verify", "--rerun"]);
    assert_eq!(v.code, 1, "{}\n{}", v.stdout, v.stderr);
    let shown = format!("exit {}\n--- stdout\n{}--- stderr\n{}", v.code, v.stdout, v.stderr)
        .replace(&env.path().display().to_string(), "[TMP]");
    insta::with_settings!({
        filters => vec![
            (r"\b[0-9a-f]{64}\b", "[SHA256]"),
            (r"\b[0-9a-f]{40}\b", "[COMMIT]"),
            (r"\b[0-9a-f]{20,}", "[HASH]"),
            (r"\b[0-9a-f]{12}\b", "[HASH12]"),
            (r"\b(commit|tip|at|of) [0-9a-f]{7,12}\b", "$1 [ID]"),
            (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", "[TIME]"),
        ],
    }, {
        insta::assert_snapshot!("verify_rerun_trace_changed_input", shown);
    });
}
