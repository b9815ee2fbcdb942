//! The pre-commit hook (`.pre-commit-hooks.yaml`) run by `pre-commit` itself on a repository
//! with a `pyproject.toml` beside its protocols: a passing commit lists every protocol checked,
//! `pyproject.toml` is never passed to `pledge verify`, and an edited protocol fails the commit;
//! the report hook passes a committed report and fails a hand-edited one.
//! The hook's `language` is set to `system` in the test's config so that pre-commit runs the
//! `pledge` just built instead of building one (its install is `pip install` of the repository).

use crate::common::{Env, NOW};
use std::path::Path;
use std::process::{Command, Output};

/// Runs `program ARGS` in `dir` with pledge's build directory first on PATH, pre-commit's cache
/// in `home`, and a hermetic git.
fn run(dir: &Path, home: &Path, program: &str, args: &[&str]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_pledge")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env("PLEDGE_NOW", NOW)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.org")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.org")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {}", program, e))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(o: Output) -> String {
    assert!(o.status.success(), "{}", text(&o));
    text(&o)
}

#[test]
fn the_pre_commit_hook_checks_protocols_only_and_fails_an_edited_one() {
    if !crate::tools::available("pre-commit", &["--version"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    // The hook repository: this repository's hook definitions, committed.
    let hooks = tempfile::tempdir().unwrap();
    let h = hooks.path();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        h.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    ok(run(h, home.path(), "git", &["init", "-q"]));
    ok(run(h, home.path(), "git", &["add", "."]));
    ok(run(h, home.path(), "git", &["commit", "-qm", "hooks"]));
    let rev = ok(run(h, home.path(), "git", &["rev-parse", "HEAD"]));
    // A study repository: two registered protocols and a pyproject.toml.
    let env = Env::init();
    let w = env.path();
    env.copy_from_repo("protocols/statutes-kr.toml", "protocols/kr.toml");
    env.copy_from_repo("protocols/hotpotqa.toml", "protocols/hotpotqa.toml");
    for p in ["protocols/kr.toml", "protocols/hotpotqa.toml"] {
        let r = env.run(&["register", p]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    env.write(
        "pyproject.toml",
        "[project]\nname = \"my-benchmark\"\nversion = \"1.0\"\n",
    );
    env.write(
        ".pre-commit-config.yaml",
        format!(
            "repos:\n  - repo: {}\n    rev: {}\n    hooks:\n      - id: pledge-verify\n        language: system\n        verbose: true\n",
            h.display(),
            rev.trim()
        ),
    );
    ok(run(w, home.path(), "pre-commit", &["install"]));
    ok(run(w, home.path(), "git", &["add", "-A"]));
    let first = ok(run(w, home.path(), "git", &["commit", "-qm", "protocols"]));
    assert!(first.contains("pledge verify") && first.contains("Passed"), "{}", first);
    for p in ["protocols/kr.toml", "protocols/hotpotqa.toml"] {
        let line = format!("protocol  {}: matches the registration of study", w.join(p).display());
        assert!(first.contains(&line), "{} not listed: {}", p, first);
    }
    assert!(!first.contains("pyproject"), "pyproject.toml was passed: {}", first);
    // A registered protocol edited without `pledge amend`: the commit fails, naming it.
    let kr = std::fs::read_to_string(w.join("protocols/kr.toml")).unwrap();
    let edited = kr.replacen("mde = 0.03", "mde = 0.05", 1);
    assert_ne!(edited, kr);
    std::fs::write(w.join("protocols/kr.toml"), edited).unwrap();
    std::fs::write(
        w.join("pyproject.toml"),
        "[project]\nname = \"my-benchmark\"\nversion = \"1.1\"\n",
    )
    .unwrap();
    ok(run(w, home.path(), "git", &["add", "-A"]));
    let second = run(w, home.path(), "git", &["commit", "-qm", "edit"]);
    let out = text(&second);
    assert!(!second.status.success(), "the edit was committed: {}", out);
    assert!(out.contains("Failed") && out.contains("exit code: 1"), "{}", out);
    assert!(
        out.contains(&format!(
            "protocol  {}: CHANGED since the registration of study",
            w.join("protocols/kr.toml").display()
        )),
        "{}",
        out
    );
    assert!(!out.contains("pyproject"), "pyproject.toml was passed: {}", out);
    let commits = ok(run(w, home.path(), "git", &["rev-list", "--count", "HEAD"]));
    assert_eq!(commits.trim(), "1");
}

/// The hook repository for the tests: this repository's hook definitions, committed; returns it
/// and its commit.
fn hook_repo(home: &Path) -> (tempfile::TempDir, String) {
    let hooks = tempfile::tempdir().unwrap();
    let h = hooks.path();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        h.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    ok(run(h, home, "git", &["init", "-q"]));
    ok(run(h, home, "git", &["add", "."]));
    ok(run(h, home, "git", &["commit", "-qm", "hooks"]));
    let rev = ok(run(h, home, "git", &["rev-parse", "HEAD"])).trim().to_string();
    (hooks, rev)
}

#[test]
fn the_report_hook_passes_a_committed_report_and_fails_an_edited_one() {
    if !crate::tools::available("pre-commit", &["--version"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let (hooks, rev) = hook_repo(home.path());
    // The demo: a study with its report written to report/.
    let env = Env::new();
    assert_eq!(env.run(&["demo", "demo"]).code, 0);
    let w = env.join("demo");
    assert!(w.join("report/report.md").exists());
    std::fs::write(
        w.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {}\n    hooks:\n      - id: pledge-verify-report\n        language: system\n        verbose: true\n",
            hooks.path().display(),
            rev
        ),
    )
    .unwrap();
    ok(run(&w, home.path(), "pre-commit", &["install"]));
    ok(run(&w, home.path(), "git", &["add", "-A"]));
    ok(run(&w, home.path(), "git", &["commit", "-qm", "hooks"]));
    // The demo committed its report: the hook run over the repository's files passes.
    let first = ok(run(
        &w,
        home.path(),
        "pre-commit",
        &["run", "pledge-verify-report", "--all-files"],
    ));
    assert!(
        first.contains("pledge verify --report") && first.contains("Passed"),
        "{}",
        first
    );
    assert!(first.contains("report-matches"), "{}", first);
    // The verdict edited by hand: the commit fails with the finding.
    let md = std::fs::read_to_string(w.join("report/report.md")).unwrap();
    let edited = md.replacen("**supported**", "**strongly supported**", 1);
    assert_ne!(edited, md);
    std::fs::write(w.join("report/report.md"), edited).unwrap();
    ok(run(&w, home.path(), "git", &["add", "-A"]));
    let second = run(&w, home.path(), "git", &["commit", "-qm", "edit"]);
    let out = text(&second);
    assert!(!second.status.success(), "the edit was committed: {}", out);
    assert!(out.contains("Failed") && out.contains("exit code: 1"), "{}", out);
    assert!(out.contains("report-edited"), "{}", out);
}
