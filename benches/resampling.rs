//! Benchmark of the resampling paths beside today's paired bootstrap, paired: at `--topics`
//! topics (default 10,000) and `--trials` trials (default 10,000), each run times
//! - **paired bootstrap** (the reference): one comparison's paired bootstrap of the per-topic
//!   differences (`stats::bootstrap::bootstrap`), as `compare` runs it for every pair;
//! - **rank intervals**: the per-system bootstrap of `--systems` systems on the shared stream
//!   (`stats::system::resampled`, one call per system) and the ranking read from those draws
//!   (`stats::rank::rank_systems`): what `compare` adds for three or more systems;
//! - **ratio**: `compare --estimator ratio` of two systems (`stats::estimator::run`, one pair:
//!   Σ tp / Σ (tp + fn) recomputed on every resample, both systems on the same draws);
//! - **median**: `compare --estimator quantile --quantile 0.5`, the same way;
//! - **two-level**: the two-level bootstrap of one paired difference with `--samples` samples
//!   per topic (default 5; `stats::samples::two_level`: topics, then samples within topic).
//!
//! Each path runs in turn with the paired bootstrap (A B A B ...), and its ratio to it is taken
//! pair by pair. The goal: every path within 2× of the paired bootstrap.
//!
//! The two run in turn (A B A B ..., `--runs` pairs, default 7, after one warm-up pair) and the
//! ratio is taken pair by pair, so a drift of the machine's speed does not move it; the median
//! of the ratios is printed with its spread, and the rank path's time per system. Measure on a
//! quiet machine (no builds running).
//!
//! Run: `cargo bench --bench resampling` (a small check: `cargo bench --bench resampling --
//! --topics 200 --trials 200 --runs 3`).

use pledge::protocol::{Estimator, Percentile, ResamplingUnit};
use pledge::stats::bootstrap::{bootstrap, BootstrapSpec};
use pledge::stats::estimator::{self, Combination, Data, Spec, Statistic};
use pledge::stats::rank::rank_systems;
use pledge::stats::samples::{two_level, Cell};
use pledge::stats::system::{resampled, system_units, IntervalSpec};
use pledge::stats::units::Units;
use rand::{Rng, SeedableRng};
use std::time::Instant;

/// `--name value` from the command line, else `default` (cargo's own `--bench` is ignored).
fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{name} takes a number, got {v}")))
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let topics = arg("--topics", 10_000);
    let trials = arg("--trials", 10_000);
    let runs = arg("--runs", 7).max(1);
    let k = arg("--systems", 3).max(3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let base: Vec<f64> = (0..topics).map(|_| rng.gen_range(0.0..1.0)).collect();
    let systems: Vec<Vec<f64>> = (0..k)
        .map(|s| {
            base.iter()
                .map(|x| (x - 0.01 * s as f64 + rng.gen_range(-0.2..0.2f64)).clamp(0.0, 1.0))
                .collect()
        })
        .collect();
    let names: Vec<String> = (0..k).map(|s| format!("S{s}")).collect();
    let bspec = BootstrapSpec {
        seed: 0,
        stream_base: 0,
        trials,
        level: 0.95,
        percentile: Percentile::Linear,
        tie_tolerance: 1e-12,
    };
    let ispec = IntervalSpec {
        component_of: None,
        unit: ResamplingUnit::Topic,
        estimator: Estimator::ComponentMean,
        scale_max: 1.0,
        bootstrap: bspec,
    };
    let diffs = Units::topics(systems[0].iter().zip(&systems[1]).map(|(a, b)| a - b).collect());
    let paired = || {
        let t = Instant::now();
        let b = bootstrap(&diffs, &bspec, "topic");
        (t.elapsed().as_secs_f64(), b.interval[0])
    };
    let ranks = || {
        let t = Instant::now();
        let draws: Vec<Vec<f64>> = systems
            .iter()
            .map(|v| resampled(&system_units(v, &ispec).0, &ispec))
            .collect();
        let est: Vec<f64> = systems.iter().map(|v| system_units(v, &ispec).0.estimate()).collect();
        let r = rank_systems(&names, &est, &draws, 0.95).expect("three or more systems");
        (t.elapsed().as_secs_f64(), r.systems[0].p_first)
    };
    let paths: Vec<(String, Path<'_>)> = vec![
        (format!("rank intervals ({k} systems)"), Box::new(ranks)),
        (
            "ratio (2 systems, 1 pair)".into(),
            estimate_path(&systems, topics, trials, ratio()),
        ),
        (
            "median (2 systems, 1 pair)".into(),
            estimate_path(&systems, topics, trials, median_stat()),
        ),
        (
            format!("two-level ({} samples per topic)", arg("--samples", 5)),
            two_level_path(&systems, arg("--samples", 5).max(1), trials),
        ),
    ];
    let threads = rayon::current_num_threads();
    println!("resampling paths at {topics} topics x {trials} trials, {runs} paired runs, {threads} threads");
    let mut check = 0.0;
    for (name, path) in &paths {
        let _ = (paired(), path()); // warm-up pair (thread pool, caches)
        let (mut a, mut b, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let (tr, x) = path();
            let (tp, y) = paired();
            check += x + y;
            a.push(tr);
            b.push(tp);
            ratio.push(tr / tp);
        }
        let (lo, hi) = ratio
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
        println!(
            "  {name:<36} median {:.4} s, paired bootstrap {:.4} s: ratio {:.3} (min {:.3}, max {:.3})",
            median(a),
            median(b),
            median(ratio),
            lo,
            hi
        );
    }
    println!("  (checksum {check:.6})");
}

/// One timed path: its seconds and a value of its result (so that nothing is optimized away).
type Path<'a> = Box<dyn Fn() -> (f64, f64) + 'a>;

/// Σ tp / Σ (tp + fn) per system.
fn ratio() -> Statistic {
    Statistic::Ratio {
        numerator: Combination::parse("tp").expect("a column"),
        denominator: Combination::parse("tp+fn").expect("columns"),
    }
}

/// The median of the per-topic values.
fn median_stat() -> Statistic {
    Statistic::Quantile {
        q: 0.5,
        method: Percentile::Linear,
    }
}

/// `compare --estimator` on the first two systems: for a ratio, per-topic tp = 10·score and
/// fn = 10 − tp; for a quantile, the scores.
fn estimate_path(systems: &[Vec<f64>], topics: usize, trials: usize, stat: Statistic) -> Path<'static> {
    let columns = stat.columns();
    let values: Vec<Vec<Vec<f64>>> = systems[..2]
        .iter()
        .map(|v| {
            v.iter()
                .map(|&x| match columns.len() {
                    1 => vec![x],
                    _ => vec![(10.0 * x).round(), 10.0 - (10.0 * x).round()],
                })
                .collect()
        })
        .collect();
    let data = Data {
        systems: vec!["S0".into(), "S1".into()],
        topics: (0..topics).map(|t| t.to_string()).collect(),
        columns,
        values,
        units: (0..topics).map(|t| vec![t]).collect(),
        unit: "topic".into(),
    };
    let spec = Spec {
        seed: 0,
        trials,
        level: 0.95,
        percentile: Percentile::Linear,
    };
    Box::new(move || {
        let t = Instant::now();
        let e = estimator::run(&stat, &data, &spec, &[(0, 1)]).expect("defined");
        (t.elapsed().as_secs_f64(), e.comparisons[0].bootstrap.interval[0])
    })
}

/// The two-level bootstrap of S0 − S1 with `k` paired samples per topic (each sample the topic's
/// difference plus noise).
fn two_level_path(systems: &[Vec<f64>], k: usize, trials: usize) -> Path<'static> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    let cells: Vec<Cell> = systems[0]
        .iter()
        .zip(&systems[1])
        .map(|(a, b)| Cell::Paired((0..k).map(|_| a - b + rng.gen_range(-0.1..0.1f64)).collect()))
        .collect();
    Box::new(move || {
        let t = Instant::now();
        let mut d = two_level(&cells, trials, 0, 0);
        d.sort_by(f64::total_cmp);
        (t.elapsed().as_secs_f64(), d[trials / 40])
    })
}
