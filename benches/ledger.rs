//! Ledger benchmark: appending entries, verifying the chain, exporting and verifying the export.
//! Runs on a scratch repository (no shared data needed). `cargo bench --bench ledger`.
//!
//! With `PLEDGE_BENCH_REPO=DIR` it only builds a ledger of `PLEDGE_BENCH_ENTRIES` notes (as
//! `pledge note --reason "entry I"` writes them) in a new repository at `DIR` and keeps it, for
//! `benches/ledger_walk.sh` to time whole `pledge log`/`verify`/`export` processes on.

use chrono::TimeZone;
use pledge::ledger::{self, Draft, EntryKind, Ledger};
use std::time::Instant;

fn main() {
    let n: usize = std::env::var("PLEDGE_BENCH_ENTRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    if let Some(repo) = std::env::var_os("PLEDGE_BENCH_REPO") {
        build_notes(std::path::Path::new(&repo), n);
        return;
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            println!("ledger bench: no temporary directory ({}); skipped", e);
            return;
        }
    };
    let (l, _) = match Ledger::init(dir.path()) {
        Ok(x) => x,
        Err(e) => {
            println!("ledger bench: {}; skipped", e);
            return;
        }
    };
    let now = chrono::Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
    let t = Instant::now();
    for i in 0..n {
        let d = Draft {
            kind: Some(EntryKind::Analyze),
            study_id: format!("s{}", i % 7),
            summary: serde_json::json!({"i": i}),
            result: Some(serde_json::json!({"scores": (0..50).map(|k| k as f64 / 7.0).collect::<Vec<_>>()})),
            ..Default::default()
        };
        l.append(&d, now).expect("append");
    }
    let append = t.elapsed();
    let t = Instant::now();
    let rep = ledger::verify_ledger(&l, None).expect("verify");
    let verify = t.elapsed();
    assert!(rep.ok && rep.entries == n);
    let t = Instant::now();
    let file = dir.path().join("ledger.jsonl");
    ledger::export_to(&l, &file).expect("export");
    let export = t.elapsed();
    let t = Instant::now();
    let input = pledge::input::Input::from_path(&file, pledge::input::Limits::default()).expect("read export");
    let off = ledger::verify_export(&input, None, false).expect("verify export");
    let offline = t.elapsed();
    assert!(off.ok);
    println!("ledger bench, {} entries (each with a 50-number result.json):", n);
    println!(
        "  append   {:>8.1} ms total, {:.3} ms/entry",
        ms(append),
        ms(append) / n as f64
    );
    println!("  verify   {:>8.1} ms", ms(verify));
    println!("  export   {:>8.1} ms", ms(export));
    println!("  verify --ledger {:>8.1} ms", ms(offline));
}

/// `n` notes on the whole ledger, in a new repository at `dir`, all dated 2026-11-30T12:00:00Z.
fn build_notes(dir: &std::path::Path, n: usize) {
    std::fs::create_dir_all(dir).expect("creating the repository directory");
    let (l, created) = Ledger::init(dir).expect("creating the repository");
    assert!(
        created && l.tip().expect("reading the ledger ref").is_none(),
        "{} already holds a repository",
        dir.display()
    );
    let now = chrono::Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
    let t = Instant::now();
    for i in 1..=n {
        pledge::ops::note::note(&l, "", None, &format!("entry {}", i), false, now).expect("note");
    }
    println!(
        "ledger bench: {} notes written to {} in {:.1} s",
        n,
        dir.display(),
        t.elapsed().as_secs_f64()
    );
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
