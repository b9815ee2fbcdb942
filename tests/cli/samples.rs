//! Integration tests: repeated samples per topic (a long table's sample column, inspect_ai
//! epochs), their registered aggregation (`mean`, `first`, `majority`), and the reader options
//! refused on formats that do not take them. Values are hand-computed from the files written
//! here (see each test) or inspect_ai's own numbers (tests/data/formats/PROVENANCE.txt).

use crate::common::{copy, data, means, Env};

/// Two systems, four topics, up to three seeds each (A has two seeds on t4, B one).
///
/// Per topic (A; B): mean 2/3, 1/3, 2/3, 1 (A); 0, 2/3, 2/3, 0 (B). first (seed 1): 1, 0, 0, 1;
/// 0, 1, 0, 0. majority: 1, 0, 1, 1; 0, 1, 1, 0. System means: mean 2/3 and 1/3, first 0.5 and
/// 0.25, majority 0.75 and 0.5.
const SEEDS: &str = "topic,system,seed,score\n\
t1,A,1,1\nt1,A,2,0\nt1,A,3,1\nt2,A,1,0\nt2,A,2,0\nt2,A,3,1\nt3,A,1,0\nt3,A,2,1\nt3,A,3,1\nt4,A,1,1\nt4,A,2,1\n\
t1,B,1,0\nt1,B,2,0\nt1,B,3,0\nt2,B,1,1\nt2,B,2,1\nt2,B,3,0\nt3,B,1,0\nt3,B,2,1\nt3,B,3,1\nt4,B,1,0\n";

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12, "{} vs {}", a, b);
}

#[test]
fn a_long_table_keeps_its_samples_and_reduces_them_as_asked() {
    let env = Env::new();
    env.write("seeds.csv", SEEDS);
    for (agg, a, b) in [
        (None, 2.0 / 3.0, 1.0 / 3.0),
        (Some("mean"), 2.0 / 3.0, 1.0 / 3.0),
        (Some("first"), 0.5, 0.25),
        (Some("majority"), 0.75, 0.5),
    ] {
        let mut args = vec!["compare", "--scores", "seeds.csv", "--sample-column", "seed"];
        if let Some(x) = agg {
            args.extend(["--sample-aggregation", x]);
        }
        let m = means(&env, &args);
        assert_eq!((m[0].0.as_str(), m[0].2, m[1].0.as_str()), ("A", 4, "B"), "{:?}", agg);
        close(m[0].1, a);
        close(m[1].1, b);
    }
    // The library keeps every sample with its key, in the file's order.
    let t = pledge::scores::read_with(
        &env.join("seeds.csv"),
        &pledge::scores::ReadOptions {
            sample_column: Some("seed".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let s = t.samples.as_ref().unwrap();
    assert_eq!(s.unit, "seed");
    assert_eq!(s.count_range(), Some((1, 3)));
    let keys: Vec<(&str, f64)> = s.cells[1][1].iter().map(|x| (x.key.as_str(), x.value)).collect();
    assert_eq!(keys, vec![("1", 1.0), ("2", 1.0), ("3", 0.0)]);
    assert_eq!(
        t.notes,
        vec![format!(
            "{}: 1 to 3 seeds per topic and system (unequal: each topic's value is reduced from the samples it has), reduced per topic with `mean`",
            env.join("seeds.csv").display()
        )]
    );
    // Without the sample column, the repeated rows are duplicates, as before.
    let r = env.run(&["compare", "--scores", "seeds.csv"]);
    assert!(
        r.code == 2 && r.stderr.contains("duplicate score for topic `t1` and system `A`"),
        "{}",
        r.stderr
    );
}

#[test]
fn sample_errors_name_the_file_the_row_and_the_rule() {
    let env = Env::new();
    env.write("dup.csv", "topic,system,seed,score\nt1,A,1,1\nt1,A,1,0\n");
    let r = env.run(&["compare", "--scores", "dup.csv", "--sample-column", "seed"]);
    assert!(
        r.code == 2
            && r.stderr.contains("dup.csv:3")
            && r.stderr.contains("seed `1` of topic `t1` and system `A` appears twice"),
        "{}",
        r.stderr
    );
    env.write("half.csv", "topic,system,seed,score\nt1,A,1,1\nt1,A,2,0.5\nt1,B,1,0\n");
    let r = env.run(&[
        "compare",
        "--scores",
        "half.csv",
        "--sample-column",
        "seed",
        "--sample-aggregation",
        "majority",
    ]);
    assert!(
        r.code == 2
            && r.stderr
                .contains("system `A`, topic `t1`: sample `2` is 0.5: `majority` takes 0/1 scores only"),
        "{}",
        r.stderr
    );
    env.write("nocol.csv", "topic,system,score\nt1,A,1\n");
    let r = env.run(&["compare", "--scores", "nocol.csv", "--sample-column", "seed"]);
    assert!(r.code == 2 && r.stderr.contains("seed"), "{}", r.stderr);
    env.write("wide.csv", "topic,A,B\nt1,1,0\nt2,0,1\n");
    let r = env.run(&["compare", "--scores", "wide.csv", "--sample-column", "seed"]);
    assert!(
        r.code == 2
            && r.stderr.contains("--sample-column seed applies to a long table")
            && r.stderr.contains("not a long table"),
        "{}",
        r.stderr
    );
    // An aggregation on a file without repeated samples would change nothing: refused.
    let r = env.run(&["compare", "--scores", "wide.csv", "--sample-aggregation", "first"]);
    assert!(
        r.code == 2 && r.stderr.contains("--sample-aggregation first applies to repeated samples, but this file holds one value per topic and system"),
        "{}",
        r.stderr
    );
    let r = env.run(&["compare", "--scores", "wide.csv", "--sample-aggregation", "bogus"]);
    assert!(
        r.code == 2 && r.stderr.contains("mean, first, majority"),
        "{}",
        r.stderr
    );
}

/// `--filter` and the table options on a file whose format does not take them are errors naming
/// the file and the formats that take them, never ignored.
#[test]
fn reader_options_a_format_does_not_take_are_refused() {
    let env = Env::new();
    env.write("wide.csv", "topic,A,B\nt1,1,0\nt2,0,1\n");
    let r = env.run(&["compare", "--scores", "wide.csv", "--filter", "strict-match"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "wide.csv: --filter does not apply to this file, read as `delimited`: only lm-eval, helm inputs take it"
        ),
        "{}",
        r.stderr
    );
    copy(&env, "formats/inspect/quiz-mockllm.eval", "a.eval");
    let r = env.run(&["compare", "--scores", "a.eval", "--measure", "match", "--filter", "1"]);
    assert!(
        r.code == 2
            && r.stderr
                .contains("a.eval: --filter does not apply to this file, read as `inspect-eval`")
            && r.stderr.contains("--sample-aggregation first (the lowest epoch)"),
        "{}",
        r.stderr
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "a.eval",
        "--measure",
        "match",
        "--sample-column",
        "epoch",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("--sample-column does not apply to this file, read as `inspect-eval`: only delimited, json-table, parquet inputs take it"),
        "{}",
        r.stderr
    );
}

/// inspect_ai 0.3.285's two-epoch `.eval` log of the mock model (which answers alike in both
/// epochs): every epoch is kept as a sample; `first` and `majority` read the samples (match:
/// accuracy 0.5 whichever the aggregation, inspect_ai's own number), `mean` the log's
/// reductions.
#[test]
fn inspect_epochs_are_kept_as_samples() {
    let p = data("formats/inspect/quiz-mockllm.eval");
    for agg in [None, Some("first"), Some("majority")] {
        let t = pledge::scores::read_with(
            &p,
            &pledge::scores::ReadOptions {
                measure: Some("match".into()),
                sample_aggregation: agg.map(|a| a.parse().unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
        let v: Vec<f64> = t.values[0].iter().map(|x| x.unwrap()).collect();
        assert_eq!(v, vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0], "{:?}", agg);
        let s = t.samples.as_ref().unwrap();
        assert_eq!((s.unit.as_str(), s.count_range()), ("epoch", Some((2, 2))));
        let keys: Vec<&str> = s.cells[0][0].iter().map(|x| x.key.as_str()).collect();
        assert_eq!(keys, vec!["1", "2"]);
        assert!(
            t.notes[0].ends_with(&format!(
                "2 epochs per topic and system, reduced per topic with `{}`",
                agg.unwrap_or("mean")
            )),
            "{:?}",
            t.notes
        );
    }
    // model_graded_qa has a partial credit (P = 0.5) on q4: `majority` refuses it.
    let e = pledge::scores::read_with(
        &p,
        &pledge::scores::ReadOptions {
            measure: Some("model_graded_qa".into()),
            sample_aggregation: Some("majority".parse().unwrap()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.message.contains("topic `q4`: sample `1` is 0.5"), "{}", e.message);
}

/// The variance split of the seeds table against tests/data/oracles/two-level-bootstrap.md
/// ("seeds-csv", by hand with numpy): A's topic means vary no more than its seeds predict (all of
/// the SE from sampling within topics), B's half; the difference A − B is paired by seed on
/// t1-t3 but not on t4 (A has seeds 1 and 2, B seed 1), so its samples are not all paired. The
/// two-level intervals come with their method; the human text says the split in words.
#[test]
fn compare_splits_the_variance_between_topics_and_seeds() {
    let env = Env::new();
    env.write("seeds.csv", SEEDS);
    let r = env.run(&[
        "compare",
        "--scores",
        "seeds.csv",
        "--sample-column",
        "seed",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rs = &v["repeated_samples"];
    assert_eq!(
        (rs["unit"].as_str(), rs["aggregation"].as_str()),
        (Some("seed"), Some("mean"))
    );
    assert_eq!(rs["samples_per_topic"], serde_json::json!([1, 3]));
    assert!(rs["method"]
        .as_str()
        .unwrap()
        .starts_with("two-level bootstrap (topics, then seeds"));
    // (summary, K, σ²_topic, σ²_within, SE, share, SE at 2K, SE unlimited)
    let want = [
        (
            &rs["systems"][0],
            3.0,
            -0.009259259259259259,
            0.25,
            0.13608276348795434,
            1.0,
            0.10206207261596575,
            0.0,
        ),
        (
            &rs["systems"][1],
            3.0,
            0.07407407407407406,
            0.22222222222222224,
            0.19245008972987526,
            0.5,
            0.16666666666666666,
            0.1360827634879543,
        ),
        (
            &rs["comparisons"][0],
            3.0,
            0.1851851851851852,
            0.5555555555555557,
            0.3042903097250923,
            0.5,
            0.26352313834736496,
            0.21516574145596762,
        ),
    ];
    for (s, k, between, within, se, share, se2, se_inf) in want {
        let sp = &s["split"];
        let got = [
            "samples_per_topic",
            "between",
            "within",
            "se",
            "within_share",
            "se_double_samples",
            "se_unlimited_samples",
        ]
        .map(|f| sp[f].as_f64().unwrap());
        for (g, w) in got.iter().zip([k, between, within, se, share, se2, se_inf]) {
            close(*g, w);
        }
        assert_eq!(s["topics"], 4);
        let iv = &s["two_level"]["interval"];
        assert!(iv[0].as_f64().unwrap() <= iv[1].as_f64().unwrap());
    }
    assert_eq!(rs["comparisons"][0]["name"], "A − B");
    assert_eq!(rs["comparisons"][0]["paired"], false);
    assert_eq!(rs["systems"][0]["paired"], serde_json::Value::Null);
    // The human text says the split.
    let r = env.run(&["compare", "--scores", "seeds.csv", "--sample-column", "seed"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("repeated samples: 1 to 3 seeds per topic, reduced with `mean`")
            && r.stdout.contains("  B: two-level SE ")
            && r.stdout.contains("SE 0.1925, of its variance 50% comes from sampling within topics (σ²_within 0.2222, σ²_topic 0.0741); with 6 seeds per topic it would be 0.1667, with unlimited seeds 0.1361"),
        "{}",
        r.stdout
    );
    // With `first`, the analysis reads one value per topic: no two-level block.
    let r = env.run(&[
        "compare",
        "--scores",
        "seeds.csv",
        "--sample-column",
        "seed",
        "--sample-aggregation",
        "first",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v.get("repeated_samples").is_none(), "{}", r.stdout);
}

/// `power --samples-per-topic`: the topics a paired t-test needs at σ_K = √(σ²_topic +
/// σ²_within / K), against tests/data/oracles/samples-power.md (statsmodels `TTestPower` at the
/// effect size δ / σ_K): σ_topic 0.3, σ_within 0.4, δ 0.1 need 199 topics with one sample, 115
/// with three, 73 with unlimited samples.
#[test]
fn power_says_how_many_topics_k_samples_per_question_save() {
    let env = Env::new();
    let args = [
        "power",
        "--samples-per-topic",
        "3",
        "--sd",
        "0.3",
        "--sd-within",
        "0.4",
        "--mde",
        "0.1",
    ];
    let r = env.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows = v["samples"]["rows"].as_array().unwrap();
    let n: Vec<u64> = rows.iter().map(|r| r["t"]["components"].as_u64().unwrap()).collect();
    assert_eq!(n, vec![199, 136, 115, 104, 89, 81, 73]);
    close(rows[2]["sd"].as_f64().unwrap(), 0.37859388972001823);
    assert_eq!(rows[6]["samples_per_topic"], serde_json::Value::Null);
    let r = env.run(&args);
    assert!(
        r.stdout
            .contains("Answer (method t): 115 topics with 3 samples per question (199 with one)")
            && r.stdout.contains("  3 (asked)"),
        "{}",
        r.stdout
    );
    // From a pilot with seeds: σ_topic and σ_within of A − B from its variance split
    // (two-level-bootstrap.md, "seeds-csv A - B": σ²_topic 0.185185, σ²_within 0.555556).
    env.write("seeds.csv", SEEDS);
    let r = env.run(&[
        "power",
        "--pilot",
        "seeds.csv",
        "--sample-column",
        "seed",
        "--samples-per-topic",
        "3",
        "--mde",
        "0.1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = &v["samples"];
    close(s["sd_topic"].as_f64().unwrap(), 0.1851851851851852f64.sqrt());
    close(s["sd_within"].as_f64().unwrap(), 0.5555555555555557f64.sqrt());
    close(
        s["rows"][2]["sd"].as_f64().unwrap(),
        (0.1851851851851852f64 + 0.5555555555555557 / 3.0).sqrt(),
    );
    assert!(
        s["source"]
            .as_str()
            .unwrap()
            .contains("variance split of A − B over 4 topics, 3 seeds per topic"),
        "{}",
        s
    );
    // A pilot without samples, --sd-within alone, a missing SD: refused.
    env.write("wide.csv", "topic,A,B\nt1,1,0\nt2,0,1\nt3,1,1\n");
    let r = env.run(&[
        "power",
        "--pilot",
        "wide.csv",
        "--samples-per-topic",
        "3",
        "--mde",
        "0.1",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("needs a pilot with repeated samples"),
        "{}",
        r.stderr
    );
    let r = env.run(&["power", "--sd", "0.3", "--sd-within", "0.4", "--mde", "0.1"]);
    assert!(
        r.code == 2 && r.stderr.contains("give --samples-per-topic K"),
        "{}",
        r.stderr
    );
    let r = env.run(&["power", "--samples-per-topic", "3", "--sd", "0.3", "--mde", "0.1"]);
    assert!(
        r.code == 2 && r.stderr.contains("needs --sd S (σ_topic"),
        "{}",
        r.stderr
    );
}

/// lm-evaluation-harness samples files, one per seed of each model (tests/data/formats/lm_eval/
/// seeds: OUTPUT/MODEL/samples_TASK_DATE.jsonl, so the model directory names the system) read
/// with `--sample-files seed` as two seeds per document of each model. Hand-computed:
/// model-a per document 1, 1/2, 1, 1/2 (mean 0.75), model-b 1/2, 0, 1/2, 1 (mean 0.5);
/// model-a's split: s²_m = 1/12, σ²_within = 1/4, K = 2, σ²_topic = 1/12 − 1/8 = −1/24, SE =
/// √(1/48); the difference paired by seed: per document (1, 0), (0, 1), (0, 1), (0, −1), means
/// 1/2, 1/2, 1/2, −1/2, s²_m = 1/4, σ²_within = 1/2, σ²_topic = 0, SE = 1/4.
#[test]
fn lm_eval_files_of_each_seed_are_repeated_samples_of_one_model() {
    let env = Env::new();
    let f = |seed: u32, model: &str, stamp: &str| {
        let rel = format!("lm_eval/seeds/seed-{seed}/{model}/samples_capitals_{stamp}.jsonl");
        let to = format!("seed-{seed}/{model}/samples_capitals_{stamp}.jsonl");
        std::fs::create_dir_all(env.join(&format!("seed-{seed}/{model}"))).unwrap();
        copy(&env, &format!("formats/{rel}"), &to);
        to
    };
    let files = [
        f(1, "org__model-a", "2026-12-05T10-00-00.000001"),
        f(2, "org__model-a", "2026-12-05T10-05-00.000002"),
        f(1, "org__model-b", "2026-12-05T10-00-00.000001"),
        f(2, "org__model-b", "2026-12-05T10-05-00.000002"),
    ];
    let mut args = vec!["compare"];
    for x in &files {
        args.extend(["--scores", x.as_str()]);
    }
    // Without --sample-files, two files of one model scoring the same documents are refused.
    let e = env.run(&args);
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("two files, one system name"), "{}", e.stderr);
    args.extend(["--sample-files", "seed", "--format", "json"]);
    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let names: Vec<&str> = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["org__model-a", "org__model-b"]);
    close(v["systems"][0]["mean"].as_f64().unwrap(), 0.75);
    close(v["systems"][1]["mean"].as_f64().unwrap(), 0.5);
    let rs = &v["repeated_samples"];
    assert_eq!(rs["unit"], "seed");
    assert_eq!(rs["samples_per_topic"], serde_json::json!([2, 2]));
    let a = &rs["systems"][0]["split"];
    close(a["within"].as_f64().unwrap(), 0.25);
    close(a["between"].as_f64().unwrap(), 1.0 / 12.0 - 0.125);
    close(a["se"].as_f64().unwrap(), (1.0f64 / 48.0).sqrt());
    let d = &rs["comparisons"][0];
    assert_eq!(d["paired"], true, "{}", d);
    close(d["split"]["within"].as_f64().unwrap(), 0.5);
    close(d["split"]["between"].as_f64().unwrap(), 0.0);
    close(d["split"]["se"].as_f64().unwrap(), 0.25);
    close(v["comparisons"][0]["difference"].as_f64().unwrap(), 0.25);
    assert!(
        v["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("4 files read as repeated samples (one seed per file")),
        "{}",
        v["notes"]
    );
    // A file that already holds samples (inspect_ai epochs) cannot be one seed of a system.
    copy(&env, "formats/inspect/quiz-mockllm.eval", "quiz.eval");
    let e = env.run(&[
        "compare",
        "--scores",
        "quiz.eval",
        "--scores",
        "quiz.eval=other",
        "--measure",
        "match",
        "--sample-files",
        "seed",
    ]);
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stderr.contains("already holds repeated samples"), "{}", e.stderr);
}

/// A format-2 protocol registering K samples per question (`target.samples-per-topic`,
/// `target.sd-within`) with σ_topic `target.sd` = 0.3, σ_within 0.4, δ 0.1, two-sided, and
/// `hypotheses` appended.
fn k_protocol(target_extra: &str, hypotheses: &str) -> String {
    format!(
        "schema-version = 2\n\n[study]\nid = \"k\"\ntitle = \"K samples\"\nregistered-by = \"T <t@example.org>\"\n\n\
         [target]\nmetric = \"score\"\nmde = 0.1\nsd = 0.3\n{}\n[scores]\nlayout = \"long\"\nsample-column = \"seed\"\n\n\
         [analysis]\nseed = 1\nsystems = [\"A\", \"B\"]\n{}",
        target_extra, hypotheses
    )
}

/// `pledge power PROTOCOL` with K registered sizes as `--samples-per-topic 3 --sd 0.3
/// --sd-within 0.4 --mde 0.1` does (tests/data/oracles/samples-power.md: 199 topics with one
/// sample, 115 with three, 73 with unlimited samples); with a non-inferiority hypothesis (margin
/// 0.1) at σ_3 = 0.37859388972001823: 90 (margins.md, statsmodels root 89.98501073013877). The
/// keys are format 2, kebab-case, both or neither, and checked.
#[test]
fn power_from_a_protocol_uses_its_k_samples_per_question() {
    let env = Env::new();
    let k = "samples-per-topic = 3\nsd-within = 0.4\n";
    env.write("p.toml", k_protocol(k, ""));
    let r = env.run(&["power", "p.toml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["mode"], "samples");
    let rows = v["samples"]["rows"].as_array().unwrap();
    let n: Vec<u64> = rows.iter().map(|r| r["t"]["components"].as_u64().unwrap()).collect();
    assert_eq!(n, vec![199, 136, 115, 104, 89, 81, 73]);
    let flags = env.run(&[
        "power",
        "--samples-per-topic",
        "3",
        "--sd",
        "0.3",
        "--sd-within",
        "0.4",
        "--mde",
        "0.1",
    ]);
    assert_eq!(env.run(&["power", "p.toml"]).stdout, flags.stdout);
    let ni = "\n[[hypotheses]]\nname = \"h\"\nsystem = \"A\"\ncomparator = \"B\"\nkind = \"non-inferiority\"\nmargin = 0.1\ndirection = \"greater\"\n";
    env.write("p.toml", k_protocol(k, ni));
    let r = env.run(&["power", "p.toml", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    close(v["margin"]["sd"].as_f64().unwrap(), 0.37859388972001823);
    assert!((v["margin"]["t"]["independent_n"].as_f64().unwrap() - 89.98501073013877).abs() < 1e-6);
    assert_eq!(v["margin"]["t"]["components"].as_u64(), Some(90));
    // Errors: at the key, exit 2.
    for (extra, schema1, needle) in [
        (
            "samples-per-topic = 3\n",
            false,
            "target.samples-per-topic needs target.sd-within",
        ),
        (
            "sd-within = 0.4\n",
            false,
            "target.sd-within needs target.samples-per-topic",
        ),
        ("samples-per-topic = 0\nsd-within = 0.4\n", false, "must be at least 1"),
        (
            "samples-per-topic = 3\nsd-within = -0.1\n",
            false,
            "target.sd-within must be ≥ 0",
        ),
        ("samples_per_topic = 3\n", false, "unknown key `samples_per_topic`"),
        (k, true, "target.samples-per-topic needs schema-version = 2"),
    ] {
        let mut text = k_protocol(extra, "");
        if schema1 {
            text = text
                .replace("schema-version = 2", "schema-version = 1")
                .replace("[scores]\nlayout = \"long\"\nsample-column = \"seed\"\n", "")
                .replace("systems = [\"A\", \"B\"]\n", "");
        }
        env.write("p.toml", text);
        let r = env.run(&["power", "p.toml"]);
        assert_eq!(r.code, 2, "{}: {}", extra, r.stderr);
        assert!(
            r.stderr.contains(needle) && r.stderr.contains("p.toml:"),
            "{}: {}",
            extra,
            r.stderr
        );
    }
}

/// The report states the method for repeated samples in one line, from the analysis record: K
/// (1 to 3 seeds per topic in the seeds table), the `mean` aggregation and the two-level
/// bootstrap, and each variance split (the values of `compare_splits_the_variance_between_topics_and_seeds`,
/// tests/data/oracles/two-level-bootstrap.md), in the Markdown and the HTML page.
#[test]
fn the_report_states_the_repeated_samples_method() {
    let env = Env::init();
    env.write("seeds.csv", SEEDS);
    env.write("p.toml", k_protocol("", ""));
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&["analyze", "p.toml", "--scores", "seeds.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["report", "--out", "rep", "--html", "rep/report.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    let line = md
        .lines()
        .find(|l| l.starts_with("Repeated samples: "))
        .unwrap_or_else(|| panic!("{}", md));
    assert!(
        line.starts_with("Repeated samples: K = 1 to 3 seeds per topic (the least and the most), each topic's value the mean of its samples; intervals of the repeated samples: two-level bootstrap (topics, then seeds"),
        "{}",
        line
    );
    assert!(
        line.ends_with("Variance split between topics (σ²_topic) and within topics (σ²_within, one seed's spread around its topic's mean): A: σ²_topic -0.0093, σ²_within 0.2500, 100% of the SE² within topics; B: σ²_topic 0.0741, σ²_within 0.2222, 50% of the SE² within topics; A − B: σ²_topic 0.1852, σ²_within 0.5556, 50% of the SE² within topics."),
        "{}",
        line
    );
    let html = std::fs::read_to_string(env.join("rep/report.html")).unwrap();
    assert!(html.contains("A − B: σ²_topic 0.1852, σ²_within 0.5556, 50% of the SE² within topics."));
    // `first` reads one sample per topic: the line says so, with no split.
    env.write(
        "p.toml",
        k_protocol("", "")
            .replace(
                "sample-column = \"seed\"\n",
                "sample-column = \"seed\"\nsample-aggregation = \"first\"\n",
            )
            .replace("id = \"k\"", "id = \"k1\""),
    );
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    assert_eq!(env.run(&["analyze", "p.toml", "--scores", "seeds.csv"]).code, 0);
    assert_eq!(env.run(&["report", "--out", "rep1", "--study", "k1"]).code, 0);
    let md = std::fs::read_to_string(env.join("rep1/report.md")).unwrap();
    assert!(md.contains("Repeated samples: each topic's value is its first sample (no two-level bootstrap or variance split: they describe the mean of the samples)."), "{}", md);
}
