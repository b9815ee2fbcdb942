//! Near-duplicate passage pairs found elsewhere (for instance by the Spark job shipped in the
//! repository's `spark/` directory), read back and checked, and pairs written out in the same form.
//!
//! The file is JSON Lines, one pair per line:
//!
//! ```text
//! {"a": "<passage id>", "b": "<passage id>", "intersection": 36, "union": 38, "jaccard": 0.947}
//! ```
//!
//! `a` and `b` are passage ids of the corpus being counted (`a` ≠ `b`; their order does not
//! matter); `intersection` and `union` (the sizes of the two shingle sets' intersection and
//! union, whole numbers) and `jaccard` (a fraction, 0–1) are optional when read and always
//! written. A pair listed twice counts once.
//!
//! Pairs read from a file are trusted for their completeness (nothing here can tell a missing
//! pair without redoing the join) but not for their content: [`check_sample`] recomputes the exact
//! Jaccard of a seeded random sample of them from the passages, under the registered rule, and
//! every sampled pair must meet the threshold and match the sizes the file states.

use super::{join, shingle};
use crate::error::{Error, Result};
use crate::input::Input;
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;

/// One pair as read: passage indices (`a < b`) and the sizes the file states, if any.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListedPair {
    /// Index of the first passage (the smaller index).
    pub a: u32,
    /// Index of the second passage.
    pub b: u32,
    /// 1-based line of the file the pair was read from.
    pub line: usize,
    /// |A ∩ B| as the file states it.
    pub intersection: Option<u64>,
    /// |A ∪ B| as the file states it.
    pub union: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    a: String,
    b: String,
    #[serde(default)]
    intersection: Option<u64>,
    #[serde(default)]
    union: Option<u64>,
    #[serde(default)]
    jaccard: Option<f64>,
}

#[derive(Serialize)]
struct OutLine<'a> {
    a: &'a str,
    b: &'a str,
    intersection: usize,
    union: usize,
    jaccard: f64,
}

/// The pairs of a pairs file, as [`read_pairs`] gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct PairList {
    /// The distinct pairs sorted by `(a, b)`, each with the first line it was listed on.
    pub pairs: Vec<ListedPair>,
    /// Lines that list a pair an earlier line already lists (in either order), with the same
    /// sizes or without sizes; each pair counts once.
    pub repeated_lines: usize,
}

/// Reads a pairs file against the corpus's passage ids (`ids[i]` is passage i's id).
///
/// Errors (exit 2), with the file and line: a line that is not a JSON object with string `a`
/// and `b` (unknown keys are refused, so a misspelled `intersection` is not silently dropped);
/// an id that is not a passage of the corpus; a pair of a passage with itself; `intersection`
/// larger than `union`; `jaccard` outside [0, 1] or not equal to intersection/union; a pair
/// listed again with other sizes than an earlier line states (the later line is named). An
/// empty file is allowed (no pair).
pub fn read_pairs(input: &Input, ids: &[&str]) -> Result<PairList> {
    let path = input.path();
    let text = input.text()?;
    let index: HashMap<&str, u32> = ids.iter().enumerate().map(|(i, &id)| (id, i as u32)).collect();
    let mut out: Vec<ListedPair> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let l: Line = serde_json::from_str(raw).map_err(|e| {
            Error::at(
                path,
                line,
                format!(
                    "expected a pair {{\"a\": ID, \"b\": ID[, \"intersection\": N, \"union\": N, \"jaccard\": J]}}: {}",
                    e
                ),
            )
        })?;
        let find = |id: &str| {
            index.get(id).copied().ok_or_else(|| {
                Error::at(
                    path,
                    line,
                    format!(
                        "`{}` is not a passage id of the corpus being counted",
                        crate::text::short(id, 80)
                    ),
                )
            })
        };
        let (x, y) = (find(&l.a)?, find(&l.b)?);
        if x == y {
            return Err(Error::at(
                path,
                line,
                format!("a pair of passage `{}` with itself", crate::text::short(&l.a, 80)),
            ));
        }
        check_sizes(path, line, &l)?;
        out.push(ListedPair {
            a: x.min(y),
            b: x.max(y),
            line,
            intersection: l.intersection,
            union: l.union,
        });
    }
    let listed = out.len();
    let pairs = distinct_pairs(path, ids, out)?;
    let repeated_lines = listed - pairs.len();
    Ok(PairList { pairs, repeated_lines })
}

/// Refuses (exit 2, at `path:line`) a line's sizes that cannot be: intersection past union,
/// union 0, `jaccard` outside [0, 1] or not intersection/union.
fn check_sizes(path: &std::path::Path, line: usize, l: &Line) -> Result<()> {
    if let (Some(i), Some(u)) = (l.intersection, l.union) {
        if i > u || u == 0 {
            return Err(Error::at(
                path,
                line,
                format!(
                    "intersection {} with union {}: expected 0 ≤ intersection ≤ union, union ≥ 1",
                    i, u
                ),
            ));
        }
        if let Some(j) = l.jaccard {
            if (j - i as f64 / u as f64).abs() > 1e-9 {
                return Err(Error::at(
                    path,
                    line,
                    format!("jaccard {} is not intersection/union = {}/{}", j, i, u),
                ));
            }
        }
    }
    if let Some(j) = l.jaccard {
        if !(0.0..=1.0).contains(&j) {
            return Err(Error::at(path, line, format!("jaccard {} outside [0, 1]", j)));
        }
    }
    Ok(())
}

/// The distinct pairs of `out` sorted by `(a, b)`, each with the first line it was listed on
/// and the sizes any of its lines states; refused (exit 2, at the later line) when two lines
/// state other sizes.
fn distinct_pairs(path: &std::path::Path, ids: &[&str], mut out: Vec<ListedPair>) -> Result<Vec<ListedPair>> {
    out.sort_by_key(|p| (p.a, p.b, p.line));
    let mut pairs: Vec<ListedPair> = Vec::with_capacity(out.len());
    for p in out {
        let Some(first) = pairs.last_mut().filter(|f| (f.a, f.b) == (p.a, p.b)) else {
            pairs.push(p);
            continue;
        };
        let clash = |x: Option<u64>, y: Option<u64>| matches!((x, y), (Some(x), Some(y)) if x != y);
        if clash(first.intersection, p.intersection) || clash(first.union, p.union) {
            let sizes = |q: &ListedPair| match (q.intersection, q.union) {
                (Some(i), Some(u)) => format!("intersection {}, union {}", i, u),
                (Some(i), None) => format!("intersection {}", i),
                (None, Some(u)) => format!("union {}", u),
                (None, None) => "no sizes".to_string(),
            };
            return Err(Error::at(
                path,
                p.line,
                format!(
                    "the pair `{}`–`{}` is listed again with {}, and line {} lists it with {}",
                    crate::text::short(ids[p.a as usize], 80),
                    crate::text::short(ids[p.b as usize], 80),
                    sizes(&p),
                    first.line,
                    sizes(first)
                ),
            ));
        }
        // Sizes only the repeat states are kept, so the sample checks them too.
        first.intersection = first.intersection.or(p.intersection);
        first.union = first.union.or(p.union);
    }
    Ok(pairs)
}

/// What [`check_sample`] checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SampleCheck {
    /// Pairs in the file (distinct).
    pub pairs: usize,
    /// Pairs checked exactly.
    pub checked: usize,
    /// Seed of the sample (`ChaCha8Rng::seed_from_u64`, `rand::seq::index::sample`).
    pub seed: u64,
    /// Lines of the file that repeat a pair an earlier line lists ([`PairList::repeated_lines`]);
    /// absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repeated_lines: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Checks up to `size` pairs of `list` drawn at random (seeded) exactly: each sampled pair's Jaccard,
/// recomputed from the two passages' `n`-gram shingle sets ([`shingle::shingles`] of
/// `texts(i)`, passage `i`'s text already normalized as the rule says), must be ≥ `t`, and the
/// sizes the file states must be the recomputed ones. Only the sampled passages are read and
/// shingled.
///
/// Errors (exit 2): the first sampled pair (in file order) that fails, with its line, both
/// passage ids and the recomputed sizes; an error of `texts` (a spill file read back).
#[allow(clippy::too_many_arguments)]
pub fn check_sample<'t>(
    input: &Input,
    list: &PairList,
    texts: &dyn Fn(u32) -> Result<std::borrow::Cow<'t, str>>,
    n: usize,
    ids: &[&str],
    t: f64,
    size: usize,
    seed: u64,
) -> Result<SampleCheck> {
    let pairs = &list.pairs;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = size.min(pairs.len());
    let mut picked: Vec<usize> = sample(&mut rng, pairs.len(), k).into_vec();
    picked.sort_by_key(|&i| pairs[i].line);
    for i in picked {
        let p = pairs[i];
        let (ta, tb) = (texts(p.a)?, texts(p.b)?);
        let sa = shingle::shingles(&ta, n);
        let sb = shingle::shingles(&tb, n);
        let inter = join::intersection(&sa, &sb);
        let union = sa.len() + sb.len() - inter;
        let name = |x: u32| crate::text::short(ids[x as usize], 80);
        let stated_ok = p.intersection.is_none_or(|v| v == inter as u64) && p.union.is_none_or(|v| v == union as u64);
        if !join::similar(inter, sa.len(), sb.len(), t) || !stated_ok {
            let j = if union == 0 { 0.0 } else { inter as f64 / union as f64 };
            return Err(Error::at(
                input.path(),
                p.line,
                format!(
                    "the pair `{}`–`{}` does not hold under the registered rule: recomputed intersection {}, union {}, Jaccard {:.6} (threshold {}){}",
                    name(p.a),
                    name(p.b),
                    inter,
                    union,
                    j,
                    t,
                    match (p.intersection, p.union) {
                        (Some(i), Some(u)) => format!("; the file states {} and {}", i, u),
                        _ => String::new(),
                    }
                ),
            )
            .with_hint("the pairs must come from the same passages, normalization, shingle size and threshold as the registered near-duplicate rule"));
        }
    }
    Ok(SampleCheck {
        pairs: pairs.len(),
        checked: k,
        seed,
        repeated_lines: list.repeated_lines,
    })
}

/// A near-duplicate pair with its exact shingle-set sizes, as [`write_pairs`] writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredPair {
    /// Index of the first passage (the smaller index).
    pub a: u32,
    /// Index of the second passage.
    pub b: u32,
    /// |A ∩ B|.
    pub intersection: u32,
    /// |A ∪ B|.
    pub union: u32,
}

/// `pairs` with their sizes recomputed from `sets` (the token sets the join ran on).
pub fn scored(pairs: &[(u32, u32)], sets: &[Vec<u32>]) -> Vec<ScoredPair> {
    pairs
        .iter()
        .map(|&(a, b)| {
            let (sa, sb) = (&sets[a as usize], &sets[b as usize]);
            let inter = join::intersection(sa, sb);
            ScoredPair {
                a,
                b,
                intersection: inter as u32,
                union: (sa.len() + sb.len() - inter) as u32,
            }
        })
        .collect()
}

/// Writes `pairs` as JSON Lines in the format [`read_pairs`] reads (`ids[i]` is passage i's id),
/// in the order given.
///
/// Errors: the writer's.
pub fn write_pairs(out: &mut dyn Write, pairs: &[ScoredPair], ids: &[&str]) -> std::io::Result<()> {
    for p in pairs {
        let line = OutLine {
            a: ids[p.a as usize],
            b: ids[p.b as usize],
            intersection: p.intersection as usize,
            union: p.union as usize,
            jaccard: p.intersection as f64 / p.union as f64,
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Limits;

    /// The texts of a slice, as `check_sample` reads them.
    fn of<'a>(texts: &'a [String]) -> impl Fn(u32) -> Result<std::borrow::Cow<'a, str>> + 'a {
        |i| Ok(std::borrow::Cow::Borrowed(texts[i as usize].as_str()))
    }

    fn input(text: &str) -> Input {
        Input::from_bytes("pairs.jsonl", text.as_bytes().to_vec(), Limits::default()).unwrap()
    }

    const IDS: [&str; 3] = ["p0", "p1", "p2"];

    #[test]
    fn reads_distinct_sorted_pairs_in_either_order() {
        let f = input("{\"a\":\"p2\",\"b\":\"p0\"}\n\n{\"a\":\"p0\",\"b\":\"p2\",\"intersection\":3,\"union\":4,\"jaccard\":0.75}\n{\"a\":\"p0\",\"b\":\"p1\"}\n");
        let list = read_pairs(&f, &IDS).unwrap();
        assert_eq!(
            list.pairs
                .iter()
                .map(|p| (p.a, p.b, p.line, p.intersection, p.union))
                .collect::<Vec<_>>(),
            vec![(0, 1, 4, None, None), (0, 2, 1, Some(3), Some(4))]
        );
        assert_eq!(list.repeated_lines, 1);
    }

    /// A pair listed again with other sizes is refused at the later line, naming the earlier
    /// one; the same sizes again only count as a repeated line.
    #[test]
    fn a_pair_listed_again_with_other_sizes_is_refused() {
        let same = "{\"a\":\"p0\",\"b\":\"p1\",\"intersection\":3,\"union\":4}\n";
        let f = input(&format!(
            "{}{}{}",
            same,
            same,
            same.replace("p0\",\"b\":\"p1", "p1\",\"b\":\"p0")
        ));
        let list = read_pairs(&f, &IDS).unwrap();
        assert_eq!((list.pairs.len(), list.repeated_lines), (1, 2));
        let f = input(&format!("{}\n{}", same, same.replace(":4}", ":5}")));
        let e = read_pairs(&f, &IDS).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.render().contains(
                "pairs.jsonl:3: the pair `p0`–`p1` is listed again with intersection 3, union 5, and line 1 lists it with intersection 3, union 4"
            ),
            "{}",
            e.render()
        );
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let cases = [
            ("{\"a\":\"p0\",\"b\":\"zz\"}", "pairs.jsonl:1: `zz` is not a passage id"),
            (
                "{\"a\":\"p0\",\"b\":\"p0\"}",
                "pairs.jsonl:1: a pair of passage `p0` with itself",
            ),
            ("{\"a\":\"p0\"}", "pairs.jsonl:1: expected a pair"),
            (
                "{\"a\":\"p0\",\"b\":\"p1\",\"intersect\":1}",
                "pairs.jsonl:1: expected a pair",
            ),
            (
                "{\"a\":\"p0\",\"b\":\"p1\",\"intersection\":5,\"union\":4}",
                "intersection 5 with union 4",
            ),
            (
                "{\"a\":\"p0\",\"b\":\"p1\",\"intersection\":1,\"union\":4,\"jaccard\":0.5}",
                "jaccard 0.5 is not intersection/union",
            ),
            (
                "{\"a\":\"p0\",\"b\":\"p1\",\"jaccard\":1.5}",
                "jaccard 1.5 outside [0, 1]",
            ),
        ];
        for (text, want) in cases {
            let e = read_pairs(&input(&format!("\n{}", text)), &IDS).unwrap_err().render();
            assert!(e.contains(&want.replace(":1:", ":2:")), "{}: {}", text, e);
            assert_eq!(read_pairs(&input(text), &IDS).unwrap_err().exit_code(), 2);
        }
    }

    #[test]
    fn the_sample_check_recomputes_jaccard_and_stated_sizes() {
        // 2-grams: p0 "abcde" = {ab,bc,cd,de}, p1 "abcdx" = {ab,bc,cd,dx}: 3/5 = 0.6;
        // p2 "abcdeab" = {ab,bc,cd,de,ea}: with p0 4/5 = 0.8.
        let texts: Vec<String> = ["abcde", "abcdx", "abcdeab"].iter().map(|s| s.to_string()).collect();
        let good = input("{\"a\":\"p0\",\"b\":\"p2\",\"intersection\":4,\"union\":5}\n");
        let p = read_pairs(&good, &IDS).unwrap();
        let c = check_sample(&good, &p, &of(&texts), 2, &IDS, 0.8, 10, 7).unwrap();
        assert_eq!((c.pairs, c.checked), (1, 1));
        let below = input("{\"a\":\"p0\",\"b\":\"p2\"}\n{\"a\":\"p0\",\"b\":\"p1\"}\n");
        let p = read_pairs(&below, &IDS).unwrap();
        let e = check_sample(&below, &p, &of(&texts), 2, &IDS, 0.8, 10, 7)
            .unwrap_err()
            .render();
        assert!(
            e.contains("pairs.jsonl:2: the pair `p0`–`p1` does not hold")
                && e.contains("intersection 3, union 5, Jaccard 0.600000"),
            "{}",
            e
        );
        let wrong_size =
            input("{\"a\":\"p0\",\"b\":\"p2\",\"intersection\":4,\"union\":6,\"jaccard\":0.6666666666666666}\n");
        let p = read_pairs(&wrong_size, &IDS).unwrap();
        let e = check_sample(&wrong_size, &p, &of(&texts), 2, &IDS, 0.8, 10, 7)
            .unwrap_err()
            .render();
        assert!(e.contains("the file states 4 and 6"), "{}", e);
    }

    #[test]
    fn written_pairs_read_back() {
        let sets = vec![vec![1, 2, 3, 4], vec![1, 2, 3, 5], vec![1, 2, 3, 4, 6]];
        let mut buf = Vec::new();
        write_pairs(&mut buf, &scored(&[(0, 2)], &sets), &IDS).unwrap();
        assert_eq!(
            String::from_utf8(buf.clone()).unwrap(),
            "{\"a\":\"p0\",\"b\":\"p2\",\"intersection\":4,\"union\":5,\"jaccard\":0.8}\n"
        );
        let f = Input::from_bytes("w.jsonl", buf, Limits::default()).unwrap();
        let p = read_pairs(&f, &IDS).unwrap();
        let texts: Vec<String> = ["abcde", "abcdx", "abcdeab"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            check_sample(&f, &p, &of(&texts), 2, &IDS, 0.8, 5, 1).unwrap().checked,
            1
        );
    }
}
