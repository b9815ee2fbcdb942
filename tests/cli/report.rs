//! Integration tests: the report and the main job (`pledge demo`) end to end. The report's key
//! numbers are checked against values computed here from the bundled data, independently of
//! pledge's own code (means and the paired t-test by hand with statrs' Student t; the required
//! count from statsmodels).

use crate::common::{data, Env};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Per-question correctness (1/0) of one system in the bundled HotpotQA file.
fn correctness(system: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(data("hotpotqa-100/correctness.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == system).unwrap();
    lines
        .map(|l| {
            if l.split(',').nth(col).unwrap() == "CORRECT" {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

fn demo() -> (Env, String) {
    let env = Env::new();
    let r = env.run(&["demo", "demo"]);
    assert_eq!(r.code, 0, "demo failed:\n{}", r.stderr);
    assert_eq!(r.stdout.trim(), env.join("demo/report/report.md").display().to_string());
    let md = std::fs::read_to_string(env.join("demo/report/report.md")).unwrap();
    (env, md)
}

#[test]
fn demo_report_numbers_match_independent_computation() {
    let (env, md) = demo();
    let a = correctness("cot_context_gpt-4_trial1");
    let b = correctness("cot_context_gpt-3.5-turbo_trial1");
    let n = a.len() as f64;
    assert_eq!(n, 100.0);
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    assert!(
        md.contains(&format!("| cot_context_gpt-4_trial1 | {:.4} | 100 | 100 |", ma)),
        "{}",
        md
    );
    assert!(md.contains(&format!("| cot_context_gpt-3.5-turbo_trial1 | {:.4} | 100 | 100 |", mb)));
    // Paired t-test by hand: t = mean(d) / (sd(d)/sqrt(n)), two-sided p from Student t(n-1).
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let md_ = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - md_).powi(2)).sum::<f64>() / (n - 1.0);
    let t = md_ / (var / n).sqrt();
    let p = 2.0 * (1.0 - StudentsT::new(0.0, 1.0, n - 1.0).unwrap().cdf(t.abs()));
    // scipy.stats.ttest_rel gives t = 2.594910052150576, p = 0.010898407566560443.
    assert!((t - 2.594910052150576).abs() < 1e-9);
    assert!((p - 0.010898407566560443).abs() < 1e-9);
    let row = md
        .lines()
        .find(|l| l.starts_with("| cot_context_gpt-4_trial1 − cot_context_gpt-3.5-turbo_trial1 |"))
        .unwrap();
    assert!(row.contains(&format!("| {:+.4} |", md_)), "{}", row);
    assert!(row.contains(&format!("| {:.4} |", p)), "{}", row);
    // Reversal rate: resamples where gpt-4 falls behind. The normal approximation of the
    // bootstrap distribution puts it near Φ(-t·sqrt((n-1)/n)) ≈ 0.5%; allow the Monte-Carlo and
    // discreteness error.
    let rev: f64 = row
        .split('|')
        .map(str::trim)
        .nth(5)
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!((0.0..=1.5).contains(&rev), "reversal {}", rev);
    // Components: each HotpotQA question has its own ten paragraphs here, so 100 components;
    // required = statsmodels TTestPower().solve_power(effect_size=0.15/0.45, alpha=0.05,
    // power=0.8) = 72.58390269665841 → 73.
    assert!(md.contains("Counted: **100**"), "{}", md);
    assert!(md.contains("required: **73**"));
    assert!(md.contains("72.58 unrounded"));
    assert!(md.contains("Stop rule decision: **go"));
    assert!(
        md.contains("| Ledger verification | passed: 4 entries")
            || md.contains("| Ledger verification | passed: 3 entries"),
        "{}",
        md
    );
    assert!(md.contains("```mermaid\nflowchart TB"));
    for f in ["component-sizes.svg", "bootstrap-1-cot_context_gpt-4_trial1.svg"] {
        let svg = std::fs::read_to_string(env.join("demo/report").join(f)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{}", f);
    }
}

#[test]
fn same_ledger_gives_the_same_report_and_json() {
    let (env, md) = demo();
    let dir = env.join("demo");
    let dir_s = dir.to_str().unwrap();
    let again = env.run(&["-C", dir_s, "report", "--out", "again"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("again/report.md")).unwrap(), md);
    let json = env.run(&["-C", dir_s, "report", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["study"]["id"], "hotpotqa-100-agents");
    assert_eq!(v["verification"]["ok"], true);
    assert_eq!(v["components"]["counted"], "100");
}

#[test]
fn report_without_analysis_is_a_clear_error() {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let r = env.run(&["report"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no analysis of study `hotpotqa-100-agents`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint: run `pledge analyze"), "{}", r.stderr);
    let empty = Env::init();
    let r = empty.run(&["report"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no registered study"), "{}", r.stderr);
}

#[test]
fn template_with_an_undefined_variable_is_an_error() {
    let (env, _) = demo();
    let dir = env.join("demo");
    env.write("bad.md.j2", "# {{ study.title }}\n{{ study.no_such_thing }}\n");
    let r = env.run(&[
        "-C",
        dir.to_str().unwrap(),
        "report",
        "--template",
        env.join("bad.md.j2").to_str().unwrap(),
        "--out",
        "x",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("bad.md.j2:2"), "{}", r.stderr);
    assert!(r.stderr.contains("undefined"), "{}", r.stderr);
    assert!(!dir.join("x/report.md").exists());
    env.write("good.md.j2", "{{ study.id }} {{ components.counted }}\n");
    let r = env.run(&[
        "-C",
        dir.to_str().unwrap(),
        "report",
        "--template",
        env.join("good.md.j2").to_str().unwrap(),
        "--out",
        "y",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("y/report.md")).unwrap(),
        "hotpotqa-100-agents 100\n"
    );
}

#[test]
fn a_tampered_ledger_still_gives_a_report_with_the_failure_first() {
    let (env, _) = demo();
    let dir = env.join("demo");
    // Rewrite the last ledger commit with one changed byte in its entry.json.
    let repo = git2::Repository::open(&dir).unwrap();
    let tip = repo
        .find_reference("refs/pledge/ledger")
        .unwrap()
        .peel_to_commit()
        .unwrap();
    let tree = tip.tree().unwrap();
    let blob = tree
        .get_name("entry.json")
        .unwrap()
        .to_object(&repo)
        .unwrap()
        .peel_to_blob()
        .unwrap();
    let text = String::from_utf8(blob.content().to_vec()).unwrap();
    let forged = text.replacen("\"data_access\":\"results-seen\"", "\"data_access\":\"pilot-only\"", 1);
    assert_ne!(text, forged);
    let mut tb = repo.treebuilder(Some(&tree)).unwrap();
    tb.insert("entry.json", repo.blob(forged.as_bytes()).unwrap(), 0o100644)
        .unwrap();
    let new_tree = repo.find_tree(tb.write().unwrap()).unwrap();
    let parent = tip.parent(0).unwrap();
    let sig = tip.author();
    let oid = repo
        .commit(None, &sig, &sig, tip.message().unwrap(), &new_tree, &[&parent])
        .unwrap();
    repo.reference("refs/pledge/ledger", oid, true, "tamper").unwrap();
    let r = env.run(&["-C", dir.to_str().unwrap(), "report", "--out", "tampered"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = std::fs::read_to_string(dir.join("tampered/report.md")).unwrap();
    let warn = md.find("Ledger verification failed").expect("failure stated");
    let components = md.find("## Components").unwrap();
    assert!(warn < components, "the failure comes first");
    assert!(md.contains("| Ledger verification | **FAILED**"));
}

/// The whole demo report, as a snapshot: it is deterministic for a fixed clock (`PLEDGE_NOW`),
/// so any change in wording or numbers shows up in review. Only the scratch path is redacted.
#[test]
fn demo_report_snapshot() {
    let (env, md) = demo();
    let md = md.replace(&env.path().display().to_string(), "[TMP]");
    insta::assert_snapshot!("demo_report", md);
}

/// `pledge power` human output for the design-effect example of the oracles, as a snapshot.
#[test]
fn power_output_snapshot() {
    let env = Env::new();
    let r = env.run(&[
        "power",
        "--sd",
        "0.5",
        "--mde",
        "0.03",
        "--per-component",
        "4",
        "--icc",
        "0.1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!("power_sd05_mde003_m4_icc01", r.stdout);
}

/// A tampered ledger whose first entry's `git_head` holds multi-byte characters (where a commit
/// id is expected) still gives a report, with the verification failure first, and no panic.
#[test]
fn multibyte_git_head_in_a_tampered_ledger_renders_without_panic() {
    let (env, _) = demo();
    let dir = env.join("demo");
    let repo = git2::Repository::open(&dir).unwrap();
    // Rebuild the whole chain with the first entry's git_head replaced.
    let mut chain = Vec::new();
    let mut c = repo
        .find_reference("refs/pledge/ledger")
        .unwrap()
        .peel_to_commit()
        .unwrap();
    loop {
        chain.push(c.clone());
        match c.parent(0) {
            Ok(p) => c = p,
            Err(_) => break,
        }
    }
    chain.reverse();
    let mut parent: Option<git2::Commit> = None;
    for (i, commit) in chain.iter().enumerate() {
        let tree = commit.tree().unwrap();
        let mut tb = repo.treebuilder(Some(&tree)).unwrap();
        if i == 0 {
            let blob = tree.get_name("entry.json").unwrap().to_object(&repo).unwrap();
            let text = String::from_utf8(blob.peel_to_blob().unwrap().content().to_vec()).unwrap();
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            // Byte 12 falls inside a two-byte character: byte slicing would panic here.
            v["git_head"] = serde_json::json!("aééééééééééééééééé");
            tb.insert("entry.json", repo.blob(v.to_string().as_bytes()).unwrap(), 0o100644)
                .unwrap();
        }
        let new_tree = repo.find_tree(tb.write().unwrap()).unwrap();
        let sig = commit.author();
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        let oid = repo
            .commit(None, &sig, &sig, commit.message().unwrap(), &new_tree, &parents)
            .unwrap();
        parent = Some(repo.find_commit(oid).unwrap());
    }
    repo.reference("refs/pledge/ledger", parent.unwrap().id(), true, "tamper")
        .unwrap();
    let r = env.run(&["-C", dir.to_str().unwrap(), "report", "--out", "tampered"]);
    assert_eq!(r.code, 1, "no panic, a verification failure: {}", r.stderr);
    let md = std::fs::read_to_string(dir.join("tampered/report.md")).unwrap();
    assert!(md.contains("Ledger verification failed"));
    assert!(md.contains("at git commit `aééééééééééé`"), "{}", md);
    let v = env.run(&["-C", dir.to_str().unwrap(), "verify"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert!(v.stdout.contains("entry-hash-mismatch") || v.stdout.contains("entry-not-canonical"));
}
