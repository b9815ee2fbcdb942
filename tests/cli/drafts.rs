//! `pledge new` and `pledge check`: each case's starting protocol, checked against a sample of
//! its inputs, then the case's minimal end-to-end run; unusable drafts reported by `check` with
//! the line and the fix, and refused by `register`.

use crate::common::{data, Env};

/// The first `n` columns of the HotpotQA correctness CSV, the header renamed to `names`.
fn correctness_columns(cols: &[usize], names: &str) -> String {
    let text = std::fs::read_to_string(data("hotpotqa-100/correctness.csv")).unwrap();
    let mut out = format!("{}\n", names);
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let row: Vec<&str> = cols.iter().map(|&c| cells[c]).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The share of `CORRECT` cells in column `col` of the correctness CSV.
fn correct_share(col: usize) -> f64 {
    let text = std::fs::read_to_string(data("hotpotqa-100/correctness.csv")).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let hits = rows.iter().filter(|l| l.split(',').nth(col) == Some("CORRECT")).count();
    hits as f64 / rows.len() as f64
}

/// The mean of a measure's per-topic rows in a `trec_eval -q` output file.
fn trec_eval_mean(file: &str, measure: &str) -> f64 {
    let text = std::fs::read_to_string(data(file)).unwrap();
    let v: Vec<f64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() == 3 && f[0] == measure && f[1] != "all")
        .map(|f| f[2].parse().unwrap())
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// The text of the example protocol `protocols/NAME`.
fn example(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("protocols")
            .join(name),
    )
    .unwrap()
}

/// `pledge new CASE FILE` writes exactly the example protocol `protocols/CASE.toml`, with the
/// git author (`GIT_AUTHOR_NAME <GIT_AUTHOR_EMAIL>`, "Test" here) as `registered-by`.
fn new_case(env: &Env, case: &str, file: &str) -> String {
    let r = env.run(&["new", case, file]);
    assert_eq!(r.code, 0, "new {}: {}", case, r.stderr);
    let want = example(&format!("{}.toml", case)).replacen(
        "registered-by = \"Your Name <you@example.org>\"",
        "registered-by = \"Test <test@example.org>\"",
        1,
    );
    let got = std::fs::read_to_string(env.join(file)).unwrap();
    assert_eq!(got, want, "pledge new {} writes protocols/{}.toml", case, case);
    assert!(
        r.stderr.contains(&format!("pledge check {}", file)),
        "next steps: {}",
        r.stderr
    );
    got
}

#[test]
fn new_two_models_then_check_then_register_analyze_report_verify() {
    let env = Env::init();
    new_case(&env, "two-models", "study.toml");
    env.write(
        "scores.csv",
        correctness_columns(&[0, 1, 2], "question,baseline,candidate"),
    );
    let r = env.run(&["check", "study.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("input     scores: 2 systems (baseline, candidate), 100 topics"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("OK: the protocol can be registered"), "{}", r.stdout);
    assert_eq!(
        env.run(&["log", "--format", "json"]).stdout.trim(),
        "[]",
        "check writes nothing"
    );
    assert_eq!(env.run(&["register", "study.toml"]).code, 0);
    let r = env.run(&["analyze", "study.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (base, cand) = (correct_share(1), correct_share(2));
    assert_eq!((base, cand), (0.57, 0.68), "hand count of CORRECT cells");
    assert!(r.stdout.contains(&format!("baseline     {:.4}", base)), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("candidate    {:.4}", cand)), "{}", r.stdout);
    assert!(
        r.stdout
            .contains(&format!("(difference {:+.4}; mean over topics)", cand - base)),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("hypothesis `candidate beats baseline` (primary"),
        "{}",
        r.stdout
    );
    assert_eq!(env.run(&["report", "--out", "report"]).code, 0);
    assert!(env.join("report/report.md").is_file());
    assert_eq!(env.run(&["verify", "study.toml"]).code, 0);
}

#[test]
fn new_trec_runs_then_check_then_analyze_matches_trec_eval() {
    let env = Env::init();
    let text = new_case(&env, "trec-runs", "trec.toml");
    // As a user names the registered systems after the runs' tags.
    env.write(
        "trec.toml",
        text.replace("run-a", "humR03dc").replace("run-b", "uic0301"),
    );
    let qrels = data("trec/robust03_qrels.subset.txt.gz");
    let (a, b) = (
        data("trec/input.humR03dc.subset.gz"),
        data("trec/input.uic0301.subset.gz"),
    );
    let args = |cmd: &'static str| -> Vec<String> {
        [
            cmd,
            "trec.toml",
            "--qrels",
            qrels.to_str().unwrap(),
            "--run",
            a.to_str().unwrap(),
            "--run",
            b.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let check: Vec<String> = args("check");
    let r = env.run(&check.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("scores: 2 systems (humR03dc, uic0301), 10 topics"),
        "{}",
        r.stdout
    );
    assert_eq!(env.run(&["register", "trec.toml"]).code, 0);
    let analyze: Vec<String> = args("analyze");
    let r = env.run(&analyze.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{}", r.stderr);
    // trec_eval 10.0's per-topic ndcg_cut_10 of the same runs (tests/data/trec/PROVENANCE.txt).
    let hum = trec_eval_mean("trec/te10.all.input.humR03dc.subset", "ndcg_cut_10");
    let uic = trec_eval_mean("trec/te10.all.input.uic0301.subset", "ndcg_cut_10");
    assert!(
        r.stdout.contains(&format!("humR03dc    {:.4}", hum)),
        "{} vs {}",
        r.stdout,
        hum
    );
    assert!(
        r.stdout.contains(&format!("uic0301     {:.4}", uic)),
        "{} vs {}",
        r.stdout,
        uic
    );
    assert!(
        r.stdout
            .contains("whether the 2 evaluated runs contributed to the judgment pool is unknown"),
        "{}",
        r.stdout
    );
}

#[test]
fn new_many_systems_then_check_then_analyze_all_pairs() {
    let env = Env::init();
    new_case(&env, "many-systems", "many.toml");
    env.write(
        "scores.csv",
        correctness_columns(&[0, 1, 2, 4], "question,system-a,system-b,system-c"),
    );
    let r = env.run(&["check", "many.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("3 systems (system-a, system-b, system-c), 100 topics"),
        "{}",
        r.stdout
    );
    assert_eq!(env.run(&["register", "many.toml"]).code, 0);
    let r = env.run(&["analyze", "many.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for (name, col) in [("system-a", 1), ("system-b", 2), ("system-c", 4)] {
        assert!(
            r.stdout.contains(&format!("{}    {:.4}", name, correct_share(col))),
            "{}: {}",
            name,
            r.stdout
        );
    }
    for pair in ["system-a − system-b", "system-a − system-c", "system-b − system-c"] {
        assert!(r.stdout.contains(pair), "all pairs compared: {}", r.stdout);
    }
    assert!(r.stdout.contains("randomized Tukey HSD"), "{}", r.stdout);
}

#[test]
fn new_benchmark_then_check_then_count_stops() {
    let env = Env::init();
    new_case(&env, "benchmark", "bench.toml");
    let (q, p) = (data("components/questions.jsonl"), data("components/passages.jsonl"));
    let (q, p) = (q.to_str().unwrap(), p.to_str().unwrap());
    let r = env.run(&["check", "bench.toml", "--questions", q, "--passages", p]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("questions: 4 questions, 8 passages (pledge layout)"),
        "{}",
        r.stdout
    );
    assert_eq!(env.run(&["register", "bench.toml"]).code, 0);
    let r = env.run(&[
        "components",
        "bench.toml",
        "--questions",
        q,
        "--passages",
        p,
        "--assign",
    ]);
    // The four hand-made questions form one component (tests/cli/components.rs works the
    // ablation out by hand), far below the 50 the tuning split alone needs.
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("STOP: counted 1 components with candidates"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_reports_an_unusable_draft_with_its_line_and_fix_and_register_refuses_it() {
    let env = Env::init();
    let text = example("two-models.toml");
    let draft = text.replace("layout = \"wide\"", "layout = \"per-system\"");
    env.write("study.toml", &draft);
    let line = draft.lines().position(|l| l.starts_with("layout = ")).unwrap() + 1;
    let r = env.run(&["check", "study.toml"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let at = format!(
        "study.toml:{}:10: layout = \"per-system\" reads one file per system",
        line
    );
    assert!(r.stdout.contains(&at), "{}", r.stdout);
    assert!(
        r.stdout.contains("    fix: add `column = \"NAME\"` under [scores]"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("FAILED: 1 problem\n"), "{}", r.stdout);
    let r = env.run(&["register", "study.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(&at), "{}", r.stderr);
    assert!(r.stderr.contains("hint: add `column = \"NAME\"`"), "{}", r.stderr);
    let log = env.run(&["log", "--format", "json"]);
    assert_eq!(log.stdout.trim(), "[]", "nothing was registered");
}

#[test]
fn check_lists_every_problem_of_a_draft_and_writes_nothing() {
    let env = Env::new();
    let text = example("two-models.toml");
    let draft = text
        .replace("alpha = 0.05", "alpha = 1.5")
        .replace("trials = 10000", "trials = 0")
        .replace("seed = 1\n", "seed = 1\nsplit = \"final\"\n");
    env.write("study.toml", &draft);
    let line_of = |prefix: &str| draft.lines().position(|l| l.starts_with(prefix)).unwrap() + 1;
    let r = env.run(&["check", "study.toml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let messages: Vec<&str> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{:?}", messages);
    assert!(
        messages[0].ends_with(&format!(
            "study.toml:{}:9: target.alpha must be in (0, 1), got 1.5",
            line_of("alpha")
        )),
        "{:?}",
        messages
    );
    assert!(
        messages[1].ends_with(&format!(
            "study.toml:{}:10: analysis.trials must be in 1..=10000000, got 0",
            line_of("trials")
        )),
        "{:?}",
        messages
    );
    // The usability checks run once the draft parses and validates.
    env.write(
        "study.toml",
        text.replace("seed = 1\n", "seed = 1\nsplit = \"final\"\n"),
    );
    let r = env.run(&["check", "study.toml"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("analysis.split = \"final\" names no split of the protocol"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("fix: add a [[splits]] named \"final\", or remove analysis.split"),
        "{}",
        r.stdout
    );
    assert!(!env.join(".git").exists(), "check needs no repository and creates none");
}

#[test]
fn check_names_registered_systems_the_inputs_lack() {
    let env = Env::new();
    env.copy_from_repo("protocols/two-models.toml", "study.toml");
    env.write("scores.csv", correctness_columns(&[0, 1, 2], "question,gpt-3.5,gpt-4"));
    let r = env.run(&["check", "study.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("the inputs hold no system `candidate` (they hold: gpt-3.5, gpt-4)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("the inputs hold no system `baseline`"),
        "{}",
        r.stdout
    );
}

#[test]
fn every_example_protocol_passes_check() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{:?}", names);
    let env = Env::new();
    for n in names {
        env.copy_from_repo(&format!("protocols/{}", n), &n);
        let r = env.run(&["check", &n]);
        assert_eq!(r.code, 0, "protocols/{}: {}{}", n, r.stdout, r.stderr);
    }
}

#[test]
fn new_never_overwrites_and_prints_to_standard_output_with_dash() {
    let env = Env::new();
    env.write("study.toml", "mine\n");
    let r = env.run(&["new", "two-models", "study.toml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("study.toml: already exists; nothing was overwritten"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(env.join("study.toml")).unwrap(), "mine\n");
    let r = env.run(&["new", "benchmark", "-"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("[[link-rules]]") && r.stdout.contains("[stop-rule]"),
        "{}",
        r.stdout
    );
    let r = env.run(&["new", "three-models"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("two-models"), "possible values listed: {}", r.stderr);
}

#[test]
fn the_placeholder_author_is_kept_only_without_a_git_identity_and_check_and_register_warn() {
    let env = Env::init();
    // No identity anywhere: empty author variables, and no global git configuration to fall
    // back to.
    let none = [
        ("GIT_AUTHOR_NAME", ""),
        ("GIT_AUTHOR_EMAIL", ""),
        ("HOME", "/nonexistent"),
        ("XDG_CONFIG_HOME", "/nonexistent"),
    ];
    let r = env.run_env(&["new", "two-models", "study.toml"], &none);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(env.join("study.toml")).unwrap(),
        example("two-models.toml")
    );
    assert!(
        r.stderr.contains(
            "note: registered-by is the placeholder `Your Name <you@example.org>`: git knows no user.name and user.email here"
        ),
        "{}",
        r.stderr
    );
    let warning = format!(
        "{}:17:17: registered-by is still the placeholder `Your Name <you@example.org>`: the ledger and every report name it as who registered the study",
        env.join("study.toml").display()
    );
    let r = env.run(&["check", "study.toml"]);
    assert_eq!(r.code, 0, "a warning, not a problem: {}", r.stderr);
    assert!(
        r.stderr.contains(&format!("warning: {}", warning))
            && r.stderr.contains("; put your name and e-mail there before registering"),
        "{}",
        r.stderr
    );
    let r = env.run(&["register", "study.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "warning: {}; correct it with `pledge amend` (a recorded amendment)",
            warning
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn a_csv_given_as_questions_shows_its_first_line_and_the_expected_one() {
    let env = Env::init();
    env.copy_from_repo("protocols/benchmark.toml", "bench.toml");
    env.write(
        "scores.csv",
        correctness_columns(&[0, 1, 2], "question,baseline,candidate"),
    );
    let r = env.run(&["check", "bench.toml", "--questions", "scores.csv"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let what = "scores.csv:1: this is a comma-separated table, not questions or passages: the first line is `question,baseline,candidate`";
    assert!(r.stdout.contains(what), "{}", r.stdout);
    assert!(
        r.stdout
            .contains(r#"fix: questions are JSON Lines starting like {"id": "q1", "passages": ["p1"], "decoy": "p2"}"#),
        "{}",
        r.stdout
    );
    let r = env.run(&["components", "bench.toml", "--questions", "scores.csv", "--dry-run"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(what), "{}", r.stderr);
    assert!(
        r.stderr
            .contains(r#"hint: questions are JSON Lines starting like {"id": "q1""#),
        "{}",
        r.stderr
    );
}
