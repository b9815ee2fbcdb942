//! Integration tests: the readers of promptfoo results, inspect_ai `samples_df` tables, ranx LZ4
//! runs and `run.scores` JSON, and MS MARCO runs, each on a file made by the real tool
//! (tests/data/formats/PROVENANCE.txt), asserting the tool's own numbers; and the error for a
//! JSON document of an unknown kind.

use crate::common::{copy, data, means, Env};
use serde_json::Value;

const F: &str = "formats";

/// The robust03 subset's qrels, unpacked, as `qrels.txt`.
fn qrels(env: &Env) {
    let i = pledge::input::Input::from_path(&data("trec/robust03_qrels.subset.txt.gz"), Default::default()).unwrap();
    env.write("qrels.txt", i.bytes());
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{} vs {}", a, b);
}

/// promptfoo 0.121.20 `-o out.json / out.jsonl / out.csv`: one system per prompt; promptfoo's own
/// scores 2.75 and 4.25 over 5 tests (0.55, 0.85), 3 and 4 passed (0.6, 0.8).
#[test]
fn promptfoo_json_jsonl_and_csv() {
    let env = Env::new();
    let (a, b) = ("[echo] Answer in one word: {{question}}", "[echo] Q: {{question}}\nA:");
    for f in ["out.json", "out.jsonl", "out.csv"] {
        copy(&env, &format!("{F}/promptfoo/{f}"), f);
        let m = means(&env, &["compare", "--scores", f]);
        assert_eq!((m[0].0.as_str(), m[0].2), (a, 5), "{}", f);
        assert_eq!(m[1].0, b, "{}", f);
        close(m[0].1, 0.55, 1e-12);
        close(m[1].1, 0.85, 1e-12);
        let m = means(&env, &["compare", "--scores", f, "--measure", "pass"]);
        assert_eq!((m[0].1, m[1].1), (0.6, 0.8), "{}", f);
    }
    let r = env.run(&["compare", "--scores", "out.csv", "--measure", "passed"]);
    assert!(r.code == 2 && r.stderr.contains("did you mean `pass`?"), "{}", r.stderr);
}

/// inspect_ai 0.3.285 `samples_df(logs)` as CSV, with and without the model columns: match
/// accuracy 0.5 (mockllm/model, 2 epochs averaged) and 0.6666666666666666 (mockllm/other);
/// model_graded_qa 0.5833333333333334.
#[test]
fn inspect_samples_df_tables() {
    let env = Env::new();
    copy(&env, &format!("{F}/inspect/samples_df-model.csv"), "samples.csv");
    copy(&env, &format!("{F}/inspect/samples_df.csv"), "plain.csv");
    let m = means(&env, &["compare", "--scores", "samples.csv", "--measure", "match"]);
    assert_eq!(m[0], ("mockllm/model".to_string(), 0.5, 6));
    assert_eq!(m[1].0, "mockllm/other");
    close(m[1].1, 0.6666666666666666, 1e-15);
    // Without the model columns the systems are the logs; `score_` may be given.
    let m = means(
        &env,
        &["compare", "--scores", "plain.csv", "--measure", "score_model_graded_qa"],
    );
    assert_eq!(
        (m[0].0.as_str(), m[1].0.as_str()),
        ("quiz-mockllm", "quiz-mockllm-other")
    );
    close(m[0].1, 0.5833333333333334, 1e-15);
    let r = env.run(&["compare", "--scores", "plain.csv"]);
    assert!(
        r.code == 2 && r.stderr.contains("several scorers (match, model_graded_qa)"),
        "{}",
        r.stderr
    );
    let r = env.run(&["compare", "--scores", "samples.csv", "--measure", "match"]);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("1 to 2 epochs per topic and system (unequal: each topic's value is reduced from the samples it has), reduced per topic with `mean`"),
        "{}",
        all
    );
}

/// ranx 0.3.21 `Run.save("run.lz4")` and `json.dump(run.scores)`: ranx's own means (map
/// 0.12764929752230322, ndcg@10 0.30984656177297365 for InexpC2). The LZ4 runs are evaluated
/// by pledge (trec_eval's order): ranx breaks exact score ties its own way, which moves InexpC2's
/// topics 325 and 330 at the 5th decimal (mean map 0.1276510 against ranx's 0.1276493), so
/// those means are compared to trec_eval's 4 decimals (5e-5) as in tests/cli/trec.rs; the
/// `run.scores` values are ranx's own and compare exactly.
#[test]
fn ranx_lz4_runs_and_run_scores() {
    let env = Env::new();
    qrels(&env);
    for f in [
        "InexpC2.ranx.lz4",
        "uic0301.ranx.lz4",
        "InexpC2.run-scores.json",
        "uic0301.run-scores.json",
    ] {
        copy(&env, &format!("{F}/ranx/{f}"), f);
    }
    let r = env.run(&[
        "eval",
        "qrels.txt",
        "InexpC2.ranx.lz4",
        "-m",
        "map",
        "-m",
        "ndcg_cut_10",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("InexpC2.ranx"), "{}", text);
    let m = means(
        &env,
        &[
            "compare",
            "--qrels",
            "qrels.txt",
            "--run",
            "InexpC2.ranx.lz4",
            "--run",
            "uic0301.ranx.lz4",
        ],
    );
    close(m[0].1, 0.12764929752230322, 5e-5);
    close(m[1].1, 0.24733560237737667, 5e-5);
    let m = means(
        &env,
        &[
            "compare",
            "--scores",
            "InexpC2.run-scores.json",
            "--scores",
            "uic0301.run-scores.json",
            "--measure",
            "nDCG@10",
        ],
    );
    assert_eq!(m[0], ("InexpC2.run-scores".to_string(), 0.30984656177297365, 10));
    assert_eq!(m[1].1, 0.4756199745526928);
    // The LZ4 frames are undone within the input limits (226243 bytes from 127819 here).
    env.write("one.qrels", "303 0 X 1\n");
    let r = env.run(&["eval", "one.qrels", "InexpC2.ranx.lz4", "--max-input-size", "200K"]);
    assert!(
        r.code == 2 && r.stderr.contains("InexpC2.ranx.lz4: decompresses (LZ4) to"),
        "{}",
        r.stderr
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "InexpC2.ranx.lz4",
        "--scores",
        "uic0301.ranx.lz4",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("ranx run saved as LZ4"),
        "{}",
        r.stderr
    );
}

/// Hugging Face datasets 5.2.0 `save_to_disk`'s Arrow IPC stream of the HotpotQA-100
/// correctness table: the tool's own counts, 57 and 68 CORRECT of 100.
#[test]
fn hugging_face_save_to_disk_arrow_streams() {
    let env = Env::new();
    copy(
        &env,
        &format!("{F}/hf/save_to_disk/data-00000-of-00001.arrow"),
        "data.arrow",
    );
    let m = means(&env, &["compare", "--scores", "data.arrow", "--label", "HALTED=0"]);
    assert_eq!(m.len(), 6);
    assert_eq!(m[0], ("cot_context_gpt-3.5-turbo_trial1".to_string(), 0.57, 100));
    assert_eq!((m[1].0.as_str(), m[1].1), ("cot_context_gpt-4_trial1", 0.68));
    env.write(
        "cut.arrow",
        &std::fs::read(data(&format!("{F}/hf/save_to_disk/data-00000-of-00001.arrow"))).unwrap()[..600],
    );
    let r = env.run(&["compare", "--scores", "cut.arrow"]);
    assert!(
        r.code == 2 && r.stderr.contains("cut.arrow: is not a readable Arrow IPC stream"),
        "{}",
        r.stderr
    );
}

/// An MS MARCO 3-column run: ir_measures 0.4.3 on pyserini 1.6.0's conversion gives RR@10
/// 0.6077777777777778, nDCG@10 0.30984656177297365.
#[test]
fn msmarco_runs() {
    let env = Env::new();
    qrels(&env);
    copy(&env, &format!("{F}/msmarco/InexpC2.msmarco.tsv"), "run-a.tsv");
    copy(&env, &format!("{F}/msmarco/InexpC2.msmarco.tsv"), "run-b.tsv");
    for (measure, want) in [
        ("recip_rank_cut_10", 0.6077777777777778),
        ("nDCG@10", 0.30984656177297365),
    ] {
        let m = means(
            &env,
            &[
                "compare",
                "--qrels",
                "qrels.txt",
                "--run",
                "run-a.tsv",
                "--run",
                "run-b.tsv",
                "--measure",
                measure,
            ],
        );
        close(m[0].1, want, 1e-12);
    }
    env.write("bad.tsv", "1\tD1\t1\n1\tD2\n");
    let r = env.run(&["eval", "qrels.txt", "bad.tsv"]);
    assert!(
        r.code == 2
            && r.stderr
                .contains("bad.tsv:2: expected 3 fields `qid docid rank` (an MS MARCO run), found 2"),
        "{}",
        r.stderr
    );
}

/// A pretty-printed JSON document of an unknown kind: the known kinds and the one it resembles.
#[test]
fn unknown_json_says_what_is_known() {
    let env = Env::new();
    env.write("x.json", "{\n  \"evalId\": \"e1\",\n  \"config\": {}\n}\n");
    let r = env.run(&["compare", "--scores", "x.json", "--scores", "x.json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("x.json: is a JSON document of a kind no score reader knows (top-level keys: config, evalId)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "hint: it resembles a promptfoo results file (promptfoo eval -o out.json) (it has `evalId`, `config`)"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("pytrec_eval {query: {measure: value}}"),
        "{}",
        r.stderr
    );
}
