//! Integration tests: components.

use crate::common::{data, Env};

const PROTOCOL: &str = r#"schema-version = 1
[study]
id = "mini-statutes"
title = "t"
registered-by = "test"
[target]
metric = "accuracy"
mde = 0.1
sd = 0.5
[components]
unit = "doc"
max-per-component = 1
[[link-rules]]
name = "identical passages only"
kind = "identical-passage"
[[link-rules]]
name = "plus near-identical articles"
kind = "near-duplicate-passage"
shingle-size = 5
jaccard = 0.8
[[link-rules]]
name = "plus laws used as decoys"
kind = "decoy"
[[splits]]
name = "final"
required-components = 2
[[splits]]
name = "tuning"
required-components = 1
[analysis]
seed = 7
split = "final"
"#;

fn env_with(protocol: &str) -> Env {
    let env = Env::init();
    env.write("p.toml", protocol);
    env.copy_from_repo("tests/data/components/passages.jsonl", "passages.jsonl");
    env.copy_from_repo("tests/data/components/questions.jsonl", "questions.jsonl");
    env
}

fn ledger_tip(env: &Env) -> String {
    env.git(&["rev-parse", "--verify", "-q", "refs/pledge/ledger"]).stdout
}

const ARGS: [&str; 6] = [
    "components",
    "p.toml",
    "--passages",
    "passages.jsonl",
    "--questions",
    "questions.jsonl",
];

#[test]
fn dry_run_ablation_by_hand() {
    let env = env_with(PROTOCOL);
    let r = env.run(&[&ARGS[..], &["--dry-run", "--format", "json"]].concat());
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows: Vec<(u64, u64, u64, u64, u64)> = v["count"]["ablation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let g = |k: &str| a[k].as_u64().unwrap();
            (
                g("links"),
                g("components"),
                g("with_candidates"),
                g("largest_units"),
                g("largest_questions"),
            )
        })
        .collect();
    // d1:1 = d2:1 (identical); d2:2 ≈ d3:2 (J = 0.947) plus the identical pair; decoys d2, d3, d4.
    assert_eq!(rows, vec![(1, 3, 3, 2, 2), (2, 2, 2, 3, 3), (3, 1, 1, 4, 4)]);
    assert_eq!(v["stop"]["decision"], "stop");
    assert!(
        r.stderr.contains("counted 1 components with candidates, required 3"),
        "{}",
        r.stderr
    );
    assert_eq!(ledger_tip(&env), "", "dry run must not write the ledger");
    let human = env.run(&[&ARGS[..], &["--dry-run"]].concat());
    assert!(human
        .stdout
        .contains("Dry run: nothing was written (no ledger entry, no assignment file)."));
    // A dry run writes no file at all; it prints the hash of the assignment it would write.
    assert!(!env.join("mini-statutes.components.csv").exists());
    let csv = "question,component,unit,split,counted\nq1,C1,d1,,\nq2,C1,d2,,\nq3,C1,d3,,\nq4,C1,d4,,\n";
    assert_eq!(v["out_sha256"], pledge::io::sha256_hex(csv.as_bytes()));
    assert!(v["out"].is_null());
    let listing: Vec<String> = std::fs::read_dir(env.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!listing.iter().any(|f| f.ends_with(".csv")), "{:?}", listing);
}

#[test]
fn refuses_unregistered_and_changed_protocols() {
    let env = env_with(PROTOCOL);
    let r = env.run(&ARGS);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not registered"), "{}", r.stderr);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    env.write("p.toml", PROTOCOL.replace("seed = 7", "seed = 8"));
    let r = env.run(&ARGS);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("changed since it was registered"), "{}", r.stderr);
}

#[test]
fn stop_entry_records_hashes() {
    let env = env_with(PROTOCOL);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&[&ARGS[..], &["--out", "asg.csv"]].concat());
    assert_eq!(r.code, 3, "{}", r.stderr);
    let entry: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger:entry.json"]).stdout).unwrap();
    assert_eq!(entry["kind"], "stop");
    let sha = pledge::io::sha256_file(&env.join("asg.csv")).unwrap();
    assert_eq!(entry["inputs"]["assignment:asg.csv"], sha.as_str());
    assert_eq!(
        entry["inputs"]["passages:passages.jsonl"],
        pledge::io::sha256_file(&env.join("passages.jsonl")).unwrap().as_str()
    );
    assert_eq!(entry["summary"]["counted"], 1);
    assert_eq!(entry["summary"]["required"], 3);
}

#[test]
fn go_and_assign_whole_components() {
    // Without near-duplicates and decoys: d1+d2, d3, d4 are three components; 2 + 1 required.
    let start = PROTOCOL.find("[[link-rules]]\nname = \"plus near").unwrap();
    let end = PROTOCOL.find("[[splits]]").unwrap();
    let p = format!("{}{}", &PROTOCOL[..start], &PROTOCOL[end..]);
    let env = env_with(&p);
    let reg = env.run(&["register", "p.toml"]);
    assert_eq!(reg.code, 0, "{}", reg.stderr);
    let r = env.run(&[&ARGS[..], &["--assign", "--out", "a.csv", "--format", "json"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["stop"]["decision"], "go");
    assert_eq!(v["ledger_entries"], serde_json::json!([2, 3]));
    let csv = std::fs::read_to_string(env.join("a.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    // q1 and q2 share component C1: same split, and with m = 1 only q1 (first by id) counts.
    assert_eq!(rows[0][1], "C1");
    assert_eq!(rows[1][1], "C1");
    assert_eq!(rows[0][3], rows[1][3]);
    assert_eq!((rows[0][4], rows[1][4], rows[2][4], rows[3][4]), ("1", "0", "1", "1"));
    let splits: Vec<&str> = rows.iter().map(|r| r[3]).collect();
    assert_eq!(
        splits.iter().filter(|s| **s == "final").count() + splits.iter().filter(|s| **s == "tuning").count(),
        4
    );
    let entry: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger:entry.json"]).stdout).unwrap();
    assert_eq!(entry["kind"], "assign");
    assert_eq!(entry["rng"]["seed"], 7);
    // Deterministic: a dry run gives the hash of the same file, and writes none.
    let again = env.run(
        &[
            &ARGS[..],
            &["--assign", "--out", "b.csv", "--dry-run", "--format", "json"],
        ]
        .concat(),
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let again: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again["out_sha256"], pledge::io::sha256_hex(csv.as_bytes()));
    assert!(!env.join("b.csv").exists());
}

fn bad(env: &Env, questions: &str, passages: &str, expect: &str) {
    env.write("bq.jsonl", questions);
    env.write("bp.jsonl", passages);
    let before = ledger_tip(env);
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        "bp.jsonl",
        "--questions",
        "bq.jsonl",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(expect), "expected `{}` in: {}", expect, r.stderr);
    assert_eq!(ledger_tip(env), before);
}

#[test]
fn bad_input_names_file_and_line() {
    let env = env_with(PROTOCOL);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let p = std::fs::read_to_string(data("components/passages.jsonl")).unwrap();
    let q = std::fs::read_to_string(data("components/questions.jsonl")).unwrap();
    let missing = q.replace("\"d2:2\"", "\"d9:9\"");
    bad(
        &env,
        &missing,
        &p,
        "bq.jsonl:2: question `q2` names passage `d9:9`, which is not in the passages",
    );
    bad(
        &env,
        &q,
        &format!("{}{}", p, p.lines().next().unwrap()),
        "bp.jsonl:9: duplicate passage id `d1:1`",
    );
    bad(
        &env,
        &format!("{}{}", q, q.lines().next().unwrap()),
        &p,
        "bq.jsonl:5: duplicate question id `q1`",
    );
    let broken: String = q
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 2 {
                "{\"id\": \n".to_string()
            } else {
                format!("{}\n", l)
            }
        })
        .collect();
    bad(&env, &broken, &p, "bq.jsonl:3: malformed JSON");
    bad(&env, "", &p, "bq.jsonl: no questions");
    bad(&env, &q, "", "bp.jsonl: no passages");
    bad(
        &env,
        &q,
        "[]",
        "bp.jsonl: no passages (the file is empty or lists none; expected one record per passage)",
    );
    bad(
        &env,
        "[]\n",
        &p,
        "bq.jsonl: no questions (the file is empty or lists none; expected one record per question)",
    );
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        "nope.jsonl",
        "--questions",
        "questions.jsonl",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope.jsonl: no such file"), "{}", r.stderr);
}

#[test]
fn hotpotqa_and_musique_layouts_without_passages() {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "h.toml");
    env.copy_from_repo("tests/data/components/hotpotqa-10.json", "h.json");
    env.copy_from_repo("tests/data/components/musique-5.json", "m.json");
    let r = env.run(&[
        "components",
        "h.toml",
        "--questions",
        "h.json",
        "--dry-run",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
    assert_eq!(v["count"]["questions"], 10);
    // 10 questions × 10 paragraphs, all titles distinct: 100 passages, each question alone.
    assert_eq!(v["count"]["passages"], 100);
    assert_eq!(v["count"]["with_candidates"], 10);
    let r = env.run(&[
        "components",
        "h.toml",
        "--questions",
        "m.json",
        "--dry-run",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
    assert_eq!(v["count"]["questions"], 5);
    assert_eq!(v["count"]["passages"], MUSIQUE_PASSAGES);
    assert_eq!(v["count"]["with_candidates"], MUSIQUE_COMPONENTS);
}

// Checked with a short Python script over musique-5.json: 96 distinct titles (20 paragraphs per
// question, some titles repeated), and no paragraph shared across questions.
const MUSIQUE_PASSAGES: u64 = 96;
const MUSIQUE_COMPONENTS: u64 = 5;

/// `--write-pairs` writes the near-duplicate pairs the join found (checked by hand: d2:2 and d3:2
/// share 36 of 38 5-gram shingles; d1:1 and d2:1 are identical, 17 shingles); `--pairs` counts
/// from such a file with the same ablation, records its hash, and a listed pair that does not
/// hold under the registered rule is refused with the file and line.
#[test]
fn pairs_written_and_read_back_give_the_same_count() {
    let env = env_with(PROTOCOL);
    let r = env.run(
        &[
            &ARGS[..],
            &["--dry-run", "--write-pairs", "pairs.jsonl", "--format", "json"],
        ]
        .concat(),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("wrote 2 near-duplicate pairs to"), "{}", r.stderr);
    let written = std::fs::read_to_string(env.join("pairs.jsonl")).unwrap();
    assert_eq!(
        written,
        "{\"a\":\"d1:1\",\"b\":\"d2:1\",\"intersection\":17,\"union\":17,\"jaccard\":1.0}\n\
         {\"a\":\"d2:2\",\"b\":\"d3:2\",\"intersection\":36,\"union\":38,\"jaccard\":0.9473684210526315}\n"
    );
    let joined: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let listed_run = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "pairs.jsonl", "--format", "json"]].concat());
    assert_eq!(listed_run.code, 3, "{}", listed_run.stderr);
    assert!(
        listed_run
            .stderr
            .contains("2 pairs, 2 of them (seed 7) checked exactly"),
        "{}",
        listed_run.stderr
    );
    let listed: serde_json::Value = serde_json::from_str(&listed_run.stdout).unwrap();
    let rows = |v: &serde_json::Value| -> Vec<(u64, u64, u64)> {
        v["count"]["ablation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["links"].as_u64().unwrap(),
                    a["components"].as_u64().unwrap(),
                    a["with_candidates"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(rows(&listed), rows(&joined));
    assert_eq!(listed["count"]["ablation"][1]["listed"]["checked"], 2);
    // Recorded like any input.
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    assert_eq!(env.run(&[&ARGS[..], &["--pairs", "pairs.jsonl"]].concat()).code, 3);
    let log = env.run(&["log", "--format", "json"]);
    assert!(log.stdout.contains("pairs:pairs.jsonl"), "{}", log.stdout);
    // Switching between listed pairs and the join is a recount on other inputs: it needs a reason.
    let switched = env.run(&ARGS);
    assert_eq!(switched.code, 1, "{}", switched.stderr);
    assert!(switched.stderr.contains("pairs"), "{}", switched.stderr);
    // A forged pair: d1:1 and d1:2 are not near-duplicates.
    env.write(
        "forged.jsonl",
        format!("{}{{\"a\":\"d1:1\",\"b\":\"d1:2\"}}\n", written),
    );
    let bad = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "forged.jsonl"]].concat());
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("forged.jsonl:3: the pair `d1:1`–`d1:2` does not hold under the registered rule"),
        "{}",
        bad.stderr
    );
    env.write("unknown.jsonl", "{\"a\":\"d1:1\",\"b\":\"nope\"}\n");
    let bad = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "unknown.jsonl"]].concat());
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("unknown.jsonl:1: `nope` is not a passage id"),
        "{}",
        bad.stderr
    );
    // An empty pairs file is a set of no pairs (a corpus may have none), said as a warning: a
    // failed job's empty output reads the same. The near-duplicate rule then adds no link.
    env.write("empty.jsonl", "");
    let empty = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "empty.jsonl", "--format", "json"]].concat());
    assert_eq!(empty.code, 3, "{}", empty.stderr);
    assert!(
        empty.stderr.contains(
            "empty.jsonl lists no pair, so the near-duplicate rule adds no link; the empty output of a job that failed reads the same"
        ),
        "{}",
        empty.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&empty.stdout).unwrap();
    assert_eq!(v["count"]["ablation"][1]["links"], 0);
    // A pair listed twice (once in the other order) counts once, with a warning and the number
    // of repeated lines in the record; listed again with other sizes, it is refused.
    let first = written.lines().next().unwrap();
    let swapped = first.replace("\"a\":\"d1:1\",\"b\":\"d2:1\"", "\"a\":\"d2:1\",\"b\":\"d1:1\"");
    env.write("twice.jsonl", format!("{}{}\n", written, swapped));
    let twice = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "twice.jsonl", "--format", "json"]].concat());
    assert_eq!(twice.code, 3, "{}", twice.stderr);
    assert!(
        twice.stderr.contains(
            "twice.jsonl repeats pairs: 1 of its lines list a pair an earlier line lists (with the same sizes), and each pair counts once"
        ),
        "{}",
        twice.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&twice.stdout).unwrap();
    assert_eq!(rows(&v), rows(&joined));
    assert_eq!(v["count"]["ablation"][1]["listed"]["pairs"], 2);
    assert_eq!(v["count"]["ablation"][1]["listed"]["repeated-lines"], 1);
    assert!(listed["count"]["ablation"][1]["listed"].get("repeated-lines").is_none());
    env.write(
        "clash.jsonl",
        format!(
            "{}{}\n",
            written,
            swapped.replace("\"union\":17,\"jaccard\":1.0", "\"union\":18")
        ),
    );
    let clash = env.run(&[&ARGS[..], &["--dry-run", "--pairs", "clash.jsonl"]].concat());
    assert_eq!(clash.code, 2, "{}", clash.stderr);
    assert!(
        clash.stderr.contains("clash.jsonl:3: the pair `d1:1`–`d2:1` is listed again with intersection 17, union 18, and line 1 lists it with intersection 17, union 17"),
        "{}",
        clash.stderr
    );
}

/// The ablation rows (links, components, with candidates) and the near-duplicate join's
/// disclosure (mode, partitions) of a `--format json` count.
fn rows_and_join(stdout: &str) -> (Vec<(u64, u64, u64)>, String, u64) {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap_or_else(|_| panic!("{}", stdout));
    let rows = v["count"]["ablation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let g = |k: &str| a[k].as_u64().unwrap();
            (g("links"), g("components"), g("with_candidates"))
        })
        .collect();
    let join = v["count"]["ablation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "near-duplicate-passage")
        .map(|a| a["join"].clone())
        .unwrap();
    (
        rows,
        join["mode"].as_str().unwrap().to_string(),
        join["partitions"].as_u64().unwrap(),
    )
}

/// A tiny `--memory-limit` runs the near-duplicate join out of core, partitioned, with the same
/// pairs (the same file written) and counts as in memory, and says so in the count record; a
/// bad size is refused (exit 2).
#[test]
fn memory_limit_partitions_with_the_same_counts() {
    let env = env_with(PROTOCOL);
    let run = |extra: &[&str]| {
        let r = env.run(&[&ARGS[..], &["--dry-run", "--format", "json"], extra].concat());
        assert_eq!(r.code, 3, "{}", r.stderr);
        r.stdout
    };
    let (rows, mode, parts) = rows_and_join(&run(&["--write-pairs", "mem.jsonl"]));
    assert_eq!(rows, vec![(1, 3, 3), (2, 2, 2), (3, 1, 1)]);
    assert_eq!((mode.as_str(), parts), ("in-memory", 1));
    let (tiny, mode, parts) = rows_and_join(&run(&["--memory-limit", "1KiB", "--write-pairs", "ooc.jsonl"]));
    assert_eq!(tiny, rows);
    assert_eq!(mode, "partitioned");
    assert!(parts > 1, "{} partitions", parts);
    let read = |f: &str| std::fs::read_to_string(env.join(f)).unwrap();
    assert_eq!(read("ooc.jsonl"), read("mem.jsonl"));
    // A limit below what the corpus itself holds is said to be exceeded (the counts stay exact).
    let warned = env.run(&[&ARGS[..], &["--dry-run", "--memory-limit", "1KiB"]].concat());
    assert_eq!(warned.code, 3, "{}", warned.stderr);
    assert!(
        warned.stderr.contains(
            "the memory limit (1.0 KiB) is below what the passages' ids, fields and questions alone hold in memory ("
        ),
        "{}",
        warned.stderr
    );
    // A limit the join fits in keeps it in memory.
    let (_, mode, _) = rows_and_join(&run(&["--memory-limit", "1GiB"]));
    assert_eq!(mode, "in-memory");
    let quiet = env.run(&[&ARGS[..], &["--dry-run", "--memory-limit", "1GiB"]].concat());
    assert!(!quiet.stderr.contains("memory limit"), "{}", quiet.stderr);
    for bad in ["4parsecs", "0", "-1MiB", "lots", "0.1"] {
        let arg = format!("--memory-limit={}", bad);
        let r = env.run(&[&ARGS[..], &["--dry-run", &arg]].concat());
        assert_eq!(r.code, 2, "{}: {}", bad, r.stderr);
        assert!(r.stderr.contains("--memory-limit"), "{}", r.stderr);
    }
    let r = env.run(&[&ARGS[..], &["--dry-run", "--memory-limit", "4parsecs"]].concat());
    assert!(r.stderr.contains("unknown unit `parsecs`"), "{}", r.stderr);
}

/// The same on the 1,000 HotpotQA paragraphs of the bundled sample, which has near-duplicate
/// pairs across questions: every partition size gives the in-memory counts.
#[test]
fn memory_limit_on_the_hotpotqa_sample() {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "h.toml");
    env.copy_from_repo("tests/data/hotpotqa-100/questions.json", "h.json");
    let run = |extra: &[&str]| {
        let r = env.run(
            &[
                &[
                    "components",
                    "h.toml",
                    "--questions",
                    "h.json",
                    "--dry-run",
                    "--format",
                    "json",
                ],
                extra,
            ]
            .concat(),
        );
        assert!(r.code == 0 || r.code == 3, "{}", r.stderr);
        rows_and_join(&r.stdout)
    };
    let (rows, mode, _) = run(&[]);
    assert_eq!(mode, "in-memory");
    for limit in ["1", "64KiB", "1MiB"] {
        let (got, mode, parts) = run(&["--memory-limit", limit]);
        assert_eq!(got, rows, "--memory-limit {}", limit);
        assert_eq!(mode, "partitioned", "--memory-limit {} ({} partitions)", limit, parts);
    }
}

#[test]
#[ignore = "needs ../shared/data/statutes-kr"]
fn statute_corpus_counts() {
    // The 74,588 articles of the statute corpus under protocols/statutes-kr.toml: the exact
    // near-duplicate join finds 59,875 pairs, and the ablation goes 1,321 → 716 → 25 components.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/statutes-kr");
    let env = Env::init();
    env.copy_from_repo("protocols/statutes-kr.toml", "p.toml");
    let (p, q) = (dir.join("passages.jsonl.gz"), dir.join("questions.jsonl.gz"));
    let (p, q) = (p.display().to_string(), q.display().to_string());
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        &p,
        "--questions",
        &q,
        "--dry-run",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let c = &v["count"];
    assert_eq!(
        (c["passages"].as_u64(), c["questions"].as_u64()),
        (Some(74_588), Some(15_614))
    );
    let rows: Vec<(u64, u64, u64)> = c["ablation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let g = |k: &str| a[k].as_u64().unwrap();
            (g("links"), g("components"), g("with_candidates"))
        })
        .collect();
    assert_eq!(rows, vec![(627, 1321, 1226), (59_875, 716, 634), (15_614, 25, 1)]);
    assert_eq!(
        (c["components"].as_u64(), c["with_candidates"].as_u64()),
        (Some(25), Some(1))
    );
    // The default limit (half the available memory) keeps the join in memory.
    assert_eq!(c["ablation"][1]["join"]["mode"], "in-memory");
    // Out of core under a small limit: the same pairs and counts.
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        &p,
        "--questions",
        &q,
        "--dry-run",
        "--format",
        "json",
        "--memory-limit",
        "128MiB",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let (ooc, mode, parts) = rows_and_join(&r.stdout);
    assert_eq!(ooc, rows);
    assert_eq!(mode, "partitioned");
    assert!(parts > 1, "{} partitions", parts);
}

/// Every `font-size` in an SVG, in pixels.
fn font_sizes(svg: &str) -> Vec<f64> {
    svg.match_indices("font-size=\"")
        .map(|(i, m)| {
            let rest = &svg[i + m.len()..];
            rest[..rest.find('"').unwrap()].trim_end_matches("px").parse().unwrap()
        })
        .collect()
}

#[test]
fn sensitivity_and_bridges_by_hand_change_nothing() {
    let env = env_with(PROTOCOL);
    let plain = env.run(&[&ARGS[..], &["--dry-run", "--format", "json"]].concat());
    let r = env.run(
        &[
            &ARGS[..],
            &[
                "--dry-run",
                "--format",
                "json",
                "--sensitivity",
                "--bridges",
                "5",
                "--sensitivity-svg",
                "s.svg",
            ],
        ]
        .concat(),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("are diagnostics"), "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let p: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
    // The registered count, decision and assignment are those of a count without diagnostics.
    assert_eq!(v["count"], p["count"]);
    assert_eq!(v["stop"], p["stop"]);
    assert_eq!(v["out_sha256"], p["out_sha256"]);
    assert!(p.get("diagnostics").is_none());
    // 5-character shingles: J(d1:1, d2:1) = 1, J(d2:2, d3:2) = 18/19 ≈ 0.947, every other pair
    // < 0.5; the decoys join all four laws at every threshold.
    let s = &v["diagnostics"]["sensitivity"];
    assert_eq!(s["rule"], "plus near-identical articles");
    let n5: Vec<(f64, u64, u64, bool)> = s["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["shingle_size"] == 5)
        .map(|x| {
            (
                x["jaccard"].as_f64().unwrap(),
                x["pairs"].as_u64().unwrap(),
                x["with_candidates"].as_u64().unwrap(),
                x["registered"].as_bool().unwrap(),
            )
        })
        .collect();
    let expect: Vec<(f64, u64, u64, bool)> = (10..=20)
        .map(|k| {
            let t = k as f64 / 20.0;
            (t, if k <= 18 { 2 } else { 1 }, 1, k == 16)
        })
        .collect();
    assert_eq!(n5, expect);
    let sizes: std::collections::BTreeSet<u64> = s["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["shingle_size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes.into_iter().collect::<Vec<_>>(), vec![4, 5, 6]);
    // Bridges: the identical pair {d1:1, d2:1} and the near pair {d2:2, d3:2} (2 laws each), and
    // the decoys d2:1, d3:2, d4:1 (2 laws each); only without d4:1 does the largest component
    // (4 laws, 4 questions) lose a law.
    let b = &v["diagnostics"]["bridges"];
    assert_eq!((b["largest_units"].as_u64(), b["total"].as_u64()), (Some(4), Some(5)));
    let top: Vec<(String, String, u64, u64, u64)> = b["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["kind"].as_str().unwrap().to_string(),
                x["label"].as_str().unwrap().to_string(),
                x["units"].as_u64().unwrap(),
                x["questions"].as_u64().unwrap(),
                x["largest_units_without"].as_u64().unwrap(),
            )
        })
        .collect();
    let row = |k: &str, l: &str, w: u64| (k.to_string(), l.to_string(), 2, 2, w);
    assert_eq!(
        top,
        vec![
            row("passage", "d1:1", 4),
            row("decoy", "d2:1", 4),
            row("passage", "d2:2", 4),
            row("decoy", "d3:2", 4),
            row("decoy", "d4:1", 3),
        ]
    );
    // The plot marks the registered rule and writes no text smaller than 12 px.
    let svg = std::fs::read_to_string(env.join("s.svg")).unwrap();
    assert!(svg.contains("registered: n = 5, J ≥ 0.8"), "{}", svg);
    let fonts = font_sizes(&svg);
    assert!(!fonts.is_empty() && fonts.iter().all(|&f| f >= 12.0), "{:?}", fonts);
    assert_eq!(ledger_tip(&env), "", "dry run must not write the ledger");
    // The text form says the diagnostics change nothing, and marks the registered row.
    let human = env.run(&[&ARGS[..], &["--dry-run", "--sensitivity", "--bridges", "2"]].concat());
    assert!(
        human.stdout.contains("do not change the registered count"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("*       5     0.80"), "{}", human.stdout);
    assert!(human.stdout.contains("Top 2 of 5 bridges"), "{}", human.stdout);
}

#[test]
fn diagnostics_are_recorded_with_the_count_and_reported() {
    let env = env_with(PROTOCOL);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&[&ARGS[..], &["--sensitivity", "--bridges", "3"]].concat());
    assert_eq!(r.code, 3, "{}", r.stderr);
    let log = env.run(&["log", "--format", "json"]);
    assert!(log.stdout.contains("\"stop\""), "{}", log.stdout);
    let rep = env.run(&["report", "--out", "rep"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    assert!(md.contains("## Diagnostics of the count"), "{}", md);
    assert!(md.contains("do not change the registered count"), "{}", md);
    assert!(md.contains("| **5** | **0.80** | **2** | **1** | **1** |"), "{}", md);
    assert!(md.contains("| decoy | d2:1 |"), "{}", md);
    assert!(md.contains("![Sensitivity of the count](sensitivity.svg)"), "{}", md);
    assert!(env.join("rep/sensitivity.svg").exists());
}

#[test]
fn sensitivity_needs_a_near_duplicate_rule() {
    let protocol = PROTOCOL.replace(
        "[[link-rules]]\nname = \"plus near-identical articles\"\nkind = \"near-duplicate-passage\"\nshingle-size = 5\njaccard = 0.8\n",
        "",
    );
    assert_ne!(protocol, PROTOCOL);
    let env = env_with(&protocol);
    let r = env.run(&[&ARGS[..], &["--dry-run", "--sensitivity"]].concat());
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("near-duplicate-passage"), "{}", r.stderr);
    let r = env.run(&[&ARGS[..], &["--dry-run", "--sensitivity-svg", "s.svg"]].concat());
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = env.run(&[&ARGS[..], &["--dry-run", "--bridges", "0"]].concat());
    assert_eq!(r.code, 2, "{}", r.stderr);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A gzip passages file is streamed (decompressed in pieces, hashed as it passes): the same
/// count record as the plain file, and the ledger records the SHA-256 of the gzip bytes as read.
#[test]
fn streamed_gzip_passages_give_the_same_count_and_hash() {
    let env = env_with(PROTOCOL);
    let plain = std::fs::read(env.join("passages.jsonl")).unwrap();
    let gz = gzip(&plain);
    env.write("passages.jsonl.gz", &gz);
    let count = |passages: &str| {
        let r = env.run(&[
            "components",
            "p.toml",
            "--passages",
            passages,
            "--questions",
            "questions.jsonl",
            "--dry-run",
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 3, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["count"].clone()
    };
    assert_eq!(count("passages.jsonl.gz"), count("passages.jsonl"));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        "passages.jsonl.gz",
        "--questions",
        "questions.jsonl",
    ]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let entry: serde_json::Value =
        serde_json::from_str(&env.git(&["show", "refs/pledge/ledger:entry.json"]).stdout).unwrap();
    assert_eq!(
        entry["inputs"]["passages:passages.jsonl.gz"],
        pledge::io::sha256_hex(&gz).as_str()
    );
}

/// Errors deep in a streamed file (past the first batch of lines parsed in parallel) name the
/// file and the line: a malformed line, a duplicate id, invalid UTF-8.
#[test]
fn streamed_passages_errors_name_file_and_line() {
    let env = env_with(PROTOCOL);
    let q = std::fs::read_to_string(data("components/questions.jsonl")).unwrap();
    let p = std::fs::read_to_string(data("components/passages.jsonl")).unwrap();
    // The test passages, then 150,000 filler lines (about 9 MB, more than one batch).
    let mut big = p.clone().into_bytes();
    let head = p.lines().count();
    for i in 0..150_000 {
        big.extend_from_slice(
            format!(
                "{{\"id\": \"f{}\", \"doc\": \"f\", \"text\": \"filler text {}\"}}\n",
                i, i
            )
            .as_bytes(),
        );
    }
    let total = head + 150_000;
    let with_line = |n: usize, line: &[u8]| -> Vec<u8> {
        let mut out = Vec::new();
        for (i, l) in big.split(|&c| c == b'\n').enumerate() {
            if i + 1 == n {
                out.extend_from_slice(line);
            } else {
                out.extend_from_slice(l);
            }
            if i + 1 < total + 1 {
                out.push(b'\n');
            }
        }
        out
    };
    let run = |bytes: Vec<u8>, expect: &str| {
        env.write("bq.jsonl", &q);
        env.write("deep.jsonl.gz", gzip(&bytes));
        let r = env.run(&[
            "components",
            "p.toml",
            "--passages",
            "deep.jsonl.gz",
            "--questions",
            "bq.jsonl",
            "--dry-run",
        ]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains(expect), "expected `{}` in: {}", expect, r.stderr);
    };
    let n = total - 10;
    run(
        with_line(n, b"{\"id\": \"x\", \"text\": "),
        &format!(
            "deep.jsonl.gz:{}: malformed JSON (expected one JSON object per line)",
            n
        ),
    );
    run(
        with_line(n, b"{\"id\": \"f3\", \"text\": \"again\"}"),
        &format!(
            "deep.jsonl.gz:{}: duplicate passage id `f3` (first at line {})",
            n,
            head + 4
        ),
    );
    run(
        with_line(n, b"{\"id\": \"y\", \"text\": \"\xff\"}"),
        &format!("deep.jsonl.gz:{}: invalid UTF-8", n),
    );
    run(
        with_line(n, b"[1, 2]"),
        &format!("deep.jsonl.gz:{}: expected a JSON object", n),
    );
    run(
        with_line(n, b"{\"id\": \"z\"}"),
        &format!("deep.jsonl.gz:{}: missing `text`", n),
    );
    // Cut short: the gzip stream ends early.
    let mut cut = gzip(&big);
    cut.truncate(cut.len() / 2);
    env.write("bq.jsonl", &q);
    env.write("cut.jsonl.gz", cut);
    let r = env.run(&[
        "components",
        "p.toml",
        "--passages",
        "cut.jsonl.gz",
        "--questions",
        "bq.jsonl",
        "--dry-run",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("cut.jsonl.gz: the gzip stream ends early: the file is truncated (after line "),
        "{}",
        r.stderr
    );
}

/// Past a quarter of the memory limit the passages' texts are spilled to a file: the same count
/// and pairs, listed pairs checked against the texts read back; the diagnostics that need the
/// texts in memory are refused (exit 2) naming the flag and the limit.
#[test]
fn spilled_texts_give_the_same_count_and_refuse_the_diagnostics() {
    let env = env_with(PROTOCOL);
    let run = |extra: &[&str]| env.run(&[&ARGS[..], &["--dry-run", "--format", "json"], extra].concat());
    let mem = run(&["--write-pairs", "mem.jsonl"]);
    assert_eq!(mem.code, 3, "{}", mem.stderr);
    // 1 KiB: 256 bytes of text stay in memory, the test passages have more.
    let spilled = run(&["--memory-limit", "1KiB", "--write-pairs", "spilled.jsonl"]);
    assert_eq!(spilled.code, 3, "{}", spilled.stderr);
    assert_eq!(rows_and_join(&spilled.stdout).0, rows_and_join(&mem.stdout).0);
    let read = |f: &str| std::fs::read_to_string(env.join(f)).unwrap();
    assert_eq!(read("spilled.jsonl"), read("mem.jsonl"));
    let listed = run(&["--memory-limit", "1KiB", "--pairs", "mem.jsonl"]);
    assert_eq!(listed.code, 3, "{}", listed.stderr);
    assert!(
        listed.stderr.contains("2 of them (seed 7) checked exactly"),
        "{}",
        listed.stderr
    );
    let counts = |out: &str| -> Vec<(u64, u64, u64)> {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["count"]["ablation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["links"].as_u64().unwrap(),
                    a["components"].as_u64().unwrap(),
                    a["with_candidates"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(counts(&listed.stdout), counts(&mem.stdout));
    for flag in [&["--sensitivity"][..], &["--bridges", "3"]] {
        let r = run(&[&["--memory-limit", "1KiB"], flag].concat());
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("{} needs the passages' texts in memory", flag[0])),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("memory limit (1024 bytes)"), "{}", r.stderr);
    }
}

/// A gzip passages file cut short, or with bytes after its end, is an error naming the file,
/// the last complete line read and what is wrong; a file of two gzip members is read whole.
#[test]
fn truncated_or_trailing_gzip_passages_name_the_fault_and_the_line() {
    use std::io::Read;
    let env = env_with(PROTOCOL);
    let p = std::fs::read(data("components/passages.jsonl")).unwrap();
    let mut big = p.clone();
    for i in 0..20_000 {
        big.extend_from_slice(
            format!("{{\"id\": \"f{i}\", \"doc\": \"f\", \"text\": \"filler text {i}\"}}\n").as_bytes(),
        );
    }
    let gz = gzip(&big);
    let run = |name: &str, bytes: &[u8]| {
        env.write(name, bytes);
        env.run(&[
            "components",
            "p.toml",
            "--passages",
            name,
            "--questions",
            "questions.jsonl",
            "--dry-run",
        ])
    };
    // Cut in half: the lines an independent decoder gets from the first half are the ones read.
    let half = &gz[..gz.len() / 2];
    let mut prefix = Vec::new();
    let _ = flate2::read::GzDecoder::new(half).read_to_end(&mut prefix);
    let lines = prefix.iter().filter(|&&b| b == b'\n').count();
    assert!(lines > 1000, "{lines}");
    let r = run("passages.jsonl.gz", half);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "passages.jsonl.gz: the gzip stream ends early: the file is truncated (after line {lines}, the last complete line read)"
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("\nhint: the download or copy was cut short"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    // Trailing garbage after a complete member.
    let mut trailing = gz.clone();
    trailing.extend_from_slice(b"garbage!");
    let r = run("trailing.jsonl.gz", &trailing);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let total = big.iter().filter(|&&b| b == b'\n').count();
    assert!(
        r.stderr.contains(&format!(
            "trailing.jsonl.gz: bytes after the end of the gzip stream (the content decoded to its end, {total} lines; expected another gzip member or the end of the file)"
        )),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("unexpected end of file"), "{}", r.stderr);
    // Two members (as `cat a.gz b.gz`) are one file: the same count as the plain file.
    let cut = p.len();
    let mut two = gzip(&big[..cut]);
    two.extend_from_slice(&gzip(&big[cut..]));
    env.write("plain.jsonl", &big);
    let counted = |name: &str| {
        let r = env.run(&[
            "components",
            "p.toml",
            "--passages",
            name,
            "--questions",
            "questions.jsonl",
            "--dry-run",
            "--format",
            "json",
        ]);
        assert_eq!(r.code, 3, "{}", r.stderr);
        serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()["count"].clone()
    };
    env.write("two.jsonl.gz", &two);
    assert_eq!(counted("two.jsonl.gz"), counted("plain.jsonl"));
}

/// A count the stop rule stops writes the component file (each question's component, the split
/// columns empty) and says so: not "Assignment written"; the JSON names the same file and hash.
#[test]
fn a_stop_says_what_file_it_writes() {
    let env = env_with(&PROTOCOL.replace("required-components = 2", "required-components = 50"));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&ARGS);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stdout.contains("No split assignment: the stop rule said stop."),
        "{}",
        r.stdout
    );
    let file = env.join("mini-statutes.components.csv");
    let bytes = std::fs::read(&file).unwrap();
    let sha = pledge::io::sha256_hex(&bytes);
    assert!(
        r.stdout.contains(&format!(
            "Component file (each question's component; split columns empty, nothing assigned) written to {} (sha256 {})",
            file.display(),
            sha
        )),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Assignment written"), "{}", r.stdout);
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.starts_with("question,component,unit,split,counted\n"), "{text}");
    assert!(text.lines().skip(1).all(|l| l.ends_with(",,")), "{text}");
    // The JSON of the same run (a dry run: nothing written) gives the same hash, no assignment.
    let r = env.run(&[&ARGS[..], &["--dry-run", "--format", "json"]].concat());
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["assignment"].is_null(), "{v}");
    assert!(v["out"].is_null(), "{v}");
    assert_eq!(v["out_sha256"], sha.as_str());
    let r = env.run(&[&ARGS[..], &["--dry-run"]].concat());
    assert!(
        r.stdout.contains(&format!(
            "Component file (each question's component; split columns empty, nothing assigned) not written, sha256 {sha}"
        )),
        "{}",
        r.stdout
    );
}
