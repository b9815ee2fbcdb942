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
    // The report shortens the long agent names once (tests/cli/figures.rs checks the key).
    assert!(
        md.contains(&format!("| cot_context_gpt-4 | {:.4} | 100 | 100 |", ma)),
        "{}",
        md
    );
    assert!(md.contains(&format!("| cot_context_gpt-3.5-tur… | {:.4} | 100 | 100 |", mb)));
    // Paired t-test by hand: t = mean(d) / (sd(d)/sqrt(n)), two-sided p from Student t(n-1).
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let md_ = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - md_).powi(2)).sum::<f64>() / (n - 1.0);
    let t = md_ / (var / n).sqrt();
    let p = 2.0 * (1.0 - StudentsT::new(0.0, 1.0, n - 1.0).unwrap().cdf(t.abs()));
    // scipy.stats.ttest_rel gives t = 2.594910052150576, p = 0.010898407566560443.
    assert!((t - 2.594910052150576).abs() < 1e-9);
    assert!((p - 0.010898407566560443).abs() < 1e-9);
    // The comparison is split over two tables (interval columns, then test columns).
    let mut rows = md
        .lines()
        .filter(|l| l.starts_with("| cot_context_gpt-4 − cot_context_gpt-3.5-tur… |"));
    let (row, tests) = (rows.next().unwrap(), rows.next().unwrap());
    assert!(row.contains(&format!("| {:+.4} |", md_)), "{}", row);
    assert!(tests.contains(&format!("| {:.4} |", p)), "{}", tests);
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
    // Every component holds one question: the one-bar histogram of sizes is left out.
    assert!(!env.join("demo/report/component-sizes.svg").exists());
    let svg = std::fs::read_to_string(env.join("demo/report/bootstrap-1-cot_context_gpt-4_trial1.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
}

#[test]
fn same_ledger_gives_the_same_report_and_json() {
    let (env, md) = demo();
    let dir = env.join("demo");
    let dir_s = dir.to_str().unwrap();
    std::fs::remove_dir_all(dir.join("report")).unwrap();
    let again = env.run(&["-C", dir_s, "report", "--out", "report"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("report/report.md")).unwrap(), md);
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
    // The template's text, with pledge's notice before it and the stamp after it: a custom
    // template cannot leave out that it is one, nor the tip and template it was rendered from.
    let md = std::fs::read_to_string(dir.join("y/report.md")).unwrap();
    let good = env.join("good.md.j2").display().to_string();
    assert!(
        md.starts_with(&format!(
            "> **Rendered with the template `{}`, not pledge's built-in one.** Its wording is the author's; `pledge verify --report` reports it.\n\nhotpotqa-100-agents 100\n\n---\n",
            good
        )),
        "{}",
        md
    );
    let stamp = pledge::report::stamp::Stamp::find(&md).unwrap().unwrap();
    assert_eq!(
        (stamp.template.as_str(), stamp.report_dir.as_str()),
        (good.as_str(), "y")
    );
    assert_eq!(stamp.study, "hotpotqa-100-agents");
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
    assert!(md.contains("| Ledger verification | **FAILED with "), "{}", md);
}

/// An amendment after results were declared seen that declares `nothing-run` again: the
/// report says it was made after results were seen, that the level was lowered (by which entry),
/// what the amendment changed, and the history's later analysis names the amendment.
#[test]
fn an_amendment_lowering_the_declared_access_is_disclosed_in_the_report() {
    let (env, _) = demo();
    let dir = env.join("demo");
    let d = dir.to_str().unwrap();
    let r = env.run(&[
        "-C",
        d,
        "note",
        "--study",
        "hotpotqa-100-agents",
        "--access",
        "results-seen",
        "--reason",
        "looked at the scores",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let path = dir.join("protocols/hotpotqa.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("mde = 0.15", "mde = 0.10", 1)).unwrap();
    let r = env.run(&[
        "-C",
        d,
        "amend",
        "protocols/hotpotqa.toml",
        "--access",
        "nothing-run",
        "--reason",
        "a tighter target",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["-C", d, "report", "--out", "lowered"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = std::fs::read_to_string(dir.join("lowered/report.md")).unwrap();
    let head = &md[..md.find("| registration | record |").unwrap()];
    assert!(
        head.contains("of the whole ledger): \\#5 (2026-11-30T12:00:00Z), results-seen declared by entry #3.\n"),
        "{}",
        head
    );
    assert!(head.contains("**Declared data access lowered.**"), "{}", head);
    assert!(
        head.contains("entry #5 (amend, 2026-11-30T12:00:00Z) declared data access \"nothing-run\" after \"results-seen\" was declared"),
        "{}",
        head
    );
    assert!(
        md.contains("| #5 | 2026-11-30T12:00:00Z | amend | a tighter target | target.mde: 0.15 → 0.1; declared data access: results-seen → nothing-run (lowered) |"),
        "{}",
        md
    );
    // The count was made under the registration; the amended target would require more.
    assert!(
        md.contains("Stop rule decision: **go — 100 counted ≥ 73 required**.\n\n**Counted under an earlier protocol.** The count above (entry #2) was made under entry #1's protocol; the registration in force (entry #5) counts otherwise: target.mde: 0.15 → 0.1. The study was not counted again under it, so the decision above is not the amended protocol's.\n"),
        "{}",
        md
    );
    // The protocol shown is the amended one, and says so; the analysis ran under the
    // registered target, and the Power section says which.
    assert!(
        md.contains("(as amended by entry #5; the registration, entry #1, had SHA-256 `"),
        "{}",
        md
    );
    assert!(
        md.contains("| Registered minimum detectable difference | 0.1000 |"),
        "{}",
        md
    );
    assert!(
        md.contains("| Power target of the analysis | the analysis (entry #3) ran under entry #1's protocol: minimum detectable difference 0.1500; α, power, sides 0.05, 0.8, two-sided; assumed SD 0.4500 |"),
        "{}",
        md
    );
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

/// A study whose system names, title, author and description hold Markdown syntax (`|`, `*`,
/// `_`, `<`, backticks, a leading `#` and `-`), analyzed and reported with `--html` and
/// `--latex`, under umask 022.
fn awkward_names() -> (Env, crate::common::Run) {
    let env = Env::init();
    env.write(
        "p.toml",
        r#"schema-version = 2

[study]
id = "esc"
title = "Names *with* | pipes"
registered-by = "a <b> & `c`"
description = """
# not a heading
- not a list
"""

[target]
metric = "accuracy"
mde = 0.15
sd = 0.45

[scores]
layout = "wide"

[analysis]
seed = 7
trials = 200
randomization-trials = 200
"#,
    );
    // 30 topics; per-topic correctness made by a fixed pattern.
    let mut csv = String::from("topic,sys|a,*b_c*,<base>\n");
    for i in 0..30 {
        csv.push_str(&format!("q{},{},{},{}\n", i, i % 2, (i / 2) % 2, (i % 3 == 0) as u8));
    }
    env.write("s.csv", csv);
    assert_eq!(env.run(&["register", "p.toml"]).code, 0);
    let a = env.run(&["analyze", "p.toml", "--scores", "s.csv"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let r = env.run_umask("022", &["report", "--html", "report.html", "--latex", "results.tex"]);
    (env, r)
}

/// Every table of a Markdown text, parsed back with pulldown-cmark (GitHub's table extension):
/// for each table its header cells and its rows of cells, as plain text.
fn tables(md: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out = Vec::new();
    let mut head: Vec<String> = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    let mut columns = 0;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Table(align)) => {
                columns = align.len();
                head.clear();
                rows.clear();
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => row.push(cell.take().unwrap()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::TableHead) => head = std::mem::take(&mut row),
            Event::End(TagEnd::TableRow) => rows.push(std::mem::take(&mut row)),
            Event::End(TagEnd::Table) => {
                assert_eq!(head.len(), columns, "header of {:?}", head);
                out.push((head.clone(), rows.clone()));
            }
            _ => {}
        }
    }
    out
}

/// Parses the Markdown back and checks every table: at most six columns, a header whose every
/// cell has text, and
/// every row as many cells as the header (GitHub drops the cells past the header's count, so a
/// stray `|` in a name would silently lose a column; the cell texts below catch that too).
pub(crate) fn assert_tables_whole(md: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let t = tables(md);
    assert!(!t.is_empty());
    for (head, rows) in &t {
        // At most six columns: GitHub's column fits them (the comparison table is split in two).
        assert!(head.len() <= 6, "{} columns: {:?}", head.len(), head);
        assert!(
            head.iter().all(|h| !h.trim().is_empty()),
            "empty header cell: {:?}",
            head
        );
        for r in rows {
            assert_eq!(r.len(), head.len(), "row {:?} under {:?}", r, head);
        }
    }
    t
}

#[test]
fn markdown_tables_parse_back_with_their_columns() {
    let (_env, md) = demo();
    assert_tables_whole(&md);
    let (_env, r) = awkward_names();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = std::fs::read_to_string(_env.join("report/report.md")).unwrap();
    let t = assert_tables_whole(&md);
    let (_, systems) = t.iter().find(|(h, _)| h[0] == "system").unwrap();
    let names: Vec<&str> = systems.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["sys|a", "*b_c*", "<base>"]);
    assert!(systems.iter().all(|r| r[3] == "—"), "{:?}", systems);
    let (_, cmp) = t
        .iter()
        .find(|(h, _)| h[0] == "comparison" && h[1] == "t-test p")
        .unwrap();
    assert_eq!(cmp[0][0], "sys|a − *b_c*");
    let (_, reg) = t.iter().find(|(h, _)| h[0] == "registration").unwrap();
    assert_eq!(reg[0], ["Study", "esc"]);
    assert_eq!(
        reg[1],
        [
            "Registered by",
            "a <b> & `c` (declared in the protocol, not proven by it; the registration commit is unsigned, so nothing proves who wrote it)"
        ]
    );
    // The title stays one heading's text and the description plain paragraphs.
    use pulldown_cmark::{Event, Parser, Tag};
    let headings = Parser::new(&md)
        .filter(|e| matches!(e, Event::Start(Tag::Heading { .. })))
        .count();
    assert_eq!(headings, md.lines().filter(|l| l.starts_with('#')).count());
    assert!(md.starts_with("# Names \\*with\\* \\| pipes\n"), "{}", md);
    // No name became a link or raw HTML: the only HTML is the stamp's comment.
    assert!(!Parser::new(&md).any(|e| match e {
        Event::Start(Tag::Link { .. }) | Event::InlineHtml(_) => true,
        Event::Html(h) => !h.starts_with("<!-- pledge-report {"),
        _ => false,
    }));
    assert!(md.contains("\n\\# not a heading\n\\- not a list\n"), "{}", md);
}

#[test]
fn html_and_latex_come_from_the_same_report() {
    let (env, r) = awkward_names();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[1].ends_with("report.html") && lines[2].ends_with("results.tex"));
    let html = std::fs::read_to_string(env.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>Names *with* | pipes</title>"), "{}", html);
    assert!(html.contains("<td>sys|a</td>") && html.contains("<td>&lt;base&gt;</td>"));
    // Self-contained: the three bootstrap pictures are inlined, nothing is linked.
    assert_eq!(html.matches("<svg role=\"img\"").count(), 3);
    assert!(!html.contains("src=") && !html.contains("<script"), "{}", html);
    let tex = std::fs::read_to_string(env.join("results.tex")).unwrap();
    assert!(tex.contains("\\begin{tabular}{lrrr}"), "{}", tex);
    assert!(tex.contains("\nsys\\textbar{}a & 0.5000 & 30 & --- \\\\\n"), "{}", tex);
    assert!(
        tex.contains("\n*b\\_c* $-$ \\textless{}base\\textgreater{} & "),
        "{}",
        tex
    );
    assert_eq!(
        tex.matches("\\begin{tabular}").count(),
        tex.matches("\\end{tabular}").count()
    );
    // --format json writes no file, so the file flags are refused there.
    let j = env.run(&["report", "--format", "json", "--html", "x.html"]);
    assert_eq!(j.code, 2, "{}", j.stderr);
    assert!(!env.join("x.html").exists());
}

/// Files pledge writes get the user's umask (0644 under umask 022), not a temporary file's 0600.
#[test]
fn written_files_honour_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let (env, r) = awkward_names();
    assert_eq!(r.code, 0, "{}", r.stderr);
    for f in [
        "report/report.md",
        "report/bootstrap-1-sys_a.svg",
        "report.html",
        "results.tex",
    ] {
        let mode = std::fs::metadata(env.join(f)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{}: {:o}", f, mode);
    }
}

/// `--html DIR/x.html` into a directory that does not exist yet creates it (as the report
/// directory is); a path that cannot be a directory fails before anything is written, naming
/// the path given (never a temporary file).
#[test]
fn html_into_a_new_directory_and_a_blocked_path() {
    let (env, _) = demo();
    let d = env.join("demo");
    let d = d.to_str().unwrap();
    std::fs::remove_dir_all(env.join("demo/report")).unwrap();
    let r = env.run(&["-C", d, "report", "--html", "site/x.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read_to_string(env.join("demo/site/x.html"))
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    assert!(env.join("demo/report/report.md").exists());
    // A file where the directory should be.
    std::fs::remove_dir_all(env.join("demo/report")).unwrap();
    env.write("demo/blocker", "x");
    let r = env.run(&["-C", d, "report", "--html", "blocker/x.html"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "error: creating the directory {}\nCaused by: File exists (os error 17)\n",
            env.join("demo/blocker").display()
        )
    );
    assert!(!env.join("demo/report").exists(), "nothing is written before the check");
}
