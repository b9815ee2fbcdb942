//! The one place where a test learns whether an outside tool it needs (openssl, ssh-keygen,
//! git, python3, pre-commit) is there. Shared by the CLI tests and the unit tests in `src/`
//! (`crate::test_tools`, the same file).
//!
//! On a developer's machine a missing tool skips the test with a `skipped:` line on stderr. Under
//! `CI=true` (as `.ci/run` runs) it fails the test instead: CI installs every tool, so a missing
//! one means a test would pass without testing anything.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Whether this run is CI (`CI=true` or `CI=1`, as CI services and `.ci/run` set it).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The test cannot run because `what` is missing: under CI this fails the test (a panic naming
/// what is missing); elsewhere it prints `skipped: {what} is not available ({why})`. The caller
/// returns early after it.
pub fn unavailable(what: &str, why: &str) {
    if under_ci() {
        panic!("{what} is required under CI=true but is not available ({why}): install it (.ci/run does)");
    }
    eprintln!("skipped: {what} is not available ({why})");
}

/// Whether `tool ARGS` runs and `accept` takes its output; when not, [`unavailable`] (which fails
/// the test under CI).
pub fn available_with(tool: &str, args: &[&str], accept: impl Fn(&Output) -> bool) -> bool {
    let out = Command::new(tool).args(args).output();
    let why = match &out {
        Err(e) => format!("running `{tool}`: {e}"),
        Ok(o) if accept(o) => return true,
        Ok(o) => format!(
            "`{tool} {}` exited with {}: {}",
            args.join(" "),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ),
    };
    unavailable(tool, &why);
    false
}

/// Whether `tool ARGS` runs and exits 0 (e.g. `openssl version`); when not, [`unavailable`].
pub fn available(tool: &str, args: &[&str]) -> bool {
    available_with(tool, args, |o| o.status.success())
}
