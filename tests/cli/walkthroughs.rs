//! The book's walk-throughs as a new user runs them: Walk-through 2 on the bundled statute
//! sample (docs/tutorial/statutes.md states these numbers).

use crate::common::{data, Env};

/// The numbers after a rule's name in the human ablation table.
fn ablation_row(stdout: &str, rule: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(rule))
        .unwrap_or_else(|| panic!("no row `{}` in {}", rule, stdout));
    line[rule.len()..].split_whitespace().map(str::to_string).collect()
}

#[test]
fn walkthrough_2_the_statute_sample_stops_with_five_components() {
    let env = Env::init();
    env.copy_from_repo("protocols/statutes-kr.toml", "statutes-kr.toml");
    assert_eq!(env.run(&["register", "statutes-kr.toml"]).code, 0);
    let (p, q) = (
        data("statutes-kr-100/passages.jsonl.gz"),
        data("statutes-kr-100/questions.jsonl.gz"),
    );
    let r = env.run(&[
        "components",
        "statutes-kr.toml",
        "--passages",
        p.to_str().unwrap(),
        "--questions",
        q.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("5499 passages, 937 candidate questions, 708 units"),
        "{}",
        r.stdout
    );
    let rows = [
        ("(own passages only)", ["-", "708", "95", "1", "/", "42"]),
        ("identical passages only", ["9", "705", "94", "2", "/", "33"]),
        ("plus near-identical articles", ["226", "670", "71", "26", "/", "257"]),
        ("plus laws used as decoys", ["937", "6", "5", "690", "/", "924"]),
    ];
    for (rule, want) in rows {
        assert_eq!(ablation_row(&r.stdout, rule), want, "row `{}`", rule);
    }
    assert!(
        r.stderr
            .contains("STOP: counted 5 components with candidates, required 429 (final 261 + tuning 168"),
        "{}",
        r.stderr
    );
    let log = env.run(&["log"]);
    assert!(log.stdout.contains("stop"), "{}", log.stdout);
}
