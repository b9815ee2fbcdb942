//! Reading speed of each input reader on the largest real file of its kind that the repository
//! (tests/data/) or, when present, the shared data beside it holds: MB/s of raw input bytes,
//! median of several reads, reading included from memory (the file is read from disk once, then
//! parsed from an in-memory `Input` each time, decompression included). Run with
//! `cargo bench --bench readers`.

use pledge::input::{Input, Limits};
use pledge::scores::{read_input, ReadOptions};
use pledge::trec::{Duplicates, Qrels, Run};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A reader under test: parses an input, returns how many items it read.
type Reader = Box<dyn Fn(&Input) -> Result<usize, pledge::Error>>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench(kind: &str, path: &Path, f: &dyn Fn(&Input) -> Result<usize, pledge::Error>) {
    let raw = match std::fs::read(path) {
        Ok(b) => b,
        Err(_) => {
            println!("{:<44} skipped: {} is absent", kind, path.display());
            return;
        }
    };
    let mb = raw.len() as f64 / 1e6;
    let reps = if raw.len() > 5_000_000 { 3 } else { 9 };
    let mut times = Vec::with_capacity(reps);
    let mut items = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let input = match Input::from_bytes(path, raw.clone(), Limits::default()) {
            Ok(i) => i,
            Err(e) => {
                println!("{:<44} failed: {}", kind, e);
                return;
            }
        };
        match f(&input) {
            Ok(n) => items = n,
            Err(e) => {
                println!("{:<44} failed: {}", kind, e);
                return;
            }
        }
        times.push(t.elapsed().as_secs_f64());
    }
    let s = median(times);
    println!(
        "{:<44} {:>9.3} MB raw ({:>8.3} MB content) {:>8.1} ms {:>8.1} MB/s  ({} items; {})",
        kind,
        mb,
        Input::from_bytes(path, raw.clone(), Limits::default())
            .map(|i| i.bytes().len() as f64 / 1e6)
            .unwrap_or(0.0),
        s * 1e3,
        mb / s,
        items,
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = |p: &str| root.join("tests/data").join(p);
    let shared = |p: &str| root.join("../shared/data").join(p);
    let scores = |measure: Option<&str>, column: Option<&str>, labels: Vec<(String, f64)>| ReadOptions {
        measure: measure.map(str::to_string),
        column: column.map(str::to_string),
        labels,
        ..Default::default()
    };
    let n_scores =
        |o: ReadOptions| move |i: &Input| read_input(i, &o).map(|t| t.values.iter().flatten().flatten().count());
    let halted = vec![("HALTED".to_string(), 0.0)];
    let cases: Vec<(&str, PathBuf, Reader)> = vec![
        (
            "scores: trec_eval -q",
            t("analyze/input.InexpC2.q.txt"),
            Box::new(n_scores(scores(Some("map"), None, vec![]))),
        ),
        (
            "scores: trec_eval -q, xz",
            t("formats/compressed/input.aplrob03a.q.txt.xz"),
            Box::new(n_scores(scores(Some("map"), None, vec![]))),
        ),
        (
            "scores: ir_measures -q",
            t("formats/ir_measures/InexpC2.irm.q.tsv"),
            Box::new(n_scores(scores(Some("AP"), None, vec![]))),
        ),
        (
            "scores: pytrec_eval JSON",
            t("formats/pytrec_eval/InexpC2.pytrec_eval.json"),
            Box::new(n_scores(scores(Some("map"), None, vec![]))),
        ),
        (
            "scores: PyTerrier per-query CSV",
            t("formats/pyterrier/pyterrier-perquery.csv"),
            Box::new(n_scores(scores(Some("map"), None, vec![]))),
        ),
        (
            "scores: wide CSV (HotpotQA-100)",
            t("hotpotqa-100/correctness.csv"),
            Box::new(n_scores(scores(None, None, halted.clone()))),
        ),
        (
            "scores: wide JSON Lines (datasets)",
            t("formats/hf/hotpotqa-100-correctness.jsonl"),
            Box::new(n_scores(scores(None, None, halted.clone()))),
        ),
        (
            "scores: Parquet (datasets)",
            t("formats/hf/hotpotqa-100-correctness.parquet"),
            Box::new(n_scores(scores(None, None, halted))),
        ),
        (
            "scores: one system per CSV (2WikiMQA)",
            t("analyze/kimi-k2.5.csv"),
            Box::new(n_scores(scores(None, Some("f1"), vec![]))),
        ),
        (
            "scores: inspect_ai .eval (ZIP, zstd)",
            t("formats/inspect/quiz-mockllm.eval"),
            Box::new(n_scores(scores(Some("match"), None, vec![]))),
        ),
        (
            "scores: inspect_ai .json",
            t("formats/inspect/quiz-mockllm.json"),
            Box::new(n_scores(scores(Some("match"), None, vec![]))),
        ),
        (
            "scores: lm-eval samples JSONL",
            t("formats/lm_eval/dummy/samples_capitals_2026-12-01T10-09-04.123428.jsonl"),
            Box::new(n_scores(ReadOptions {
                filter: Some("flexible-extract".into()),
                ..scores(None, None, vec![])
            })),
        ),
        (
            "scores: HELM per_instance_stats.json",
            t("formats/helm/simple_mcqa:model=simple_model1/per_instance_stats.json"),
            Box::new(n_scores(scores(Some("exact_match"), None, vec![]))),
        ),
        (
            "run: TREC, gzip (robust03 subset)",
            t("trec/input.InexpC2.subset.gz"),
            Box::new(|i: &Input| Run::from_input(i, Duplicates::Error).map(|r| r.topics.values().map(Vec::len).sum())),
        ),
        (
            "run: ranx JSON",
            t("formats/ranx/InexpC2.ranx.json"),
            Box::new(|i: &Input| Run::from_input(i, Duplicates::Error).map(|r| r.topics.values().map(Vec::len).sum())),
        ),
        (
            "run: ranx Parquet",
            t("formats/ranx/InexpC2.ranx.parquet"),
            Box::new(|i: &Input| Run::from_input(i, Duplicates::Error).map(|r| r.topics.values().map(Vec::len).sum())),
        ),
        (
            "qrels: ranx JSON",
            t("formats/ranx/qrels.ranx.json"),
            Box::new(|i: &Input| {
                Qrels::from_input(i, Duplicates::Error).map(|q| q.topics.values().map(|t| t.grades.len()).sum())
            }),
        ),
        (
            "qrels: BEIR 3-column TSV",
            t("formats/beir/qrels/test.tsv"),
            Box::new(|i: &Input| {
                Qrels::from_input(i, Duplicates::Error).map(|q| q.topics.values().map(|t| t.grades.len()).sum())
            }),
        ),
        (
            "run: TREC, gzip (robust03, shared)",
            shared("robust03/examples/robust03/runs/input.aplrob03a.gz"),
            Box::new(|i: &Input| Run::from_input(i, Duplicates::Error).map(|r| r.topics.values().map(Vec::len).sum())),
        ),
        (
            "qrels: TREC (robust03, shared)",
            shared("robust03/examples/robust03/qrel/robust03_qrels.txt"),
            Box::new(|i: &Input| {
                Qrels::from_input(i, Duplicates::Error).map(|q| q.topics.values().map(|t| t.grades.len()).sum())
            }),
        ),
        (
            "passages: BEIR corpus.jsonl",
            t("formats/beir/corpus.jsonl"),
            Box::new(|i: &Input| pledge::components::read::read_passages_input(i).map(|p| p.len())),
        ),
        (
            "passages: JSON Lines, gzip (statutes, shared)",
            shared("statutes-kr/passages.jsonl.gz"),
            Box::new(|i: &Input| pledge::components::read::read_passages_input(i).map(|p| p.len())),
        ),
        (
            "questions: hub hotpot_qa Parquet",
            t("formats/hf/hotpot_qa-hub-10.parquet"),
            Box::new(|i: &Input| {
                pledge::components::read::read_corpus_inputs(None, i, None).map(|(c, _)| c.questions.len())
            }),
        ),
        (
            "questions: HotpotQA JSON (HotpotQA-100)",
            t("hotpotqa-100/questions.json"),
            Box::new(|i: &Input| {
                pledge::components::read::read_corpus_inputs(None, i, None).map(|(c, _)| c.questions.len())
            }),
        ),
    ];
    println!("reader                                       input size, median time and throughput (raw bytes)");
    for (kind, path, f) in &cases {
        bench(kind, path, f.as_ref());
    }
}
