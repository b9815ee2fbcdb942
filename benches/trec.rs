//! Speed of `pledge eval` on the 17 TREC 2003 Robust runs (reading included), every measure.
//! Reads `../shared/data/robust03` relative to the crate root; prints a note and exits 0 when it
//! is absent. Run with `cargo bench --bench trec`.

use pledge::trec::{evaluate, Duplicates, EvalOptions, Qrels, Run};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

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
    let opts = EvalOptions::default();
    let mut times = Vec::new();
    let mut checksum = 0.0;
    for _ in 0..7 {
        let t = Instant::now();
        let (qrels, read) = rayon::join(
            || Qrels::read(&qrels_path, Duplicates::Error),
            || {
                runs.par_iter()
                    .map(|p| Run::read(p, Duplicates::Error))
                    .collect::<Result<Vec<Run>, _>>()
            },
        );
        let ev = match qrels.and_then(|q| read.and_then(|rs| evaluate(&q, "qrels", &rs, &opts))) {
            Ok(ev) => ev,
            Err(e) => {
                println!("trec bench failed: {}", e);
                return;
            }
        };
        times.push(t.elapsed().as_secs_f64());
        checksum = ev.runs.iter().map(|r| r.all[3]).sum::<f64>();
    }
    // Evaluation alone (files already read), to compare with the C evaluation step of
    // pytrec_eval, whose reading is done in Python.
    let (qrels, read) = rayon::join(
        || Qrels::read(&qrels_path, Duplicates::Error),
        || {
            runs.par_iter()
                .map(|p| Run::read(p, Duplicates::Error))
                .collect::<Result<Vec<Run>, _>>()
        },
    );
    let (Ok(qrels), Ok(read)) = (qrels, read) else {
        println!("trec bench failed reading the files");
        return;
    };
    let mut eval_times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        if evaluate(&qrels, "qrels", &read, &opts).is_err() {
            println!("trec bench failed evaluating");
            return;
        }
        eval_times.push(t.elapsed().as_secs_f64());
    }
    eval_times.sort_by(f64::total_cmp);
    println!(
        "trec eval, evaluation only (files already read): median {:.1} ms, min {:.1} ms",
        eval_times[eval_times.len() / 2] * 1e3,
        eval_times[0] * 1e3
    );
    times.sort_by(f64::total_cmp);
    println!(
        "trec eval: {} runs, {} measures, reading included: median {:.1} ms, min {:.1} ms over {} repetitions \
         (sum of map = {:.4})",
        runs.len(),
        opts.measures.len(),
        times[times.len() / 2] * 1e3,
        times[0] * 1e3,
        times.len(),
        checksum
    );
}
