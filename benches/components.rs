//! Benchmark: `pledge components` stages on the statute corpus (../shared/data/statutes-kr).
//! Run: `cargo bench --bench components`. Prints a plain message and exits 0 when the data is absent.
//! Each stage line ends with the process's peak resident memory so far (Linux `VmHWM`). For the
//! whole command's wall time and peak memory use `/usr/bin/time -v target/release/pledge
//! components protocols/statutes-kr.toml --passages … --questions … --dry-run`.

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
    println!(
        "read {} passages, {} questions: {}",
        corpus.passages.len(),
        corpus.questions.len(),
        t
    );
    let t = Stage::start();
    let texts: Vec<String> = corpus
        .passages
        .par_iter()
        .map(|p| shingle::normalize(&p.text, Normalization::Nfc))
        .collect();
    println!("nfc (parallel): {}", t);
    let t = Stage::start();
    let sets = shingle::token_sets(&texts, 5);
    println!("shingles (n = 5): {}", t);
    let t = Stage::start();
    let pairs = components::join::join(&sets, 0.8, &|_| ());
    println!("exact join (J >= 0.8): {} pairs, {}", pairs.len(), t);
    drop((texts, sets, pairs));
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
}
