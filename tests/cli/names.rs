//! Integration tests: system names given per file (`--scores FILE=NAME`, `--system-name` once
//! per file) and measure names in every reader that holds several measures (trec_eval,
//! ir_measures, ranx, pytrec_eval and PyTerrier names of one measure are one measure).

use crate::common::{copy, means, Env};

const F: &str = "formats";

/// Two inspect_ai logs of one model (`mockllm/model`, match accuracy 0.5 in both, see
/// tests/data/formats/PROVENANCE.txt): the collision names both files and the exact fix, and the
/// fix compares them in one command.
#[test]
fn two_logs_of_one_model_need_a_name_each() {
    let env = Env::new();
    copy(&env, &format!("{F}/inspect/quiz-mockllm.eval"), "two epochs.eval");
    copy(&env, &format!("{F}/inspect/quiz-mockllm.json"), "one-epoch.json");
    let r = env.run(&[
        "compare",
        "--scores",
        "two epochs.eval",
        "--scores",
        "one-epoch.json",
        "--measure",
        "match",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("error: one-epoch.json: system `mockllm/model` is also in two epochs.eval, with a score for the same topic (`q1`)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "hint: name each file's system: --scores 'two epochs.eval=two epochs' --scores one-epoch.json=one-epoch"
        ),
        "{}",
        r.stderr
    );
    let m = means(
        &env,
        &[
            "compare",
            "--scores",
            "two epochs.eval=two epochs",
            "--scores",
            "one-epoch.json=one-epoch",
            "--measure",
            "match",
        ],
    );
    assert_eq!(
        m,
        vec![("two epochs".to_string(), 0.5, 6), ("one-epoch".to_string(), 0.5, 6)]
    );
    // --system-name once per file pairs with the files in order.
    let m = means(
        &env,
        &[
            "compare",
            "--scores",
            "two epochs.eval",
            "--scores",
            "one-epoch.json",
            "--system-name",
            "a",
            "--system-name",
            "b",
            "--measure",
            "match",
        ],
    );
    assert_eq!((m[0].0.as_str(), m[1].0.as_str()), ("a", "b"));
    // Wrong counts and double names are refused.
    let r = env.run(&[
        "compare",
        "--scores",
        "one-epoch.json",
        "--scores",
        "two epochs.eval",
        "--scores",
        "one-epoch.json=x",
        "--system-name",
        "a",
        "--system-name",
        "b",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("--system-name is given 2 times for 3 score files"),
        "{}",
        r.stderr
    );
    let r = env.run(&[
        "compare",
        "--scores",
        "one-epoch.json=x",
        "--scores",
        "two epochs.eval",
        "--system-name",
        "a",
        "--system-name",
        "b",
    ]);
    assert!(
        r.code == 2
            && r.stderr
                .contains("a score file is named twice: `x` (--scores FILE=NAME) and `a`"),
        "{}",
        r.stderr
    );
    let r = env.run(&["compare", "--scores", "one-epoch.json=", "--scores", "two epochs.eval"]);
    assert!(
        r.code == 2 && r.stderr.contains("the system name after `=` is empty"),
        "{}",
        r.stderr
    );
}

/// A name given to a file of several systems is refused; a file whose name holds `=` is read.
#[test]
fn file_names_with_equals_and_multi_system_files() {
    let env = Env::new();
    env.write("a=b.csv", "topic,system,score\n1,x,1\n2,x,0\n1,y,0\n2,y,0\n");
    let m = means(&env, &["compare", "--scores", "a=b.csv"]);
    assert_eq!(m[0], ("x".to_string(), 0.5, 2));
    let r = env.run(&["compare", "--scores", "a=b.csv=mine", "--scores", "a=b.csv"]);
    assert!(
        r.code == 2
            && r.stderr
                .contains("holds 2 systems (x, y), so it cannot take one system name (`mine`)"),
        "{}",
        r.stderr
    );
}

/// One measure under each tool's name, in each reader that holds several: the means equal the
/// file's own name's, and the tools' own numbers (PROVENANCE.txt: PyTerrier map 0.127651,
/// ir_measures nDCG@10 0.3098, pytrec_eval map 0.1277 for InexpC2).
#[test]
fn measure_aliases_in_every_reader() {
    let env = Env::new();
    copy(&env, &format!("{F}/pyterrier/pyterrier-perquery.csv"), "pt.csv");
    copy(&env, &format!("{F}/ir_measures/InexpC2.irm.q.tsv"), "irm.tsv");
    copy(&env, &format!("{F}/ir_measures/InexpC2.irm.q.jsonl"), "irm.jsonl");
    copy(
        &env,
        &format!("{F}/pytrec_eval/InexpC2.pytrec_eval.json"),
        "pytrec.json",
    );
    // A one-system file is given twice, named apart (compare needs two systems).
    let mean = |file: &str, measure: &str| -> f64 {
        let (a, b) = (format!("{}=a", file), format!("{}=b", file));
        let files: Vec<&str> = if file == "pt.csv" {
            vec!["--scores", file]
        } else {
            vec!["--scores", &a, "--scores", &b]
        };
        let mut args = vec!["compare"];
        args.extend(files);
        args.extend(["--measure", measure]);
        means(&env, &args)[0].1
    };
    // PyTerrier CSV with trec_eval names.
    let map = mean("pt.csv", "map");
    assert!((map - 0.127651).abs() < 5e-7, "{}", map);
    for alias in ["AP", "MAP"] {
        assert_eq!(mean("pt.csv", alias), map, "{}", alias);
    }
    let ndcg = mean("pt.csv", "ndcg_cut_10");
    for alias in ["nDCG@10", "ndcg@10", "ndcg_cut.10", "ndcg_at_10"] {
        assert_eq!(mean("pt.csv", alias), ndcg, "{}", alias);
    }
    assert_eq!(mean("pt.csv", "P@10"), mean("pt.csv", "P_10"));
    assert_eq!(mean("pt.csv", "precision@10"), mean("pt.csv", "P_10"));
    // ir_measures TSV and JSON Lines with ir_measures names.
    for f in ["irm.tsv", "irm.jsonl"] {
        let ndcg = mean(f, "nDCG@10");
        // The -q TSV rounds each value to 4 decimals: the mean is within 1e-4 of the `all` row.
        assert!((ndcg - 0.3098).abs() < 1e-4, "{} {}", f, ndcg);
        assert_eq!(mean(f, "ndcg_cut_10"), ndcg, "{}", f);
        assert_eq!(mean(f, "ndcg_cut.10"), ndcg, "{}", f);
        assert_eq!(mean(f, "map"), mean(f, "AP"), "{}", f);
        assert_eq!(mean(f, "P_10"), mean(f, "P@10"), "{}", f);
    }
    // pytrec_eval JSON with trec_eval names.
    let map = mean("pytrec.json", "map");
    assert!((map - 0.1277).abs() < 5e-5, "{}", map);
    assert_eq!(mean("pytrec.json", "AP"), map);
    assert_eq!(mean("pytrec.json", "nDCG@10"), mean("pytrec.json", "ndcg_cut_10"));
    assert_eq!(mean("pytrec.json", "RR"), mean("pytrec.json", "recip_rank"));
    assert_eq!(mean("pytrec.json", "mrr"), mean("pytrec.json", "recip_rank"));
    // A name the file does not hold: the names it has and the closest one.
    let r = env.run(&[
        "compare",
        "--scores",
        "pytrec.json=a",
        "--scores",
        "pytrec.json=b",
        "--measure",
        "ndcg_cut_20",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("measure `ndcg_cut_20` is not in the file (it has: P_10, map, ndcg_cut_10, recip_rank)"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint: did you mean `ndcg_cut_10`?"), "{}", r.stderr);
    let r = env.run(&[
        "compare",
        "--scores",
        "irm.tsv=a",
        "--scores",
        "irm.tsv=b",
        "--measure",
        "ndcg@20",
    ]);
    assert!(
        r.code == 2 && r.stderr.contains("hint: did you mean `nDCG@10`?"),
        "{}",
        r.stderr
    );
}

/// Two lm-evaluation-harness 0.4.9 runs of one model written into one folder (lm_eval's own
/// exact_match with flexible-extract: 0.4 in both): both are named by the folder, so the
/// collision error gives the fix, and the fix compares them in one command.
#[test]
fn two_lm_eval_runs_of_one_model_in_one_folder() {
    let env = Env::new();
    let runs = ["2026-12-05T00-04-13.960554", "2026-12-05T00-04-24.762906"];
    for r in runs {
        copy(
            &env,
            &format!("{F}/lm_eval/two-runs/dummy/samples_capitals_{r}.jsonl"),
            &format!("dummy/samples_capitals_{r}.jsonl"),
        );
    }
    let (a, b) = (
        format!("dummy/samples_capitals_{}.jsonl", runs[0]),
        format!("dummy/samples_capitals_{}.jsonl", runs[1]),
    );
    let r = env.run(&[
        "compare",
        "--scores",
        &a,
        "--scores",
        &b,
        "--filter",
        "flexible-extract",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("error: {}: system `dummy` is also in {}", b, a)),
        "{}",
        r.stderr
    );
    let fix = format!(
        "--scores {a}=samples_capitals_{} --scores {b}=samples_capitals_{}",
        runs[0], runs[1]
    );
    assert!(r.stderr.contains(&fix), "{}", r.stderr);
    let (na, nb) = (format!("{a}=seed-1"), format!("{b}=seed-2"));
    let m = means(
        &env,
        &[
            "compare",
            "--scores",
            &na,
            "--scores",
            &nb,
            "--filter",
            "flexible-extract",
        ],
    );
    assert_eq!(m, vec![("seed-1".to_string(), 0.4, 5), ("seed-2".to_string(), 0.4, 5)]);
}
