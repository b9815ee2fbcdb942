//! Benchmark: `pledge components` stages on the statute corpus (../shared/data/statutes-kr), and
//! the sensitivity sweep (one join at the lowest threshold, one pass over the pairs) against 5
//! separate full counts at the sweep's thresholds.
//! Run: `cargo bench --bench components`. Prints a plain message and exits 0 when the data is absent.
//! Each stage line ends with the process's peak resident memory so far (Linux `VmHWM`). For the
//! whole command's wall time and peak memory use `/usr/bin/time -v target/release/pledge
//! components protocols/statutes-kr.toml --passages … --questions … --dry-run`.

use pledge::components::sensitivity::{sweep, SensitivitySpec};
use pledge::components::{self, read, shingle, NoProgress};
use pledge::protocol::Normalization;
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

/// CPU seconds (user + system) of this process so far, from `/proc/self/stat`, if readable.
fn cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Wall time, CPU time and memory of a stage: `wall, cpu, peak so far, resident now`.
struct Stage(Instant, Option<f64>);

impl Stage {
    fn start() -> Stage {
        Stage(Instant::now(), cpu())
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:.2?} wall", self.0.elapsed())?;
        if let (Some(a), Some(b)) = (self.1, cpu()) {
            write!(f, ", {:.2} s cpu", b - a)?;
        }
        // Peak (`VmHWM`) and current (`VmRSS`) resident memory, Linux only.
        if let Ok(s) = std::fs::read_to_string("/proc/self/status") {
            let kb = |key: &str| -> Option<f64> {
                s.lines()
                    .find(|l| l.starts_with(key))?
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()
            };
            if let (Some(hwm), Some(rss)) = (kb("VmHWM:"), kb("VmRSS:")) {
                write!(f, ", peak {:.0} MiB, now {:.0} MiB", hwm / 1024.0, rss / 1024.0)?;
            }
        }
        Ok(())
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("../shared/data/statutes-kr");
    let (p, q) = (dir.join("passages.jsonl.gz"), dir.join("questions.jsonl.gz"));
    if !p.exists() || !q.exists() {
        println!("components bench: {} not found, skipped", dir.display());
        return;
    }
    let protocol = match pledge::protocol::load(&root.join("protocols/statutes-kr.toml")) {
        Ok((p, _)) => p,
        Err(e) => {
            println!("components bench: {}", e);
            return;
        }
    };
    let t = Stage::start();
    let (corpus, _) = match read::read_corpus(Some(&p), &q) {
        Ok(c) => c,
        Err(e) => {
            println!("components bench: {}", e);
            return;
        }
    };
    let read_wall = t.0.elapsed();
    println!(
        "read {} passages, {} questions: {}",
        corpus.passages.len(),
        corpus.questions.len(),
        t
    );
    let strs = corpus.texts.as_strs().expect("the texts are in memory");
    // The floor: what any exact shingling must do beside reading, each passage's distinct
    // 5-gram keys sorted (characters packed 12 bits each, wrapped into a u64; no normalization,
    // no global ranking, no join).
    let t = Stage::start();
    let keys: usize = strs
        .par_iter()
        .map_init(Vec::new, |v: &mut Vec<u64>, text| {
            v.clear();
            let (mut k, mut seen) = (0u64, 0);
            for c in text.chars() {
                k = (k << 12) ^ c as u64;
                seen += 1;
                if seen >= 5 {
                    v.push(k & ((1 << 60) - 1));
                }
            }
            v.sort_unstable();
            v.dedup();
            v.len()
        })
        .sum();
    let floor_keys = t.0.elapsed();
    println!("floor: per-passage sorted 5-gram keys ({} in all): {}", keys, t);
    let pipeline_start = Instant::now();
    let t = Stage::start();
    // As `pledge components` runs its near-duplicate rule: the NFC texts (borrowed where already
    // in NFC) and their alphabet in one pass, the ranked token sets, the join skipping the
    // tokens seen once.
    let texts = shingle::normalize_all(&strs, Normalization::Nfc);
    println!("nfc + alphabet (parallel, one pass): {}", t);
    let t = Stage::start();
    let ranked = texts.ranked(5);
    let sets = ranked.sets;
    println!("shingles (n = 5): {}", t);
    let t = Stage::start();
    let pairs = components::join::join_unique(&sets, ranked.unique, 0.8, &|_| ());
    println!("exact join (J >= 0.8): {} pairs, {}", pairs.len(), t);
    let pipeline = pipeline_start.elapsed() + read_wall;
    let floor = read_wall + floor_keys;
    println!(
        "read + NFC + shingles + join: {:.2?} wall, {:.2}x the floor (read + sorted keys: {:.2?})",
        pipeline,
        pipeline.as_secs_f64() / floor.as_secs_f64(),
        floor
    );
    drop((texts, sets, pairs, strs));
    let t = Stage::start();
    match components::count(&protocol, &corpus, &NoProgress) {
        Ok(r) => {
            println!("count (all rules + ablation): {}", t);
            for a in &r.ablation {
                println!(
                    "  {:<32} components {:>6}  with candidates {:>6}  largest {} units / {} questions",
                    a.rule,
                    a.counts.components,
                    a.counts.with_candidates,
                    a.counts.largest_units,
                    a.counts.largest_questions
                );
            }
        }
        Err(e) => println!("components bench: {}", e),
    }
    // The sweep at 5 thresholds of the registered shingle size against 5 separate counts.
    let thresholds = vec![0.6, 0.7, 0.8, 0.9, 1.0];
    let spec = SensitivitySpec {
        thresholds: thresholds.clone(),
        shingle_sizes: vec![5],
    };
    let t = Instant::now();
    let curve = match sweep(&protocol, &corpus, &spec, &NoProgress) {
        Ok(c) => c,
        Err(e) => {
            println!("components bench: {}", e);
            return;
        }
    };
    let swept = t.elapsed();
    let t = Instant::now();
    let mut separate = Vec::new();
    for &j in &thresholds {
        let mut p = protocol.clone();
        for r in p.link_rules.iter_mut() {
            if r.kind == pledge::protocol::LinkKind::NearDuplicatePassage {
                r.jaccard = Some(j);
            }
        }
        match components::count(&p, &corpus, &NoProgress) {
            Ok(r) => separate.push(r),
            Err(e) => {
                println!("components bench: {}", e);
                return;
            }
        }
    }
    let apart = t.elapsed();
    println!(
        "sensitivity sweep, 5 thresholds (n = 5): {:.2?}; 5 separate counts: {:.2?} ({:.1}x)",
        swept,
        apart,
        apart.as_secs_f64() / swept.as_secs_f64()
    );
    for (p, r) in curve.points.iter().zip(&separate) {
        let same = p.counts.components == r.components && p.counts.with_candidates == r.with_candidates;
        println!(
            "  J >= {:.2}: {:>6} pairs, {:>5} components, {:>4} with candidates (separate run: {} / {}{})",
            p.jaccard,
            p.pairs,
            p.counts.components,
            p.counts.with_candidates,
            r.components,
            r.with_candidates,
            if same { "" } else { " DIFFERS" }
        );
    }
    // The default grid (0.50..1.00 by 0.05, n = 4..6): one join per shingle size.
    let t = Instant::now();
    match sweep(&protocol, &corpus, &SensitivitySpec::around(5, 0.8), &NoProgress) {
        Ok(c) => println!(
            "default sensitivity grid ({} points): {:.2?}",
            c.points.len(),
            t.elapsed()
        ),
        Err(e) => println!("components bench: {}", e),
    }
}
