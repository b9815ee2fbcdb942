//! Whole outputs of each command, pinned: the human text (stdout), the messages (stderr) and the
//! exit code of every step of the demo study on the bundled HotpotQA data (`init`, `register`,
//! `components`, `analyze`, `report`, `verify`), of the reading commands (`log`, `power`,
//! `compare`, `eval`, `check`, `formats`), and of the common mistakes (an unregistered study, a
//! changed protocol, a missing file, a registration made twice), as insta snapshots in
//! `tests/cli/snapshots/`. Commit ids, SHA-256 hashes, times and the scratch path are redacted, so
//! a snapshot changes only when what a person reads changes. Review a changed snapshot with
//! `cargo insta review` (or rerun with `INSTA_UPDATE=always` and read the diff).

use crate::common::*;

/// A run as a person sees it: the exit code, then stdout and stderr, with the scratch path
/// redacted.
fn shown(env: &Env, r: &Run) -> String {
    let text = format!("exit {}\n--- stdout\n{}--- stderr\n{}", r.code, r.stdout, r.stderr);
    text.replace(&env.path().display().to_string(), "[TMP]")
}

/// Pins `text` under `name`, with commit ids, SHA-256 hashes (whole, cut to 12 characters, or
/// cut short by a column), short ids after `commit`, `tip`, `at` or `of`, and times redacted.
fn pin(name: &str, text: &str) {
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
        insta::assert_snapshot!(name, text);
    });
}

/// A scratch repository holding the demo's files (protocol, questions, scores) in its first
/// commit, as `pledge demo` prepares it.
fn demo_repo() -> Env {
    let env = Env::new();
    let now = chrono::DateTime::parse_from_rfc3339(NOW)
        .unwrap()
        .with_timezone(&chrono::Utc);
    pledge::ops::demo::prepare(env.path(), now).expect("preparing the demo repository");
    env
}

#[test]
fn snapshot_every_step_of_the_demo_study() {
    let env = demo_repo();
    for (i, step) in pledge::ops::demo::steps().iter().enumerate() {
        let r = env.run(step);
        pin(&format!("demo_{}_{}", i + 1, step[0]), &shown(&env, &r));
    }
    for (name, args) in [
        ("log", vec!["log"]),
        ("verify_plain", vec!["verify"]),
        (
            "compare",
            vec!["compare", "--scores", "data/correctness.csv", "--label", "HALTED=0"],
        ),
        (
            "compare_unknown_label",
            vec!["compare", "--scores", "data/correctness.csv"],
        ),
        (
            "power",
            vec![
                "power",
                "--sd",
                "0.45",
                "--mde",
                "0.15",
                "--per-component",
                "4",
                "--icc",
                "0.1",
            ],
        ),
        ("check", vec!["check", "protocols/hotpotqa.toml"]),
        ("formats", vec!["formats"]),
    ] {
        let r = env.run(&args);
        pin(&format!("reading_{}", name), &shown(&env, &r));
    }
}

#[test]
fn snapshot_the_common_mistakes() {
    let env = demo_repo();
    let steps = pledge::ops::demo::steps();
    // Before init and registration: the count refuses an unregistered study.
    let r = env.run(&steps[2]);
    pin("mistake_components_before_register", &shown(&env, &r));
    for step in &steps[..2] {
        assert_eq!(env.run(step).code, 0);
    }
    let r = env.run(&steps[1]);
    pin("mistake_register_twice", &shown(&env, &r));
    // A missing input file.
    let r = env.run(&["components", "protocols/hotpotqa.toml", "--questions", "data/nope.json"]);
    pin("mistake_missing_questions", &shown(&env, &r));
    // The protocol edited after registration: the count refuses it.
    let path = env.join("protocols/hotpotqa.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("mde = 0.15", "mde = 0.10");
    std::fs::write(&path, text).unwrap();
    let r = env.run(&steps[2]);
    pin("mistake_changed_protocol", &shown(&env, &r));
    let r = env.run(&["verify", "protocols/hotpotqa.toml"]);
    pin("mistake_changed_protocol_verify", &shown(&env, &r));
    // A malformed scores file.
    env.write("data/bad.csv", "question,model\nq1,CORRECT\nq1,WRONG\n");
    let r = env.run(&["compare", "--scores", "data/bad.csv"]);
    pin("mistake_bad_scores", &shown(&env, &r));
}

#[test]
fn snapshot_trec_eval_on_the_bundled_runs() {
    let env = Env::new();
    copy(&env, "trec/qrels.test", "qrels.test");
    copy(&env, "trec/results.test", "results.test");
    let r = env.run(&["eval", "qrels.test", "results.test", "-m", "map", "-m", "P.10"]);
    pin("reading_eval", &shown(&env, &r));
    let r = env.run(&["eval", "qrels.test", "missing.run"]);
    pin("mistake_eval_missing_run", &shown(&env, &r));
}
