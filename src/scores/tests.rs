use super::*;
use std::io::Write;

fn write(dir: &tempfile::TempDir, name: &str, content: &str) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn long_csv_with_bom_crlf_and_string_ids() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        &d,
        "s.csv",
        "\u{feff}topic,system,score\r\n301,A,0.5\r\nq#3,A,1\r\n301,B,0.25\r\n",
    );
    let t = read(&p).unwrap();
    assert_eq!(t.systems, vec!["A", "B"]);
    assert_eq!(t.topics, vec!["301", "q#3"]);
    assert_eq!(t.values, vec![vec![Some(0.5), Some(1.0)], vec![Some(0.25), None]]);
}

#[test]
fn wide_tsv_with_labels_and_gzip() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("w.tsv.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"_id\tA\tB\n31_1\tCORRECT\tincorrect\n31_2\tyes\tFalse\n")
        .unwrap();
    std::fs::write(&p, enc.finish().unwrap()).unwrap();
    let t = read(&p).unwrap();
    assert_eq!(t.topics, vec!["31_1", "31_2"]);
    assert_eq!(t.values, vec![vec![Some(1.0), Some(1.0)], vec![Some(0.0), Some(0.0)]]);
}

#[test]
fn halted_needs_a_label_map() {
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "w.csv", "_id,A\nq1,CORRECT\nq2,HALTED\n");
    let e = read(&p).unwrap_err();
    assert!(
        e.message.contains("w.csv:3:") && e.message.contains("HALTED"),
        "{}",
        e.message
    );
    let opts = ReadOptions {
        labels: vec![("halted".into(), 0.0)],
        ..Default::default()
    };
    assert_eq!(read_with(&p, &opts).unwrap().values[0], vec![Some(1.0), Some(0.0)]);
}

#[test]
fn bad_values_duplicates_and_empty_files_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("a.csv", "topic,system,score\n1,A,0.5\n1,A,0.6\n", "a.csv:3:"),
        ("b.csv", "topic,system,score\n1,A,NaN\n", "b.csv:2:"),
        ("c.csv", "topic,system,score\n1,A,0.5\n2,A,abc\n", "c.csv:3:"),
        (
            "d.jsonl",
            "{\"topic\":1,\"system\":\"A\",\"score\":1}\n{\"topic\":\"1\",\"system\":\"A\",\"score\":0}\n",
            "d.jsonl:2:",
        ),
        ("e.csv", "", "e.csv: file is empty"),
        ("f.csv", "topic,system,score\n1,A\n", "f.csv:2:"),
    ];
    for (name, content, want) in cases {
        let p = write(&d, name, content);
        let e = read(&p).unwrap_err();
        assert!(e.message.contains(want), "{}: {}", name, e.message);
        assert_eq!(e.exit_code(), 2);
    }
}

#[test]
fn jsonl_numeric_topics_are_strings() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        &d,
        "s.jsonl",
        "{\"topic\":301,\"system\":\"A\",\"score\":0.5}\n\n{\"topic\":\"302\",\"system\":\"A\",\"score\":\"true\"}\n",
    );
    let t = read(&p).unwrap();
    assert_eq!(t.topics, vec!["301", "302"]);
    assert_eq!(t.values[0], vec![Some(0.5), Some(1.0)]);
}

#[test]
fn trec_eval_measure_choice_runid_and_all_check() {
    let d = tempfile::tempdir().unwrap();
    let text = "runid                 \tall\tmyrun\nmap                   \t301\t0.2000\nP_10                  \t301\t0.5000\nmap                   \t302\t0.4000\nP_10                  \t302\t0.1000\nmap                   \tall\t0.3000\nP_10                  \tall\t0.4000\n";
    let p = write(&d, "r.q.txt", text);
    let e = read(&p).unwrap_err();
    assert!(e.message.contains("several measures"), "{}", e.message);
    let t = read_with(
        &p,
        &ReadOptions {
            measure: Some("map".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(t.systems, vec!["myrun"]);
    assert_eq!(t.values[0], vec![Some(0.2), Some(0.4)]);
    assert!(t.notes.is_empty(), "{:?}", t.notes);
    let t = read_with(
        &p,
        &ReadOptions {
            measure: Some("P.10".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(t.notes.len(), 1, "P_10 all = 0.4 but mean is 0.3");
    assert!(t.notes[0].contains("0.4"));
}

#[test]
fn per_system_files_with_summary_row_merge_by_topic() {
    let d = tempfile::tempdir().unwrap();
    let a = write(&d, "sysA.csv", "index,question,f1\n1,\"q, one\",0.5\n2,q2,1\n,,0.75\n");
    let b = write(&d, "sysB.csv", "index,question,f1\n2,q2,0\n1,\"q, one\",0.25\n,,0.9\n");
    let opts = ReadOptions {
        column: Some("f1".into()),
        ..Default::default()
    };
    let t = read_many(&[&a, &b], &opts).unwrap();
    assert_eq!(t.systems, vec!["sysA", "sysB"]);
    assert_eq!(t.topics, vec!["1", "2"]);
    assert_eq!(t.values[1], vec![Some(0.25), Some(0.0)]);
    assert_eq!(t.notes.len(), 1, "{:?}", t.notes);
    assert!(t.notes[0].contains("sysB.csv"));
    let e = read_many(&[&a, &a], &opts).unwrap_err();
    assert!(e.message.contains("system `sysA` is also in"), "{}", e.message);
    assert!(
        e.hint
            .as_deref()
            .is_some_and(|h| h.ends_with("sysA.csv=sysA-2 (or --system-name once per file, in order)")),
        "{:?}",
        e.hint
    );
    // Named apart, the two files are two systems.
    let named = ReadOptions {
        file_systems: vec![Some("first".into()), Some("second".into())],
        ..opts.clone()
    };
    let t = read_many(&[&a, &a], &named).unwrap();
    assert_eq!(t.systems, vec!["first", "second"]);
    assert_eq!(t.values[0], t.values[1]);
}

#[test]
fn wide_without_id_column_numbers_rows() {
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "t.csv", "\"sys1\",\"sys2\"\n0.1,0.2\n0.3,0.4\n");
    let t = read(&p).unwrap();
    assert_eq!(t.topics, vec!["1", "2"]);
    assert_eq!(t.values[1], vec![Some(0.2), Some(0.4)]);
    assert_eq!(t.notes.len(), 1);
}

fn opts(measure: Option<&str>, filter: Option<&str>) -> ReadOptions {
    ReadOptions {
        measure: measure.map(str::to_string),
        filter: filter.map(str::to_string),
        ..Default::default()
    }
}

/// The record layout lm-evaluation-harness 0.4 writes with --log_samples (EvaluationTracker):
/// one line per document and filter.
#[test]
fn lm_eval_samples_choose_filter_and_metric() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("EleutherAI__pythia-160m")).unwrap();
    let p = d
        .path()
        .join("EleutherAI__pythia-160m/samples_gsm8k_2026-01-01T00-00-00.jsonl");
    let line = |doc: u32, filter: &str, em: f64| {
        format!(
            "{{\"doc_id\": {doc}, \"doc\": {{\"question\": \"q\"}}, \"target\": \"4\", \"arguments\": {{}}, \"resps\": [[\"4\"]], \"filtered_resps\": [\"4\"], \"filter\": \"{filter}\", \"metrics\": [\"exact_match\"], \"doc_hash\": \"h\", \"prompt_hash\": \"h\", \"target_hash\": \"h\", \"exact_match\": {em}}}\n"
        )
    };
    let text: String = [
        line(0, "strict-match", 1.0),
        line(0, "flexible-extract", 1.0),
        line(1, "strict-match", 0.0),
        line(1, "flexible-extract", 1.0),
    ]
    .concat();
    std::fs::write(&p, &text).unwrap();
    let e = read(&p).unwrap_err();
    assert!(
        e.message.contains("several filters (strict-match, flexible-extract)"),
        "{}",
        e.message
    );
    assert_eq!(e.hint.as_deref(), Some("pass --filter NAME"));
    let t = read_with(&p, &opts(None, Some("flexible-extract"))).unwrap();
    assert_eq!(t.systems, vec!["EleutherAI__pythia-160m"]);
    assert_eq!(t.topics, vec!["0", "1"]);
    assert_eq!(t.values[0], vec![Some(1.0), Some(1.0)]);
    let t = read_with(&p, &opts(Some("exact_match"), Some("strict-match"))).unwrap();
    assert_eq!(t.values[0], vec![Some(1.0), Some(0.0)]);
    let e = read_with(&p, &opts(Some("acc"), Some("strict-match"))).unwrap_err();
    assert!(
        e.message
            .contains("metric `acc` is not in the file (it has: exact_match)"),
        "{}",
        e.message
    );
    // A document twice under one filter names the line.
    std::fs::write(&p, [line(0, "none", 1.0), line(0, "none", 0.0)].concat()).unwrap();
    let e = read(&p).unwrap_err();
    assert!(
        e.message.contains(":2: document `0` appears twice for filter `none`"),
        "{}",
        e.message
    );
}

/// The layout HELM writes to `per_instance_stats.json` (crfm-helm `PerInstanceStats`).
#[test]
fn helm_per_instance_stats() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("mmlu:subject=anatomy,model=openai_gpt2");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("per_instance_stats.json");
    let stat = |name: &str, mean: f64| {
        format!("{{\"name\": {{\"name\": \"{name}\", \"split\": \"test\"}}, \"count\": 1, \"sum\": {mean}, \"sum_squared\": {mean}, \"min\": {mean}, \"max\": {mean}, \"mean\": {mean}, \"variance\": 0.0, \"stddev\": 0.0}}")
    };
    let text = format!(
        "[{{\"instance_id\": \"id3\", \"train_trial_index\": 0, \"stats\": [{}, {}]}},\
         {{\"instance_id\": \"id7\", \"train_trial_index\": 0, \"stats\": [{}, {}]}},\
         {{\"instance_id\": \"id7\", \"perturbation\": {{\"name\": \"typo\"}}, \"train_trial_index\": 0, \"stats\": [{}]}}]",
        stat("exact_match", 1.0),
        stat("num_output_tokens", 1.0),
        stat("exact_match", 0.0),
        stat("num_output_tokens", 3.0),
        stat("exact_match", 1.0)
    );
    std::fs::write(&p, text).unwrap();
    let e = read(&p).unwrap_err();
    assert!(
        e.message.contains("several stats (exact_match, num_output_tokens)"),
        "{}",
        e.message
    );
    let t = read_with(&p, &opts(Some("exact_match"), None)).unwrap();
    assert_eq!(t.systems, vec!["mmlu:subject=anatomy,model=openai_gpt2"]);
    assert_eq!(t.topics, vec!["id3", "id7"]);
    assert_eq!(
        t.values[0],
        vec![Some(1.0), Some(0.0)],
        "the perturbed instance is left out"
    );
}

#[test]
fn detection_by_content() {
    use crate::input::{Input, Limits};
    let case =
        |name: &str, text: &str| detect(&Input::from_bytes(name, text.as_bytes().to_vec(), Limits::default()).unwrap());
    assert_eq!(
        case("x", "map\t301\t0.2\nmap\tall\t0.2\n").unwrap(),
        ScoreFormat::TrecEval
    );
    assert_eq!(
        case("x", "301\tAP\t0.2\n302\tAP\t0.3\n").unwrap(),
        ScoreFormat::IrMeasures
    );
    assert_eq!(
        case("x", "301\tAP\t0.2\nall\tAP\t0.2\n").unwrap(),
        ScoreFormat::IrMeasures
    );
    assert_eq!(case("x", "_id\tA\tB\nq1\t0.5\t0.3\n").unwrap(), ScoreFormat::Delimited);
    assert_eq!(
        case("x", "{\"301\": {\"map\": 0.2}, \"302\": {\"map\": 0.1}}").unwrap(),
        ScoreFormat::PytrecEval
    );
    let e = case("x", "{\"301\": {\"d1\": 2.5, \"d2\": 1.0}, \"302\": {\"d9\": 0.5}}").unwrap_err();
    assert!(e.message.contains("ranx run or qrels"), "{}", e.message);
    assert_eq!(
        case("x", "{\"doc_id\": 0, \"filter\": \"none\", \"acc\": 1}\n").unwrap(),
        ScoreFormat::LmEval
    );
    assert_eq!(
        case("x", "{\"topic\": 1, \"system\": \"A\", \"score\": 1}\n").unwrap(),
        ScoreFormat::Jsonl
    );
    assert_eq!(
        case("x", "[{\"instance_id\": \"i\", \"stats\": []}]").unwrap(),
        ScoreFormat::Helm
    );
    assert_eq!(
        case("x", "{\"_id\": \"q\", \"A\": 1}\n{\"_id\": \"r\", \"A\": 0}\n").unwrap(),
        ScoreFormat::JsonTable
    );
    let e = case("results.json", "{\"results\": {}, \"configs\": {}}").unwrap_err();
    assert!(e.message.contains("aggregated results file"), "{}", e.message);
    assert_eq!(ScoreFormat::from_name("PyTerrier").unwrap(), ScoreFormat::Delimited);
    assert!(ScoreFormat::from_name("nope")
        .unwrap_err()
        .hint
        .unwrap()
        .contains("trec-eval"));
    let hint = ScoreFormat::from_name("json-tabel").unwrap_err().hint.unwrap();
    assert!(
        hint.starts_with("did you mean `json-table`? score formats: "),
        "{}",
        hint
    );
    assert!(ScoreFormat::from_name("nope")
        .unwrap_err()
        .hint
        .unwrap()
        .starts_with("score formats: "));
}

#[test]
fn semicolon_csv_and_text_columns() {
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "s.csv", "topic;system;score\n1;A;0.5\n2;A;1\n");
    assert_eq!(read(&p).unwrap().values[0], vec![Some(0.5), Some(1.0)]);
    let p = write(
        &d,
        "r.csv",
        "index,question,f1\n1,who is the wife of X?,0.5\n2,where was Y born?,1\n",
    );
    let e = read(&p).unwrap_err();
    assert!(
        e.message.contains("column `question` holds text, not scores"),
        "{}",
        e.message
    );
    let hint = e.hint.unwrap();
    assert!(
        hint.contains("--column NAME") && hint.contains("f1") && !hint.contains("--label"),
        "{}",
        hint
    );
}
