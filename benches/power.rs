//! Benchmark of the power calculations: non-central t CDF evaluations and full t-based sample
//! size solves (the stop rule calls one per split). Needs no data files.
use pledge::power::paired;
use pledge::stats::dist;
use std::time::Instant;

fn main() {
    let t0 = Instant::now();
    let mut acc = 0.0;
    let evals = 200_000;
    for i in 0..evals {
        let x = (i % 1000) as f64 / 100.0;
        acc += dist::nct_cdf(x, 10.0 + (i % 500) as f64, 3.0 + (i % 7) as f64);
    }
    let nct = t0.elapsed();
    let t1 = Instant::now();
    let mut n_sum = 0.0;
    let solves = 200;
    for i in 0..solves {
        let d = 0.05 + 0.01 * (i % 50) as f64;
        n_sum += paired::t_n(d, 0.05, 0.8, 2).unwrap_or(0.0);
    }
    let solve = t1.elapsed();
    println!(
        "power bench: {} nct_cdf evaluations in {:.3?} ({:.2} us each); {} t-based sample-size solves in {:.3?} \
         ({:.2} ms each) [checksum {:.6} {:.3}]",
        evals,
        nct,
        nct.as_secs_f64() * 1e6 / evals as f64,
        solves,
        solve,
        solve.as_secs_f64() * 1e3 / solves as f64,
        acc,
        n_sum
    );
}
