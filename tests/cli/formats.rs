//! Integration tests: the field's file formats (tests/data/formats/, each made by the real tool,
//! see its PROVENANCE.txt), read with the commands a user runs, checked against the producing
//! tool's own numbers.

use crate::common::{copy, data, pledge_cmd, Env};
use serde_json::Value;
use std::io::Write;
use std::process::Stdio;

const F: &str = "formats";

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, s))
}

fn means(v: &Value) -> Vec<(String, f64, u64)> {
    v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["mean"].as_f64().unwrap(),
                s["topics"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{} vs {}", a, b);
}

fn ok(env: &Env, args: &[&str]) -> Value {
    let r = env.run(args);
    assert_eq!(r.code, 0, "{:?}: {}", args, r.stderr);
    json(&r.stdout)
}

/// PyTerrier 1.0 `Experiment(perquery=True)` saved with `to_csv`: name, qid, measure, value.
/// PyTerrier's own means: map 0.127651 (InexpC2), 0.247336 (uic0301).
#[test]
fn pyterrier_per_query_csv() {
    let env = Env::new();
    copy(&env, &format!("{F}/pyterrier/pyterrier-perquery.csv"), "pt.csv");
    let v = ok(
        &env,
        &["compare", "--scores", "pt.csv", "--measure", "map", "--format", "json"],
    );
    let m = means(&v);
    assert_eq!(m[0].0, "InexpC2");
    close(m[0].1, 0.127651, 5e-7);
    assert_eq!(m[1].0, "uic0301");
    close(m[1].1, 0.247336, 5e-7);
    assert_eq!(m[0].2, 10);
    // Without --measure: an error listing the measures.
    let r = env.run(&["compare", "--scores", "pt.csv"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("several measures (map, P_10, ndcg_cut_10)"),
        "{}",
        r.stderr
    );
}

/// ir_measures 0.4.3 `-q` TSV (query, measure, value — not trec_eval's measure, query, value).
/// Its own `all` rows: AP 0.1277 (InexpC2), 0.2473 (uic0301).
#[test]
fn ir_measures_q_output_is_not_taken_for_trec_eval() {
    let env = Env::new();
    copy(&env, &format!("{F}/ir_measures/InexpC2.irm.q.tsv"), "InexpC2.tsv");
    copy(&env, &format!("{F}/ir_measures/uic0301.irm.q.tsv"), "uic0301.tsv");
    copy(&env, &format!("{F}/ir_measures/InexpC2.irm.q.jsonl"), "InexpC2.jsonl");
    let v = ok(
        &env,
        &[
            "compare",
            "--scores",
            "InexpC2.tsv",
            "--scores",
            "uic0301.tsv",
            "--measure",
            "AP",
            "--format",
            "json",
        ],
    );
    let m = means(&v);
    assert_eq!((m[0].0.as_str(), m[0].2), ("InexpC2", 10));
    // The per-query rows are printed to 4 decimals, so their mean is within 1e-4 of `all`.
    close(m[0].1, 0.1277, 1e-4);
    close(m[1].1, 0.2473, 1e-4);
    // The JSON Lines output of the same tool gives the same values; nDCG@10 `all` = 0.3098.
    let v = ok(
        &env,
        &[
            "compare",
            "--scores",
            "InexpC2.jsonl",
            "--scores",
            "uic0301.tsv",
            "--measure",
            "nDCG@10",
            "--format",
            "json",
        ],
    );
    close(means(&v)[0].1, 0.30984656177297365, 1e-12);
    // Forcing the wrong format gives an error naming the format read.
    let r = env.run(&[
        "compare",
        "--scores",
        "InexpC2.tsv",
        "--input-format",
        "trec-eval",
        "--measure",
        "AP",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// pytrec_eval 0.5.11 (trec_eval's C code) `evaluate()` dumped as JSON. Its own per-query map:
/// 303 0.107714, 325 0.244116 (InexpC2).
#[test]
fn pytrec_eval_json() {
    let env = Env::new();
    copy(
        &env,
        &format!("{F}/pytrec_eval/InexpC2.pytrec_eval.json"),
        "InexpC2.json",
    );
    copy(
        &env,
        &format!("{F}/pytrec_eval/uic0301.pytrec_eval.json"),
        "uic0301.json",
    );
    let v = ok(
        &env,
        &[
            "compare",
            "--scores",
            "InexpC2.json",
            "--scores",
            "uic0301.json",
            "--measure",
            "map",
            "--format",
            "json",
        ],
    );
    let m = means(&v);
    assert_eq!(m[0].0, "InexpC2");
    close(m[0].1, 0.1277, 5e-5);
    close(m[1].1, 0.2473, 5e-5);
    let t = pledge::scores::read_with(
        &data(&format!("{F}/pytrec_eval/InexpC2.pytrec_eval.json")),
        &pledge::scores::ReadOptions {
            measure: Some("map".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let at = |q: &str| t.values[0][t.topics.iter().position(|x| x == q).unwrap()].unwrap();
    close(at("303"), 0.107714, 5e-7);
    close(at("325"), 0.244116, 5e-7);
    let r = env.run(&["compare", "--scores", "InexpC2.json", "--scores", "uic0301.json"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("several measures") && !r.stderr.contains("--label"),
        "{}",
        r.stderr
    );
}

/// ranx 0.3.21 `Run.save` / `Qrels.save` as JSON and Parquet, evaluated by `pledge eval` as
/// trec_eval does (map 0.1277 for InexpC2, trec_eval's tie order: topic 325 = 0.2441 where
/// ranx's own per-query value is 0.244096).
#[test]
fn ranx_json_and_parquet_runs_and_qrels() {
    let env = Env::new();
    for f in [
        "InexpC2.ranx.json",
        "InexpC2.ranx.parquet",
        "qrels.ranx.json",
        "qrels.ranx.parquet",
    ] {
        copy(&env, &format!("{F}/ranx/{f}"), f);
    }
    let mut outs = Vec::new();
    for (q, r) in [
        ("qrels.ranx.json", "InexpC2.ranx.json"),
        ("qrels.ranx.parquet", "InexpC2.ranx.parquet"),
    ] {
        let r = env.run(&["eval", q, r, "-m", "map", "-m", "P.10", "--format", "trec"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("map                   \tall\t0.1277"), "{}", r.stdout);
        assert!(r.stdout.contains("map                   \t325\t0.2441"), "{}", r.stdout);
        assert!(r.stdout.contains("P_10                  \tall\t0.2700"), "{}", r.stdout);
        outs.push(r.stdout);
    }
    // The ranx run is named by its file; both containers give the same evaluation.
    assert_eq!(
        outs[0].replace("InexpC2.ranx", "X"),
        outs[1].replace("InexpC2.ranx", "X")
    );
    // A ranx run given as per-topic scores says what it is.
    let r = env.run(&["compare", "--scores", "InexpC2.ranx.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("ranx run or qrels"), "{}", r.stderr);
    let r = env.run(&["compare", "--scores", "InexpC2.ranx.parquet"]);
    assert!(
        r.code == 2 && r.stderr.contains("ranx run or qrels saved as Parquet"),
        "{}",
        r.stderr
    );
}

/// inspect_ai 0.3.285 with its mock model: `.eval` (ZIP, zstd members) and `.json` logs. Its own
/// numbers: match accuracy 0.5, model_graded_qa accuracy 0.583333 (C, I, C, P, C, I).
#[test]
fn inspect_ai_eval_and_json_logs() {
    for (f, epochs) in [("quiz-mockllm.eval", 2), ("quiz-mockllm.json", 1)] {
        let p = data(&format!("{F}/inspect/{f}"));
        let read = |m: &str| {
            pledge::scores::read_with(
                &p,
                &pledge::scores::ReadOptions {
                    measure: Some(m.into()),
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let t = read("model_graded_qa");
        assert_eq!(t.systems, vec!["mockllm/model"], "{} ({} epochs)", f, epochs);
        assert_eq!(t.topics, vec!["q1", "q2", "q3", "q4", "q5", "q6"]);
        let v: Vec<f64> = t.values[0].iter().map(|x| x.unwrap()).collect();
        assert_eq!(v, vec![1.0, 0.0, 1.0, 0.5, 1.0, 0.0]);
        // Each epoch is kept as a sample; two epochs are said in a note.
        assert_eq!(t.samples.as_ref().and_then(|s| s.count_range()), Some((epochs, epochs)));
        assert_eq!(t.notes.len(), usize::from(epochs > 1), "{:?}", t.notes);
        assert_eq!(read("match").values[0].iter().flatten().sum::<f64>(), 3.0);
        let e = pledge::scores::read_with(&p, &Default::default()).unwrap_err();
        assert!(
            e.message.contains("several scorers (match, model_graded_qa)"),
            "{}",
            e.message
        );
    }
    // The command a user runs, on the logs of two (mock) models: mockllm/other's own match
    // accuracy is 0.6666666666666666 (q3..q6 correct).
    let env = Env::new();
    copy(&env, &format!("{F}/inspect/quiz-mockllm.eval"), "a.eval");
    copy(&env, &format!("{F}/inspect/quiz-mockllm-other.eval"), "b.eval");
    let v = ok(
        &env,
        &[
            "compare",
            "--scores",
            "a.eval",
            "--scores",
            "b.eval",
            "--measure",
            "match",
            "--format",
            "json",
        ],
    );
    let m = means(&v);
    assert_eq!((m[0].0.as_str(), m[0].1, m[0].2), ("mockllm/model", 0.5, 6));
    assert_eq!(m[1].0, "mockllm/other");
    close(m[1].1, 0.6666666666666666, 1e-15);
    // The same model's two logs collide, with a message saying so.
    copy(&env, &format!("{F}/inspect/quiz-mockllm.json"), "a.json");
    let r = env.run(&[
        "compare",
        "--scores",
        "a.eval",
        "--scores",
        "a.json",
        "--measure",
        "match",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("system `mockllm/model` is also in a.eval"),
        "{}",
        r.stderr
    );
}

/// Hugging Face datasets 5.2.0 `to_parquet` / `to_json` of the HotpotQA-100 correctness table:
/// the same values as the CSV (gpt-3.5 0.57, gpt-4 0.68).
#[test]
fn hugging_face_parquet_and_wide_jsonl_scores() {
    let env = Env::new();
    for f in ["hotpotqa-100-correctness.parquet", "hotpotqa-100-correctness.jsonl"] {
        copy(&env, &format!("{F}/hf/{f}"), f);
        let v = ok(
            &env,
            &["compare", "--scores", f, "--label", "HALTED=0", "--format", "json"],
        );
        let m = means(&v);
        assert_eq!(m.len(), 6, "{}", f);
        assert_eq!(
            (m[0].0.as_str(), m[0].1, m[0].2),
            ("cot_context_gpt-3.5-turbo_trial1", 0.57, 100)
        );
        assert_eq!((m[1].0.as_str(), m[1].1), ("cot_context_gpt-4_trial1", 0.68));
        let r = env.run(&["compare", "--scores", f]);
        assert!(r.code == 2 && r.stderr.contains("HALTED"), "{}", r.stderr);
    }
}

/// gzip is old news; zstd, bzip2 and xz (made by their own command-line tools) are recognised
/// by content, also without an extension, and `-` reads standard input.
#[test]
fn compressed_inputs_and_standard_input() {
    let env = Env::new();
    copy(&env, "analyze/input.InexpC2.q.txt", "InexpC2.q.txt");
    copy(&env, "analyze/input.aplrob03a.q.txt", "plain.q.txt");
    let plain = ok(
        &env,
        &[
            "compare",
            "--scores",
            "plain.q.txt",
            "--scores",
            "InexpC2.q.txt",
            "--measure",
            "map",
            "--format",
            "json",
        ],
    );
    let want = means(&plain);
    for (f, name) in [
        ("input.aplrob03a.q.txt.zst", "input.aplrob03a.q"),
        ("input.aplrob03a.q.txt.bz2", "input.aplrob03a.q"),
        ("input.aplrob03a.q.txt.xz", "input.aplrob03a.q"),
        ("scores-without-extension", "scores-without-extension"),
    ] {
        copy(&env, &format!("{F}/compressed/{f}"), f);
        let v = ok(
            &env,
            &[
                "compare",
                "--scores",
                f,
                "--scores",
                "InexpC2.q.txt",
                "--measure",
                "map",
                "--format",
                "json",
            ],
        );
        let m = means(&v);
        assert_eq!(m[0].0, name, "{}", f);
        assert_eq!((m[0].1, m[0].2), (want[0].1, want[0].2), "{}", f);
        assert_eq!(m[1], want[1]);
    }
    let bytes = std::fs::read(data(&format!("{F}/compressed/input.aplrob03a.q.txt.xz"))).unwrap();
    let mut child = pledge_cmd()
        .args([
            "compare",
            "--scores",
            "-",
            "--scores",
            "InexpC2.q.txt",
            "--measure",
            "map",
            "--format",
            "json",
        ])
        .current_dir(env.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = means(&json(&String::from_utf8_lossy(&out.stdout)));
    assert_eq!(m[0].0, "<stdin>");
    assert_eq!((m[0].1, m[0].2), (want[0].1, want[0].2));
}

/// Every reader is bounded: /dev/zero stops at once, a large file at the limit.
#[test]
fn size_limits_and_binary_inputs() {
    let env = Env::new();
    let r = env.run(&["compare", "--scores", "/dev/zero"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("/dev/zero: binary data") && r.stderr.contains("NUL byte"),
        "{}",
        r.stderr
    );
    copy(&env, "analyze/input.InexpC2.q.txt", "a.q.txt");
    let r = env.run(&["compare", "--scores", "a.q.txt", "--max-input-size", "1K"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("larger than the input size limit of 1024 bytes"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--max-input-size"), "{}", r.stderr);
}

/// One CSV per model (2WikiMultihopQA result files) for `power --pilot`, as for `--scores`.
#[test]
fn per_system_files_for_the_pilot() {
    let env = Env::new();
    copy(&env, "analyze/glm-4.7.csv", "glm-4.7.csv");
    copy(&env, "analyze/kimi-k2.5.csv", "kimi-k2.5.csv");
    let v = ok(
        &env,
        &[
            "power",
            "--pilot",
            "glm-4.7.csv",
            "--pilot",
            "kimi-k2.5.csv",
            "--column",
            "f1",
            "--format",
            "json",
        ],
    );
    assert_eq!(v["pilot"]["systems"], serde_json::json!(["glm-4.7", "kimi-k2.5"]));
    assert_eq!(v["pilot"]["questions"], 200);
    let r = env.run(&["power", "--pilot", "glm-4.7.csv", "--pilot", "kimi-k2.5.csv"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("column `question` holds text, not scores"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("--column") && !r.stderr.contains("--label"),
        "{}",
        r.stderr
    );
}

const PROTOCOL: &str = r#"schema-version = 1
[study]
id = "beir"
title = "t"
registered-by = "me"
[target]
metric = "ndcg_cut.10"
mde = 0.1
[components]
unit = "question"
[[link-rules]]
name = "identical"
kind = "identical-passage"
[[splits]]
name = "final"
required-components = 5
"#;

/// BEIR (beir 2.2.0's own writers): corpus keyed by `_id`, queries joined with the 3-column
/// qrels; and the Hugging Face hub's hotpot_qa schema read as the original distractor layout.
#[test]
fn beir_and_hub_schemas_for_components() {
    let env = Env::new();
    env.write("p.toml", PROTOCOL);
    for f in ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"] {
        copy(&env, &format!("{F}/beir/{f}"), f);
    }
    let v = ok(
        &env,
        &[
            "components",
            "p.toml",
            "--passages",
            "corpus.jsonl",
            "--questions",
            "queries.jsonl",
            "--qrels",
            "qrels/test.tsv",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    // 10 queries, each with its 2 relevant documents (20 relevant judgments, as BEIR's loader
    // counts them), no document shared: 10 components.
    let c = &v["count"];
    assert_eq!(
        (c["questions"].as_u64(), c["passages"].as_u64()),
        (Some(10), Some(100)),
        "{}",
        c
    );
    assert_eq!(c["with_candidates"], 10);
    copy(&env, &format!("{F}/hf/hotpot_qa-hub-10.parquet"), "hub.parquet");
    copy(&env, &format!("{F}/hf/hotpot_qa-hub-10.jsonl"), "hub.jsonl");
    copy(&env, "components/hotpotqa-10.json", "orig.json");
    let counts: Vec<Value> = ["hub.parquet", "hub.jsonl", "orig.json"]
        .iter()
        .map(|q| {
            ok(
                &env,
                &[
                    "components",
                    "p.toml",
                    "--questions",
                    q,
                    "--dry-run",
                    "--format",
                    "json",
                ],
            )["count"]
                .clone()
        })
        .collect();
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], counts[2]);
}

/// Questions without passages are each their own unit.
#[test]
fn questions_without_passages() {
    let env = Env::new();
    env.write(
        "p.toml",
        PROTOCOL.replace("required-components = 5", "required-components = 3"),
    );
    env.write("q.jsonl", "{\"id\": \"t1\"}\n{\"id\": \"t2\"}\n{\"id\": \"t3\"}\n");
    let v = ok(
        &env,
        &[
            "components",
            "p.toml",
            "--questions",
            "q.jsonl",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    assert_eq!(v["count"]["components"], 3, "{}", v);
    assert_eq!(v["count"]["with_candidates"], 3);
}

/// lm-evaluation-harness 0.4.9 `--log_samples` (dummy model, local task): one line per document
/// and filter. lm_eval's own results: exact_match 0.4 (flexible-extract), 0.0 (strict-match).
#[test]
fn lm_eval_samples() {
    let sample = format!("{F}/lm_eval/dummy/samples_capitals_2026-12-01T10-09-04.123428.jsonl");
    let t = pledge::scores::read_with(
        &data(&sample),
        &pledge::scores::ReadOptions {
            filter: Some("flexible-extract".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(t.systems, vec!["dummy"], "named by the model directory");
    assert_eq!(t.topics, vec!["0", "1", "2", "3", "4"]);
    let v: Vec<f64> = t.values[0].iter().map(|x| x.unwrap()).collect();
    assert_eq!(v, vec![0.0, 1.0, 0.0, 1.0, 0.0]);
    let env = Env::new();
    copy(&env, &sample, "run-a/samples_capitals.jsonl");
    copy(&env, &sample, "run-b/samples_capitals.jsonl");
    let args = [
        "compare",
        "--scores",
        "run-a/samples_capitals.jsonl",
        "--scores",
        "run-b/samples_capitals.jsonl",
    ];
    let r = env.run(&args);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("several filters (strict-match, flexible-extract)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("read as `lm-eval`") && r.stderr.contains("--filter NAME"),
        "{}",
        r.stderr
    );
    for (filter, mean) in [("flexible-extract", 0.4), ("strict-match", 0.0)] {
        let mut a = args.to_vec();
        a.extend(["--filter", filter, "--measure", "exact_match", "--format", "json"]);
        let m = means(&ok(&env, &a));
        assert_eq!((m[0].0.as_str(), m[0].1, m[0].2), ("run-a", mean, 5), "{}", filter);
        assert_eq!((m[1].0.as_str(), m[1].1), ("run-b", mean));
    }
    // The aggregated results file beside it holds no per-document scores, and says so.
    copy(
        &env,
        &format!("{F}/lm_eval/dummy/results_2026-12-01T10-09-04.123428.json"),
        "results.json",
    );
    let r = env.run(&["compare", "--scores", "results.json"]);
    assert!(
        r.code == 2 && r.stderr.contains("aggregated results file"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--log_samples"), "{}", r.stderr);
}

/// HELM 0.5.16 `per_instance_stats.json` (simple model, synthetic scenario). HELM's own
/// stats.json: exact_match 0.0, inference_runtime 1.735687255859375e-05 over the 10 instances.
#[test]
fn helm_per_instance_stats() {
    let run = format!("{F}/helm/simple_mcqa:model=simple_model1/per_instance_stats.json");
    let read = |m: &str| {
        pledge::scores::read_with(
            &data(&run),
            &pledge::scores::ReadOptions {
                measure: Some(m.into()),
                ..Default::default()
            },
        )
        .unwrap()
    };
    let t = read("inference_runtime");
    assert_eq!(
        t.systems,
        vec!["simple_mcqa:model=simple_model1"],
        "named by the run directory"
    );
    assert_eq!(t.topics.len(), 10);
    assert_eq!(t.topics[0], "id60");
    let v: Vec<f64> = t.values[0].iter().map(|x| x.unwrap()).collect();
    close(v.iter().sum::<f64>() / 10.0, 1.735687255859375e-05, 1e-18);
    assert!(read("exact_match").values[0].iter().all(|x| *x == Some(0.0)));
    let env = Env::new();
    copy(&env, &run, "runs/a/per_instance_stats.json");
    copy(&env, &run, "runs/b/per_instance_stats.json");
    let args = [
        "compare",
        "--scores",
        "runs/a/per_instance_stats.json",
        "--scores",
        "runs/b/per_instance_stats.json",
    ];
    let r = env.run(&args);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("several stats (num_references") && r.stderr.contains("read as `helm`"),
        "{}",
        r.stderr
    );
    let mut a = args.to_vec();
    a.extend(["--measure", "exact_match", "--format", "json"]);
    let m = means(&ok(&env, &a));
    assert_eq!((m[0].0.as_str(), m[0].1, m[0].2), ("a", 0.0, 10));
}
