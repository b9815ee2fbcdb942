//! The README's tour, run as written: the demo's numbers the README quotes, then the own-study
//! block and the reviewer's block pasted into `sh` one after the other, as a newcomer would. A
//! README edit that breaks a command, or a command that starts warning (an input left
//! uncommitted), fails here.

use crate::common::Env;
use std::path::Path;

/// The README's text.
fn readme() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&p).expect("README.md")
}

/// The bodies of the ```sh blocks between the heading line starting with `heading` and the next
/// heading of any level, in order.
fn sh_blocks(md: &str, heading: &str) -> Vec<String> {
    let start = md
        .lines()
        .position(|l| l.starts_with(heading))
        .unwrap_or_else(|| panic!("README has no heading `{}`", heading));
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in md.lines().skip(start + 1) {
        match (&mut current, line) {
            (None, l) if l.starts_with('#') => break,
            (None, "```sh") => current = Some(String::new()),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn readme_demo_numbers_are_the_reports() {
    let env = Env::new();
    let r = env.sh(".", "pledge demo");
    assert_eq!(r.code, 0, "pledge demo:\n{}", r.stderr);
    // The demo runs the README's block 1: nothing in it warns (the component file it writes is
    // committed by the next step, and `components` says so in a note).
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("warning:"))
        .collect();
    assert!(warnings.is_empty(), "the demo warned:\n{}", warnings.join("\n"));
    assert!(
        r.stderr
            .contains("note: commit the component file before analyze reads it"),
        "{}",
        r.stderr
    );
    let report = std::fs::read_to_string(env.join("pledge-demo/report/report.md")).unwrap();
    // "The 100 questions form 100 components, more than the 73 the registered target needs, so the
    // stop rule says go"
    assert!(
        report.contains("Stop rule decision: **go — 100 counted ≥ 73 required**"),
        "{}",
        report
    );
    // "supported (0.68 against 0.57, paired 95% interval [0.03, 0.19], reversal rate 0.3%)"
    assert!(
        report.contains("cot_context_gpt-3.5-tur… 0.5700, cot_context_gpt-4 0.6800"),
        "{}",
        report
    );
    assert!(
        report.contains(": **supported** at α = 0.05: difference +0.1100 [+0.0300, +0.1900]"),
        "{}",
        report
    );
    assert!(report.contains("reversal rate 0.3%"), "{}", report);
    let md = readme();
    for quoted in [
        "100 components, more than the 73",
        "supported** (0.68 against 0.57",
        "[0.03, 0.19], reversal rate 0.3%",
    ] {
        assert!(
            md.replace('\n', " ").contains(quoted),
            "the README no longer says `{}`",
            quoted
        );
    }
}

#[test]
fn readme_own_study_and_reviewer_blocks_run_as_written_without_warnings() {
    let md = readme();
    let own = sh_blocks(&md, "### 2.");
    let reviewer = sh_blocks(&md, "### 3.");
    assert_eq!(
        (own.len(), reviewer.len()),
        (1, 2),
        "the README's section 2 or 3 changed shape"
    );
    assert!(reviewer[1].contains("--expect-tip TIP"), "{}", reviewer[1]);
    let env = Env::new();
    assert_eq!(env.sh(".", "pledge demo").code, 0);
    let script = format!(
        "set -e\n{}{}TIP=$(git rev-parse refs/pledge/ledger)\n{}",
        own[0],
        reviewer[0],
        reviewer[1].replace("--expect-tip TIP", "--expect-tip \"$TIP\"")
    );
    let r = env.sh(".", &script);
    assert_eq!(r.code, 0, "the README's blocks:\n{}\n{}", r.stdout, r.stderr);
    // The reviewer's verify, in the clone, ends with the summary the README describes.
    assert!(r.stdout.contains("OK: the ledger verifies"), "{}", r.stdout);
    assert!(
        r.stdout.contains("since        0 amendments, 0 deviations, 1 analysis"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("rerun-matches"), "{}", r.stdout);
    // Nothing pledge prints on the way asks the newcomer to fix anything.
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert!(warnings.is_empty(), "pledge warned:\n{}", warnings.join("\n"));
    let report = std::fs::read_to_string(env.join("my-study/report/report.md")).unwrap();
    assert!(report.contains("**supported**"), "{}", report);
}
