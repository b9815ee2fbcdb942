//! Benchmark of the randomized Tukey HSD test: 10 systems over 250 topics (a TREC Robust-sized
//! design) with 10,000 Monte-Carlo permutations, on decimal scores (exact integer comparison)
//! and on non-decimal scores (floating point with the relative tie tolerance). Needs no data
//! files. Run: `cargo bench --bench tukey`.

use pledge::stats::ties::Ties;
use pledge::stats::tukey::randomized_tukey;
use rand::{Rng, SeedableRng};
use std::time::Instant;

const TOPICS: usize = 250;
const SYSTEMS: usize = 10;
const TRIALS: usize = 10_000;

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let names: Vec<String> = (0..SYSTEMS).map(|i| format!("run{i}")).collect();
    let float: Vec<Vec<f64>> = (0..TOPICS)
        .map(|_| {
            let base: f64 = rng.gen_range(0.0..0.8);
            (0..SYSTEMS)
                .map(|s| (base + 0.01 * s as f64 + rng.gen_range(-0.1..0.1f64)).clamp(0.0, 1.0))
                .collect()
        })
        .collect();
    let decimal: Vec<Vec<f64>> = float
        .iter()
        .map(|r| r.iter().map(|x| (x * 1e4).round() / 1e4).collect())
        .collect();
    for (name, x) in [
        ("decimal (integer units)", &decimal),
        ("non-decimal (tolerance)", &float),
    ] {
        let ties = Ties::of_values(1e-12, &x.concat());
        let mut times = Vec::new();
        let mut p = 0.0;
        for _ in 0..5 {
            let t0 = Instant::now();
            let r = randomized_tukey(x, &names, TOPICS as f64, "topic", TRIALS, 0, ties);
            times.push(t0.elapsed().as_secs_f64());
            p = r.pairs[SYSTEMS - 2].p;
        }
        times.sort_by(f64::total_cmp);
        println!(
            "tukey-hsd {name}: {SYSTEMS} systems x {TOPICS} topics, B = {TRIALS}: median {:.3} s of 5 (p(run0, run9) = {p:.4})",
            times[2]
        );
    }
}
