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

/// What a comparison with a trec_eval output file found.
struct Agreement {
    /// Rows compared string-equal (4 decimals).
    compared: usize,
    /// Per-topic rows where trec_eval prints `nan` (it divides 0 by 0) and pledge 0.
    nan_as_zero: usize,
}

/// Runs `pledge eval --format trec ARGS` and compares it with trec_eval's output in
/// `expected_file`, both ways: every row trec_eval printed must be in pledge's output with the
/// same text (4 decimals), and every row pledge printed for a trec_eval measure and a topic the
/// expectation covers must be in the expectation (pledge-only measures are skipped; so are
/// pledge's `runid`/`num_q`/`all` rows when the expectation leaves them out). Measures named
/// in `ignore` (`name`, or `prefix*`) are not compared.
fn agree_ignoring(expected_file: &Path, args: &[&str], ignore: &[&str]) -> Agreement {
    let env = Env::new();
    let mut a = vec!["eval", "--format", "trec"];
    a.extend_from_slice(args);
    let r = env.run(&a);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = parse_trec(&std::fs::read_to_string(expected_file).unwrap());
    let got = parse_trec(&r.stdout);
    agreement(&expected, &got, expected_file, ignore)
}

fn agreement(
    expected: &HashMap<(String, String), String>,
    got: &HashMap<(String, String), String>,
    what: &Path,
    ignore: &[&str],
) -> Agreement {
    let topics: std::collections::HashSet<&String> = expected.keys().map(|k| &k.1).collect();
    let printed: std::collections::HashSet<&String> = got.keys().map(|k| &k.0).collect();
    let ignored = |m: &str| {
        ignore.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => m.starts_with(prefix),
            None => m == *p,
        })
    };
    let (mut compared, mut nan_as_zero) = (0, 0);
    for (k, v) in got {
        if !topics.contains(&k.1) || ignored(&k.0) {
            continue; // e.g. out.test has `all` rows only
        }
        let pledge_only = pledge::trec::resolve(&k.0).is_ok_and(|m| !m.is_trec_eval());
        let optional = k.1 == "all" || k.0 == "runid" || k.0 == "num_q";
        if pledge_only || (optional && !expected.contains_key(k)) {
            continue;
        }
        let e = expected
            .get(k)
            .unwrap_or_else(|| panic!("{:?} not in {}", k, what.display()));
        if e.contains("nan") {
            if k.1 != "all" {
                assert_eq!(v, "0.0000", "{:?}: trec_eval nan, pledge 0", k);
                nan_as_zero += 1;
            }
            continue;
        }
        assert_eq!(v, e, "{:?} in {}", k, what.display());
        compared += 1;
    }
    // Every row of a measure pledge printed is there (a measure pledge did not print at all
    // is caught by the callers, which count the rows compared).
    for k in expected.keys() {
        if !ignored(&k.0) && printed.contains(&k.0) {
            assert!(got.contains_key(k), "pledge lacks {:?} of {}", k, what.display());
        }
    }
    Agreement { compared, nan_as_zero }
}

/// [`agree_ignoring`] comparing every measure; returns the number of rows compared.
fn agree(expected_file: &Path, args: &[&str]) -> usize {
    let a = agree_ignoring(expected_file, args, &[]);
    assert_eq!(a.nan_as_zero, 0);
    a.compared
}

/// Rows (non-blank lines) of a trec_eval output file.
fn rows(file: &str) -> usize {
    std::fs::read_to_string(data(&format!("trec/{}", file)))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

#[test]
fn agrees_with_trec_eval_all_trec_q() {
    // out.test.aq: trec_eval -m all_trec -q qrels.test results.test: every row, 98 measures.
    let n = agree(
        &data("trec/out.test.aq"),
        &[&d("qrels.test"), &d("results.test"), "-m", "all_trec"],
    );
    assert_eq!(n, 387);
    assert_eq!(n, rows("out.test.aq"));
}

#[test]
fn default_set_is_trec_evals() {
    // out.test: trec_eval with no -m (its "official" set).
    let n = agree(&data("trec/out.test"), &[&d("qrels.test"), &d("results.test")]);
    assert_eq!(n, rows("out.test"));
    let env = Env::new();
    let r = env.run(&["eval", &d("qrels.test"), &d("results.test"), "--format", "trec"]);
    let all: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("\tall\t"))
        .map(|l| l.split('\t').next().unwrap().trim())
        .collect();
    let expected: Vec<String> = std::fs::read_to_string(data("trec/out.test"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap().trim().to_string())
        .collect();
    assert_eq!(all, expected, "same measures in the same order");
}

#[test]
fn agrees_with_trec_eval_complete_flag() {
    // out.test.aqc: -c with results.trunc, which lacks topic 302 (77 relevant documents).
    let n = agree(
        &data("trec/out.test.aqc"),
        &["-c", &d("qrels.test"), &d("results.trunc"), "-m", "all_trec"],
    );
    assert_eq!(n, rows("out.test.aqc"));
    // out.test.aqcM: the same with -M100.
    let n = agree(
        &data("trec/out.test.aqcM"),
        &[
            "-c",
            "-M",
            "100",
            &d("qrels.test"),
            &d("results.trunc"),
            "-m",
            "all_trec",
        ],
    );
    assert_eq!(n, rows("out.test.aqcM"));
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
fn complete_flag_counts_every_qrels_topic() {
    // As trec_eval -c (9.0.8 and 10.0): topic 3 has no relevant document and is not in the
    // run; it is still evaluated (as 0) and counted: map all = 1/3, num_q = 3.
    let env = Env::new();
    env.write("q", "1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 d 0\n");
    env.write("r", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n");
    let r = env.run(&["eval", "q", "r", "-c", "-m", "map", "-m", "num_ret", "--format", "trec"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("map                   \t3\t0.0000\n"), "{}", r.stdout);
    assert!(r.stdout.contains("num_q                 \tall\t3\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("map                   \tall\t0.3333\n"),
        "{}",
        r.stdout
    );
    let r = env.run(&["eval", "q", "r", "-m", "map", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["runs"][0]["missing_from_run"], serde_json::json!(["2", "3"]));
    assert_eq!(v["runs"][0]["all"][0], 1.0);
}

#[test]
fn agrees_with_trec_eval_relevance_level_and_negative_grades() {
    // out.test.aql: -l2 on graded qrels with -1 grades, which trec_eval reads as unjudged;
    // `-m all_trec -m relstring.20` (trec_eval gives relstring its parameter, pledge prints
    // both relstring and relstring_20).
    let a = agree_ignoring(
        &data("trec/out.test.aql"),
        &[
            "-l",
            "2",
            "--negative-unjudged",
            &d("qrels.rel_level"),
            &d("results.test"),
            "-m",
            "all_trec",
            "-m",
            "relstring.20",
        ],
        &["relstring"],
    );
    assert_eq!(a.compared, rows("out.test.aql"));
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
    // out.test.meas_params, trec_eval's own command, except `ndcg_cut.10,20,23.4`: trec_eval
    // truncates 23.4 to 23, pledge refuses a cutoff that is not an integer.
    let n = agree(
        &data("trec/out.test.meas_params"),
        &[
            &d("qrels.test"),
            &d("results.test"),
            "-miprec_at_recall..10,.20,.25,.75,.50",
            "-m",
            "P.5,7,3",
            "-m",
            "recall.20,2000",
            "-m",
            "Rprec_mult.5.0,0.2,0.35",
            "-mutility.2,-1,0,0",
            "-m",
            "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5",
            "-mndcg_cut.10,20,23",
            "-msuccess.2,5,20",
        ],
    );
    assert_eq!(n, rows("out.test.meas_params"), "22 measures x (3 topics + all)");
    // Comment lines and a docno containing `#` (CR#93E-1860) in the qrels.
    let n = agree(
        &data("trec/out.test"),
        &[&d("qrels.test.with-comments"), &d("results.test"), "-m", "map"],
    );
    assert_eq!(n, 3, "map all, runid and num_q");
}

#[test]
fn agrees_with_trec_eval_flags_j_m_n_l_c() {
    // trec_eval 10.0 (f4253652) outputs made for these tests (tests/data/trec/PROVENANCE.txt).
    let q = d("qrels.test");
    let ql = d("qrels.rel_level");
    let rt = d("results.test");
    let n = agree(
        &data("trec/te10.aqJ.rel_level"),
        &["-J", "--negative-unjudged", &ql, &rt, "-m", "all_trec"],
    );
    assert_eq!(n, rows("te10.aqJ.rel_level"));
    let n = agree(&data("trec/te10.aqM7"), &["-M", "7", &q, &rt, "-m", "all_trec"]);
    assert_eq!(n, rows("te10.aqM7"));
    // -J -l2 -c: topic 302 is missing, its placeholder ranking is emptied by -J, and trec_eval
    // prints nan for iprec_at_recall_0.00 and 11pt_avg there (0 / 0); pledge prints 0.
    let a = agree_ignoring(
        &data("trec/te10.aqJl2c.rel_level"),
        &[
            "-J",
            "-l",
            "2",
            "-c",
            "--negative-unjudged",
            &ql,
            &d("results.trunc"),
            "-m",
            "all_trec",
        ],
        &[],
    );
    assert_eq!(a.nan_as_zero, 2);
    assert_eq!(a.compared, rows("te10.aqJl2c.rel_level") - 4);
    let n = agree(
        &data("trec/te10.params.rel_level"),
        &[
            "--negative-unjudged",
            "-N",
            "200000",
            &ql,
            &rt,
            "-m",
            "dcg",
            "-m",
            "ideal_dcg",
            "-m",
            "yaap",
            "-m",
            "G.1=2,2=5",
            "-m",
            "ndcg_rel.1=2",
            "-m",
            "Rndcg.0=1,1=3",
            "-m",
            "rbp_resid.p=0.5",
            "-m",
            "set_F.0.5",
            "-m",
            "utility.1,-1,-0.5,0.001",
            "-m",
            "relstring.15",
            "-m",
            "unj.3,7",
            "-m",
            "success.3",
            "-m",
            "relative_P.2,50",
            "-m",
            "map_cut.3",
            "-m",
            "Rprec_mult.0.5",
            "-m",
            "11pt_avg.0.3,0.1",
            "-m",
            "iprec_at_recall.0.05",
        ],
    );
    assert_eq!(n, rows("te10.params.rel_level"));
    // rbp with a persistence and a gain, alone (trec_eval's rbp reads uninitialized memory
    // and is only reliable when no other measure ran before it; PROVENANCE.txt).
    let n = agree(&data("trec/te10.rbp.rel_level"), &[&ql, &rt, "-m", "rbp.p=0.5,1=2"]);
    assert_eq!(n, rows("te10.rbp.rel_level"));
    let n = agree(
        &data("trec/te10.gains.rel_level"),
        &[
            &ql,
            &rt,
            "-m",
            "ndcg.0=1,2=3,3=1",
            "-m",
            "G",
            "-m",
            "Rndcg",
            "-m",
            "ndcg_rel",
        ],
    );
    assert_eq!(n, rows("te10.gains.rel_level"));
}

#[test]
fn agrees_with_trec_eval_on_robust03_subset_every_measure() {
    let q = d("robust03_qrels.subset.txt.gz");
    let env = Env::new();
    let dcg330 = |extra: &[&str]| {
        let mut a = vec!["eval", &q, "--format", "trec", "-m", "dcg"];
        let run = d("input.InexpC2.subset.gz");
        a.push(&run);
        a.extend_from_slice(extra);
        let r = env.run(&a);
        parse_trec(&r.stdout)[&("dcg".to_string(), "330".to_string())].clone()
    };
    assert_eq!(dcg330(&[]), "7.2981");
    assert_eq!(dcg330(&["--full-precision"]), "7.2982");
    for run in ["InexpC2", "humR03dc", "uic0301"] {
        let file = format!("te10.all.input.{}.subset", run);
        let r = d(&format!("input.{}.subset.gz", run));
        let n = agree(&data(&format!("trec/{}", file)), &[&q, &r, "-m", "all_trec"]);
        assert_eq!(n, rows(&file), "{}", run);
        assert_eq!(
            n,
            10 * 96 + 2 + 97,
            "{}: 98 measures, 96 per topic, 97 in the summary",
            run
        );
        // trec_eval's measures outside all_trec. trec_eval 10.0 ranks by double-precision
        // scores, and InexpC2 has scores that differ only below single precision, which moves
        // dcg of topic 330 (7.2982 in double, 7.2981 in single): compared with
        // --full-precision.
        let file = format!("te10.extra.input.{}.subset", run);
        let n = agree(
            &data(&format!("trec/{}", file)),
            &[&q, &r, "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", "--full-precision"],
        );
        assert_eq!(n, 11 * 3, "{}", run);
    }
    let file = "te10.aql2M100J.input.humR03dc.subset";
    let n = agree(
        &data(&format!("trec/{}", file)),
        &[
            "-l",
            "2",
            "-M",
            "100",
            "-J",
            &q,
            &d("input.humR03dc.subset.gz"),
            "-m",
            "all_trec",
        ],
    );
    assert_eq!(n, rows(file));
    // The older expectation (5 measures, per-topic rows of the full runs) still holds.
    for run in ["InexpC2", "humR03dc", "uic0301"] {
        let n = agree(
            &data(&format!("trec/input.{}.subset.q.txt", run)),
            &[
                &q,
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
        assert_eq!(n, 50, "{}", run);
    }
}

#[test]
fn ranks_by_single_precision_scores_unless_full_precision() {
    // qrels.ties / results.ties: scores that differ only below f32 precision (0.500000001 vs
    // 0.5, 16777217 vs 16777216, -1.00000001 vs -1.0) and 0.0 vs -0.0. trec_eval 9.0.8 reads
    // scores as float: ties, broken by docno (descending); trec_eval 10.0 reads doubles.
    let (q, r) = (d("qrels.ties"), d("results.ties"));
    // 9.0.8 and 10.0 differ in iprec_at_recall / 11pt_avg for another reason (10.0 rounds
    // recall levels with lround); 9.0.8's all_trec has no rbp, rbp_resid, unj.
    let ignore = ["iprec_at_recall*", "11pt_avg", "rbp*", "unj*"];
    let a = agree_ignoring(&data("trec/te9.ties"), &[&q, &r, "-m", "all_trec"], &ignore);
    let kept = std::fs::read_to_string(data("trec/te9.ties"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !ignore.iter().any(|p| l.starts_with(p.trim_end_matches('*'))))
        .count();
    assert_eq!(a.compared, kept);
    let n = agree(&data("trec/te10.ties"), &[&q, &r, "-m", "all_trec", "--full-precision"]);
    assert_eq!(n, rows("te10.ties"));
    // The two readings really differ here: topic 1's relevant d5 (0.500000001) ties with the
    // non-relevant d9 (0.5) in single precision and d9 ranks first by docno.
    let env = Env::new();
    let single = env.run(&["eval", &q, &r, "-m", "recip_rank", "--format", "trec"]);
    let double = env.run(&[
        "eval",
        &q,
        &r,
        "-m",
        "recip_rank",
        "--format",
        "trec",
        "--full-precision",
    ]);
    assert!(
        single.stdout.contains("recip_rank            \t1\t0.5000\n"),
        "{}",
        single.stdout
    );
    assert!(
        double.stdout.contains("recip_rank            \t1\t1.0000\n"),
        "{}",
        double.stdout
    );
}

#[test]
fn measure_names_as_people_type_them() {
    // ir_measures and ranx names give the same rows as the trec_eval names (out.test.aq).
    let env = Env::new();
    let r = env.run(&[
        "eval",
        &d("qrels.test"),
        &d("results.test"),
        "--format",
        "trec",
        "-m",
        "nDCG@10",
        "-m",
        "AP",
        "-m",
        "R@100",
        "-m",
        "AP@100",
        "-m",
        "Success@10",
        "-m",
        "P@10",
        "-m",
        "mrr",
        "-m",
        "hit_rate@5",
        "-m",
        "Bpref",
        "-m",
        "r-precision",
        "-m",
        "ndcg_at_20",
        "-m",
        "IPrec@0.5",
        "-m",
        "SetF",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let got = parse_trec(&r.stdout);
    let exp = parse_trec(&std::fs::read_to_string(data("trec/out.test.aq")).unwrap());
    let names = [
        "ndcg_cut_10",
        "map",
        "recall_100",
        "map_cut_100",
        "success_10",
        "P_10",
        "recip_rank",
        "success_5",
        "bpref",
        "Rprec",
        "ndcg_cut_20",
        "iprec_at_recall_0.50",
        "set_F",
    ];
    for name in names {
        for t in ["301", "302", "303", "all"] {
            let k = (name.to_string(), t.to_string());
            assert_eq!(got.get(&k), exp.get(&k), "{:?}", k);
        }
    }
    assert_eq!(got.len(), 4 * names.len() + 2);
    let e = env.run(&["eval", &d("qrels.test"), &d("results.test"), "-m", "mapp"]);
    assert_eq!(e.code, 2);
    assert!(e.stderr.contains("did you mean `map`"), "{}", e.stderr);
    let e = env.run(&["eval", &d("qrels.test"), &d("results.test"), "-m", "P(rel=2)@10"]);
    assert_eq!(e.code, 2);
    assert!(e.stderr.contains("-l N"), "{}", e.stderr);
}

#[test]
fn pledge_measures_for_ir_measures_names() {
    // Judged@k, RR@k and nDCG(dcg='exp-log2')@k, which trec_eval lacks, against a ranking
    // worked out by hand. Ranking: u (unjudged), n (grade 0), g2 (grade 2), g1 (grade 1).
    let env = Env::new();
    env.write("q", "1 0 n 0\n1 0 g1 1\n1 0 g2 2\n1 0 x 3\n");
    env.write("r", "1 Q0 u 1 4 r\n1 Q0 n 2 3 r\n1 Q0 g2 3 2 r\n1 Q0 g1 4 1 r\n");
    let r = env.run(&[
        "eval",
        "q",
        "r",
        "--format",
        "json",
        "-m",
        "Judged@2",
        "-m",
        "Judged@10",
        "-m",
        "RR@2",
        "-m",
        "RR@3",
        "-m",
        "nDCG(dcg='exp-log2')@3",
        "-m",
        "ndcg_burges",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(
        run["measures"],
        serde_json::json!([
            "judged_ret_2",
            "judged_ret_10",
            "recip_rank_cut_2",
            "recip_rank_cut_3",
            "ndcg_burges_cut_3",
            "ndcg_burges"
        ])
    );
    let vals: Vec<f64> = run["topics"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    // Judged@2: n judged of u n -> 1/2; Judged@10: 3 judged of the 4 retrieved.
    assert_eq!(vals[0], 0.5);
    assert_eq!(vals[1], 0.75);
    assert_eq!(vals[2], 0.0);
    assert_eq!(vals[3], 1.0 / 3.0);
    // exp gains: g2 -> 3 at rank 3, g1 -> 1 at rank 4; ideal x(7) g2(3) g1(1).
    let idcg3 = 7.0 + 3.0 / 3f64.log2() + 1.0 / 2.0;
    assert!((vals[4] - (3.0 / 2.0) / idcg3).abs() < 1e-12, "{}", vals[4]);
    assert!(
        (vals[5] - (3.0 / 2.0 + 1.0 / 5f64.log2()) / idcg3).abs() < 1e-12,
        "{}",
        vals[5]
    );
}

#[test]
fn score_reader_and_analysis_take_the_same_names() {
    // compare --qrels with --measure nDCG@10 equals ndcg_cut.10; a trec_eval -q file is read
    // with --measure P@10 for its P_10 rows.
    let env = Env::new();
    for f in [
        "robust03_qrels.subset.txt.gz",
        "input.InexpC2.subset.gz",
        "input.uic0301.subset.gz",
    ] {
        env.write(f, std::fs::read(data(&format!("trec/{}", f))).unwrap());
    }
    let mean_of = |measure: &str| {
        let r = env.run(&[
            "compare",
            "--qrels",
            "robust03_qrels.subset.txt.gz",
            "--run",
            "input.InexpC2.subset.gz",
            "--run",
            "input.uic0301.subset.gz",
            "--measure",
            measure,
            "--format",
            "json",
            "--trials",
            "100",
            "--randomization-trials",
            "100",
        ]);
        assert_eq!(r.code, 0, "{}: {}", measure, r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["systems"][0]["mean"].as_f64().unwrap()
    };
    assert_eq!(mean_of("nDCG@10"), mean_of("ndcg_cut.10"));
    assert_eq!(mean_of("AP"), mean_of("map"));
    // trec_eval -q files of two runs (every measure): --measure P@10 reads the P_10 rows,
    // nDCG@10 the ndcg_cut_10 rows (trec_eval's `all` rows of InexpC2: 0.2700 and 0.3098).
    env.write(
        "a.q.txt",
        std::fs::read(data("trec/te10.all.input.InexpC2.subset")).unwrap(),
    );
    env.write(
        "b.q.txt",
        std::fs::read(data("trec/te10.all.input.uic0301.subset")).unwrap(),
    );
    let mean_in_file = |measure: &str| {
        let r = env.run(&[
            "compare",
            "--scores",
            "a.q.txt",
            "--scores",
            "b.q.txt",
            "--measure",
            measure,
            "--format",
            "json",
            "--trials",
            "100",
            "--randomization-trials",
            "100",
        ]);
        assert_eq!(r.code, 0, "{}: {}", measure, r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["systems"][0]["mean"].as_f64().unwrap()
    };
    assert!((mean_in_file("P@10") - 0.27).abs() < 1e-9);
    assert_eq!(mean_in_file("P@10"), mean_in_file("P.10"));
    // The mean of the file's 4-decimal rows, 3.0986 / 10.
    assert!((mean_in_file("nDCG@10") - 0.30986).abs() < 1e-9);
    assert!((mean_of("nDCG@10") - 0.3098).abs() < 5e-5);
    // gm_map has no per-topic rows: a clear error, exit 2.
    let e = env.run(&[
        "compare",
        "--scores",
        "a.q.txt",
        "--scores",
        "b.q.txt",
        "--measure",
        "gm_map",
        "--format",
        "json",
    ]);
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("no per-topic values of `gm_map`"), "{}", e.stderr);
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
#[ignore = "needs /work/shared/data/robust03"]
fn agrees_with_trec_eval_on_all_robust03_runs_every_measure() {
    // tests/data/trec/robust03_te10/: trec_eval 10.0 (f4253652) -q -m all_trec, and -q -m dcg
    // -m ideal_dcg -m yaap, on the full qrels and each of the 17 runs.
    use std::io::Read;
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/robust03/examples/robust03");
    let qrels = shared.join("qrel/robust03_qrels.txt").display().to_string();
    let mut runs: Vec<_> = std::fs::read_dir(shared.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gz"))
        .collect();
    runs.sort();
    let mut total = 0;
    for p in &runs {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        for (suffix, measures) in [
            ("te10", vec!["all_trec"]),
            ("extra.te10", vec!["dcg", "ideal_dcg", "yaap"]),
        ] {
            let gz = data(&format!("trec/robust03_te10/{}.{}.gz", stem, suffix));
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            let expected = parse_trec(&text);
            let env = Env::new();
            let run = p.display().to_string();
            // trec_eval 10.0 compares scores as doubles.
            let mut args = vec!["eval", &qrels, &run, "--format", "trec", "--full-precision"];
            for m in &measures {
                args.extend(["-m", m]);
            }
            let r = env.run(&args);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let a = agreement(&expected, &parse_trec(&r.stdout), &gz, &[]);
            assert_eq!(a.nan_as_zero, 0);
            assert_eq!(
                a.compared,
                text.lines().filter(|l| !l.trim().is_empty()).count(),
                "{}",
                stem
            );
            total += a.compared;
        }
    }
    assert_eq!(runs.len(), 17);
    println!("{} rows of trec_eval output for 17 runs agree", total);
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

/// `(measure, topic) -> value` of an ir_measures `-q` TSV (`topic<TAB>measure<TAB>value`) or a
/// ranx dump (`measure<TAB>topic<TAB>value`).
fn parse_oracle(text: &str, topic_first: bool) -> Vec<(String, String, f64)> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let [a, b, v] = f.as_slice() else { return None };
            let (m, t) = if topic_first { (b, a) } else { (a, b) };
            Some((m.to_string(), t.to_string(), v.parse().ok()?))
        })
        .collect()
}

#[test]
fn ir_measures_and_ranx_names_agree_with_those_tools() {
    // tests/data/trec/irm.* (ir_measures 0.4.3: Judged@k by its judged provider, RR@k by its
    // msmarco provider, nDCG(dcg='exp-log2')@k by gdeval) and ranx.* (ranx 0.3.21) on the
    // robust03 subset: pledge, given the tools' own names, prints the same per-topic values,
    // to trec_eval's 4 decimals (5e-5); the tools print 6 decimals (gdeval 5 significant
    // ones) and break exact score ties their own way (ranx, gdeval) or by docno ascending
    // (ir_measures), trec_eval by docno descending, which moves a few values at the 5th decimal.
    let q = d("robust03_qrels.subset.txt.gz");
    let (mut checked, mut exact) = (0, 0);
    for run in ["InexpC2", "humR03dc", "uic0301"] {
        for (file, topic_first) in [
            (format!("irm.judged_rr.input.{}.subset", run), true),
            (format!("irm.ndcg_exp.input.{}.subset", run), true),
            (format!("ranx.input.{}.subset", run), false),
        ] {
            let rows = parse_oracle(
                &std::fs::read_to_string(data(&format!("trec/{}", file))).unwrap(),
                topic_first,
            );
            let mut names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
            names.sort();
            names.dedup();
            let mut args = vec![
                q.clone(),
                d(&format!("input.{}.subset.gz", run)),
                "--format".into(),
                "json".into(),
            ];
            for n in &names {
                args.push("-m".into());
                args.push(n.clone());
            }
            let env = Env::new();
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut full = vec!["eval"];
            full.extend(a);
            let r = env.run(&full);
            assert_eq!(r.code, 0, "{}: {}", file, r.stderr);
            let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
            let ev = &v["runs"][0];
            let measures: Vec<String> = ev["measures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            for (m, t, want) in &rows {
                if t == "all" {
                    continue;
                }
                let canonical = pledge::trec::resolve(m).unwrap().canonical_name();
                let i = measures.iter().position(|x| *x == canonical).unwrap();
                let topic = ev["topics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["topic"] == t.as_str())
                    .unwrap_or_else(|| panic!("topic {} of {}", t, file));
                let got = topic["values"][i].as_f64().unwrap();
                assert!(
                    (got - want).abs() < 5e-5,
                    "{} {} {}: pledge {} vs {}",
                    file,
                    m,
                    t,
                    got,
                    want
                );
                exact += usize::from((got - want).abs() <= 1e-5);
                checked += 1;
            }
        }
    }
    // 3 runs x 10 topics x (4 ir_measures + 2 gdeval + 14 ranx measures).
    assert_eq!(checked, 3 * 10 * (4 + 2 + 14));
    assert!(exact >= checked * 95 / 100, "{} of {} within 1e-5", exact, checked);
}

/// A gzip qrels file cut in half, or with bytes after its end, names the file, the last complete
/// line read and the fault (the real robust03 subset, 45,716 bytes compressed).
#[test]
fn truncated_or_trailing_gzip_qrels_name_the_fault_and_the_line() {
    use std::io::Read;
    let env = Env::new();
    let gz = std::fs::read(d("robust03_qrels.subset.txt.gz")).unwrap();
    let run = d("input.uic0301.subset.gz");
    let half = &gz[..gz.len() / 2];
    let mut prefix = Vec::new();
    let _ = flate2::read::GzDecoder::new(half).read_to_end(&mut prefix);
    let lines = prefix.iter().filter(|&&b| b == b'\n').count();
    assert!(lines > 1000, "{lines}");
    env.write("qrels.gz", half);
    let r = env.run(&["eval", "qrels.gz", &run, "-m", "map"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "qrels.gz: the gzip stream ends early: the file is truncated (after line {lines}, the last complete line read)"
        )),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    let mut whole = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut whole).unwrap();
    let total = whole.iter().filter(|&&b| b == b'\n').count();
    let mut trailing = gz.clone();
    trailing.extend_from_slice(b"\0\0junk");
    env.write("t.gz", &trailing);
    let r = env.run(&["eval", "t.gz", &run, "-m", "map"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "t.gz: bytes after the end of the gzip stream (the content decoded to its end, {total} lines;"
        )),
        "{}",
        r.stderr
    );
}
