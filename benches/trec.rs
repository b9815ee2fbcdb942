//! Speed of `pledge eval` on the 17 TREC 2003 Robust runs, every measure of `-m all_trec`.
//!
//! 1. In process: reading + evaluation, and evaluation alone (the library).
//! 2. Whole processes, side by side with the real trec_eval binary when the environment
//!    variable `TREC_EVAL` names it (e.g. `TREC_EVAL=/path/to/trec_eval cargo bench --bench
//!    trec`): the runs are decompressed once into a temporary directory (trec_eval reads plain
//!    files), then, alternating, `trec_eval -q -m all_trec QRELS RUN` for each of the 17 runs
//!    and `pledge eval QRELS RUN... -m all_trec --format trec` (one process for all runs, with
//!    2 threads and with 1, and one process per run); every output goes to /dev/null after a
//!    first run checks that pledge's text equals trec_eval's. Medians of 5 repetitions.
//!    Without `TREC_EVAL` it says it is skipping this part.
//!
//! Reads `../shared/data/robust03` relative to the crate root; prints a note and exits 0 when it
//! is absent. Run with `cargo bench --bench trec`.

use pledge::trec::{evaluate, Duplicates, EvalOptions, Measure, Qrels, Run};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/robust03/examples/robust03");
    if !root.exists() {
        println!("trec bench skipped: {} is absent", root.display());
        return;
    }
    let qrels_path = root.join("qrel/robust03_qrels.txt");
    let mut runs: Vec<_> = match std::fs::read_dir(root.join("runs")) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "gz"))
            .collect(),
        Err(e) => {
            println!("trec bench skipped: {}", e);
            return;
        }
    };
    runs.sort();
    let opts = EvalOptions {
        measures: Measure::all_trec(),
        ..EvalOptions::default()
    };
    in_process(&qrels_path, &runs, &opts);
    match std::env::var_os("TREC_EVAL") {
        Some(te) => side_by_side(Path::new(&te), &qrels_path, &runs),
        None => println!(
            "trec bench: skipping the side-by-side timing with trec_eval (set TREC_EVAL to the path of a trec_eval binary)"
        ),
    }
}

fn in_process(qrels_path: &Path, runs: &[PathBuf], opts: &EvalOptions) {
    let read_all = || {
        rayon::join(
            || Qrels::read(qrels_path, Duplicates::Error),
            || {
                runs.par_iter()
                    .map(|p| Run::read(p, Duplicates::Error))
                    .collect::<Result<Vec<Run>, _>>()
            },
        )
    };
    let mut times = Vec::new();
    let mut checksum = 0.0;
    for _ in 0..7 {
        let t = Instant::now();
        let (qrels, read) = read_all();
        let ev = match qrels.and_then(|q| read.and_then(|rs| evaluate(&q, "qrels", &rs, opts))) {
            Ok(ev) => ev,
            Err(e) => {
                println!("trec bench failed: {}", e);
                return;
            }
        };
        times.push(t.elapsed().as_secs_f64());
        checksum = ev.runs.iter().map(|r| r.all[3]).sum::<f64>();
    }
    let (Ok(qrels), Ok(read)) = read_all() else {
        println!("trec bench failed reading the files");
        return;
    };
    let mut eval_times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        if evaluate(&qrels, "qrels", &read, opts).is_err() {
            println!("trec bench failed evaluating");
            return;
        }
        eval_times.push(t.elapsed().as_secs_f64());
    }
    let n = times.len();
    println!(
        "in process: {} runs, {} measures (-m all_trec): reading + evaluation median {:.1} ms, evaluation alone \
         median {:.1} ms, over {} repetitions (sum of map = {:.4})",
        runs.len(),
        opts.measures.len(),
        median(times) * 1e3,
        median(eval_times) * 1e3,
        n,
        checksum
    );
}

/// Wall time of running `cmds` one after the other, stdout to /dev/null.
fn time_all(cmds: &mut [Command]) -> Option<f64> {
    let t = Instant::now();
    for c in cmds.iter_mut() {
        let ok = c.stdout(Stdio::null()).stderr(Stdio::null()).status().ok()?.success();
        if !ok {
            return None;
        }
    }
    Some(t.elapsed().as_secs_f64())
}

fn side_by_side(trec_eval: &Path, qrels: &Path, runs: &[PathBuf]) {
    let pledge = Path::new(env!("CARGO_BIN_EXE_pledge"));
    let Ok(dir) = tempfile::tempdir() else {
        println!("trec bench: no temporary directory, skipping the side-by-side timing");
        return;
    };
    let mut plain = Vec::new();
    for r in runs {
        let Some(stem) = r.file_stem() else { continue };
        let out = dir.path().join(stem);
        let text = match pledge::io::read_text(r) {
            Ok(t) => t,
            Err(e) => {
                println!("trec bench: {}", e);
                return;
            }
        };
        if std::fs::write(&out, text).is_err() {
            println!("trec bench: cannot write {}", out.display());
            return;
        }
        plain.push(out);
    }
    let te = |run: &Path| {
        let mut c = Command::new(trec_eval);
        c.args(["-q", "-m", "all_trec"]).arg(qrels).arg(run);
        c
    };
    let pl = |rs: &[PathBuf], threads: &str| {
        let mut c = Command::new(pledge);
        c.arg("eval")
            .arg(qrels)
            .args(rs)
            .args(["-m", "all_trec", "--format", "trec"])
            .env("RAYON_NUM_THREADS", threads);
        c
    };
    // The outputs agree byte for byte.
    let mut same = 0;
    for r in &plain {
        let a = te(r).output();
        let b = pl(std::slice::from_ref(r), "2").output();
        match (a, b) {
            (Ok(a), Ok(b)) if a.status.success() && b.status.success() && a.stdout == b.stdout => same += 1,
            (Ok(a), _) if !a.status.success() => {
                println!("trec bench: {} failed on {}", trec_eval.display(), r.display());
                return;
            }
            _ => println!("trec bench: outputs differ for {}", r.display()),
        }
    }
    println!(
        "side by side: pledge's --format trec output equals trec_eval -q -m all_trec byte for byte on {} of {} runs",
        same,
        plain.len()
    );
    let (mut t_te, mut t_p2, mut t_p1, mut t_pp) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        let mut a: Vec<Command> = plain.iter().map(|r| te(r)).collect();
        let mut b = [pl(&plain, "2")];
        let mut c = [pl(&plain, "1")];
        let mut d: Vec<Command> = plain.iter().map(|r| pl(std::slice::from_ref(r), "1")).collect();
        match (time_all(&mut a), time_all(&mut b), time_all(&mut c), time_all(&mut d)) {
            (Some(a), Some(b), Some(c), Some(d)) => {
                t_te.push(a);
                t_p2.push(b);
                t_p1.push(c);
                t_pp.push(d);
            }
            _ => {
                println!("trec bench: a command failed");
                return;
            }
        }
    }
    let (te_m, p2, p1, pp) = (median(t_te), median(t_p2), median(t_p1), median(t_pp));
    println!(
        "whole processes, {} runs, -m all_trec, reading included, medians of 5:",
        plain.len()
    );
    println!("  trec_eval, one process per run:       {:8.1} ms", te_m * 1e3);
    println!(
        "  pledge, one process per run, 1 thread: {:8.1} ms  (trec_eval / pledge = {:.2})",
        pp * 1e3,
        te_m / pp
    );
    println!(
        "  pledge, one process, 1 thread:        {:8.1} ms  (trec_eval / pledge = {:.2})",
        p1 * 1e3,
        te_m / p1
    );
    println!(
        "  pledge, one process, 2 threads:       {:8.1} ms  (trec_eval / pledge = {:.2})",
        p2 * 1e3,
        te_m / p2
    );
}
