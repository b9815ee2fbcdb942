//! Benchmark: `pledge components` stages on the statute corpus (../shared/data/statutes-kr).
//! Run: `cargo bench --bench components`. Prints a plain message and exits 0 when the data is absent.
//! For the whole command's wall time and peak memory use `/usr/bin/time -v target/release/pledge
//! components protocols/statutes-kr.toml --passages … --questions … --dry-run`.

use pledge::components::{self, read, shingle, NoProgress};
use pledge::protocol::Normalization;
use std::path::Path;
use std::time::Instant;

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
    let t = Instant::now();
    let (corpus, _) = match read::read_corpus(Some(&p), &q) {
        Ok(c) => c,
        Err(e) => {
            println!("components bench: {}", e);
            return;
        }
    };
    println!(
        "read {} passages, {} questions: {:.2?}",
        corpus.passages.len(),
        corpus.questions.len(),
        t.elapsed()
    );
    let t = Instant::now();
    let texts: Vec<String> = corpus
        .passages
        .iter()
        .map(|p| shingle::normalize(&p.text, Normalization::Nfc))
        .collect();
    println!("nfc: {:.2?}", t.elapsed());
    let t = Instant::now();
    let sets = shingle::token_sets(&texts, 5);
    println!("shingles (n = 5): {:.2?}", t.elapsed());
    let t = Instant::now();
    let pairs = components::join::join(&sets, 0.8, &|_| ());
    println!("exact join (J >= 0.8): {} pairs, {:.2?}", pairs.len(), t.elapsed());
    let t = Instant::now();
    match components::count(&protocol, &corpus, &NoProgress) {
        Ok(r) => {
            println!("count (all rules + ablation): {:.2?}", t.elapsed());
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
