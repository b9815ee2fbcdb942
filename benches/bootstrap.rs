//! Benchmark of the paired bootstrap: 10,000 trials over 10,000 topics (the target is < 0.5 s in
//! release mode on 2 cores), and a plain Python loop (`paired_bootstrap_diff`, from the article "How Many Topics a
//! Benchmark Needs") on the same
//! data for the speed ratio (run with `python3` when it is on PATH; the Python function is run
//! with fewer trials and its time scaled linearly to 10,000 trials, since it is linear in B).
//!
//! Run: `cargo bench --bench bootstrap`.

use pledge::protocol::Percentile;
use pledge::stats::bootstrap::{bootstrap, BootstrapSpec};
use pledge::stats::units::Units;
use rand::{Rng, SeedableRng};
use std::time::Instant;

const TOPICS: usize = 10_000;
const TRIALS: usize = 10_000;
const PY_TRIALS: usize = 100;

/// The article's Python function, verbatim.
const SEED_PY: &str = r#"import random

def paired_bootstrap_diff(metric_a, metric_b, trials=10000, seed=0):
    """metric_* : per-topic scores for two systems, aligned by topic."""
    rng = random.Random(seed)
    n = len(metric_a)
    idx = range(n)
    wins = 0
    diffs = []
    for _ in range(trials):
        sample = [rng.choice(idx) for _ in range(n)]
        mean_a = sum(metric_a[i] for i in sample) / n
        mean_b = sum(metric_b[i] for i in sample) / n
        diffs.append(mean_a - mean_b)
        if mean_a < mean_b:
            wins += 1
    diffs.sort()
    lo, hi = diffs[int(0.025 * trials)], diffs[int(0.975 * trials)]
    # wins/trials estimates P(A loses) under topic resampling.
    return diffs[trials // 2], (lo, hi), wins / trials
"#;

fn main() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let a: Vec<f64> = (0..TOPICS).map(|_| rng.gen_range(0.0..1.0)).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|x| (x - 0.02 + rng.gen_range(-0.2..0.2f64)).clamp(0.0, 1.0))
        .collect();
    let units = Units::topics(a.iter().zip(&b).map(|(x, y)| x - y).collect());
    let spec = BootstrapSpec {
        seed: 0,
        stream_base: 0,
        trials: TRIALS,
        level: 0.95,
        percentile: Percentile::Linear,
        tie_tolerance: 1e-12,
    };
    let _ = bootstrap(&units, &spec, "topic"); // warm-up (thread pool)
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..5 {
        let t = Instant::now();
        let r = bootstrap(&units, &spec, "topic");
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    let threads = rayon::current_num_threads();
    println!(
        "pledge paired bootstrap: {} trials x {} topics: best of 5 = {:.3} s ({} threads)",
        TRIALS, TOPICS, best, threads
    );
    if let Some(r) = &last {
        println!(
            "  observed {:+.5}, 95% interval [{:+.5}, {:+.5}], reversal rate {:?}",
            r.observed, r.interval[0], r.interval[1], r.reversal_rate
        );
    }
    println!("  target < 0.5 s: {}", if best < 0.5 { "met" } else { "NOT met" });
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map(|p| {
        p.install(|| {
            let t = Instant::now();
            let _ = bootstrap(&units, &spec, "topic");
            t.elapsed().as_secs_f64()
        })
    });
    if let Ok(s) = one {
        println!("  single thread: {:.3} s", s);
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "  machine load average (other processes compete for the cores): {}",
        load.trim()
    );
    python(&a, &b, best);
}

fn python(a: &[f64], b: &[f64], rust_secs: f64) {
    let dir = std::env::temp_dir().join(format!("pledge-bench-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        println!("python comparison skipped: cannot create {}", dir.display());
        return;
    }
    let data = |v: &[f64]| v.iter().map(|x| format!("{:?}", x)).collect::<Vec<_>>().join("\n");
    let script = format!(
        "{}\nimport sys, time\na = [float(x) for x in open(sys.argv[1]).read().split()]\nb = [float(x) for x in open(sys.argv[2]).read().split()]\nt = time.perf_counter()\n_ = paired_bootstrap_diff(a, b, trials={}, seed=0)\nprint(time.perf_counter() - t)\n",
        SEED_PY, PY_TRIALS
    );
    let ok = std::fs::write(dir.join("a.txt"), data(a)).is_ok()
        && std::fs::write(dir.join("b.txt"), data(b)).is_ok()
        && std::fs::write(dir.join("seed.py"), script).is_ok();
    let out = if ok {
        std::process::Command::new("python3")
            .arg(dir.join("seed.py"))
            .arg(dir.join("a.txt"))
            .arg(dir.join("b.txt"))
            .output()
            .ok()
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&dir);
    match out
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok())
    {
        Some(secs) => {
            let scaled = secs * (TRIALS as f64 / PY_TRIALS as f64);
            println!(
                "seed Python paired_bootstrap_diff: {} trials x {} topics in {:.2} s -> {:.1} s for {} trials (linear in trials)",
                PY_TRIALS, TOPICS, secs, scaled, TRIALS
            );
            println!(
                "  speed ratio pledge / Python: {:.0}x (required >= 100x)",
                scaled / rust_secs
            );
        }
        None => println!("python comparison skipped: python3 not available or failed"),
    }
}
