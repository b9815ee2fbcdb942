//! The clock of appends and appends killed mid-way: the entry time is read after the ledger's
//! lock is taken, so parallel writers never lose an entry to it; a clock a little behind is
//! reconciled, one far behind or far ahead refused (exit 2, nothing written); an entry already
//! dated ahead is passed with a recorded, disclosed clock correction; an append killed at each
//! of its steps loses no entry and leaves no lock.

use crate::common::{pledge_cmd, Env, Run};
use pledge::ledger::{AppendStep, Draft, EntryKind, Ledger};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The system clock (an empty `PLEDGE_NOW`), as a real user runs pledge.
const SYSTEM_CLOCK: (&str, &str) = ("PLEDGE_NOW", "");

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{}: {}", e, s))
}

fn ok(r: &Run) {
    assert_eq!(r.code, 0, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
}

/// The ledger's entries, as `pledge log --format json` lists them.
fn entries(e: &Env) -> Vec<serde_json::Value> {
    let r = e.run(&["log", "--format", "json"]);
    ok(&r);
    json(&r.stdout).as_array().unwrap().clone()
}

/// `pledge verify --format json` passes; returns the report.
fn verified(e: &Env) -> serde_json::Value {
    let r = e.run(&["verify", "--format", "json"]);
    ok(&r);
    json(&r.stdout)
}

fn tip(e: &Env) -> String {
    e.git(&["rev-parse", "refs/pledge/ledger"]).stdout.trim().to_string()
}

/// 32 `pledge note` processes at once, `clock(i)` the `PLEDGE_NOW` of the i-th: every one
/// must succeed.
fn parallel_notes(e: &Env, round: usize, clock: impl Fn(usize) -> &'static str) {
    let children: Vec<_> = (0..32)
        .map(|i| {
            let mut c = pledge_cmd();
            c.args(["note", "--reason", &format!("round {} writer {}", round, i)])
                .current_dir(e.path())
                .env("PLEDGE_NOW", clock(i))
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "round {} writer {}: {}",
            round,
            i,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// 3 rounds of 32 parallel appenders land all 96 entries, numbered 1..96 in a chain that
/// verifies: one round under fixed clocks a minute apart (half the writers a minute behind the
/// others, reconciled), two under the system clock, each writer reading it after the lock.
#[test]
fn thirty_two_parallel_appenders_three_times_lose_no_entry() {
    let e = Env::init();
    parallel_notes(&e, 1, |i| {
        if i % 2 == 0 {
            "2026-11-30T12:00:00Z"
        } else {
            "2026-11-30T11:59:00Z"
        }
    });
    parallel_notes(&e, 2, |_| "");
    parallel_notes(&e, 3, |_| "");
    let all = entries(&e);
    assert_eq!(all.len(), 96);
    let seqs: Vec<u64> = all.iter().map(|x| x["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=96).collect::<Vec<u64>>());
    // In the first round, once a writer at 12:00 landed, the writers a minute behind were dated
    // at its time: no entry after it is dated 11:59.
    let first: Vec<&str> = all[..32].iter().map(|x| x["time"].as_str().unwrap()).collect();
    let noon = first.iter().position(|t| *t == "2026-11-30T12:00:00Z").unwrap();
    assert!(
        first[..noon].iter().all(|t| *t == "2026-11-30T11:59:00Z"),
        "{:?}",
        first
    );
    assert!(
        first[noon..].iter().all(|t| *t == "2026-11-30T12:00:00Z"),
        "{:?}",
        first
    );
    let v = verified(&e);
    assert_eq!(v["entries"], 96);
}

/// A clock behind the ledger's last entry by at most two minutes is reconciled: the entry is
/// dated at the last entry's time and a note says so. Further behind is refused (exit 2, by how
/// much), and nothing is written.
#[test]
fn a_clock_a_little_behind_is_reconciled_and_one_further_behind_refused() {
    let e = Env::init();
    ok(&e.run(&["note", "--reason", "first"]));
    let r = e.run_env(
        &["note", "--reason", "second", "--format", "json"],
        &[("PLEDGE_NOW", "2026-11-30T11:58:00Z")],
    );
    ok(&r);
    assert_eq!(json(&r.stdout)["time"], "2026-11-30T12:00:00Z");
    assert_eq!(
        r.stderr,
        "note: the clock (2026-11-30T11:58:00Z) is 2 min 0 s behind the ledger's last entry #1 (2026-11-30T12:00:00Z): the new entries are dated at its time (clocks may differ by up to 2 min 0 s)\n"
    );
    let before = tip(&e);
    let r = e.run_env(
        &["note", "--reason", "third"],
        &[("PLEDGE_NOW", "2026-11-30T11:57:59Z")],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: the clock says 2026-11-30T11:57:59Z, 2 min 1 s before the ledger's last entry #2 (2026-11-30T12:00:00Z): an entry dated earlier would break the order of times\n\
         hint: check the system clock, or PLEDGE_NOW if you set it\n"
    );
    assert_eq!(tip(&e), before);
    verified(&e);
}

/// A clock far ahead of the system clock (a typo in `PLEDGE_NOW`) is refused before anything is
/// recorded: the ledger is not blocked until then.
#[test]
fn a_clock_far_ahead_is_refused_not_recorded() {
    let e = Env::init();
    ok(&e.run(&["note", "--reason", "first"]));
    let before = tip(&e);
    let r = e.run_env(&["note", "--reason", "typo"], &[("PLEDGE_NOW", "2062-11-30T12:00:00Z")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with("error: the clock says 2062-11-30T12:00:00Z, "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(" after the system clock (2")
            && r.stderr.contains(
                "an entry dated ahead would block every later append until then, so nothing was written\n\
             hint: check PLEDGE_NOW (it may be at most 2 min 0 s after the system clock), or unset it\n"
            ),
        "{}",
        r.stderr
    );
    assert_eq!(tip(&e), before);
    // The register of a study is refused the same way.
    e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    let r = e.run_env(&["register", "p.toml"], &[("PLEDGE_NOW", "2062-11-30T12:00:00Z")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(tip(&e), before);
    ok(&e.run_env(&["note", "--reason", "now"], &[SYSTEM_CLOCK]));
    verified(&e);
}

/// A ledger that already holds an entry dated far ahead (written by an older pledge, or on a
/// machine whose clock was wrong) blocks appends with an error naming both times and the way
/// out; `note --correct-clock` records a correction dated by the system clock, which `verify`
/// discloses (a note, not `time-decreased`), and appends go on.
#[test]
fn an_entry_dated_ahead_is_passed_with_a_disclosed_clock_correction() {
    let e = Env::init();
    ok(&e.run(&["note", "--reason", "first"]));
    {
        // The library without a system clock dates an entry as its caller says.
        let l = Ledger::open(e.path()).unwrap();
        let ahead = chrono::DateTime::parse_from_rfc3339("2062-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let d = Draft {
            kind: Some(EntryKind::Note),
            reason: Some("dated ahead".into()),
            ..Default::default()
        };
        l.append(&d, ahead).unwrap();
    }
    let before = tip(&e);
    let r = e.run_env(&["note", "--reason", "blocked"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("error: the ledger's last entry #2 is dated 2062-01-01T00:00:00Z, "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "either it was dated ahead, or this clock is behind\n\
             hint: if this clock is right, record a clock correction (disclosed by verify and the report), then go on: pledge note --correct-clock --reason \"WHY #N was dated ahead\"; otherwise set this clock right\n"
        ),
        "{}",
        r.stderr
    );
    // A correction is dated by the system clock, never by PLEDGE_NOW.
    let r = e.run(&["note", "--correct-clock", "--reason", "typo"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("unset PLEDGE_NOW to record one"), "{}", r.stderr);
    assert_eq!(tip(&e), before);
    let r = e.run_env(
        &[
            "note",
            "--correct-clock",
            "--reason",
            "#2 was dated 2062 by a typo",
            "--format",
            "json",
        ],
        &[SYSTEM_CLOCK],
    );
    ok(&r);
    let corrected = json(&r.stdout);
    assert_eq!(corrected["clock"], "corrected");
    assert_eq!(corrected["seq"], 3);
    assert!(
        r.stderr
            .starts_with("note: clock corrected: the ledger's last entry #2 is dated 2062-01-01T00:00:00Z, "),
        "{}",
        r.stderr
    );
    let v = verified(&e);
    let note = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["code"] == "clock-corrected")
        .unwrap_or_else(|| panic!("{}", v));
    assert_eq!(note["seq"], 3);
    let msg = note["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "entry #3 corrects the clock: it is dated {}, ",
            corrected["time"].as_str().unwrap()
        )) && msg.ends_with(
            " before #2 (2062-01-01T00:00:00Z), which was dated ahead of the clock; reason: #2 was dated 2062 by a typo"
        ),
        "{}",
        msg
    );
    // Appends go on; a second correction has nothing to correct.
    ok(&e.run_env(&["note", "--reason", "after"], &[SYSTEM_CLOCK]));
    let r = e.run_env(&["note", "--correct-clock", "--reason", "again"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("there is no clock to correct"), "{}", r.stderr);
    assert_eq!(entries(&e).len(), 4);
    verified(&e);
}

/// Set for the child process of `an_append_killed_at_each_step_loses_no_entry_and_leaves_no_lock`:
/// the repository, and the step at which it stops to be killed.
const CHILD_DIR: &str = "PLEDGE_TEST_KILLED_APPEND_DIR";
const CHILD_STEP: &str = "PLEDGE_TEST_KILLED_APPEND_STEP";

/// At the step named by [`CHILD_STEP`]: says so (a `ready` file beside the repository) and
/// waits to be killed.
fn stop_at(step: AppendStep) {
    let want = std::env::var(CHILD_STEP).unwrap_or_default();
    if format!("{:?}", step) == want {
        let dir = std::env::var(CHILD_DIR).unwrap();
        std::fs::write(Path::new(&dir).join("ready"), b"").unwrap();
        std::thread::sleep(Duration::from_secs(60));
        panic!("the parent did not kill this child within 60 s");
    }
}

/// Not a test on its own: the body of the child process of
/// `an_append_killed_at_each_step_loses_no_entry_and_leaves_no_lock`, which re-runs this test
/// binary with [`CHILD_DIR`] set. It appends a note, stopping at the step [`CHILD_STEP`] names.
#[test]
fn killed_append_child() {
    let Ok(dir) = std::env::var(CHILD_DIR) else { return };
    let mut l = Ledger::open(Path::new(&dir)).unwrap();
    l.set_step_hook(Some(stop_at));
    let now = chrono::DateTime::parse_from_rfc3339(crate::common::NOW)
        .unwrap()
        .to_utc();
    let d = Draft {
        kind: Some(EntryKind::Note),
        reason: Some("killed".into()),
        ..Default::default()
    };
    l.append(&d, now).unwrap();
}

/// An append killed (SIGKILL) before its objects are written, after they are written but before
/// the ledger ref moves, and after the ref moved but before its caches are updated: no entry
/// that landed is lost (the killed one lands only in the last case), no lock is left (the next
/// append goes through at once), and the ledger verifies.
#[test]
fn an_append_killed_at_each_step_loses_no_entry_and_leaves_no_lock() {
    for (step, lands) in [("Drafted", false), ("Written", false), ("Moved", true)] {
        let e = Env::init();
        ok(&e.run(&["note", "--reason", "one"]));
        ok(&e.run(&["note", "--reason", "two"]));
        let before = tip(&e);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "clock::killed_append_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, e.path())
            .env(CHILD_STEP, step)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !e.join("ready").exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{}: the child never got there",
                step
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let n = entries(&e).len();
        assert_eq!((n, tip(&e) != before), (if lands { 3 } else { 2 }, lands), "{}", step);
        let start = Instant::now();
        ok(&e.run(&["note", "--reason", "after the kill"]));
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{}: the next append waited for a lock",
            step
        );
        assert_eq!(entries(&e).len(), n + 1, "{}", step);
        verified(&e);
    }
}
