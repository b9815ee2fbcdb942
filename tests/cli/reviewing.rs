//! Integration tests: the reviewer's path. A new user registers, counts, analyzes and reports;
//! a reviewer clones the repository and runs exactly the report's own commands (nothing is
//! appended, everything verifies). `verify --report` finds an edited report, another template
//! and an unknown tip; untracked inputs are warned about; the report's verdict card, reproduce
//! section, pool statement and signature line say what the ledger proves and no more.

use crate::common::{Env, Run};
use serde_json::Value;

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {}\n{}", e, r.stdout, r.stderr))
}

/// The codes of `key` (`findings` or `notes`) of `verify --format json` output.
fn codes(r: &Run, key: &str) -> Vec<String> {
    json(r)[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// The message of the first finding or note with `code`.
fn message(r: &Run, key: &str, code: &str) -> String {
    json(r)[key]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {} in {}", code, r.stdout))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs `line` with `sh -c` in `dir` and requires exit 0.
fn ok(env: &Env, dir: &str, line: &str) -> Run {
    let r = env.sh(dir, line);
    assert_eq!(r.code, 0, "`{}` in {}:\n{}\n{}", line, dir, r.stdout, r.stderr);
    r
}

/// A new user's repository `author/`: the bundled example's protocol and data committed, the
/// study registered (with `register` extra arguments), counted, its assignment committed, and
/// analyzed, as the README walks through it. Returns the analyze run.
fn author(env: &Env, register: &str) -> Run {
    std::fs::create_dir(env.join("author")).unwrap();
    env.copy_from_repo("protocols/hotpotqa.toml", "author/protocols/hotpotqa.toml");
    env.copy_from_repo("tests/data/hotpotqa-100/questions.json", "author/data/questions.json");
    env.copy_from_repo("tests/data/hotpotqa-100/correctness.csv", "author/data/correctness.csv");
    ok(
        env,
        "author",
        "pledge init && git add -A && git commit -qm 'protocol and data'",
    );
    ok(
        env,
        "author",
        &format!("pledge register protocols/hotpotqa.toml {}", register),
    );
    ok(
        env,
        "author",
        "pledge components protocols/hotpotqa.toml --questions data/questions.json --out components.csv",
    );
    ok(
        env,
        "author",
        "git add components.csv && git commit -qm 'the assignment'",
    );
    ok(
        env,
        "author",
        "pledge analyze protocols/hotpotqa.toml --scores data/correctness.csv --components components.csv",
    )
}

/// The commands of the report's last `sh` block, comments removed.
fn reviewer_commands(md: &str) -> Vec<String> {
    let start = md.rfind("```sh\n").unwrap() + "```sh\n".len();
    let block = &md[start..start + md[start..].find("```").unwrap()];
    block
        .lines()
        .map(|l| l.split("   # ").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_reviewer_runs_exactly_the_reports_commands_in_a_clone_and_nothing_is_appended() {
    let env = Env::new();
    let a = author(&env, "");
    // Everything the analysis read is committed: no warning.
    assert!(!a.stderr.contains("not committed"), "{}", a.stderr);
    let r = ok(&env, "author", "pledge report --out report");
    assert!(
        r.stderr.contains(
            "note: commit the report so that a reviewer's clone has it: git add report && git commit (then pledge verify --report report checks it against the ledger)"
        ),
        "{}",
        r.stderr
    );
    ok(&env, "author", "git add report && git commit -qm 'the report'");
    let md = std::fs::read_to_string(env.join("author/report/report.md")).unwrap();
    let tip = ok(&env, "author", "git rev-parse refs/pledge/ledger").stdout;
    let commands = reviewer_commands(&md);
    assert_eq!(
        commands,
        [
            "git fetch origin 'refs/pledge/*:refs/pledge/*'",
            "pledge verify protocols/hotpotqa.toml --rerun --report report",
            "pledge components protocols/hotpotqa.toml --questions data/questions.json --dry-run",
        ]
    );
    // The assignment's hash the comment names is the one the count recorded.
    let recorded = ok(&env, "author", "sha256sum components.csv").stdout;
    let recorded = recorded.split_whitespace().next().unwrap();
    assert!(
        md.contains(&format!(
            "--dry-run   # prints the assignment's SHA-256; the ledger records {}\n",
            recorded
        )),
        "{}",
        md
    );
    ok(&env, ".", "git clone -q author reviewer");
    let mut outputs = Vec::new();
    for c in &commands {
        outputs.push(ok(&env, "reviewer", c));
    }
    let verify = &outputs[1];
    assert!(verify.stdout.contains("OK: the ledger verifies"), "{}", verify.stdout);
    assert!(verify.stdout.contains("rerun-matches"), "{}", verify.stdout);
    assert!(
        verify
            .stdout
            .contains("report-matches report/report.md is the report the ledger gives at its tip"),
        "{}",
        verify.stdout
    );
    assert!(
        outputs[2].stdout.contains(recorded) || outputs[2].stderr.contains(recorded),
        "{}{}",
        outputs[2].stdout,
        outputs[2].stderr
    );
    // Nothing was appended and nothing written: the reviewer's ledger ends where the author's
    // does, and the working tree is clean.
    assert_eq!(ok(&env, "reviewer", "git rev-parse refs/pledge/ledger").stdout, tip);
    let log = ok(&env, "reviewer", "pledge log --format json");
    assert_eq!(json(&log).as_array().unwrap().len(), 3);
    assert_eq!(ok(&env, "reviewer", "git status --porcelain").stdout, "");
}

/// The demo's repository, with its report in `report/`.
fn demo() -> (Env, String) {
    let env = Env::new();
    let r = env.run(&["demo", "demo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    (env, "demo".to_string())
}

#[test]
fn verify_report_finds_edits_other_templates_and_unknown_tips() {
    let (env, d) = demo();
    let verify = |args: &str| env.sh(&d, &format!("pledge verify {} --format json", args));
    // Untouched: a note, exit 0; the HTML page and the LaTeX table too.
    let r = verify("--report report");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(codes(&r, "notes").contains(&"report-matches".to_string()));
    assert!(codes(&r, "findings").is_empty());
    ok(&env, &d, "pledge report --out again --html page.html --latex table.tex");
    let r = verify("--report page.html --report table.tex --report again/report.md");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(codes(&r, "notes").iter().filter(|c| *c == "report-matches").count(), 3);
    // Hand-edited: the first differing line is named.
    ok(
        &env,
        &d,
        "cp -r report edited && sed -i 's/[*][*]supported[*][*]/**strongly supported**/' edited/report.md",
    );
    let r = verify("--report edited");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(codes(&r, "findings"), ["report-edited"]);
    let m = message(&r, "findings", "report-edited");
    assert!(
        m.starts_with("edited/report.md differs from the report the ledger gives: line 7 reads \"…")
            && m.contains("| **strongly supported** at α = 0.05 |")
            && m.ends_with("(4 lines differ)"),
        "{}",
        m
    );
    // Same for an edited HTML page, and a picture taken out of the report's directory.
    ok(
        &env,
        &d,
        "sed -i 's/0.0191/0.0091/' page.html && rm again/bootstrap-2-cot_context_gpt-4_base_trial1.svg",
    );
    let r = verify("--report page.html --report again");
    assert_eq!(codes(&r, "findings"), ["report-edited", "report-edited"]);
    let all = r.stdout.clone();
    assert!(
        all.contains("page.html differs from the report the ledger gives: line"),
        "{}",
        all
    );
    assert!(
        all.contains("again/bootstrap-2-cot_context_gpt-4_base_trial1.svg is missing: the report shows it"),
        "{}",
        all
    );
    // A directory's check covers the HTML page and LaTeX table written into it, not only its
    // report.md: an edited page beside an untouched report.md is a finding.
    ok(
        &env,
        &d,
        "pledge report --out both --html both/report.html --latex both/table.tex",
    );
    let r = verify("--report both");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(codes(&r, "notes").iter().filter(|c| *c == "report-matches").count(), 3);
    ok(
        &env,
        &d,
        "sed -i 's/supported/SUPPORTED BEYOND DOUBT/' both/report.html",
    );
    let r = verify("--report both");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(codes(&r, "findings"), ["report-edited"]);
    assert!(
        message(&r, "findings", "report-edited")
            .starts_with("both/report.html differs from the report the ledger gives: line"),
        "{}",
        r.stdout
    );
    // Another template: named at the top of the report, and a finding even when the text is
    // what the ledger gives with it.
    ok(
        &env,
        &d,
        "printf 'Study {{ study.id }}: all good.\\n' > mine.md.j2 && pledge report --out custom --template mine.md.j2",
    );
    let md = std::fs::read_to_string(env.join("demo/custom/report.md")).unwrap();
    assert!(
        md.starts_with("> **Rendered with the template `mine.md.j2`, not pledge's built-in one.** Its wording is the author's; `pledge verify --report` reports it.\n\nStudy hotpotqa-100-agents: all good.\n"),
        "{}",
        md
    );
    let r = verify("--report custom");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(codes(&r, "findings"), ["report-template"]);
    assert!(message(&r, "findings", "report-template")
        .starts_with("custom/report.md was rendered with the template mine.md.j2 (SHA-256 "));
    assert!(codes(&r, "notes").contains(&"report-matches".to_string()));
    ok(&env, &d, "rm mine.md.j2");
    let r = verify("--report custom");
    assert!(
        message(&r, "findings", "report-template")
            .ends_with("; the template is not in the repository, so the report cannot be rendered again"),
        "{}",
        r.stdout
    );
    // A tip the ledger does not hold: the ledger cut back by one entry.
    let tip = ok(&env, &d, "git rev-parse refs/pledge/ledger")
        .stdout
        .trim()
        .to_string();
    ok(&env, &d, "git update-ref refs/pledge/ledger refs/pledge/ledger~1");
    let r = verify("--report report");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(codes(&r, "findings"), ["report-tip-unknown"]);
    assert!(
        message(&r, "findings", "report-tip-unknown").starts_with(&format!(
            "report/report.md states the ledger tip {}, which is not a commit of this ledger (2 entries, tip ",
            tip
        )),
        "{}",
        r.stdout
    );
    // Restored and extended: a report of an earlier tip still verifies.
    ok(&env, &d, &format!("git update-ref refs/pledge/ledger {}", tip));
    ok(&env, &d, "pledge note --reason 'shared the report with reviewers'");
    assert_eq!(verify("--report report").code, 0);
    // No stamp at all.
    ok(&env, &d, "printf '# My own summary\\n' > plain.md");
    let r = verify("--report plain.md");
    assert_eq!(codes(&r, "findings"), ["report-unstamped"]);
}

#[test]
fn the_demo_report_opens_with_the_verdict_card() {
    let (env, d) = demo();
    let md = std::fs::read_to_string(env.join(&format!("{}/report/report.md", d))).unwrap();
    let first_screen: Vec<&str> = md.lines().take(15).collect();
    assert_eq!(
        first_screen,
        [
            "# Does GPT-4 answer HotpotQA distractor questions better than GPT-3.5-turbo?",
            "",
            "## Verdict",
            "",
            "| primary hypothesis | verdict at the registered α | difference [interval] | adjusted p |",
            "|---|---|---|---|",
            "| gpt-4 beats gpt-3.5-turbo (cot_context_gpt-4 − cot_context_gpt-3.5-tur…) | **supported** at α = 0.05 | +0.1100 [+0.0300, +0.1900] (95%) | 0.0191 (holm over 1 primary hypothesis) |",
            "",
            "- **Analysis:** confirmatory: entry #3 (2026-11-30T12:00:00Z), the study's registered analysis.",
            "- **Deviations:** none.",
            "- **Changes to the registered question:** none.",
            "- **Split analyzed:** final (the protocol's only split: the whole component assignment).",
            "- **Time:** registered 2026-11-30T12:00:00Z (ledger entry #1); time not witnessed; written under a fixed clock (PLEDGE_NOW), so the time is declared.",
            "- **Signature:** the registration commit is unsigned, so nothing proves who wrote it.",
            "",
        ]
    );
    // The walk-through in the book shows the same card.
    let book = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tutorial/hotpotqa.md")).unwrap();
    let start = book.find("```markdown\n").unwrap() + "```markdown\n".len();
    let shown = &book[start..start + book[start..].find("```").unwrap()];
    assert_eq!(shown.lines().collect::<Vec<_>>(), &first_screen[2..14]);
    // Hashes and commit ids come after the card.
    let card_end = md.find("- **Signature:**").unwrap();
    assert!(md.find("SHA-256").unwrap() > card_end);
}

#[test]
fn untracked_inputs_are_warned_about_and_a_clone_says_they_were_not_committed() {
    let env = Env::new();
    std::fs::create_dir(env.join("a")).unwrap();
    env.copy_from_repo("protocols/hotpotqa.toml", "a/protocols/hotpotqa.toml");
    env.copy_from_repo("tests/data/hotpotqa-100/questions.json", "a/data/questions.json");
    env.copy_from_repo("tests/data/hotpotqa-100/correctness.csv", "a/data/correctness.csv");
    // Only the protocol is committed.
    ok(&env, "a", "pledge init && git add protocols && git commit -qm protocol");
    ok(&env, "a", "pledge register protocols/hotpotqa.toml");
    let c = ok(
        &env,
        "a",
        "pledge components protocols/hotpotqa.toml --questions data/questions.json --out components.csv",
    );
    assert!(
        c.stderr.contains("warning: not committed to the repository: data/questions.json (untracked); reviewers who clone it cannot rerun from it (pledge verify --rerun); fix: git add data/questions.json && git commit\n"),
        "{}",
        c.stderr
    );
    // The component file the count just wrote is untracked by construction: a note, not a warning.
    assert!(
        c.stderr.contains("note: commit the component file before analyze reads it, so a reviewer's clone has it: git add components.csv && git commit\n"),
        "{}",
        c.stderr
    );
    let r = ok(
        &env,
        "a",
        "pledge analyze protocols/hotpotqa.toml --scores data/correctness.csv --components components.csv",
    );
    assert!(
        r.stderr.contains("warning: not committed to the repository: components.csv (untracked), data/correctness.csv (untracked); reviewers who clone it cannot rerun from them (pledge verify --rerun); fix: git add components.csv data/correctness.csv && git commit\n"),
        "{}",
        r.stderr
    );
    let r = ok(&env, "a", "pledge report --out report");
    assert!(r.stderr.contains("warning: not committed to the repository: components.csv (untracked), data/correctness.csv (untracked), data/questions.json (untracked)"), "{}", r.stderr);
    // The author's rerun passes, and notes what a clone will lack.
    let v = ok(&env, "a", "pledge verify --rerun --format json");
    assert_eq!(
        message(&v, "notes", "input-untracked"),
        "not committed to the repository: assignment:components.csv (untracked), scores:data/correctness.csv (untracked); a reviewer's clone will not have them (git add, then git commit)"
    );
    // The reviewer's clone does not have them, and says so without calling it tampering.
    ok(
        &env,
        ".",
        "git clone -q a b && cd b && git fetch -q origin 'refs/pledge/*:refs/pledge/*'",
    );
    let v = env.sh("b", "pledge verify --rerun --format json");
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), ["rerun-mismatch"]);
    assert_eq!(
        message(&v, "findings", "rerun-mismatch"),
        "assignment:components.csv: not in the repository (was it committed?); scores:data/correctness.csv: not in the repository (was it committed?)"
    );
    // Committed, then deleted: git knows it, and says how to restore it.
    ok(
        &env,
        "a",
        "git add -A && git commit -qm data && rm data/correctness.csv",
    );
    let v = env.sh("a", "pledge verify --rerun --format json");
    assert_eq!(
        message(&v, "findings", "rerun-mismatch"),
        "scores:data/correctness.csv: no such file (it was moved or deleted; git checkout -- data/correctness.csv restores the committed one)"
    );
}

#[test]
fn the_reproduce_section_is_the_confirmatory_analysis_own() {
    let (env, d) = demo();
    // A later, exploratory analysis on other data with another seed.
    ok(
        &env,
        &d,
        "sed -e 's/,CORRECT/,XX/' -e 's/,INCORRECT/,CORRECT/' -e 's/,XX/,INCORRECT/' data/correctness.csv > data/other.csv",
    );
    ok(
        &env,
        &d,
        "pledge analyze protocols/hotpotqa.toml --scores data/other.csv --components components.csv --seed 7 --deviation 'a look at other data'",
    );
    ok(&env, &d, "pledge report --out again");
    let md = std::fs::read_to_string(env.join("demo/again/report.md")).unwrap();
    let rep = &md[md.find("## Reproduce and verify").unwrap()..];
    assert!(
        rep.contains("The analysis reported above, entry #3 (the confirmatory analysis), ran with:"),
        "{}",
        rep
    );
    assert!(rep.contains("| Seed | 20261130 |"), "{}", rep);
    assert!(
        rep.contains("| Options (as `pledge analyze` flags) | `--scores data/correctness.csv --components components.csv --label HALTED=0` |"),
        "{}",
        rep
    );
    assert!(rep.contains("| `scores:data/correctness.csv` |"), "{}", rep);
    assert!(!rep.contains("other.csv"), "{}", rep);
    assert!(!rep.contains("pledge analyze "), "{}", rep);
    // The card names the deviation.
    assert!(
        md.contains("- **Deviations:** 1; the first: entry #4 (2026-11-30T12:00:00Z, for the analyze entry #5): a look at other data ("),
        "{}",
        md
    );
}

#[test]
fn a_signed_registration_names_its_key_and_registered_by_stays_declared() {
    let env = Env::new();
    let key = env.join("id_ed25519");
    std::fs::copy(crate::common::data("sshsig/id_ed25519"), &key).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    author(&env, &format!("--sign-key {}", key.display()));
    ok(&env, "author", "pledge report --out report");
    let md = std::fs::read_to_string(env.join("author/report/report.md")).unwrap();
    // The fingerprint `ssh-keygen -l -f tests/data/sshsig/id_ed25519.pub` prints.
    let signed = "the registration commit is signed with the ssh-ed25519 key SHA256:+//ezf2SGYe34cdrk5Aj7io5ZcAvW+IKRvvPGgzuwgY (the signature verifies under it; whose key it is, pledge verify --allowed-signers FILE checks)";
    assert!(md.contains(&format!("- **Signature:** {}.\n", signed)), "{}", md);
    assert!(
        md.contains(&format!(
            "| Registered by | pledge example (declared in the protocol, not proven by it; {}) |",
            signed
        )),
        "{}",
        md
    );
}

#[test]
fn without_registered_contributors_the_pool_statement_says_the_contribution_is_unknown() {
    let env = Env::init();
    for f in [
        "robust03_qrels.subset.txt.gz",
        "input.InexpC2.subset.gz",
        "input.uic0301.subset.gz",
    ] {
        env.write(f, std::fs::read(crate::common::data(&format!("trec/{}", f))).unwrap());
    }
    env.write(
        "p.toml",
        "schema-version = 1\n[study]\nid = \"r\"\ntitle = \"t\"\nregistered-by = \"me\"\n[target]\nmetric = \"map\"\nmde = 0.05\n\
         [analysis]\ntrials = 200\nrandomization-trials = 200\n[pool]\nstatement = \"TREC 2003 robust track runs, pooled to depth 125\"\n",
    );
    ok(&env, ".", "pledge register p.toml");
    let a = ok(
        &env,
        ".",
        "pledge analyze p.toml --qrels robust03_qrels.subset.txt.gz --run input.InexpC2.subset.gz --run input.uic0301.subset.gz --format json",
    );
    let pb = &json(&a)["pool_bias"];
    let judged: Vec<f64> = pb["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["judged_at_k"].as_f64().unwrap())
        .collect();
    let unjudged = pb["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["unjudged_at_k"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let (lo, hi) = (
        judged.iter().cloned().fold(1.0, f64::min),
        judged.iter().cloned().fold(0.0, f64::max),
    );
    // The analysis itself no longer claims "0 of the 2 evaluated runs contributed".
    assert!(
        pb["statement"].as_str().unwrap().starts_with(
            "The protocol names no contributors, so whether the 2 evaluated runs contributed to the judgment pool is unknown. "
        ),
        "{}",
        pb
    );
    ok(&env, ".", "pledge report --out rep");
    let md = std::fs::read_to_string(env.join("rep/report.md")).unwrap();
    let section = &md[md.find("## Pool bias\n\n").unwrap() + 14..];
    let section = &section[..section.find("\n\n").unwrap()];
    assert_eq!(
        section,
        format!(
            "The protocol names no runs that contributed to the judgment pool, so whether the 2 evaluated runs contributed is unknown. Measured on the qrels: judged@10 ranges from {} to {} across runs; at most {} of a run's top 10 was unjudged and counted as non-relevant by map. The registered pool statement: TREC 2003 robust track runs, pooled to depth 125",
            pct(lo),
            pct(hi),
            pct(unjudged)
        )
    );
    assert!(!md.contains("0 of the 2"), "{}", md);
}
