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
