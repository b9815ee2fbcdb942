//! Benchmark: the exact near-duplicate join's candidate pairs under the l-prefix filter, l = 1
//! (the plain prefix filter of AllPairs and PPJoin) and higher, on one passage file, with the
//! pairs checked identical for every l.
//!
//! Run: `cargo bench --bench candidates -- PASSAGES.jsonl [L ...]` (JSON Lines with a `text`
//! field, e.g. made by `tools/realistic_corpus.py`; NFC character 5-grams at Jaccard 0.8, as
//! `benches/realistic/protocol.toml` counts them; L is a value of l or `pieces`, the
//! partition-based signatures `pledge components` joins with; L defaults to 1 2 3 4 pieces). Prints, for each l,
//! the candidates (pairs sharing a token of the two prefixes), the candidates verified by a
//! merge after the positional and l-prefix filters, the pairs, and the join's wall and CPU time.

use pledge::components::{join, shingle};
use pledge::protocol::Normalization;
use std::io::BufRead;
use std::time::Instant;

/// CPU seconds (user + system) of this process so far, from `/proc/self/stat`, if readable.
fn cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let Some(path) = args.first() else {
        println!("usage: cargo bench --bench candidates -- PASSAGES.jsonl [L ...]");
        return;
    };
    // Each L is a value of l for the token join, or `pieces`: the partition-based signatures
    // (with the token join, l = 3, for deficient sets), as `pledge components` joins.
    let ls: Vec<(usize, bool)> = if args.len() > 1 {
        args[1..]
            .iter()
            .map(|a| match a.as_str() {
                "pieces" => (join::SHARED_IN_PREFIXES, true),
                _ => (a.parse().expect("L is a number or `pieces`"), false),
            })
            .collect()
    } else {
        vec![
            (1, false),
            (2, false),
            (3, false),
            (4, false),
            (join::SHARED_IN_PREFIXES, true),
        ]
    };
    let file = std::fs::File::open(path).expect("the passages file opens");
    let texts: Vec<String> = std::io::BufReader::new(file)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line.expect("a line")).expect("a JSON line");
            let text = v["text"].as_str().expect("a text field");
            shingle::normalize(text, Normalization::Nfc)
        })
        .collect();
    let ranked = shingle::ranked_token_sets(&texts, 5);
    println!("{} passages, {} tokens held once", texts.len(), ranked.unique);
    let mut first: Option<Vec<(u32, u32)>> = None;
    for (l, pieces) in ls {
        let (wall, before) = (Instant::now(), cpu());
        let (pairs, counts) = join::join_counted(&ranked.sets, ranked.unique, 0.8, l, pieces);
        let secs = cpu().zip(before).map_or(f64::NAN, |(a, b)| a - b);
        println!(
            "{}: {} candidates, {} verified, {} pairs, {:.2?} wall, {secs:.2} s cpu",
            if pieces {
                "pieces".to_string()
            } else {
                format!("l = {l}")
            },
            counts.candidates,
            counts.verified,
            pairs.len(),
            wall.elapsed()
        );
        match &first {
            None => first = Some(pairs),
            Some(want) => assert_eq!(&pairs, want, "the pairs differ between values of l"),
        }
    }
}
