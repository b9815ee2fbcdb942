//! Integration tests: the registered build-attempt budget (`[build]` in the protocol, judged by
//! the ledger's rules at each `components` count on other inputs).

use crate::common::{Env, Run};
use crate::gate::{gated_env, protocol, PASSAGES, QUESTIONS};
use serde_json::Value;

/// Two attempts, the second replacing only distractors the first one's check flagged.
const BUILD: &str = "\n[build]\nattempts = 2\nattempt-may-change = [\"contaminated-distractors\"]\n";

/// A clean passage to replace q1's flagged distractor p2.
const CLEAN: &str = "{\"id\": \"p7\", \"text\": \"Ferries cross the lake twice a day in summer.\"}\n";

fn budgeted() -> Env {
    let (env, fp, key) = gated_env();
    // Five components required: every count here stops (exit 3), so the report can render it.
    let p = protocol(&fp, &key, r#""distractors""#, "").replace("required-components = 1", "required-components = 5");
    env.write("p.toml", p + BUILD);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    env.write("passages2.jsonl", format!("{}{}", PASSAGES, CLEAN));
    env
}

fn count(env: &Env, passages: &str, questions: &str, more: &[&str]) -> Run {
    let args = [
        "components",
        "p.toml",
        "--passages",
        passages,
        "--questions",
        questions,
        "--sealed-key",
        "sealed.key",
    ];
    env.run(&[&args[..], more].concat())
}

/// Attempt 1 (q1 flagged by its distractor p2), then attempt 2 replacing p2 by p7.
fn two_attempts(env: &Env) {
    let r = count(env, "passages.jsonl", "questions.jsonl", &[]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    env.write(
        "questions2.jsonl",
        QUESTIONS.replace(r#""distractors": ["p2"]"#, r#""distractors": ["p7"]"#),
    );
    let r = count(env, "passages2.jsonl", "questions2.jsonl", &["--format", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let a = &v["attempt"];
    assert_eq!(a["previous"], 2);
    assert_eq!(a["replaced"], 1);
    assert_eq!(a["dropped"], 0);
    assert!(a["outside"].is_null(), "{}", a);
    // The repaired q1 passes the check now: all three questions are counted.
    assert_eq!(v["contamination"]["passed"], 3);
}

#[test]
fn budget_allows_the_registered_repair_and_refuses_a_third_attempt() {
    let env = budgeted();
    two_attempts(&env);
    // Attempt 3: anything on other inputs is past the budget (exit 1), and nothing is written.
    env.write(
        "questions3.jsonl",
        QUESTIONS.lines().take(2).collect::<Vec<_>>().join("\n"),
    );
    let before = env.run(&["log", "--format", "json"]).stdout;
    let r = count(&env, "passages2.jsonl", "questions3.jsonl", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: study `gated` is counted as build attempt 3, past the 2 attempts its registration allows ([build] attempts = 2; earlier attempts: entries #2–#3)\nhint: count the previous attempt's inputs again, or record why with --deviation \"reason\" (the attempt is then shown in the report's verdict card and by verify)\n"
    );
    assert_eq!(env.run(&["log", "--format", "json"]).stdout, before);
    // A recount on attempt 2's inputs is no new attempt.
    assert_eq!(count(&env, "passages2.jsonl", "questions2.jsonl", &[]).code, 3);
    // With a deviation it is recorded, and disclosed in the report's verdict card and by verify.
    let r = count(
        &env,
        "passages2.jsonl",
        "questions3.jsonl",
        &["--deviation", "q3's decoy source was withdrawn"],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v = env.run(&["verify"]);
    assert_eq!(v.code, 0, "{}", v.stderr);
    let shown = format!("{}{}", v.stdout, v.stderr);
    assert!(
        shown.contains(
            "  attempts     3 of 2 registered; attempt 3 (entry #6) past the budget, with deviation #5: \"q3's decoy source was withdrawn\"\n"
        ),
        "{}",
        shown
    );
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(
        md.contains("- **Build attempts:** 3 of 2 registered; attempt 3 (entry #6) past the budget, with deviation #5: \"q3's decoy source was withdrawn\".\n"),
        "{}",
        md
    );
    assert!(md.contains("(question-set, build-attempts)"), "{}", md);
}

#[test]
fn budget_refuses_an_attempt_that_changes_more_than_flagged_distractors() {
    let env = budgeted();
    let r = count(&env, "passages.jsonl", "questions.jsonl", &[]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    // q2's distractor p4 was clean: replacing it is not what the registration allows; nor is
    // a changed field.
    env.write(
        "questions2.jsonl",
        QUESTIONS
            .replace(r#""distractors": ["p4"]"#, r#""distractors": ["p7"]"#)
            .replace(r#"{"id": "q3","#, r#"{"id": "q3", "type": "bridge","#),
    );
    let r = count(&env, "passages2.jsonl", "questions2.jsonl", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: study `gated` is counted as build attempt 2, which changes more than its registration allows ([build] attempt-may-change = [\"contaminated-distractors\"]): question `q2`: distractors passage `p4` replaced by `p7` (not flagged by the previous attempt's contamination check); question `q3`: field(s) type changed\nhint: count the previous attempt's inputs again, or record why with --deviation \"reason\" (the attempt is then shown in the report's verdict card and by verify)\n"
    );
    // The previous attempt's files must be at hand, as recorded.
    std::fs::remove_file(env.join("questions.jsonl")).unwrap();
    let r = count(&env, "passages2.jsonl", "questions2.jsonl", &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("needs the previous attempt's questions (entry #2:"),
        "{}",
        r.stderr
    );
    // With a deviation the attempt is recorded unchecked, and verify passes (disclosed).
    let r = count(
        &env,
        "passages2.jsonl",
        "questions2.jsonl",
        &["--deviation", "the old file was lost"],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(env.run(&["verify"]).code, 0);
}

#[test]
fn budget_keys_are_validated_with_file_and_key() {
    let (env, fp, key) = gated_env();
    env.write(
        "p.toml",
        protocol(&fp, &key, r#""distractors""#, "") + "\n[build]\nattempts = 0\nattempt-may-change = []\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("p.toml:33:12: attempts must be ≥ 1"), "{}", r.stderr);
    env.write(
        "p.toml",
        protocol(&fp, &key, r#""distractors""#, "") + "\n[build]\nattempts = 2\nattempt-may-change = []\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("attempt-may-change must list"), "{}", r.stderr);
    env.write(
        "p.toml",
        protocol(&fp, &key, r#""distractors""#, "") + "\n[build]\nattempts = 2\nattempt-may-change = [\"all\"]\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("p.toml"), "{}", r.stderr);
    assert!(r.stderr.contains("contaminated-distractors"), "{}", r.stderr);
    env.write(
        "p.toml",
        protocol(&fp, &key, r#""distractors""#, "")
            + "\n[build]\nattempts = 2\nattempt-may-change = [\"anything\"]\nretries = 1\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("retries"), "{}", r.stderr);
}

/// The multi-hop repair's trace test: its verdict line, and the report's funnel cell (AUC and
/// interval as `tests/data/oracles/repair-trace.md` case 3 gives them, rounded).
const TRACE_VERDICT: &str = "study gated: the repair left a trace\n";
const TRACE_LINE: &str = "AUC 0.694 (0.466–0.922): the repair left a trace";

/// The components article's first attempt in small, on real HotpotQA questions
/// (`tests/data/multihop-gate`): the first two distractors of questions 1 to 8 are sealed, so
/// attempt 1 stops at the contamination rule (8 of 12 flagged ≥ half); attempt 2 replaces
/// those distractors of questions 1 to 6 with clean paragraphs and leaves 7 and 8 out (10
/// candidates, none flagged, 10 components: no two questions share a paragraph) and stops at
/// the stop rule (10 < 20 required); the repair-trace test runs on the 12 replaced distractors
/// and their replacements; attempt 3 is refused; the report shows the funnel and the trace.
#[test]
fn budget_multihop_repair_attempt_and_funnel() {
    let env = Env::init();
    env.copy_from_repo("tests/data/multihop-gate/questions.json", "questions.json");
    let questions: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(env.join("questions.json")).unwrap()).unwrap();
    let clean: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/multihop-gate/clean.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!((questions.len(), clean.len()), (12, 16));
    // Each question's distractors in context order: the paragraphs not named as supporting.
    let distractors = |q: &Value| -> Vec<usize> {
        let sup: Vec<&str> = q["supporting_facts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[0].as_str().unwrap())
            .collect();
        let ctx = q["context"].as_array().unwrap();
        (0..ctx.len())
            .filter(|&i| !sup.contains(&ctx[i][0].as_str().unwrap()))
            .collect()
    };
    let text = |p: &Value| -> String { p[1].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect() };
    // The sealed set, outside the repository: 16 paragraphs of the candidates' corpus.
    let outside = tempfile::tempdir().unwrap();
    let mut sealed = String::new();
    for q in &questions[..8] {
        for &i in &distractors(q)[..2] {
            let p = &q["context"][i];
            sealed.push_str(&serde_json::json!({"id": p[0], "text": text(p)}).to_string());
            sealed.push('\n');
        }
    }
    std::fs::write(outside.path().join("sealed.jsonl"), sealed).unwrap();
    std::fs::write(outside.path().join("sealed.key"), [0x17u8; 32]).unwrap();
    let key_path = outside.path().join("sealed.key");
    let r = env.run(&[
        "fingerprint",
        outside.path().join("sealed.jsonl").to_str().unwrap(),
        "--key",
        key_path.to_str().unwrap(),
        "-o",
        "sealed.fp",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["passages"], 16);
    let p = protocol(
        v["fingerprint_sha256"].as_str().unwrap(),
        v["key_sha256"].as_str().unwrap(),
        r#""distractors""#,
        "stop-share = 0.5",
    )
    .replace("required-components = 1", "required-components = 20");
    env.write("p.toml", p + BUILD + "\n[repair-trace]\nthreshold = 0.6\n");
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let count = |file: &str, more: &[&str]| {
        let args = [
            "components",
            "p.toml",
            "--questions",
            file,
            "--sealed-key",
            key_path.to_str().unwrap(),
        ];
        env.run(&[&args[..], more].concat())
    };
    // Attempt 1: 8 of 12 flagged, the rule's stop share reached.
    let r = count("questions.json", &[]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("8 of 12 candidate questions flagged (0 supporting, 16 distractor and 0 decoy passages meet it), 8 left out, 4 left"), "{}", r.stderr);
    // Attempt 2: the flagged distractors of questions 1-6 replaced one for one, 7-8 left out.
    let mut repaired = Vec::new();
    let mut clean = clean.into_iter();
    // The replaced distractors and their replacements, for the repair-trace test.
    let (mut originals, mut replacements) = (String::new(), String::new());
    let line = |p: &Value| format!("{}\n", serde_json::json!({"id": p[0], "text": text(p)}));
    for (n, q) in questions.iter().enumerate() {
        let mut q = q.clone();
        match n {
            0..=5 => {
                for i in distractors(&q)[..2].to_vec() {
                    originals.push_str(&line(&q["context"][i]));
                    q["context"][i] = clean.next().unwrap();
                    replacements.push_str(&line(&q["context"][i]));
                }
            }
            6 | 7 => continue,
            _ => {}
        }
        repaired.push(q);
    }
    env.write("questions2.json", serde_json::to_string(&repaired).unwrap());
    let r = count("questions2.json", &["--format", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["attempt"]["repaired"], 6);
    assert_eq!(v["attempt"]["replaced"], 12);
    assert_eq!(v["attempt"]["dropped"], 2);
    assert_eq!(v["contamination"]["passed"], 10);
    assert_eq!(v["count"]["with_candidates"], 10);
    // The repair-trace test on the 12 replaced distractors and their 12 replacements.
    env.write("originals.jsonl", originals);
    env.write("replacements.jsonl", replacements);
    let r = env.run(&[
        "trace",
        "p.toml",
        "--original",
        "originals.jsonl",
        "--replacement",
        "replacements.jsonl",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with(TRACE_VERDICT), "{}", r.stdout);
    // Attempt 3 (question 12 left out too): refused, past the budget.
    env.write("questions3.json", serde_json::to_string(&repaired[..9]).unwrap());
    let r = count("questions3.json", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("error: study `gated` is counted as build attempt 3, past the 2 attempts its registration allows ([build] attempts = 2; earlier attempts: entries #2–#3)\n"), "{}", r.stderr);
    let rep = env.run(&["report", "--out", "rep", "--html", "rep/report.html"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    let start = md.find("| attempt | step | rule | left |").expect("the funnel");
    let table: Vec<&str> = md[start..].lines().take_while(|l| l.starts_with('|')).collect();
    let rule = "against sealed validation (distractors; containment ≥ 0.8)";
    let expected = vec![
        "| attempt | step | rule | left |".to_string(),
        "|---|---|---|---:|".into(),
        "| 1 (entry #2) | candidates | — | 12 questions |".into(),
        format!("| 1 (entry #2) | after contamination rule | {} | 4 questions (−8) |", rule),
        "| 1 (entry #2) | passed every check | — | 4 questions |".into(),
        "| 1 (entry #2) | components under link rule | identical passages | 4 with candidates |".into(),
        "| 1 (entry #2) | stop-rule decision | [stop-rule] | stop — contamination rule \\`against sealed validation\\` reached its stop threshold |".into(),
        "| 2 (entry #3) | candidates | — | 10 questions |".into(),
        "| 2 (entry #3) | repaired | [build] attempt-may-change = contaminated-distractors | 6 questions (12 passages replaced) |".into(),
        "| 2 (entry #3) | left out | flagged by the previous attempt's check | 2 questions |".into(),
        format!("| 2 (entry #3) | after contamination rule | {} | 10 questions (−0) |", rule),
        "| 2 (entry #3) | passed every check | — | 10 questions |".into(),
        "| 2 (entry #3) | components under link rule | identical passages | 10 with candidates |".into(),
        "| 2 (entry #3) | stop-rule decision | [stop-rule] | stop — 10 counted < 20 required |".into(),
        format!("| repair trace (entry #4) | 12 original vs 12 replacement passages | [repair-trace] character 3-grams, L2 logistic regression C = 1, 5 folds; no trace when the 95% upper bound < 0.6 | {} |", TRACE_LINE),
    ];
    assert_eq!(table, expected);
    let html = std::fs::read_to_string(env.join("rep/report.html")).unwrap();
    assert!(html.contains("6 questions (12 passages replaced)</td>"), "{}", html);
    // The flowchart starts at the gate: candidates, then what the rule left.
    assert!(
        md.contains("after contamination rule against sealed validation"),
        "{}",
        md
    );
}
