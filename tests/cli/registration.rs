//! Integration tests: the registration binds the analysis. One test per way an analysis could
//! otherwise leave the registered rules (metric, systems and comparisons, value labels, several
//! analyses, the stop rule, hints, late errors, disclosure), each refused with the field named,
//! or accepted only with a recorded deviation that the report and verify show.

use crate::common::{data, Env};
use serde_json::Value;

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, s))
}

pub(crate) const GPT35: &str = "cot_context_gpt-3.5-turbo_trial1";
pub(crate) const GPT4: &str = "cot_context_gpt-4_trial1";
const BASE4: &str = "cot_context_gpt-4_base_trial1";

/// A format-2 protocol on the HotpotQA correctness file: one primary hypothesis (gpt-4 vs
/// gpt-3.5), HALTED = 0 registered, a final split of 10 components, quick trials. `extra` is
/// appended (more keys, more tables).
pub(crate) fn protocol_v2(extra: &str) -> String {
    format!(
        r#"schema-version = 2

[study]
id = "hb"
title = "Binding test"
registered-by = "test"

[target]
metric = "accuracy"
mde = 0.15
sd = 0.45

[[link-rules]]
name = "identical"
kind = "identical-passage"

[[splits]]
name = "final"
required-components = 10

[scores]
layout = "wide"

[scores.labels]
HALTED = 0

[analysis]
seed = 7
trials = 500
randomization-trials = 500
systems = ["{GPT4}", "{GPT35}", "{BASE4}"]

[[hypotheses]]
name = "gpt-4 beats gpt-3.5"
system = "{GPT4}"
comparator = "{GPT35}"
direction = "greater"
{extra}"#
    )
}

/// A registered study with a recorded `go` count and its assignment `components.csv`.
pub(crate) fn counted(protocol: &str) -> Env {
    let env = Env::init();
    env.write("p.toml", protocol);
    env.write(
        "scores.csv",
        std::fs::read(data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    env.write(
        "questions.json",
        std::fs::read(data("hotpotqa-100/questions.json")).unwrap(),
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    env
}

const ANALYZE: [&str; 6] = [
    "analyze",
    "p.toml",
    "--scores",
    "scores.csv",
    "--components",
    "components.csv",
];

pub(crate) fn analyze(env: &Env, extra: &[&str]) -> crate::common::Run {
    env.run(&[&ANALYZE[..], extra].concat())
}

pub(crate) fn kinds(env: &Env) -> Vec<String> {
    json(&env.run(&["log", "--format", "json"]).stdout)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_registered_analysis_runs_and_answers_the_hypothesis() {
    let env = counted(&protocol_v2(""));
    let r = analyze(&env, &["--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let cs = v["comparisons"].as_array().unwrap();
    assert_eq!(cs.len(), 1, "the comparisons are the hypotheses");
    let h = &cs[0]["hypothesis"];
    assert_eq!(h["name"], "gpt-4 beats gpt-3.5");
    assert_eq!(h["family_size"], 1);
    assert_eq!(h["supported"], true);
    // A family of one: the adjusted p is the raw two-sided randomization p.
    assert_eq!(h["p_adjusted"], cs[0]["randomization"]["p"]);
    // HALTED = 0 comes from the protocol: gpt-4 57 + 15 − 4 = 68 correct of 100.
    let sys = v["systems"].as_array().unwrap();
    let gpt4 = sys.iter().find(|s| s["name"] == GPT4).unwrap();
    assert!((gpt4["mean"].as_f64().unwrap() - 0.68).abs() < 1e-12);
    // Three registered systems of six: the others are left out, with a note.
    assert_eq!(sys.len(), 3);
    assert!(
        r.stderr.contains("3 system(s) in the scores are not registered"),
        "{}",
        r.stderr
    );
    assert_eq!(kinds(&env), ["register", "go", "analyze"]);
}

#[test]
fn metric_column_and_measure_other_than_registered_are_refused() {
    // Format 1: target.metric = f1 binds --column.
    let env = Env::init();
    env.write(
        "p1.toml",
        "schema-version = 1\n[study]\nid = \"w\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"f1\"\nmde = 0.1\n[analysis]\ntrials = 200\nrandomization-trials = 200\n",
    );
    env.write("glm.csv", std::fs::read(data("analyze/glm-4.7.csv")).unwrap());
    env.write("kimi.csv", std::fs::read(data("analyze/kimi-k2.5.csv")).unwrap());
    assert_eq!(env.run(&["register", "p1.toml"]).code, 0);
    let base = [
        "analyze", "p1.toml", "--scores", "glm.csv", "--scores", "kimi.csv", "--column",
    ];
    let r = env.run(&[&base[..], &["precision"]].concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("target.metric: f1 → column precision"),
        "{}",
        r.stderr
    );
    assert_eq!(env.run(&[&base[..], &["f1"]].concat()).code, 0);
    // With a reason it runs, and the deviation records the field.
    let r = env.run(
        &[
            &base[..],
            &["precision", "--deviation", "precision asked for by a reviewer"],
        ]
        .concat(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    let dev = log
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "deviation")
        .unwrap();
    assert_eq!(dev["summary"]["fields"][0]["field"], "target.metric");
    assert_eq!(dev["summary"]["fields"][0]["registered"], "f1");
    assert_eq!(dev["summary"]["fields"][0]["used"], "column precision");
    // verify passes and says so.
    let v = env.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let notes = json(&v.stdout)["notes"].clone();
    assert!(notes.as_array().unwrap().iter().any(|n| n["code"] == "deviation"
        && n["message"]
            .as_str()
            .unwrap()
            .contains("target.metric: f1 → column precision")));
}

#[test]
fn a_trec_measure_other_than_registered_is_refused() {
    let env = Env::init();
    env.write(
        "p.toml",
        "schema-version = 2\n[study]\nid = \"t\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"ndcg_cut.10\"\nmde = 0.05\n[analysis]\ntrials = 200\nrandomization-trials = 200\n",
    );
    env.write("a.q", std::fs::read(data("analyze/input.InexpC2.q.txt")).unwrap());
    env.write("b.q", std::fs::read(data("analyze/input.aplrob03a.q.txt")).unwrap());
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&[
        "analyze",
        "p.toml",
        "--scores",
        "a.q",
        "--scores",
        "b.q",
        "--measure",
        "P.10",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("scores.measure: ndcg_cut.10 → measure P.10"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_baseline_labels_or_systems_other_than_registered_are_refused() {
    let env = counted(&protocol_v2(""));
    let r = analyze(&env, &["--baseline", BASE4]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("hypotheses: cot_context_gpt-4_trial1 vs cot_context_gpt-3.5-turbo_trial1 → every system against cot_context_gpt-4_base_trial1"), "{}", r.stderr);
    let r = analyze(&env, &["--label", "HALTED=1"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("scores.labels: HALTED=0 → HALTED=1"), "{}", r.stderr);
    // The registered labels given again are not a deviation.
    assert_eq!(analyze(&env, &["--label", "halted=0"]).code, 0);
    // Other scores content than the first analysis read needs a deviation.
    let text = std::fs::read_to_string(env.join("scores.csv")).unwrap();
    let cut: String = text
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |x| x.0).to_string() + "\n")
        .collect();
    env.write("fewer.csv", &cut);
    let fewer = [
        "analyze",
        "p.toml",
        "--scores",
        "fewer.csv",
        "--components",
        "components.csv",
    ];
    let r = env.run(&fewer);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "Caused by: other scores content than the study's first analysis read (entry #3): scores.csv (sha256 "
        ),
        "{}",
        r.stderr
    );
    // A registered system missing from the scores: in a study whose first analysis this is,
    // react is not registered, so dropping it changes nothing.
    let env = counted(&protocol_v2(""));
    env.write("fewer.csv", &cut);
    let r = env.run(&fewer);
    assert_eq!(
        r.code, 0,
        "react is not registered, so dropping it changes nothing: {}",
        r.stderr
    );
    let r = env.run(&[&fewer[..], &["--seed", "8"]].concat());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("analysis.seed: 7 → 8"), "{}", r.stderr);
}

#[test]
fn the_stop_rule_gates_the_analysis_and_every_count_stays_visible() {
    let env = Env::init();
    env.write(
        "p.toml",
        protocol_v2("").replace("required-components = 10", "required-components = 1000"),
    );
    env.write(
        "scores.csv",
        std::fs::read(data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    env.write(
        "questions.json",
        std::fs::read(data("hotpotqa-100/questions.json")).unwrap(),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    // No count yet.
    let r = env.run(&["analyze", "p.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("no component count is recorded"), "{}", r.stderr);
    // 100 components against 1000 required: stop.
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ]);
    assert_eq!(c.code, 3, "{}", c.stderr);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("the stop rule said stop (entry #2)"), "{}", r.stderr);
    // A recount on other questions needs a reason.
    let text = std::fs::read_to_string(env.join("questions.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    env.write(
        "half.json",
        serde_json::to_string(&v.as_array().unwrap()[..50]).unwrap(),
    );
    let c = env.run(&["components", "p.toml", "--questions", "half.json", "--out", "half.csv"]);
    assert_eq!(c.code, 1, "{}", c.stderr);
    assert!(c.stderr.contains("was counted before on other inputs"), "{}", c.stderr);
    assert!(c.stderr.contains("questions (counted in entry #2)"), "{}", c.stderr);
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "half.json",
        "--out",
        "half.csv",
        "--deviation",
        "half the questions were malformed",
    ]);
    assert_eq!(c.code, 3, "still too few: {}", c.stderr);
    assert_eq!(kinds(&env), ["register", "stop", "deviation", "stop"]);
    // Analyzing anyway needs a deviation, and the report keeps every count.
    let r = analyze(&env, &["--deviation", "pilot look despite the stop"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(md.contains("Every count of this study"), "{}", md);
    assert!(
        md.contains("| #2, 2026-11-30T12:00:00Z |") && md.contains("| #4, 2026-11-30T12:00:00Z |"),
        "{}",
        md
    );
    assert!(md.contains("half the questions were malformed"));
    assert!(md.contains("No analysis matches the registration"), "{}", md);
}

/// An analysis that got past the append's checks only because the local index was edited (the
/// rules' state it keeps for the tip put back to before the stop) is still found by `verify`,
/// from the chain alone: it comes after a stop and uses another assignment than the latest
/// count's, with no deviation.
#[test]
fn verify_finds_an_analysis_the_stop_rule_refused_from_the_chain_alone() {
    let env = counted(&protocol_v2(""));
    let index = env.join(".git/pledge/index.json");
    let at_go: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    let text = std::fs::read_to_string(env.join("questions.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    env.write("few.json", serde_json::to_string(&v.as_array().unwrap()[..5]).unwrap());
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "few.json",
        "--out",
        "few.csv",
        "--deviation",
        "a subset",
    ]);
    assert_eq!(c.code, 3, "{}", c.stderr);
    assert_eq!(kinds(&env), ["register", "go", "deviation", "stop"]);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("the stop rule said stop (entry #4)"), "{}", r.stderr);
    // Forget the stop in the local index: its positions, and the rules' state put back to the
    // state after the go. The append then judges on that state and lets the analysis land.
    let mut ix: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    for (_, kinds) in ix["studies"].as_object_mut().unwrap().iter_mut() {
        kinds.as_object_mut().unwrap().remove("stop");
    }
    ix["rules"] = at_go["rules"].clone();
    std::fs::write(&index, serde_json::to_string(&ix).unwrap()).unwrap();
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["verify", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let found: Vec<(String, u64, String)> = json(&r.stdout)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["seq"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{:?}", found);
    assert!(
        found
            .iter()
            .all(|(code, seq, _)| code == "analysis-refused" && *seq == 5),
        "{:?}",
        found
    );
    assert!(
        found[0]
            .2
            .contains("after its stop rule said stop (entry #4), without a deviation"),
        "{:?}",
        found
    );
    assert!(
        found[1].2.contains("not the one its latest count (entry #4) recorded"),
        "{:?}",
        found
    );
}

#[test]
fn a_second_analysis_is_exploratory_and_the_first_stays_confirmatory() {
    let env = counted(&protocol_v2(""));
    assert_eq!(analyze(&env, &[]).code, 0);
    let r = analyze(&env, &["--trials", "1000", "--deviation", "more trials for the figure"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(md.contains("the confirmatory analysis (entry #3)"), "{}", md);
    assert!(md.contains("| #3 |") && md.contains("confirmatory"), "{}", md);
    assert!(md.contains("| #5 |") && md.contains("exploratory"), "{}", md);
    assert!(md.contains("analysis.trials: 500 → 1000"), "{}", md);
    assert!(md.contains("more trials for the figure"));
}

#[test]
fn hints_lead_the_right_way_and_no_deviation_without_a_registration() {
    let env = Env::init();
    env.write("p.toml", protocol_v2(""));
    env.write(
        "scores.csv",
        std::fs::read(data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    let r = env.run(&["analyze", "p.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("hint: register it first: pledge register"),
        "{}",
        r.stderr
    );
    let r = env.run(&["analyze", "p.toml", "--scores", "scores.csv", "--deviation", "x"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("there is no registration to deviate from"),
        "{}",
        r.stderr
    );
    assert_eq!(
        env.run(&["log", "--format", "json"]).stdout.trim(),
        "[]",
        "nothing written"
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    env.write("p.toml", protocol_v2("").replace("mde = 0.15", "mde = 0.2"));
    let r = env.run(&["analyze", "p.toml", "--scores", "scores.csv"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("pledge amend"), "{}", r.stderr);
}

#[test]
fn an_unknown_metric_is_refused_at_registration_with_a_did_you_mean() {
    let env = Env::init();
    env.write(
        "p.toml",
        "schema-version = 2\n[study]\nid = \"m\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"recip-rank\"\nmde = 0.05\n",
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("p.toml:7:10"), "{}", r.stderr);
    assert!(r.stderr.contains("did you mean `recip_rank`?"), "{}", r.stderr);
    assert!(r.stderr.contains("[scores] column = \"recip-rank\""), "{}", r.stderr);
    // The names people type register: nDCG@10 is trec_eval's ndcg_cut.10.
    env.write(
        "n.toml",
        std::fs::read_to_string(env.join("p.toml"))
            .unwrap()
            .replace("recip-rank", "nDCG@10"),
    );
    let r = env.run(&["register", "n.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A format-2 key in a format-1 file.
    env.write(
        "q.toml",
        "schema-version = 1\n[study]\nid = \"m\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"map\"\nmde = 0.05\n[scores]\ncolumn = \"x\"\n",
    );
    let r = env.run(&["register", "q.toml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("[scores] needs schema-version = 2"), "{}", r.stderr);
}

#[test]
fn a_target_no_count_can_meet_is_refused_at_registration() {
    let env = Env::init();
    // δ = 1e-10 with σ = 0.45 (paired differences): n ≈ ((z_0.975 + z_0.8)·σ/δ)² =
    // (2.8016 · 0.45 / 1e-10)² ≈ 1.6e20 components, past the 1e12 pledge searches, so the stop
    // rule of a from-target split could never be evaluated.
    let p = protocol_v2("").replace("required-components = 10", "required-components = \"from-target\"");
    env.write("ok.toml", &p);
    env.write("p.toml", p.replace("mde = 0.15", "mde = 1e-10"));
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("p.toml:10:7: no feasible sample size"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: a split says required-components = \"from-target\""),
        "{}",
        r.stderr
    );
    assert!(kinds(&env).is_empty(), "nothing is written");
    // σ out of range is named at its own line (sd is on line 11).
    env.write("s.toml", p.replace("sd = 0.45", "sd = 1e9"));
    let r = env.run(&["register", "s.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("s.toml:11:6:"), "{}", r.stderr);
    // The same target with a fixed count of components registers: nothing derives from it.
    env.write("n.toml", protocol_v2("").replace("mde = 0.15", "mde = 1e-10"));
    assert_eq!(env.run(&["register", "n.toml"]).code, 0);
    // And so does a feasible from-target protocol (another study id).
    env.write("ok.toml", p.replace("id = \"hb\"", "id = \"hc\""));
    let r = env.run(&["register", "ok.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_from_target_protocol_with_a_tiny_alpha_registers() {
    let env = Env::init();
    // α = 1e-8 and 1e-16: the critical value is the upper-tail quantile of α/2 itself (1 − α/2
    // is 1 in f64 at 1e-16) and the power is finite at n = 2, so the requirement exists (d = 1/3:
    // 405.04 and 786.99 pairs by the paired t-test, scipy 1.17.1 brentq on nct.sf as in
    // src/power/paired.rs) and the protocol registers.
    for (id, alpha) in [("ha", "1e-8"), ("hd", "1e-16")] {
        let p = protocol_v2("")
            .replace("id = \"hb\"", &format!("id = \"{id}\""))
            .replace("sd = 0.45\n", &format!("sd = 0.45\nalpha = {alpha}\n"))
            .replace("required-components = 10", "required-components = \"from-target\"");
        env.write("p.toml", &p);
        let r = env.run(&["register", "p.toml"]);
        assert_eq!(r.code, 0, "α {alpha}: {}", r.stderr);
        assert!(r.stdout.contains(&format!("Registered study `{id}`")), "{}", r.stdout);
    }
    assert_eq!(kinds(&env), ["register", "register"]);
}

#[test]
fn a_registered_pilot_gives_sigma_at_registration_and_the_required_count() {
    let env = Env::init();
    // σ from the pilot instead of target.sd: the split's requirement is derived from it.
    let p = protocol_v2("")
        .replace("sd = 0.45\n", "pilot = \"pilot.csv\"\n")
        .replace("required-components = 10", "required-components = \"from-target\"");
    env.write("p.toml", p);
    env.write(
        "pilot.csv",
        std::fs::read(data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    env.write(
        "questions.json",
        std::fs::read(data("hotpotqa-100/questions.json")).unwrap(),
    );
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // gpt-4 − gpt-3.5 on 100 questions: 15 +1, 4 −1, 81 zeros: mean 0.11, SD √((19 − 100·0.11²)/99).
    let sd = ((19.0 - 100.0 * 0.11f64 * 0.11) / 99.0).sqrt();
    assert!(r.stderr.contains(&format!("σ̂ {:.4} per question", sd)), "{}", r.stderr);
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    let reg = &log[0];
    assert_eq!(reg["summary"]["pilot"]["questions"], 100);
    assert!(reg["inputs"]["pilot:pilot.csv"].is_string());
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--dry-run",
        "--format",
        "json",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let v = json(&c.stdout);
    let req = &v["stop"]["splits"][0]["power"];
    assert!((req["sd"].as_f64().unwrap() - sd).abs() < 1e-12, "{}", req);
    // The pilot cannot change after registration without an amendment.
    let pilot = std::fs::read_to_string(env.join("pilot.csv")).unwrap();
    let (head, rest) = pilot.split_once('\n').unwrap();
    let mut rows: Vec<String> = rest.lines().map(str::to_string).collect();
    rows.sort();
    env.write("pilot.csv", format!("{}\n{}\n", head, rows[1..].join("\n")));
    let count = [
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "c.csv",
    ];
    let c = env.run(&count);
    assert_eq!(c.code, 1, "{}", c.stderr);
    assert!(
        c.stderr.contains("register the change with `pledge amend`"),
        "{}",
        c.stderr
    );
    // `verify PROTOCOL` checks the pilot too.
    let v = env.run(&["verify", "p.toml"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert!(
        v.stdout
            .contains("p.toml: matches the registration of study `hb`, but its pilot file does NOT (#1)\n"),
        "{}",
        v.stdout
    );
    assert!(v.stdout.contains("  #1    pilot-changed "), "{}", v.stdout);
    assert!(
        v.stdout.contains(
            "p.toml matches its registration (#1), but its pilot file pilot.csv does not: registered sha256 "
        ),
        "{}",
        v.stdout
    );
    // The protocol text is unchanged, but the new pilot is a new version: amend records it.
    let r = env.run(&["amend", "p.toml", "--reason", "the pilot without its first question"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(kinds(&env), ["register", "amend"]);
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    assert_eq!(log[1]["summary"]["pilot"]["questions"], 99);
    assert_eq!(log[1]["protocol_sha256"], log[0]["protocol_sha256"]);
    assert_ne!(log[1]["inputs"]["pilot:pilot.csv"], log[0]["inputs"]["pilot:pilot.csv"]);
    let c = env.run(&count);
    assert!(c.code == 0 || c.code == 3, "{}", c.stderr);
    assert_eq!(env.run(&["verify"]).code, 0);
    assert_eq!(env.run(&["verify", "p.toml"]).code, 0);
    // Amending again with nothing changed is refused.
    let r = env.run(&["amend", "p.toml", "--reason", "again"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "the protocol and its pilot file are identical to the registered version (entry #2): nothing to amend"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn question_weighted_component_figures_come_from_one_estimator() {
    let p = protocol_v2("")
        .replace("[analysis]\n", "[analysis]\nresampling-unit = \"component\"\n")
        .replace(
            "sd = 0.45\n",
            "sd = 0.45\n[components]\nestimator = \"question-weighted\"\n",
        );
    let env = counted(&p);
    let r = analyze(&env, &["--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = &json(&r.stdout)["comparisons"][0];
    assert_eq!(c["primary_unit"], "component");
    assert!(c["estimator"].as_str().unwrap().contains("question-weighted"));
    // The t-test is the cluster-robust one of the question-weighted difference.
    assert_eq!(c["t_test"]["p"], c["cluster_robust"]["test"]["p"]);
    assert_eq!(c["t_test"]["mean"], c["difference"]);
}

/// The report of a study with a stop, a recount with a reason, a deviation and two analyses, as
/// a snapshot (deterministic for the fixed clock).
#[test]
fn report_with_a_stop_a_recount_a_deviation_and_two_analyses_snapshot() {
    let env = Env::init();
    env.write(
        "p.toml",
        protocol_v2("").replace("required-components = 10", "required-components = 80"),
    );
    env.write(
        "scores.csv",
        std::fs::read(data("analyze/hotpotqa-100-correctness.csv")).unwrap(),
    );
    let all: Value =
        serde_json::from_str(&std::fs::read_to_string(data("hotpotqa-100/questions.json")).unwrap()).unwrap();
    env.write(
        "questions.json",
        serde_json::to_string(&all.as_array().unwrap()[..60]).unwrap(),
    );
    env.write("more.json", serde_json::to_string(&all).unwrap());
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "questions.json",
        "--out",
        "components.csv",
    ]);
    assert_eq!(c.code, 3, "60 components < 80: {}", c.stderr);
    let c = env.run(&[
        "components",
        "p.toml",
        "--questions",
        "more.json",
        "--out",
        "components.csv",
        "--deviation",
        "40 more questions were written before any model was run",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    assert_eq!(analyze(&env, &[]).code, 0);
    let r = analyze(
        &env,
        &[
            "--percentile",
            "nearest",
            "--deviation",
            "nearest-rank interval for a reviewer",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    crate::report::assert_tables_whole(&md);
    insta::assert_snapshot!("report_stop_recount_deviation_two_analyses", md);
}

/// The robust03 subset: qrels and three runs, and a protocol naming two pool contributors.
fn trec_env(contributors: &str, extra: &str) -> Env {
    let env = Env::init();
    for f in [
        "robust03_qrels.subset.txt.gz",
        "input.InexpC2.subset.gz",
        "input.uic0301.subset.gz",
        "input.humR03dc.subset.gz",
    ] {
        env.write(f, std::fs::read(data(&format!("trec/{}", f))).unwrap());
    }
    env.write(
        "p.toml",
        format!(
            "schema-version = 1\n[study]\nid = \"r\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"map\"\nmde = 0.05\n\
             [analysis]\ntrials = 200\nrandomization-trials = 200\n{extra}[pool]\ncontributors = [{contributors}]\ndepth = 100\n"
        ),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    env
}

const TREC: [&str; 8] = [
    "analyze",
    "p.toml",
    "--qrels",
    "robust03_qrels.subset.txt.gz",
    "--run",
    "input.InexpC2.subset.gz",
    "--run",
    "input.uic0301.subset.gz",
];

#[test]
fn pool_bias_comes_from_the_whole_pool() {
    let env = trec_env("\"uic0301\", \"humR03dc\"", "");
    // humR03dc contributed but is not supplied: refused, naming the tag.
    let r = env.run(&TREC);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not supplied: humR03dc"), "{}", r.stderr);
    // Supplied for the pool only: it is not compared, but it is part of the pool.
    let r = env.run(
        &[
            &TREC[..],
            &["--pool-run", "input.humR03dc.subset.gz", "--format", "json"],
        ]
        .concat(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    assert_eq!(v["systems"].as_array().unwrap().len(), 2);
    let pb = &v["pool_bias"];
    let uic = pb["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tag"] == "uic0301")
        .unwrap();
    let with_pool = uic["leave_one_out"]["unique_judged"].as_u64().unwrap();
    // Another pool than the first analysis read needs a deviation.
    let r = env.run(&[&TREC[..], &["--pool-partial", "--format", "json"]].concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        json(&r.stderr)["causes"][0]
            .as_str()
            .unwrap()
            .starts_with("other run content than the study's first analysis read (entry #2): "),
        "{}",
        r.stderr
    );
    // With a partial pool no leave-one-run-out figure is computed, and the statement says why.
    let env = trec_env("\"uic0301\", \"humR03dc\"", "");
    let r = env.run(&[&TREC[..], &["--pool-partial", "--format", "json"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let pb = &json(&r.stdout)["pool_bias"];
    assert_eq!(pb["missing_contributors"], serde_json::json!(["humR03dc"]));
    assert!(pb["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["leave_one_out"].is_null()));
    assert!(
        pb["statement"].as_str().unwrap().contains("The pool is incomplete"),
        "{}",
        pb["statement"]
    );
    // With the whole pool the check ran: some judged documents are uic0301's alone.
    assert!(with_pool > 0);
    // A typo in a tag is caught the same way.
    let env = trec_env("\"uic0301x\"", "");
    let r = env.run(&TREC);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not supplied: uic0301x"), "{}", r.stderr);
}

#[test]
fn zero_filled_topics_of_trec_runs_are_counted() {
    let env = trec_env("", "missing-topics = \"zero\"\n");
    // Drop topic 341 from InexpC2.
    let text = {
        use std::io::Read;
        let mut s = String::new();
        flate2::read::GzDecoder::new(&std::fs::read(data("trec/input.InexpC2.subset.gz")).unwrap()[..])
            .read_to_string(&mut s)
            .unwrap();
        s
    };
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with("341"))
        .map(|l| format!("{}\n", l))
        .collect();
    env.write("short.txt", kept);
    let r = env.run(&[
        "analyze",
        "p.toml",
        "--qrels",
        "robust03_qrels.subset.txt.gz",
        "--run",
        "short.txt",
        "--run",
        "input.uic0301.subset.gz",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t = &json(&r.stdout)["topics"];
    assert_eq!(t["analyzed"], 10);
    assert_eq!(t["filled_with_zero"], 1, "{}", t);
}

#[test]
fn formats_lists_every_reader_with_its_command() {
    let env = Env::new();
    let r = env.run(&["formats", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), pledge::formats::formats().len());
    for n in ["trec-eval", "ir-measures", "lm-eval", "inspect-eval", "helm", "parquet"] {
        assert!(names.contains(&n), "{} missing from {:?}", n, names);
    }
    let md = env.run(&["formats"]).stdout;
    assert!(md.starts_with("| format | reads | detected by | command |"), "{}", md);
}

#[test]
fn scores_from_standard_input_are_hashed_and_not_rerun() {
    use std::io::Write;
    let env = counted(&protocol_v2(""));
    let bytes = std::fs::read(env.join("scores.csv")).unwrap();
    let mut child = crate::common::pledge_cmd()
        .args(["analyze", "p.toml", "--scores", "-", "--components", "components.csv"])
        .current_dir(env.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    let last = log.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["inputs"]["scores:-"], pledge::io::sha256_hex(&bytes));
    let v = env.run(&["verify", "--rerun"]);
    assert_eq!(v.code, 0, "a note, not a mismatch: {}", v.stdout);
    assert!(v.stdout.contains("rerun-skipped"), "{}", v.stdout);
    assert!(v.stdout.contains("cannot be read again"), "{}", v.stdout);
}

#[test]
fn components_from_standard_input_are_hashed_and_dash_is_given_once() {
    use std::io::Write;
    let env = counted(&protocol_v2(""));
    let bytes = std::fs::read(env.join("components.csv")).unwrap();
    let piped = |args: &[&str]| {
        let mut child = crate::common::pledge_cmd()
            .args(args)
            .current_dir(env.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A refusal exits before reading standard input: the pipe may then be closed under
        // the write (the exit code and message are what the test checks).
        match child.stdin.take().unwrap().write_all(&bytes) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("writing to pledge's stdin: {e}"),
            _ => {}
        }
        child.wait_with_output().unwrap()
    };
    // `-` twice (scores and the assignment) is refused before anything is read.
    let out = piped(&["analyze", "p.toml", "--scores", "-", "--components", "-"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: `-` (standard input) can be given only once"),
        "{err}"
    );
    let before = json(&env.run(&["log", "--format", "json"]).stdout)
        .as_array()
        .unwrap()
        .len();
    // The assignment from standard input: recorded as `assignment:-` with the hash of the bytes
    // read, and the same comparison as from the file.
    let out = piped(&[
        "analyze",
        "p.toml",
        "--scores",
        "scores.csv",
        "--components",
        "-",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let from_stdin = json(&String::from_utf8_lossy(&out.stdout));
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    assert_eq!(log.as_array().unwrap().len(), before + 1);
    let last = log.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["inputs"]["assignment:-"], pledge::io::sha256_hex(&bytes));
    let r = env.run(&[
        "analyze",
        "p.toml",
        "--scores",
        "scores.csv",
        "--components",
        "components.csv",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let from_file = json(&r.stdout);
    assert_eq!(from_stdin["comparisons"], from_file["comparisons"]);
    // Other bytes on standard input are not the recorded assignment (refused, exit 1); read
    // anyway (a recorded deviation), a malformed one is named `<stdin>` (exit 2).
    let other = |extra: &[&str]| {
        let mut child = crate::common::pledge_cmd()
            .args(
                [
                    &["analyze", "p.toml", "--scores", "scores.csv", "--components", "-"][..],
                    extra,
                ]
                .concat(),
            )
            .current_dir(env.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"question,component\nq1,C1\n")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = other(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the component assignment differs from the one recorded"),
        "{err}"
    );
    let (code, err) = other(&["--deviation", "a test"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("<stdin>:1: expected the header `question,component,unit,split,counted`"),
        "{err}"
    );
}

#[test]
fn tukey_hsd_and_effect_sizes_reach_the_report() {
    let p = protocol_v2("").replace("[analysis]\n", "[analysis]\nadjust = \"tukey-hsd\"\n");
    let env = counted(&p);
    let r = analyze(&env, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("randomized Tukey HSD"), "{}", r.stdout);
    assert!(r.stdout.contains("effect size d_z"), "{}", r.stdout);
    assert_eq!(env.run(&["report", "--out", "rep"]).code, 0);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(
        md.contains("| pair | difference | Tukey HSD p | distinguishable |"),
        "{}",
        md
    );
    // gpt-4 and its base configuration have identical scores: never told apart (they share a
    // letter of the compact letter display).
    let groups = md.lines().find(|l| l.starts_with("Tukey groups at α = 0.05")).unwrap();
    let g = groups.rsplit_once("): ").unwrap().1.trim_end_matches('.');
    // The report shortens the names (the common prefix `cot_context_` and suffix `_trial1`).
    assert!(
        md.contains(&format!("| gpt-4 | `{}` |", GPT4)) && md.contains(&format!("| gpt-4_base | `{}` |", BASE4)),
        "{}",
        md
    );
    let letters = |name: &str| {
        g.split("; ")
            .find_map(|e| e.strip_prefix(&format!("{} ", name)))
            .unwrap_or_else(|| panic!("{} in {}", name, g))
            .to_string()
    };
    let (a, b) = (letters("gpt-4"), letters("gpt-4_base"));
    assert!(a.chars().any(|c| b.contains(c)), "{}", g);
    assert!(md.contains("effect size d_z [interval]"));
}

#[test]
fn a_registered_topic_filter_reports_both_means_and_an_unregistered_one_is_a_deviation() {
    let p = protocol_v2("[topic-filter]\ndrop-all-at-least = 1\ndrop-all-at-most = 0\n");
    let env = counted(&p);
    let r = analyze(&env, &["--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r.stdout);
    // Independent count: rows of the CSV where the three registered systems all score 1 or all 0.
    let text = std::fs::read_to_string(env.join("scores.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cols: Vec<usize> = [GPT4, GPT35, BASE4]
        .iter()
        .map(|s| head.iter().position(|h| h == s).unwrap())
        .collect();
    let score = |c: &str| if c == "CORRECT" { 1.0 } else { 0.0 };
    let (mut dropped, mut kept_gpt4, mut n_kept) = (0, 0.0, 0);
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let xs: Vec<f64> = cols.iter().map(|&c| score(f[c])).collect();
        if xs.iter().all(|x| *x == 1.0) || xs.iter().all(|x| *x == 0.0) {
            dropped += 1;
        } else {
            kept_gpt4 += xs[0];
            n_kept += 1;
        }
    }
    let f = &v["topic_filter"];
    assert_eq!(f["dropped"], dropped);
    assert_eq!(v["topics"]["analyzed"], 100 - dropped);
    let sys = v["systems"].as_array().unwrap();
    let g4 = sys.iter().find(|s| s["name"] == GPT4).unwrap();
    assert!((g4["mean"].as_f64().unwrap() - kept_gpt4 / n_kept as f64).abs() < 1e-12);
    let unf = f["unfiltered_means"].as_array().unwrap();
    assert!(unf
        .iter()
        .any(|m| m[0] == GPT4 && (m[1].as_f64().unwrap() - 0.68).abs() < 1e-12));
    assert_eq!(env.run(&["report", "--out", "rep"]).code, 0);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(
        md.contains("not comparable to means over an unfiltered topic set"),
        "{}",
        md
    );
    assert!(
        md.contains("| system (split final) | mean (filtered) | mean (all topics) |"),
        "{}",
        md
    );
    // Without a registered filter, filtering is a deviation.
    let env = counted(&protocol_v2(""));
    let r = analyze(&env, &["--drop-all-at-least", "1"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("topic-filter: none → topics where every system scores ≥ 1 are dropped"),
        "{}",
        r.stderr
    );
}

/// `analyze --deviation` on a protocol changed since its registration records the deviation
/// and the analysis together, and the ledger keeps verifying (the deviation discloses the other
/// protocol hash), so later appends are not refused.
#[test]
fn a_deviation_from_a_changed_protocol_keeps_the_ledger_verifying() {
    let env = counted(&protocol_v2(""));
    env.write("p.toml", protocol_v2("").replace("mde = 0.15", "mde = 0.2"));
    let r = analyze(&env, &[]);
    assert_eq!(
        r.code, 1,
        "a changed protocol is refused without a deviation: {}",
        r.stderr
    );
    let r = analyze(&env, &["--deviation", "mde widened after the pilot"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(kinds(&env), ["register", "go", "deviation", "analyze"]);
    let v = env.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    let report = json(&v.stdout);
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap())
        .collect();
    assert!(notes.contains(&"deviation"), "{:?}", notes);
    assert!(report["findings"].as_array().unwrap().is_empty(), "{}", v.stdout);
    let n = env.run(&["note", "--reason", "after the deviation"]);
    assert_eq!(n.code, 0, "{}", n.stderr);
    assert_eq!(env.run(&["verify"]).code, 0);
}
