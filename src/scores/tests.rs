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
    let p = write(&d, "s.csv", "\u{feff}topic,system,score\r\n301,A,0.5\r\nq#3,A,1\r\n301,B,0.25\r\n");
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
    enc.write_all(b"_id\tA\tB\n31_1\tCORRECT\tincorrect\n31_2\tyes\tFalse\n").unwrap();
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
    assert!(e.message.contains("w.csv:3:") && e.message.contains("HALTED"), "{}", e.message);
    let opts = ReadOptions { labels: vec![("halted".into(), 0.0)], ..Default::default() };
    assert_eq!(read_with(&p, &opts).unwrap().values[0], vec![Some(1.0), Some(0.0)]);
}

#[test]
fn bad_values_duplicates_and_empty_files_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("a.csv", "topic,system,score\n1,A,0.5\n1,A,0.6\n", "a.csv:3:"),
        ("b.csv", "topic,system,score\n1,A,NaN\n", "b.csv:2:"),
        ("c.csv", "topic,system,score\n1,A,0.5\n2,A,abc\n", "c.csv:3:"),
        ("d.jsonl", "{\"topic\":1,\"system\":\"A\",\"score\":1}\n{\"topic\":\"1\",\"system\":\"A\",\"score\":0}\n", "d.jsonl:2:"),
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
    let p = write(&d, "s.jsonl", "{\"topic\":301,\"system\":\"A\",\"score\":0.5}\n\n{\"topic\":\"302\",\"system\":\"A\",\"score\":\"true\"}\n");
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
    let t = read_with(&p, &ReadOptions { measure: Some("map".into()), ..Default::default() }).unwrap();
    assert_eq!(t.systems, vec!["myrun"]);
    assert_eq!(t.values[0], vec![Some(0.2), Some(0.4)]);
    assert!(t.notes.is_empty(), "{:?}", t.notes);
    let t = read_with(&p, &ReadOptions { measure: Some("P.10".into()), ..Default::default() }).unwrap();
    assert_eq!(t.notes.len(), 1, "P_10 all = 0.4 but mean is 0.3");
    assert!(t.notes[0].contains("0.4"));
}

#[test]
fn per_system_files_with_summary_row_merge_by_topic() {
    let d = tempfile::tempdir().unwrap();
    let a = write(&d, "sysA.csv", "index,question,f1\n1,\"q, one\",0.5\n2,q2,1\n,,0.75\n");
    let b = write(&d, "sysB.csv", "index,question,f1\n2,q2,0\n1,\"q, one\",0.25\n,,0.9\n");
    let opts = ReadOptions { column: Some("f1".into()), ..Default::default() };
    let t = read_many(&[&a, &b], &opts).unwrap();
    assert_eq!(t.systems, vec!["sysA", "sysB"]);
    assert_eq!(t.topics, vec!["1", "2"]);
    assert_eq!(t.values[1], vec![Some(0.25), Some(0.0)]);
    assert_eq!(t.notes.len(), 1, "{:?}", t.notes);
    assert!(t.notes[0].contains("sysB.csv"));
    let e = read_many(&[&a, &a], &opts).unwrap_err();
    assert!(e.message.contains("already has a score"), "{}", e.message);
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
