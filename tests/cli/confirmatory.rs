//! Integration tests: "confirmatory" means what a reviewer thinks it means (issue 32). Each
//! scenario a team wanting a better result could try is either refused (exit code and message
//! asserted) or classified, with the headline the analysis prints for its ledger entry.

use crate::common::{data, Env};
use crate::registration::{analyze, counted, kinds, protocol_v2, GPT35, GPT4};

/// The last `note: recorded analyze entry #N (…): <headline>` line of `stderr`: the headline.
fn headline(stderr: &str) -> &str {
    let line = stderr
        .lines()
        .rfind(|l| l.starts_with("note: recorded analyze entry"))
        .unwrap_or_else(|| panic!("no analyze entry recorded: {stderr}"));
    line.split_once("): ").map_or("", |x| x.1)
}

/// Keeps the rows of the CSV `text` whose first field is not in `drop` (with the header).
fn without_rows(text: &str, drop: &[&str]) -> String {
    text.lines()
        .filter(|l| !drop.contains(&l.split(',').next().unwrap_or("")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The questions of the HotpotQA sample where gpt-4 is wrong and gpt-3.5 right (the ones a
/// team favouring gpt-4 would drop), read from the correctness file.
const GPT4_LOSES: [&str; 4] = [
    "5a79caad5542994f819ef09f",
    "5a82ebb855429966c78a6a9c",
    "5a87081755429960ec39b6fe",
    "5ac3af895542995ef918c1f0",
];

/// `env` after the questions `GPT4_LOSES` were dropped from the questions and scores files
/// and the study recounted with `--deviation reason`.
fn recount_without_losses(env: &Env, reason: &str) {
    let scores = std::fs::read_to_string(env.join("scores.csv")).unwrap();
    // Check the premise on the data: gpt-4 wrong and gpt-3.5 right on exactly these.
    let head: Vec<&str> = scores.lines().next().unwrap().split(',').collect();
    let (a, b) = (
        head.iter().position(|h| *h == GPT4).unwrap(),
        head.iter().position(|h| *h == GPT35).unwrap(),
    );
    let mut loses: Vec<&str> = scores
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[a] != "CORRECT" && f[b] == "CORRECT")
        .map(|f| f[0])
        .collect();
    loses.sort();
    assert_eq!(loses, GPT4_LOSES);
    env.write("scores.csv", without_rows(&scores, &GPT4_LOSES));
    let questions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.join("questions.json")).unwrap()).unwrap();
    let kept: Vec<&serde_json::Value> = questions
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| !GPT4_LOSES.contains(&q["_id"].as_str().unwrap()))
        .collect();
    assert_eq!(kept.len(), 96);
    env.write("questions.json", serde_json::to_string(&kept).unwrap());
    let r = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
        "--deviation",
        reason,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn an_analysis_after_a_recount_that_dropped_questions_is_confirmatory_with_deviations() {
    let env = counted(&protocol_v2(""));
    recount_without_losses(&env, "malformed gold answers");
    assert_eq!(kinds(&env), ["register", "go", "deviation", "go"]);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        headline(&r.stderr),
        "confirmatory with deviations: the question set changed since the registered count \
         (entry #2) by the recount in entry #4: 4 question(s) left, 0 joined, deviation #3: \
         \"malformed gold answers\""
    );
    // The count records which questions left, against the registered count's record.
    let entry: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger~1:entry.json"]).stdout).unwrap();
    assert_eq!(entry["kind"], "go");
    assert_eq!(
        entry["summary"]["question_change"],
        serde_json::json!({"registered_seq": 2, "left": 4, "joined": 0})
    );
    let result: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger~1:result.json"]).stdout).unwrap();
    assert_eq!(result["question_change"]["left"], serde_json::json!(GPT4_LOSES));
    assert_eq!(result["question_change"]["joined"], serde_json::json!([]));
    // No verdict from a partial set: the scores lack the four dropped registered questions,
    // and the line says so, with their ids, beside the verdict on the deviated set of 96.
    let missing = "no verdict on the 100 registered questions (count entry #2): the scores lack 4 \
         of the 100 registered questions: 5a79caad5542994f819ef09f, 5a82ebb855429966c78a6a9c, \
         5a87081755429960ec39b6fe, 5ac3af895542995ef918c1f0; on the deviated set of 96: gpt-4 \
         beats gpt-3.5 supported at α = 0.05 (+0.1562 [+0.0833, +0.2346] (95%), adjusted p 0.0020)";
    assert_eq!(registered_set_line(&r.stderr), format!("warning: {missing}"));
    assert_eq!(card_line(&env), format!("> **The question set was changed after registration** (a recount with a deviation): {missing}. The table's verdicts are on the deviated set."));
    assert_eq!(env.run(&["verify", "--rerun"]).code, 0);
    // The ledger verifies: the deviation is disclosed.
    assert_eq!(env.run(&["verify"]).code, 0);
}

#[test]
fn a_recount_on_other_questions_without_a_deviation_is_refused() {
    let env = counted(&protocol_v2(""));
    let questions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.join("questions.json")).unwrap()).unwrap();
    let kept: Vec<&serde_json::Value> = questions.as_array().unwrap().iter().skip(1).collect();
    env.write("questions.json", serde_json::to_string(&kept).unwrap());
    let r = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    assert!(r.stderr.contains("--deviation"), "{}", r.stderr);
    assert_eq!(kinds(&env), ["register", "go"]);
}

#[test]
fn other_scores_content_than_the_first_analysis_read_is_refused_or_deviated() {
    let env = counted(&protocol_v2(""));
    let first = analyze(&env, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(headline(&first.stderr), "confirmatory");
    // On the registered question set: no second verdict, in the notes or on the card.
    assert_eq!(registered_set_line(&first.stderr), "");
    assert_eq!(card_line(&env), "");
    // Same path, other content: gpt-3.5's first wrong answer made right.
    let scores = std::fs::read_to_string(env.join("scores.csv")).unwrap();
    let edited = scores.replacen(",INCORRECT,CORRECT,CORRECT,", ",CORRECT,CORRECT,CORRECT,", 1);
    assert_ne!(edited, scores);
    env.write("scores.csv", &edited);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "error: analysis of study `hb` refused by the registration\nCaused by: other scores \
             content than the study's first analysis read (entry #3): scores.csv (sha256 "
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "hint: analyze the data the study's first analysis read (restore the file), or proceed \
             and record the change with --deviation \"reason\""
        ),
        "{}",
        r.stderr
    );
    assert_eq!(kinds(&env), ["register", "go", "analyze"]);
    let r = analyze(&env, &["--deviation", "fixed a scoring bug"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let h = headline(&r.stderr);
    assert!(
        h.starts_with(
            "exploratory: deviation #4: \"fixed a scoring bug\" (overriding: other scores content \
             than the study's first analysis read (entry #3)"
        ),
        "{h}"
    );
    assert_eq!(kinds(&env), ["register", "go", "analyze", "deviation", "analyze"]);
    assert_eq!(env.run(&["verify"]).code, 0);
}

#[test]
fn several_splits_and_no_analysis_split_is_refused_at_registration() {
    let env = Env::init();
    let two = protocol_v2("\n[[splits]]\nname = \"tuning\"\nrequired-components = 5\n");
    env.write("p.toml", &two);
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "the protocol has 2 splits (final, tuning) but does not say which one the analysis \
             reads: the analyst would choose it after seeing the data"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: add `split = \"final\"` under [analysis] (one of: final, tuning)"),
        "{}",
        r.stderr
    );
    assert!(
        env.git(&["rev-parse", "--verify", "-q", "refs/pledge/ledger"])
            .stdout
            .is_empty(),
        "nothing is appended"
    );
    // `check` says the same, before any registration.
    let c = env.run(&["check", "p.toml"]);
    assert_eq!(c.code, 1, "{}", c.stdout);
    assert!(
        c.stdout.contains("fix: add `split = \"final\"` under [analysis]"),
        "{}",
        c.stdout
    );
    env.write("p.toml", two.replace("seed = 7\n", "seed = 7\nsplit = \"final\"\n"));
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn the_analyzed_split_is_named_in_every_result_heading() {
    let two = protocol_v2("\n[[splits]]\nname = \"tuning\"\nrequired-components = 5\n")
        .replace("seed = 7\n", "seed = 7\nsplit = \"final\"\n");
    let env = Env::init();
    env.write("p.toml", &two);
    env.write(
        "scores.csv",
        std::fs::read(crate::common::data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    env.write(
        "questions.json",
        std::fs::read(crate::common::data("hotpotqa-100/questions.json")).unwrap(),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--assign",
        "--out",
        "components.csv",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let heading = r
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{GPT4} − {GPT35}")))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(heading.ends_with("; mean over topics; split final)"), "{heading}");
    let components = r.stdout.lines().find(|l| l.starts_with("components: ")).unwrap();
    assert!(components.ends_with("; split final"), "{components}");
    assert_eq!(headline(&r.stderr), "confirmatory");
    // The report names it in every result heading, and the card says which split it is.
    let rep = env.run(&["report", "--out", "report"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("report/report.md")).unwrap();
    for line in [
        "- **Split analyzed:** final (a split of the component assignment).\n",
        "### The registered question (split final)\n",
        "| system (split final) | mean | topics | components |\n",
        "| comparison (split final) | difference | paired interval | component interval | reversal rate | ties |\n",
        "| comparison (split final) | t-test p | randomization p | adjusted p (holm) | effect size d_z [interval] |\n",
    ] {
        assert!(md.contains(line), "{line} not in:\n{md}");
    }
    assert!(
        // The report shortens the two run names (common prefix and suffix) with a key.
        md.contains("![Bootstrap distribution of gpt-4 − gpt-3.5-turbo (split final)]"),
        "{md}"
    );
}

#[test]
fn a_hypothesis_amended_after_the_first_count_is_in_the_headline() {
    let env = counted(&protocol_v2(""));
    let p = std::fs::read_to_string(env.join("p.toml")).unwrap();
    env.write(
        "p.toml",
        p.replace("direction = \"greater\"", "direction = \"greater\"\nsides = 1"),
    );
    let a = env.run(&["amend", "p.toml", "--reason", "one-sided after all"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        headline(&r.stderr),
        "confirmatory with deviations: the registered question was amended after the first count \
         (entry #3: hypotheses[name = \"gpt-4 beats gpt-3.5\"].sides: (absent) → 1; reason: \
         \"one-sided after all\")"
    );
    assert_eq!(kinds(&env), ["register", "go", "amend", "analyze"]);
}

#[test]
fn required_components_lowered_after_a_stop_is_in_the_headline() {
    let env = Env::init();
    env.write(
        "p.toml",
        protocol_v2("").replace("required-components = 10", "required-components = 200"),
    );
    env.write(
        "scores.csv",
        std::fs::read(crate::common::data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    env.write(
        "questions.json",
        std::fs::read(crate::common::data("hotpotqa-100/questions.json")).unwrap(),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let count = [
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ];
    assert_eq!(env.run(&count).code, 3, "the stop rule stops: 100 of 200");
    env.write("p.toml", protocol_v2(""));
    assert_eq!(env.run(&["amend", "p.toml", "--reason", "fewer needed"]).code, 0);
    assert_eq!(env.run(&count).code, 0, "go");
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        headline(&r.stderr),
        "confirmatory with deviations: the registered question was amended after the first count \
         (entry #3: splits[name = \"final\"].required-components: 200 → 10; reason: \"fewer needed\")"
    );
    assert_eq!(kinds(&env), ["register", "stop", "amend", "go", "analyze"]);
}

#[test]
fn a_second_study_over_analyzed_data_says_so_in_the_reviewer_summary() {
    // Study `hb` registered (#1), counted (#2) and analyzed (#3); the same protocol registered
    // again as `hb2` (#4), counted (#5) and analyzed on the same scores file (#6).
    let env = counted(&protocol_v2(""));
    assert_eq!(analyze(&env, &[]).code, 0);
    let p = std::fs::read_to_string(env.join("p.toml")).unwrap();
    env.write("p2.toml", p.replace("id = \"hb\"", "id = \"hb2\""));
    let r = env.run(&["register", "p2.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = env.run(&[
        "components",
        "p2.toml",
        "--questions",
        "questions.json",
        "--out",
        "components2.csv",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let a = env.run(&[
        "analyze",
        "p2.toml",
        "--scores",
        "scores.csv",
        "--components",
        "components2.csv",
    ]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(kinds(&env), ["register", "go", "analyze", "register", "go", "analyze"]);
    let v = env.run(&["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let summary = v.stdout.split_once("reviewer summary:\n").unwrap().1;
    let hb2 = summary.split_once("  study        hb2").unwrap().1;
    let block: Vec<&str> = hb2.lines().skip(3).take(4).collect();
    assert_eq!(
        block,
        [
            "  data access  nothing-run declared at registration, but the ledger shows an earlier study's use:",
            "  overlap      the same protocol is registered as study `hb` (entry #1)",
            "  overlap      scores:scores.csv (analyzed in entry #6) was analyzed before by study `hb` (entry #3)",
            "  since        0 amendments, 0 deviations, 1 analysis",
        ],
        "{}",
        v.stdout
    );
    // The earlier study's own block declares no overlap, and "nothing run yet" is said of it
    // alone.
    let hb = summary.split_once("  study        hb2").unwrap().0;
    assert!(hb.contains("  data access  nothing-run at registration\n"), "{}", hb);
    assert!(!hb.contains("overlap"), "{}", hb);
    // The JSON summary carries the same sentences.
    let j: serde_json::Value = serde_json::from_str(&env.run(&["verify", "--format", "json"]).stdout).unwrap();
    assert_eq!(
        j["review"]["studies"][1]["overlap"],
        serde_json::json!([
            "the same protocol is registered as study `hb` (entry #1)",
            "scores:scores.csv (analyzed in entry #6) was analyzed before by study `hb` (entry #3)"
        ])
    );
}

/// The `note:` or `warning:` line of `stderr` on the registered question set (empty without).
fn registered_set_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.contains("registered questions (count entry"))
        .unwrap_or("")
}

/// The report's verdict-card line on the registered question set, above the verdict table
/// (empty without).
fn card_line(env: &Env) -> String {
    let rep = env.run(&["report", "--out", "report"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("report/report.md")).unwrap();
    md.lines()
        .find(|l| l.starts_with("> **The question set was changed after registration**"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn the_verdict_on_the_registered_questions_is_shown_beside_the_deviated_set() {
    // Registered and counted on the 96 questions without GPT4_LOSES; the recount (with a
    // deviation) adds those four back, and the scores hold all 100. By hand, from the
    // correctness file: gpt-4 is right on 68 of the 100 questions and gpt-3.5 on 57, so on the
    // deviated set of 100 the difference is (68 − 57)/100 = +0.11; the four added questions are
    // the ones gpt-4 gets wrong and gpt-3.5 right, so on the 96 registered ones gpt-4 is right on
    // 68 and gpt-3.5 on 53: (68 − 53)/96 = +0.15625. Each question is its own component here
    // (no two share a passage), so the component estimator is the plain mean.
    let env = Env::init();
    env.write("p.toml", protocol_v2(""));
    let scores = std::fs::read_to_string(data("analyze/hotpotqa-100-correctness.csv")).unwrap();
    let correct = |col: &str, skip: &[&str]| -> usize {
        let head: Vec<&str> = scores.lines().next().unwrap().split(',').collect();
        let i = head.iter().position(|h| *h == col).unwrap();
        scores
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|f| !skip.contains(&f[0]) && f[i] == "CORRECT")
            .count()
    };
    assert_eq!((correct(GPT4, &[]), correct(GPT35, &[])), (68, 57));
    assert_eq!((correct(GPT4, &GPT4_LOSES), correct(GPT35, &GPT4_LOSES)), (68, 53));
    env.write("scores.csv", &scores);
    let all = std::fs::read_to_string(data("hotpotqa-100/questions.json")).unwrap();
    let questions: serde_json::Value = serde_json::from_str(&all).unwrap();
    let kept: Vec<&serde_json::Value> = questions
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| !GPT4_LOSES.contains(&q["_id"].as_str().unwrap()))
        .collect();
    env.write("questions.json", serde_json::to_string(&kept).unwrap());
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let count = [
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ];
    let c = env.run(&count);
    assert_eq!(c.code, 0, "{}", c.stderr);
    env.write("questions.json", &all);
    let c = env.run(&[&count[..], &["--deviation", "four questions were left out by mistake"]].concat());
    assert_eq!(c.code, 0, "{}", c.stderr);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        headline(&r.stderr),
        "confirmatory with deviations: the question set changed since the registered count \
         (entry #2) by the recount in entry #4: 0 question(s) left, 4 joined, deviation #3: \
         \"four questions were left out by mistake\""
    );
    // (68 − 53)/96 = 0.15625 and (68 − 57)/100 = 0.11, as computed above. The registered
    // analysis on the 96 questions is the same as analyzing those 96 directly: its interval and p
    // are those of the deviated set of 96 in the test above (same data, same seed).
    let both = "on the 96 registered questions (count entry #2): gpt-4 beats gpt-3.5 supported at \
         α = 0.05 (+0.1562 [+0.0833, +0.2346] (95%), adjusted p 0.0020); on the deviated set of \
         100: gpt-4 beats gpt-3.5 supported at α = 0.05 (+0.1100 [+0.0300, +0.2000] (95%), \
         adjusted p 0.0180)";
    assert_eq!(registered_set_line(&r.stderr), format!("note: {both}"));
    // The record holds it, and the report's verdict card shows what the record holds.
    let result: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger:result.json"]).stdout).unwrap();
    let set = &result["registered_set"];
    assert_eq!(
        (set["registered_seq"].as_u64(), set["questions"].as_u64()),
        (Some(2), Some(96))
    );
    let analyzed = &set["outcome"]["analyzed"];
    assert_eq!(analyzed["topics"]["analyzed"], 96);
    let diff = |v: &serde_json::Value| v["comparisons"][0]["difference"].as_f64().unwrap();
    assert!((diff(analyzed) - 15.0 / 96.0).abs() < 1e-12, "{}", diff(analyzed));
    assert!((diff(&result) - 0.11).abs() < 1e-12, "{}", diff(&result));
    assert_eq!(card_line(&env), format!("> **The question set was changed after registration** (a recount with a deviation): {both}. The table's verdicts are on the deviated set."));
    // verify --rerun recomputes both from the inputs and the registered count's question ids.
    let v = env.run(&["verify", "--rerun"]);
    assert_eq!(v.code, 0, "{}", v.stderr);
}
