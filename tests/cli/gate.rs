//! Integration tests: the build gate (`pledge fingerprint`, `[[contamination-rules]]` in
//! `components`).

use crate::common::Env;
use serde_json::Value;

/// A phrase only the sealed set holds: it must never reach the repository, ledger or report.
const SEALED_ONLY: &str = "the quartermaster ledger of the northern garrison";

pub(crate) const PASSAGES: &str = r#"{"id": "p1", "text": "The river flows north through the valley towns."}
{"id": "p2", "text": "The bridge was rebuilt in stone after the flood of the old year."}
{"id": "p3", "text": "A small museum keeps the maps drawn by the first surveyors."}
{"id": "p4", "text": "Bakers in the square open before dawn on market days."}
{"id": "p5", "text": "The lighthouse keeper logged every ship for forty years."}
{"id": "p6", "text": "The bridge was rebuilt in stone after the flood of the old year!"}
"#;

/// q1's distractor p2 is sealed word for word; q3's decoy p6 nearly; q2 is clean.
pub(crate) const QUESTIONS: &str = r#"{"id": "q1", "passages": ["p1"], "distractors": ["p2"]}
{"id": "q2", "passages": ["p3"], "distractors": ["p4"]}
{"id": "q3", "passages": ["p5"], "decoys": ["p6"]}
"#;

fn sealed() -> String {
    format!(
        "{{\"id\": \"sealed-validation-17\", \"text\": \"The bridge was rebuilt in stone after the flood of the old year.\"}}\n{{\"id\": \"sealed-validation-18\", \"text\": \"Under {} the rations were counted twice.\"}}\n",
        SEALED_ONLY
    )
}

pub(crate) fn protocol(fp_sha: &str, key_sha: &str, roles: &str, stop: &str) -> String {
    format!(
        r#"schema-version = 2
[study]
id = "gated"
title = "t"
registered-by = "test"
[target]
metric = "accuracy"
mde = 0.1
sd = 0.5
[components]
unit = "question"
max-per-component = 1
[[link-rules]]
name = "identical passages"
kind = "identical-passage"
[[splits]]
name = "final"
required-components = 1
[analysis]
seed = 7
[scores]
column = "accuracy"
[[contamination-rules]]
name = "against sealed validation"
roles = [{}]
fingerprint = "sealed.fp"
fingerprint-sha256 = "{}"
key-sha256 = "{}"
threshold = 0.8
{}
"#,
        roles, fp_sha, key_sha, stop
    )
}

/// A study with the sealed set fingerprinted (the sealed passages and key outside the
/// repository's tracked files) and the fingerprint's hashes.
pub(crate) fn gated_env() -> (Env, String, String) {
    let env = Env::init();
    env.write("passages.jsonl", PASSAGES);
    env.write("questions.jsonl", QUESTIONS);
    let outside = tempfile::tempdir().unwrap();
    let sealed_path = outside.path().join("sealed.jsonl");
    std::fs::write(&sealed_path, sealed()).unwrap();
    env.write("sealed.key", [0x5au8; 32]);
    let r = env.run(&[
        "fingerprint",
        sealed_path.to_str().unwrap(),
        "--key",
        "sealed.key",
        "-o",
        "sealed.fp",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["passages"], 2);
    let fp = v["fingerprint_sha256"].as_str().unwrap().to_string();
    let key = v["key_sha256"].as_str().unwrap().to_string();
    assert_eq!(key, sha256_hex(&[0x5au8; 32]));
    (env, fp, key)
}

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(b))
}

#[test]
fn gate_flags_by_role_leaves_flagged_questions_out_and_keeps_sealed_text_out() {
    let (env, fp, key) = gated_env();
    env.write("p.toml", protocol(&fp, &key, r#""distractors", "decoys""#, ""));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let args = [
        "components",
        "p.toml",
        "--passages",
        "passages.jsonl",
        "--questions",
        "questions.jsonl",
    ];
    // Without the key the rule cannot run.
    let r = env.run(&args);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no --sealed-key file has it"), "{}", r.stderr);
    let r = env.run(&[&args[..], &["--sealed-key", "sealed.key", "--format", "json"]].concat());
    assert!(r.code == 0 || r.code == 3, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let c = &v["contamination"];
    assert_eq!(c["candidates"], 3);
    assert_eq!(c["passed"], 1);
    let row = &c["rules"][0];
    // p2 is sealed word for word (containment 1); p6 differs by its last character only.
    assert_eq!(row["passages_checked"]["distractors"], 2);
    assert_eq!(row["passages_flagged"]["distractors"], 1);
    assert_eq!(row["passages_flagged"]["decoys"], 1);
    assert_eq!(row["questions_flagged"], 2);
    assert_eq!(v["count"]["questions"], 1);
    let flags = c["flags"].as_array().unwrap();
    assert_eq!(flags[0]["question"], "q1");
    assert_eq!(flags[0]["passages"][0]["passage"], "p2");
    assert_eq!(flags[0]["passages"][0]["matches"][0]["value"], 1.0);
    assert!(
        r.stderr
            .contains("contamination rule `against sealed validation`: 2 of 3"),
        "{}",
        r.stderr
    );
    // The sealed text and ids are nowhere in the repository or the ledger (every commit of
    // every ref, the count record's blobs included; the report is built from the ledger alone),
    // nor in what components printed.
    let log = env.run(&["log", "--format", "json"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let mut everything = env.git(&["log", "-p", "--all"]).stdout;
    everything.push_str(&log.stdout);
    everything.push_str(&r.stdout);
    everything.push_str(&r.stderr);
    assert!(everything.contains("against sealed validation"));
    for secret in [
        SEALED_ONLY,
        "sealed-validation-17",
        "quartermaster",
        "rations were counted",
    ] {
        assert!(!everything.contains(secret), "`{}` leaked", secret);
    }
}

#[test]
fn gate_refuses_another_fingerprint_and_stops_at_the_registered_share() {
    let (env, fp, key) = gated_env();
    env.write(
        "p.toml",
        protocol(
            &fp,
            &key,
            r#""supporting", "distractors", "decoys""#,
            "stop-share = 0.5",
        ),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let args = [
        "components",
        "p.toml",
        "--passages",
        "passages.jsonl",
        "--questions",
        "questions.jsonl",
        "--sealed-key",
        "sealed.key",
        "--dry-run",
    ];
    // 2 of 3 flagged ≥ half: the build stops (exit 3).
    let r = env.run(&args);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("reached its stop threshold: the build stops"),
        "{}",
        r.stderr
    );
    // Another fingerprint file under the registered name is refused.
    let mut bytes = std::fs::read(env.join("sealed.fp")).unwrap();
    bytes.push(0);
    env.write("sealed.fp", bytes);
    let r = env.run(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("and the protocol registers"), "{}", r.stderr);
}

#[test]
fn gate_same_text_under_two_keys_shares_no_hash() {
    let env = Env::new();
    env.write("s.jsonl", sealed());
    env.write("a.key", [1u8; 32]);
    env.write("b.key", [2u8; 32]);
    for k in ["a", "b"] {
        let r = env.run(&[
            "fingerprint",
            "s.jsonl",
            "--key",
            &format!("{}.key", k),
            "-o",
            &format!("{}.fp", k),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let a = pledge::gate::fingerprint::read(&env.join("a.fp")).unwrap().0;
    let b = pledge::gate::fingerprint::read(&env.join("b.fp")).unwrap().0;
    assert_eq!(a.hashes.len(), b.hashes.len());
    assert!(a.hashes.iter().all(|h| b.hashes.binary_search(h).is_err()));
    assert!(a.ids.iter().all(|h| b.ids.binary_search(h).is_err()));
}

/// Scores that still hold a question the contamination rule left out: `analyze` names the
/// count whose rule flagged it and says to analyze the questions the count kept (the generic
/// hint said the assignment must come from other questions); without that row it analyzes.
#[test]
fn analyze_names_the_contamination_count_for_flagged_scored_questions() {
    let (env, fp, key) = gated_env();
    env.write("p.toml", protocol(&fp, &key, r#""distractors""#, ""));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        "passages.jsonl",
        "--questions",
        "questions.jsonl",
        "--sealed-key",
        "sealed.key",
        "--assign",
        "--out",
        "a.csv",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    env.write("A.csv", "topic,accuracy\nq1,1\nq2,1\nq3,0\n");
    env.write("B.csv", "topic,accuracy\nq1,0\nq2,0\nq3,1\n");
    let analyze = || {
        env.run(&[
            "analyze",
            "p.toml",
            "--scores",
            "A.csv",
            "--scores",
            "B.csv",
            "--components",
            "a.csv",
            "--split",
            "final",
        ])
    };
    let r = analyze();
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: 1 scored topic(s) are not in the benchmark: the contamination rules of the count(s) #2 flagged them, so the assignment leaves them out: q1\nhint: analyze the questions the count kept (the assignment's): remove the flagged questions' rows from the scores\n"
    );
    env.write("A.csv", "topic,accuracy\nq2,1\nq3,0\n");
    env.write("B.csv", "topic,accuracy\nq2,0\nq3,1\n");
    let r = analyze();
    assert_eq!(r.code, 0, "{}", r.stderr);
}
