//! `pledge eval`: agreement with trec_eval (its own test suite and TREC 2003 Robust runs, see
//! tests/data/trec/PROVENANCE.txt), output formats, pool bias, and bad input.

use crate::common::{data, Env};
use std::collections::HashMap;
use std::path::Path;

fn d(p: &str) -> String {
    data(&format!("trec/{}", p)).display().to_string()
}

/// `(measure, topic) -> printed value` of a trec_eval-format text.
fn parse_trec(text: &str) -> HashMap<(String, String), String> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((
                (f.next()?.trim().to_string(), f.next()?.to_string()),
                f.next()?.to_string(),
            ))
        })
        .collect()
}

/// Compares every row of pledge's output that trec_eval's expected file also has (4 decimals,
/// string-equal), skipping pledge-only measures; returns how many rows were compared.
fn agree(expected_file: &Path, args: &[&str]) -> usize {
    let env = Env::new();
    let mut a = vec!["eval", "--format", "trec"];
    a.extend_from_slice(args);
    let r = env.run(&a);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = parse_trec(&std::fs::read_to_string(expected_file).unwrap());
    let got = parse_trec(&r.stdout);
    let topics: std::collections::HashSet<&String> = expected.keys().map(|k| &k.1).collect();
    let mut n = 0;
    for (k, v) in &got {
        if !topics.contains(&k.1) {
            continue; // e.g. out.test has `all` rows only
        }
        // pledge-only measures; runid / num_q / `all` rows that the expectation leaves out.
        let optional = k.1 == "all" || k.0 == "runid" || k.0 == "num_q";
        if k.0.starts_with("judged") || (optional && !expected.contains_key(k)) {
            continue;
        }
        let e = expected
            .get(k)
            .unwrap_or_else(|| panic!("{:?} not in {}", k, expected_file.display()));
        assert_eq!(v, e, "{:?} in {}", k, expected_file.display());
        n += 1;
    }
    n
}

#[test]
fn agrees_with_trec_eval_all_trec_q() {
    // out.test.aq: trec_eval -m all_trec -q qrels.test results.test; every pledge measure.
    let n = agree(&data("trec/out.test.aq"), &[&d("qrels.test"), &d("results.test")]);
    assert_eq!(n, 4 * 27 + 2, "every measure x (3 topics + all), plus runid and num_q");
}

#[test]
fn agrees_with_trec_eval_complete_flag() {
    // out.test.aqc: -c with results.trunc, which lacks topic 302 (77 relevant documents).
    let n = agree(
        &data("trec/out.test.aqc"),
        &["-c", &d("qrels.test"), &d("results.trunc")],
    );
    assert_eq!(n, 110);
    let env = Env::new();
    let r = env.run(&[
        "eval",
        &d("qrels.test"),
        &d("results.trunc"),
        "-m",
        "map",
        "--format",
        "trec",
    ]);
    // Without -c only 301 and 303 are evaluated: map all = (0.0324 + 0.2723) / 2 (unrounded).
    assert!(r.stdout.contains("num_q                 \tall\t2\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("map                   \tall\t0.1523\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn agrees_with_trec_eval_relevance_level_and_negative_grades() {
    // out.test.aql: -l2 on graded qrels with -1 grades, which trec_eval reads as unjudged.
    let n = agree(
        &data("trec/out.test.aql"),
        &[
            "-l",
            "2",
            "--negative-unjudged",
            &d("qrels.rel_level"),
            &d("results.test"),
        ],
    );
    assert_eq!(n, 110);
    // judged@k = 1 - trec_eval's unj_k when the run returns at least k documents.
    let env = Env::new();
    let r = env.run(&[
        "eval",
        "--negative-unjudged",
        &d("qrels.rel_level"),
        &d("results.test"),
        "-m",
        "judged.5,10,20",
        "--format",
        "trec",
    ]);
    let got = parse_trec(&r.stdout);
    let exp = parse_trec(&std::fs::read_to_string(data("trec/out.test.aql")).unwrap());
    for t in ["301", "302", "303"] {
        for k in [5, 10, 20] {
            let j: f64 = got[&(format!("judged_{}", k), t.to_string())].parse().unwrap();
            let u: f64 = exp[&(format!("unj_{}", k), t.to_string())].parse().unwrap();
            assert!(
                (j + u - 1.0).abs() < 1e-9,
                "topic {} k {}: judged {} unj {}",
                t,
                k,
                j,
                u
            );
        }
    }
    // Default reading: a -1 grade is judged (non-relevant), so topic 303's top 10 is all judged.
    let r = env.run(&[
        "eval",
        &d("qrels.rel_level"),
        &d("results.test"),
        "-m",
        "judged.10",
        "--format",
        "trec",
    ]);
    assert!(
        r.stdout.contains("judged_10             \t303\t1.0000\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn agrees_with_trec_eval_parameters_and_comments() {
    let n = agree(
        &data("trec/out.test.meas_params"),
        &[
            &d("qrels.test"),
            &d("results.test"),
            "-m",
            "P.5,7,3",
            "-m",
            "ndcg_cut.10,20,23",
        ],
    );
    assert_eq!(n, 24, "6 measures x (3 topics + all)");
    // Comment lines and a docno containing `#` (CR#93E-1860) in the qrels.
    let n = agree(
        &data("trec/out.test"),
        &[&d("qrels.test.with-comments"), &d("results.test"), "-m", "map"],
    );
    assert_eq!(n, 3, "map all, runid and num_q");
}

#[test]
fn agrees_with_trec_eval_on_robust03_subset() {
    for run in ["InexpC2", "humR03dc", "uic0301"] {
        let n = agree(
            &data(&format!("trec/input.{}.subset.q.txt", run)),
            &[
                &d("robust03_qrels.subset.txt.gz"),
                &d(&format!("input.{}.subset.gz", run)),
                "-m",
                "map",
                "-m",
                "P.10",
                "-m",
                "ndcg",
                "-m",
                "recip_rank",
                "-m",
                "num_rel_ret",
            ],
        );
        // Only per-topic rows are in the subset expectation: 5 measures x 10 topics.
        assert_eq!(n, 50, "{}", run);
    }
}

#[test]
fn agrees_with_trec_eval_on_all_robust03_runs_when_shared_data_is_present() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/robust03");
    if !shared.exists() {
        println!(
            "skipped: {} is absent (a clone without the shared data)",
            shared.display()
        );
        return;
    }
    let qrels = shared.join("examples/robust03/qrel/robust03_qrels.txt");
    let runs = std::fs::read_dir(shared.join("examples/robust03/runs")).unwrap();
    let mut checked = 0;
    for e in runs {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".gz") else { continue };
        let expected = shared.join(format!("derived_trec_eval_f4253652/{}.q.txt", stem));
        let q = qrels.display().to_string();
        let r = p.display().to_string();
        let args = [
            &q[..],
            &r,
            "-m",
            "map",
            "-m",
            "P.10",
            "-m",
            "ndcg",
            "-m",
            "recip_rank",
            "-m",
            "num_rel_ret",
        ];
        let n = agree(&expected, &args);
        assert_eq!(n, 5 * 101, "{}", stem);
        checked += 1;
    }
    assert_eq!(checked, 17);
}

#[test]
fn json_and_human_formats() {
    let env = Env::new();
    let r = env.run(&[
        "eval",
        &d("qrels.test"),
        &d("results.test"),
        "-m",
        "map",
        "-m",
        "P.10",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["tag"], "STANDARD");
    assert_eq!(run["measures"], serde_json::json!(["map", "P_10"]));
    assert_eq!(run["topics"].as_array().unwrap().len(), 3);
    // trec_eval: map all 0.1785, P_10 all 0.3000.
    assert_eq!(format!("{:.4}", run["all"][0].as_f64().unwrap()), "0.1785");
    assert_eq!(format!("{:.4}", run["all"][1].as_f64().unwrap()), "0.3000");
    let r = env.run(&["eval", &d("qrels.test"), &d("results.test"), "-m", "map", "-q"]);
    assert!(r.stdout.contains("run STANDARD"), "{}", r.stdout);
    assert!(r.stdout.contains("map              0.1785"), "{}", r.stdout);
    assert!(r.stdout.contains("301"), "{}", r.stdout);
}

#[test]
fn topic_absent_from_qrels_is_reported_and_excluded() {
    let env = Env::new();
    env.write("qrels", "1 0 a 1\n1 0 b 0\n");
    env.write("run", "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n9 Q0 a 1 1.0 r\n");
    let r = env.run(&["eval", "qrels", "run", "-m", "P.1", "-m", "num_ret", "--format", "trec"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("1 topic(s) not in the qrels were excluded: 9"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stdout,
        "P_1                   \t1\t1.0000\nnum_ret               \t1\t2\nrunid                 \tall\tr\n\
         num_q                 \tall\t1\nP_1                   \tall\t1.0000\nnum_ret               \tall\t2\n"
    );
}

#[test]
fn short_run_and_negative_grades() {
    let env = Env::new();
    // b is graded -1: judged and non-relevant by default; c is unjudged.
    env.write("qrels", "1 0 a 1\n1 0 b -1\n1 0 d 1\n");
    env.write("run", "1 Q0 c 1 3 r\n1 Q0 b 2 2 r\n1 Q0 a 3 1 r\n");
    let r = env.run(&[
        "eval", "qrels", "run", "-m", "P.5", "-m", "judged.5", "-m", "map", "-m", "num_rel", "--format", "trec",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // P_5 divides by 5 although 3 were returned; judged_5 = 2/5; map = (1/3)/2.
    assert!(r.stdout.contains("P_5                   \t1\t0.2000\n"), "{}", r.stdout);
    assert!(r.stdout.contains("judged_5              \t1\t0.4000\n"), "{}", r.stdout);
    assert!(r.stdout.contains("map                   \t1\t0.1667\n"), "{}", r.stdout);
    assert!(r.stdout.contains("num_rel               \t1\t2\n"), "{}", r.stdout);
}

#[test]
fn bad_input_names_file_and_line() {
    let env = Env::new();
    env.write("qrels", "1 0 a 1\n1 0 b\n");
    env.write("good_qrels", "1 0 a 1\n");
    env.write("run_short", "1 Q0 a 1 2.0 r\n1 Q0 b 2\n");
    env.write("run_score", "1 Q0 a 1 high r\n");
    env.write("run_dup", "1 Q0 a 1 2 r\n1 Q0 a 2 1 r\n");
    env.write("run_empty", "");
    env.write("run_other", "7 Q0 a 1 2 r\n");
    env.write("qrels_grade", "1 0 a yes\n");
    env.write("qrels_dup", "1 0 a 1\n1 0 a 0\n");
    let cases: &[(&[&str], &str)] = &[
        (&["qrels", "run_dup"], "qrels:2: expected 4 fields"),
        (
            &["qrels_grade", "run_dup"],
            "qrels_grade:1: relevance grade `yes` is not an integer",
        ),
        (
            &["qrels_dup", "run_dup"],
            "qrels_dup:2: duplicate judgment of document `a`",
        ),
        (&["good_qrels", "run_short"], "run_short:2: expected 6 fields"),
        (
            &["good_qrels", "run_score"],
            "run_score:1: score `high` is not a finite number",
        ),
        (
            &["good_qrels", "run_dup"],
            "run_dup:2: document `a` appears twice for topic `1`",
        ),
        (&["good_qrels", "run_empty"], "run_empty: run is empty"),
        (&["good_qrels", "run_other"], "has no topic in common with the qrels"),
        (
            &["good_qrels", "run_dup", "-m", "nope"],
            "measure `nope`: unknown measure",
        ),
    ];
    for (args, msg) in cases {
        let mut a = vec!["eval"];
        a.extend_from_slice(args);
        let r = env.run(&a);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert!(r.stderr.contains(msg), "{:?}: {}", args, r.stderr);
    }
    let r = env.run(&[
        "eval",
        "good_qrels",
        "run_dup",
        "--keep-first-duplicate",
        "-m",
        "num_ret",
        "--format",
        "trec",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("num_ret               \t1\t1\n"), "{}", r.stdout);
}

#[test]
fn pool_bias_statement_with_protocol() {
    let env = Env::new();
    // Two topics; run A and B contributed at depth 2, run C did not.
    env.write("qrels", "1 0 a 1\n1 0 b 0\n1 0 x 1\n2 0 a 1\n2 0 y 0\n");
    env.write("A", "1 Q0 a 1 3 A\n1 Q0 x 2 2 A\n2 Q0 a 1 3 A\n2 Q0 y 2 2 A\n");
    env.write("B", "1 Q0 a 1 3 B\n1 Q0 b 2 2 B\n2 Q0 a 1 3 B\n2 Q0 q 2 2 B\n");
    env.write("C", "1 Q0 z 1 3 C\n1 Q0 a 2 2 C\n2 Q0 w 1 3 C\n2 Q0 a 2 2 C\n");
    env.write(
        "p.toml",
        "schema-version = 1\n[study]\nid = \"s\"\ntitle = \"t\"\nregistered-by = \"me\"\n\
         [target]\nmetric = \"P.2\"\nmde = 0.1\n[pool]\ncontributors = [\"A\", \"B\"]\ndepth = 2\njudged-k = 2\n",
    );
    let r = env.run(&[
        "eval",
        "qrels",
        "A",
        "B",
        "C",
        "--protocol",
        "p.toml",
        "-m",
        "P.2",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let pb = &v["pool_bias"];
    assert_eq!(pb["metric"], "P_2");
    let a = &pb["runs"][0];
    assert_eq!(a["contributor"], true);
    assert_eq!(a["judged_at_k"], 1.0);
    // A alone pooled x (topic 1, relevant) and y (topic 2): P_2 goes from 0.75 to 0.5.
    assert_eq!(a["mean"], 0.75);
    assert_eq!(a["leave_one_out"]["unique_judged"], 2);
    assert_eq!(a["leave_one_out"]["unique_relevant"], 1);
    assert_eq!(a["leave_one_out"]["mean_without"], 0.5);
    assert_eq!(a["leave_one_out"]["change"], -0.25);
    let c = &pb["runs"][2];
    assert_eq!(c["contributor"], false);
    assert_eq!(c["judged_at_k"], 0.5);
    assert_eq!(c["unjudged_at_k"], 0.5);
    assert!(c["leave_one_out"].is_null());
    let s = pb["statement"].as_str().unwrap();
    assert!(
        s.starts_with("2 of the 3 evaluated runs contributed to the judgment pool."),
        "{}",
        s
    );
    assert!(s.contains("the largest change in P_2 is -0.2500, for A"), "{}", s);
}
