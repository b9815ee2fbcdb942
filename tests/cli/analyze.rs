//! Integration tests: analyze and compare.

use crate::common::{data, Env};
use pledge::ledger::{Draft, EntryKind, Ledger};
use serde_json::Value;

const HOTPOT: &str = "analyze/hotpotqa-100-correctness.csv";
const GPT35: &str = "cot_context_gpt-3.5-turbo_trial1";
const GPT4: &str = "cot_context_gpt-4_trial1";

fn copy_data(env: &Env, name: &str, to: &str) {
    env.write(to, std::fs::read(data(name)).unwrap());
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, s))
}

fn cmp<'a>(v: &'a Value, system: &str) -> &'a Value {
    v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["system"] == system)
        .unwrap()
}

#[test]
fn compare_hotpotqa_needs_a_label_for_halted_then_gives_real_values() {
    let env = Env::new();
    copy_data(&env, HOTPOT, "c.csv");
    let r = env.run(&["compare", "--scores", "c.csv", "--baseline", GPT35]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("c.csv:") && r.stderr.contains("HALTED"),
        "{}",
        r.stderr
    );
    let args = [
        "compare",
        "--scores",
        "c.csv",
        "--baseline",
        GPT35,
        "--label",
        "HALTED=0",
        "--format",
        "json",
        "--seed",
        "3",
    ];
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("writes no ledger entry"));
    let v = json(&r.stdout);
    assert_eq!(v["mode"], "compare");
    let sys: Vec<&Value> = v["systems"].as_array().unwrap().iter().collect();
    assert_eq!(sys.len(), 6);
    assert_eq!(sys[0]["mean"], 0.57);
    assert_eq!(sys[1]["mean"], 0.68);
    let c = cmp(&v, GPT4);
    assert_eq!(c["baseline"], GPT35);
    assert!((c["difference"].as_f64().unwrap() - 0.11).abs() < 1e-12);
    // 15 vs 4 discordant questions: exact two-sided sign-flip p = 2·Σ_{k≥15} C(19,k)/2^19.
    let exact = 2.0 * (3876.0 + 969.0 + 171.0 + 19.0 + 1.0) / 524288.0;
    let p = c["randomization"]["p"].as_f64().unwrap();
    let se = (exact * (1.0 - exact) / 10_000.0f64).sqrt();
    assert!((p - exact).abs() < 4.0 * se, "{} vs {}", p, exact);
    assert_eq!(c["p_adjusted"]["method"], "holm");
    assert_eq!(c["p_adjusted"]["family"], 5);
    let h = &c["paired"]["histogram"]["counts"];
    assert_eq!(
        h.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum::<u64>(),
        10_000
    );
    // Same inputs and seed: byte-identical output.
    assert_eq!(env.run(&args).stdout, r.stdout);
}

#[test]
fn compare_swapping_systems_negates_and_keeps_reversal() {
    let env = Env::new();
    env.write(
        "s.csv",
        "topic,A,B\n1,0.5,0.25\n2,0.75,0.5\n3,0.25,0.5\n4,1,0.5\n5,0.5,0.5\n",
    );
    let run = |base: &str| {
        json(
            &env.run(&["compare", "--scores", "s.csv", "--baseline", base, "--format", "json"])
                .stdout,
        )
    };
    let ab = run("B");
    let ba = run("A");
    let (x, y) = (&ab["comparisons"][0], &ba["comparisons"][0]);
    assert_eq!(x["difference"], 0.15);
    assert_eq!(y["difference"].as_f64().unwrap(), -0.15);
    assert_eq!(x["paired"]["reversal_rate"], y["paired"]["reversal_rate"]);
    assert!(x["paired"]["reversal_rate"].as_f64().unwrap() > 0.0);
    // Sign-flip over 5 topics is exact: |sum| ≥ 3 quarter-points among 2^5 sign patterns.
    assert_eq!(x["randomization"]["method"], "exact");
}

#[test]
fn compare_reads_trec_eval_and_per_system_csv_files() {
    let env = Env::new();
    copy_data(&env, "analyze/input.InexpC2.q.txt", "a.q.txt");
    copy_data(&env, "analyze/input.aplrob03a.q.txt", "b.q.txt");
    let r = env.run(&[
        "compare", "--scores", "a.q.txt", "--scores", "b.q.txt", "--format", "json",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("several measures"), "{}", r.stderr);
    let r = env.run(&[
        "compare",
        "--scores",
        "a.q.txt",
        "--scores",
        "b.q.txt",
        "--measure",
        "map",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["topics"]["analyzed"], 100);
    // trec_eval's `all` map of InexpC2 is 0.2249.
    assert!((v["systems"][0]["mean"].as_f64().unwrap() - 0.2249).abs() < 5e-5);
    copy_data(&env, "analyze/glm-4.7.csv", "glm-4.7.csv");
    copy_data(&env, "analyze/kimi-k2.5.csv", "kimi-k2.5.csv");
    let r = env.run(&[
        "compare",
        "--scores",
        "glm-4.7.csv",
        "--scores",
        "kimi-k2.5.csv",
        "--column",
        "f1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["systems"][0]["name"], "glm-4.7");
    assert_eq!(v["topics"]["analyzed"], 200);
}

#[test]
fn compare_missing_topics_policies() {
    let env = Env::new();
    env.write("m.csv", "topic,system,score\n1,A,1\n2,A,0\n3,A,1\n1,B,0\n2,B,0\n");
    let r = env.run(&["compare", "--scores", "m.csv"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("3 (missing for B)"), "{}", r.stderr);
    let v = json(
        &env.run(&[
            "compare",
            "--scores",
            "m.csv",
            "--missing-topics",
            "zero",
            "--format",
            "json",
        ])
        .stdout,
    );
    assert_eq!(
        (
            v["topics"]["analyzed"].as_u64(),
            v["topics"]["filled_with_zero"].as_u64()
        ),
        (Some(3), Some(1))
    );
    let v = json(
        &env.run(&[
            "compare",
            "--scores",
            "m.csv",
            "--missing-topics",
            "intersection",
            "--format",
            "json",
        ])
        .stdout,
    );
    assert_eq!(
        (
            v["topics"]["analyzed"].as_u64(),
            v["topics"]["dropped_missing"].as_u64()
        ),
        (Some(2), Some(1))
    );
}

fn registered_env() -> Env {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "protocols/hotpotqa.toml");
    copy_data(&env, HOTPOT, "data/correctness.csv");
    let r = env.run(&["register", "protocols/hotpotqa.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    env
}

const ANALYZE: [&str; 7] = [
    "analyze",
    "protocols/hotpotqa.toml",
    "--scores",
    "data/correctness.csv",
    "--label",
    "HALTED=0",
    "--format",
];

#[test]
fn analyze_records_an_entry_and_reruns_to_the_same_hash() {
    let env = registered_env();
    env.copy_from_repo("tests/data/hotpotqa-100/questions.json", "data/questions.json");
    let c = env.run(&[
        "components",
        "protocols/hotpotqa.toml",
        "--questions",
        "data/questions.json",
        "--out",
        "components.csv",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let mut args = ANALYZE.to_vec();
    args.push("json");
    args.extend(["--components", "components.csv"]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["mode"], "analyze");
    assert_eq!(v["generator"]["name"], "ChaCha8Rng");
    assert_eq!(v["generator"]["seed"], 20261130);
    assert_eq!(v["comparisons"].as_array().unwrap().len(), 5);
    let ledger = Ledger::open(env.path()).unwrap();
    let entries = ledger.entries().unwrap();
    let last = entries.last().unwrap();
    assert_eq!(last.entry.kind, EntryKind::Analyze);
    assert!(
        last.entry
            .inputs
            .contains_key(&"scores:data/correctness.csv".parse().unwrap()),
        "{:?}",
        last.entry.inputs
    );
    assert_eq!(last.entry.rng.as_ref().unwrap().seed, 20261130);
    assert_eq!(last.entry.summary["comparisons"][0]["adjust"], "holm");
    let rep = pledge::ops::rerun::rerun(&ledger, &entries, last).unwrap();
    assert!(rep.ok, "{:?}", rep.problems);
    // A changed input is detected.
    env.write("data/correctness.csv", "_id,a,b\nq,1,0\n");
    let rep = pledge::ops::rerun::rerun(&ledger, &entries, last).unwrap();
    assert!(!rep.ok && rep.problems[0].contains("changed"), "{:?}", rep.problems);
    // A forged entry naming a device or a file outside the repository is not read (it would
    // hang on /dev/zero): each is a problem, at once.
    for forged_path in ["/dev/zero", "../../../etc/passwd", "/etc/hostname"] {
        let mut forged = last.clone();
        let hash = forged
            .entry
            .inputs
            .remove(&"scores:data/correctness.csv".parse().unwrap())
            .unwrap();
        forged
            .entry
            .inputs
            .insert(format!("scores:{}", forged_path).parse().unwrap(), hash);
        let rep = pledge::ops::rerun::rerun(&ledger, &entries, &forged).unwrap();
        assert!(!rep.ok, "{}", forged_path);
        assert!(
            rep.problems
                .iter()
                .any(|p| p.contains("not a file inside the repository") || p.contains("no such file")),
            "{}: {:?}",
            forged_path,
            rep.problems
        );
    }
}

#[test]
fn analyze_refuses_unregistered_changed_and_stopped_studies() {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "protocols/hotpotqa.toml");
    copy_data(&env, HOTPOT, "data/correctness.csv");
    let r = env.run(&ANALYZE[..6]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("not registered"), "{}", r.stderr);
    assert_eq!(env.run(&["register", "protocols/hotpotqa.toml"]).code, 0);
    let text = std::fs::read_to_string(env.join("protocols/hotpotqa.toml")).unwrap();
    env.write(
        "protocols/hotpotqa.toml",
        text.replace("trials = 10000", "trials = 2000"),
    );
    let r = env.run(&ANALYZE[..6]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("changed since it was registered"), "{}", r.stderr);
    env.write("protocols/hotpotqa.toml", &text);
    let ledger = Ledger::open(env.path()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(crate::common::NOW)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let draft = Draft {
        kind: Some(EntryKind::Stop),
        study_id: "hotpotqa-100-agents".into(),
        ..Draft::default()
    };
    ledger.append(&draft, now).unwrap();
    let r = env.run(&ANALYZE[..6]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("stop rule said stop"), "{}", r.stderr);
    let mut args = ANALYZE[..6].to_vec();
    args.extend(["--deviation", "analyzing anyway for the pilot report"]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let entries = ledger.entries().unwrap();
    let n = entries.len();
    assert_eq!(entries[n - 2].entry.kind, EntryKind::Deviation);
    assert_eq!(
        entries[n - 2].entry.reason.as_deref(),
        Some("analyzing anyway for the pilot report")
    );
    assert_eq!(entries[n - 1].entry.kind, EntryKind::Analyze);
    assert_eq!(entries[n - 1].entry.summary["deviation"], true);
}

#[test]
fn analyze_refuses_an_assignment_other_than_the_counted_one() {
    let env = registered_env();
    let rows: String = std::fs::read_to_string(data(HOTPOT))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let q = l.split(',').next().unwrap();
            format!("{},C-{},{},,\n", q, q, q)
        })
        .collect();
    env.write(
        "components.csv",
        format!("question,component,unit,split,counted\n{}", rows),
    );
    let ledger = Ledger::open(env.path()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(crate::common::NOW)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let mut inputs = std::collections::BTreeMap::new();
    inputs.insert("assignment:components.csv".parse().unwrap(), "0".repeat(64));
    let draft = Draft {
        kind: Some(EntryKind::Go),
        study_id: "hotpotqa-100-agents".into(),
        inputs: inputs.clone(),
        ..Draft::default()
    };
    ledger.append(&draft, now).unwrap();
    let mut args = ANALYZE[..6].to_vec();
    args.extend(["--components", "components.csv"]);
    let r = env.run(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("assignment differs"), "{}", r.stderr);
    let h = pledge::io::sha256_file(&env.join("components.csv")).unwrap();
    inputs.insert("assignment:components.csv".parse().unwrap(), h);
    ledger
        .append(
            &Draft {
                kind: Some(EntryKind::Go),
                study_id: "hotpotqa-100-agents".into(),
                inputs,
                ..Draft::default()
            },
            now,
        )
        .unwrap();
    args.extend(["--format", "json"]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["components"]["components"], 100);
    let c = cmp(&v, GPT4);
    assert!(c["component"]["interval"].is_array());
    assert!(c["cluster_robust"]["se"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_inputs_exit_2_with_file_and_line() {
    let env = Env::new();
    env.write("dup.csv", "topic,system,score\n1,A,0.5\n2,A,0.5\n1,A,0.7\n");
    let r = env.run(&["compare", "--scores", "dup.csv"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("dup.csv:4:") && r.stderr.contains("duplicate"),
        "{}",
        r.stderr
    );
    env.write("nan.csv", "topic,system,score\n1,A,nan\n");
    let r = env.run(&["compare", "--scores", "nan.csv"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nan.csv:2:"), "{}", r.stderr);
    env.write("one.csv", "topic,system,score\n1,A,0.5\n");
    let r = env.run(&["compare", "--scores", "one.csv"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("at least 2"), "{}", r.stderr);
}

#[test]
fn degenerate_data_is_flagged_not_nan() {
    let env = Env::new();
    env.write("d.csv", "topic,A,B\n1,0.5,0.25\n2,0.75,0.5\n");
    let r = env.run(&["compare", "--scores", "d.csv", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("NaN") && !r.stdout.contains("null,\n      \"t\": NaN"));
    let v = json(&r.stdout);
    let c = &v["comparisons"][0];
    assert_eq!(c["paired"]["reversal_rate"], 0.0);
    assert!(c["t_test"]["t"].is_null() && c["t_test"]["flag"].as_str().unwrap().contains("equal"));
    assert!(c["flags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f.as_str().unwrap().contains("all per-topic differences are equal")));
    let h = env.run(&["compare", "--scores", "d.csv"]);
    assert!(h.stdout.contains("A − B") && h.stdout.contains("flag:"), "{}", h.stdout);
}

/// `analyze` evaluates qrels + runs directly with the protocol's metric, records the qrels and
/// run hashes, carries the pool-bias check into the result and the report, and reruns.
#[test]
fn analyze_accepts_qrels_and_runs() {
    let env = crate::common::Env::init();
    for f in [
        "robust03_qrels.subset.txt.gz",
        "input.InexpC2.subset.gz",
        "input.uic0301.subset.gz",
    ] {
        env.write(f, std::fs::read(crate::common::data(&format!("trec/{}", f))).unwrap());
    }
    env.write(
        "p.toml",
        r#"schema-version = 1
[study]
id = "robust03-subset"
title = "Robust03, 10 topics"
registered-by = "test"
[target]
metric = "map"
mde = 0.05
[analysis]
seed = 7
trials = 2000
randomization-trials = 2000
[pool]
contributors = ["uic0301"]
depth = 100
judged-k = 10
"#,
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let args = [
        "analyze",
        "p.toml",
        "--qrels",
        "robust03_qrels.subset.txt.gz",
        "--run",
        "input.InexpC2.subset.gz",
        "--run",
        "input.uic0301.subset.gz",
        "--format",
        "json",
    ];
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    // Means of map over the 10 topics, from trec_eval's own per-topic output of these runs
    // (tests/data/trec/input.*.subset.q.txt): InexpC2 0.1277, uic0301 0.2473.
    let mean = |name: &str| {
        v["systems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()["mean"]
            .as_f64()
            .unwrap()
    };
    assert!((mean("InexpC2") - 0.1277).abs() < 5e-5, "{}", mean("InexpC2"));
    assert!((mean("uic0301") - 0.2473).abs() < 5e-5);
    let pb = &v["pool_bias"];
    assert_eq!(pb["metric"], "map");
    let runs = pb["runs"].as_array().unwrap();
    assert_eq!(runs.iter().filter(|r| r["contributor"] == true).count(), 1);
    assert!(
        pb["statement"].as_str().unwrap().contains("uic0301"),
        "{}",
        pb["statement"]
    );
    let log = env.run(&["log", "--format", "json"]);
    assert!(
        log.stdout.contains("qrels:robust03_qrels.subset.txt.gz"),
        "{}",
        log.stdout
    );
    assert!(log.stdout.contains("run:input.uic0301.subset.gz"));
    let re = env.run(&["verify", "--rerun"]);
    assert_eq!(re.code, 0, "{}\n{}", re.stdout, re.stderr);
    assert!(
        re.stdout.contains("rerun-matches") || re.stdout.contains("recomputed"),
        "{}",
        re.stdout
    );
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    let pool = &md[md.find("## Pool bias").unwrap()..];
    assert!(pool.contains("uic0301"), "{}", pool);
}

/// `--split` needs an assignment, and must name one of its splits.
#[test]
fn split_without_components_or_unknown_is_an_error() {
    let env = crate::common::Env::new();
    env.write("s.csv", "topic,system,score\nq1,a,1\nq1,b,0\nq2,a,1\nq2,b,1\n");
    let r = env.run(&["compare", "--scores", "s.csv", "--split", "final"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--split needs --components"), "{}", r.stderr);
    env.write(
        "a.csv",
        "question,component,unit,split,counted\nq1,C1,q1,,\nq2,C2,q2,,\n",
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "s.csv",
        "--components",
        "a.csv",
        "--split",
        "final",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no component is assigned to split `final`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--assign"), "{}", r.stderr);
    env.write(
        "b.csv",
        "question,component,unit,split,counted\nq1,C1,q1,final,1\nq2,C2,q2,tuning,1\n",
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "s.csv",
        "--components",
        "b.csv",
        "--split",
        "nosuch",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let none = env.run(&["compare", "--scores", "s.csv", "--components", "b.csv"]);
    assert_eq!(none.code, 2, "{}", none.stderr);
    assert!(
        none.stderr
            .contains("splits (final, tuning): choose the one to analyze"),
        "{}",
        none.stderr
    );
    assert!(
        r.stderr.contains("splits in this assignment: final, tuning"),
        "{}",
        r.stderr
    );
}

/// Trial counts are bounded (memory grows with them), and a `.gz` name needs gzip bytes.
#[test]
fn huge_trials_and_fake_gzip_are_errors() {
    let env = crate::common::Env::new();
    env.write("s.csv", "topic,system,score\nq1,a,1\nq1,b,0\n");
    let r = env.run(&["compare", "--scores", "s.csv", "--trials", "4000000000"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    env.write("fake.csv.gz", "topic,system,score\nq1,a,1\n");
    let r = env.run(&["compare", "--scores", "fake.csv.gz"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not a valid gzip stream"), "{}", r.stderr);
    let e = crate::common::Env::init();
    let p = e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\ntrials = 10000\n", "\ntrials = 20000000\n");
    e.write("p.toml", text);
    let r = e.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("analysis.trials must be in 1..=10000000"),
        "{}",
        r.stderr
    );
}

/// The demo's repository (`pledge demo`: registered #1, counted #2, analyzed #3) and the
/// steps the amendment tests repeat in it.
struct Demo {
    env: Env,
    dir: std::path::PathBuf,
}

impl Demo {
    fn new() -> Demo {
        let env = Env::new();
        assert_eq!(env.run(&["demo", "demo"]).code, 0);
        let dir = env.join("demo");
        Demo { env, dir }
    }

    /// `pledge -C DIR ARGS...`.
    fn run(&self, args: &[&str]) -> crate::common::Run {
        let mut all = vec!["-C", self.dir.to_str().unwrap()];
        all.extend_from_slice(args);
        self.env.run(&all)
    }

    /// Replaces `from` by `to` in the protocol and amends it (which must succeed).
    fn amend(&self, from: &str, to: &str) {
        let path = self.dir.join("protocols/hotpotqa.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{}", from);
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let r = self.run(&[
            "amend",
            "protocols/hotpotqa.toml",
            "--reason",
            &format!("{} → {}", from, to),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }

    /// The demo's own step `step` (its analysis, its count: [`pledge::ops::demo::steps`]),
    /// with `extra` arguments.
    fn step(&self, step: &str, extra: &[&str]) -> crate::common::Run {
        let mut args = pledge::ops::demo::steps().into_iter().find(|s| s[0] == step).unwrap();
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// The demo's analysis, with `extra` arguments.
    fn analyze(&self, extra: &[&str]) -> crate::common::Run {
        self.step("analyze", extra)
    }

    /// The demo's count, on the same inputs.
    fn recount(&self) -> crate::common::Run {
        self.step("components", &[])
    }

    fn entries(&self) -> Vec<pledge::ledger::StoredEntry> {
        Ledger::open(&self.dir).unwrap().entries().unwrap()
    }
}

/// An amendment after the count: one that leaves what the count decides from alone (trials)
/// needs no recount; one that changes the power target the split derives its requirement from
/// refuses the analysis until the study is counted again under it, and that recount applies
/// the stop rule to the amended target (100 components against 161 required: stop).
#[test]
fn an_amended_target_after_the_count_needs_a_recount_before_the_analysis() {
    let demo = Demo::new();
    demo.amend("trials = 10000", "trials = 2000");
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 0, "{}", r.stderr);

    demo.amend("mde = 0.15", "mde = 0.10");
    let entries = demo.entries();
    let count = entries.iter().find(|e| e.entry.kind == EntryKind::Go).unwrap();
    let counted_under = count.entry.protocol_sha256.clone().unwrap();
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "error: analysis of study `hotpotqa-100-agents` refused by the registration\n\
             Caused by: the component count (entry #{}, protocol sha256 {}) does not stand under the registration in force, which counts otherwise: target.mde: 0.15 → 0.1\n\
             hint: count again under the protocol in force with `pledge components` on the same inputs (no reason needed), or proceed and record it with --deviation \"reason\"\n",
            count.entry.seq,
            &counted_under[..12]
        )
    );
    assert_eq!(demo.entries().len(), entries.len(), "a refusal appends nothing");

    let r = demo.recount();
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("STOP: counted 100 components with candidates, required 161 (final 161, sum of splits)"),
        "{}",
        r.stderr
    );
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("Caused by: the stop rule said stop (entry #"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("counts otherwise"), "{}", r.stderr);
}

/// A link rule amended after the count: the analysis is refused naming the rule's changed
/// value, a deviation proceeds and records that refusal among those it overrode, and the same
/// analysis appended without its deviation is found by `verify` from the chain alone.
#[test]
fn an_amended_link_rule_after_the_count_is_refused_or_recorded_as_a_deviation() {
    let demo = Demo::new();
    demo.amend("jaccard = 0.8", "jaccard = 0.7");
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let changed = "which counts otherwise: link-rules[name = \"plus near-identical paragraphs\"].jaccard: 0.8 → 0.7";
    assert!(r.stderr.contains(changed), "{}", r.stderr);
    let r = demo.analyze(&["--deviation", "the looser rule links nothing more here"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let entries = demo.entries();
    let n = entries.len();
    assert_eq!(entries[n - 1].entry.kind, EntryKind::Analyze);
    let dev = &entries[n - 2].entry;
    assert_eq!(dev.kind, EntryKind::Deviation);
    let overridden = dev.summary["overridden"].as_array().unwrap();
    assert_eq!(overridden.len(), 1, "{:?}", overridden);
    assert!(overridden[0].as_str().unwrap().ends_with(changed), "{:?}", overridden);
    assert_eq!(demo.run(&["verify"]).code, 0);

    // As a tool that skipped the check would append it.
    let last = &entries[n - 1].entry;
    let mut summary = last.summary.clone();
    summary["deviation"] = false.into();
    let forged = Draft {
        kind: Some(EntryKind::Analyze),
        study_id: last.study_id.clone(),
        protocol_sha256: last.protocol_sha256.clone(),
        protocol_path: last.protocol_path.clone(),
        inputs: last.inputs.clone(),
        summary,
        ..Draft::default()
    };
    let now = chrono::DateTime::parse_from_rfc3339(crate::common::NOW)
        .unwrap()
        .with_timezone(&chrono::Utc);
    // The ledger itself refuses it, in the words `verify` would flag it with: the rules it
    // steps for an append are the ones `verify` replays.
    let mut ledger = Ledger::open(&demo.dir).unwrap();
    let refused = ledger.append(&forged, now).unwrap_err();
    let message = |seq: u64| {
        format!(
            "entry #{} analyzes study `hotpotqa-100-agents` on its count (entry #2), which the registration then in force counts otherwise (link-rules[name = \"plus near-identical paragraphs\"].jaccard: 0.8 → 0.7), without a deviation",
            seq
        )
    };
    assert_eq!(
        refused.causes(),
        vec![format!("analysis-refused: {}", message(n as u64 + 1))]
    );
    // Appended anyway (as a tool that skipped the check would): `verify` finds it.
    ledger.set_accept_findings(true);
    let seq = ledger.append(&forged, now).unwrap().seq;
    let r = demo.run(&["verify", "--format", "json"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let v = json(&r.stdout);
    let refused: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "analysis-refused")
        .collect();
    assert_eq!(refused.len(), 1, "{}", r.stdout);
    assert_eq!(refused[0]["message"], message(seq));
}

/// A count made under an amendment that is no longer the latest: a later amendment of
/// something else needs no recount (the count's protocol is found further back in the
/// ledger), and amending the target back to the registration's is a change against that count.
#[test]
fn a_count_under_an_earlier_amendment_is_compared_with_that_amendment() {
    let demo = Demo::new();
    demo.amend("sd = 0.45", "sd = 0.40");
    let r = demo.recount();
    assert_eq!(r.code, 0, "{}", r.stderr);
    demo.amend("trials = 10000", "trials = 2000");
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    demo.amend("sd = 0.40", "sd = 0.45");
    let r = demo.analyze(&[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("Caused by: the component count (entry #5, protocol sha256 "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("which counts otherwise: target.sd: 0.4 → 0.45\n"),
        "{}",
        r.stderr
    );
}

/// Dollar costs are not fractions: `--scale unbounded` labels them in their own unit (no
/// "fraction" anywhere, no Wilson interval for the 0-cost rows); under the default scale the
/// output says the values do not fit it and which scale to give.
#[test]
fn compare_costs_on_the_unbounded_scale() {
    let env = Env::new();
    let mut csv = String::from("topic,cheap,dear\n");
    for i in 0..12 {
        csv.push_str(&format!("q{i},{},{}\n", 0.5 * i as f64, 20.0 + 15.0 * i as f64));
    }
    env.write("cost.csv", csv);
    let base = [
        "compare",
        "--scores",
        "cost.csv",
        "--baseline",
        "cheap",
        "--trials",
        "500",
        "--randomization-trials",
        "500",
    ];
    let r = env.run(&[&base[..], &["--scale", "unbounded"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("metric score (unbounded)"), "{}", r.stdout);
    assert!(!r.stdout.contains("fraction"), "{}", r.stdout);
    assert!(!r.stdout.contains("Wilson"), "{}", r.stdout);
    assert!(!r.stdout.contains("note: the scores range"), "{}", r.stdout);
    let r = env.run(&[&base[..], &["--scale", "unbounded", "--format", "json"]].concat());
    let v = json(&r.stdout);
    assert_eq!(v["settings"]["scale"], "unbounded");
    let dear = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "dear")
        .unwrap();
    assert_eq!(dear["interval"]["estimate"], 102.5);
    let r = env.run(&base);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "note: the scores range from 0 to 185, outside the fraction (0-1) scale: they are not fractions; give their scale (compare --scale points or unbounded, or the protocol's target.scale)"
        ),
        "{}",
        r.stdout
    );
    let r = env.run(&[&base[..], &["--scale", "percent"]].concat());
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A score too large for its squares to stay finite is bad input (exit 2, the system and topic
/// named), in `compare` and in `analyze`, and nothing is appended: before, 1e308 made the
/// difference +inf, which the stored record wrote as `null` and `report` could not read back.
#[test]
fn overflowing_scores_are_refused_and_nothing_is_recorded() {
    let env = Env::new();
    assert_eq!(env.sh(".", "git init -q && pledge new two-models study.toml").code, 0);
    let mut csv = String::from("question,baseline,candidate\n");
    for i in 0..20 {
        let (b, c) = if i < 2 { ("-1e308", "1e308") } else { ("0", "1") };
        csv.push_str(&format!("q{:02},{},{}\n", i, b, c));
    }
    env.write("scores.csv", csv);
    let c = env.run(&["compare", "--scores", "scores.csv"]);
    assert_eq!(c.code, 2, "{}", c.stderr);
    assert!(
        c.stderr
            .contains("scores.csv: system `baseline`, topic `q00`: score -1e308 is outside ±1e100"),
        "{}",
        c.stderr
    );
    assert!(c.stderr.contains("hint: pledge sums squares of scores"), "{}", c.stderr);
    assert_eq!(
        env.sh(
            ".",
            "git add -A && git commit -qm s && pledge init && pledge register study.toml"
        )
        .code,
        0
    );
    let a = env.run(&["analyze", "study.toml", "--scores", "scores.csv"]);
    assert_eq!(a.code, 2, "{}", a.stderr);
    assert!(a.stderr.contains("score -1e308 is outside ±1e100"), "{}", a.stderr);
    let log = env.run(&["log", "--format", "json"]);
    assert_eq!(json(&log.stdout).as_array().map(Vec::len), Some(1), "{}", log.stdout);
    // 1e100 itself is accepted.
    env.write("ok.csv", "question,baseline,candidate\nq1,1e100,0\nq2,0,1\nq3,0,1\n");
    assert_eq!(env.run(&["compare", "--scores", "ok.csv"]).code, 0);
}

#[test]
fn a_strata_file_without_its_field_is_an_error() {
    let env = Env::new();
    copy_data(&env, HOTPOT, "scores.csv");
    env.write("strata.csv", "topic,level\n");
    let r = env.run(&[
        "compare",
        "--scores",
        "scores.csv",
        "--label",
        "HALTED=0",
        "--strata",
        "strata.csv",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--strata-field <FIELD>"), "{}", r.stderr);
}

/// A wide CSV headed `question` (as the README's own study) whose ids are numbers: the first
/// column is the topic ids, not a third "system", so the ids join other files by id.
#[test]
fn a_numeric_question_column_is_the_topic_ids() {
    let env = Env::new();
    env.write("scores.csv", "question,baseline,candidate\n12,0,1\n3,1,1\n7,0,0\n");
    let r = env.run(&["compare", "--scores", "scores.csv", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let names: Vec<&str> = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["baseline", "candidate"]);
    assert!(!r.stderr.contains("1-based row number"), "{}", r.stderr);
}
