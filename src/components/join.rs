//! Exact set-similarity join: every pair of token sets with Jaccard ≥ t.
//!
//! Method: AllPairs (Bayardo, Ma & Srikant, "Scaling up all pairs similarity search", WWW 2007)
//! with the prefix and length filters as in PPJoin (Xiao, Wang, Lin & Yu, WWW 2008). Tokens are
//! ordered by ascending global frequency ([`super::shingle::token_sets`]). If J(x, y) ≥ t then
//! |x ∩ y| ≥ ⌈t·|x|⌉ and ≥ ⌈t·|y|⌉, so the first |x| − ⌈t·|x|⌉ + 1 tokens of x and the first
//! |y| − ⌈t·|y|⌉ + 1 tokens of y share a token (prefix filter), and t·|x| ≤ |y| ≤ |x| for y no
//! larger than x (length filter). Candidates are then verified with the exact predicate
//! [`similar`], the same one the brute-force reference uses. Both filter bounds are computed with
//! a 1e-6 safety margin so floating-point rounding can only enlarge the candidate set, never drop
//! a pair. No MinHash or other sampling is involved: the join finds every pair.
//!
//! Empty sets (empty texts) are never similar to anything, including each other.

use rayon::prelude::*;

/// The exact predicate: J(a, b) = inter / (|a| + |b| − inter) ≥ t, false when either set is empty.
pub fn similar(inter: usize, a: usize, b: usize, t: f64) -> bool {
    if a == 0 || b == 0 {
        return false;
    }
    let union = a + b - inter;
    inter as f64 / union as f64 >= t
}

/// Size of the intersection of two sorted, distinct slices.
pub fn intersection(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Minimum overlap ⌈t·l⌉ with a safety margin (never more than the true bound).
fn min_overlap(l: usize, t: f64) -> usize {
    ((t * l as f64 - 1e-6).ceil().max(1.0) as usize).min(l)
}

/// All pairs `(i, j)`, `i < j`, of `sets` (sorted, distinct token ids in the global order) with
/// Jaccard ≥ `t` (0 < t ≤ 1), sorted. `progress` is called with the number of sets probed.
pub fn join(sets: &[Vec<u32>], t: f64, progress: &(dyn Fn(u64) + Sync)) -> Vec<(u32, u32)> {
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| !sets[i as usize].is_empty())
        .collect();
    order.sort_by_key(|&i| (sets[i as usize].len(), i));
    // Probing prefix (x, the larger): |x| − ⌈t·|x|⌉ + 1. Indexing prefix (y ≤ x in size): since
    // |x ∩ y| ≥ t/(1+t)·(|x|+|y|) ≥ 2t/(1+t)·|y|, |y| − ⌈2t/(1+t)·|y|⌉ + 1 tokens suffice.
    let prefix = |i: u32| {
        let s = &sets[i as usize];
        &s[..s.len() - min_overlap(s.len(), t) + 1]
    };
    let t_mid = 2.0 * t / (1.0 + t);
    let mid_prefix = |i: u32| {
        let s = &sets[i as usize];
        &s[..s.len() - min_overlap(s.len(), t_mid) + 1]
    };
    // Inverted index over prefixes: token -> positions in `order` (ascending, so ascending size).
    let ntok = sets
        .iter()
        .filter_map(|s| s.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let mut index: Vec<Vec<u32>> = vec![Vec::new(); ntok];
    for (pos, &i) in order.iter().enumerate() {
        for &tok in mid_prefix(i) {
            index[tok as usize].push(pos as u32);
        }
    }
    let lens: Vec<usize> = order.iter().map(|&i| sets[i as usize].len()).collect();
    let chunk = 1024;
    let mut pairs: Vec<(u32, u32)> = (0..order.len())
        .into_par_iter()
        .chunks(chunk)
        .flat_map_iter(|positions| {
            let mut found = Vec::new();
            let mut cand: Vec<u32> = Vec::new();
            let mut seen = vec![false; order.len()];
            for px in positions.iter().copied() {
                let x = order[px];
                let lx = lens[px];
                let min_len = t * lx as f64 - 1e-6;
                cand.clear();
                for &tok in prefix(x) {
                    let list = &index[tok as usize];
                    let start = list.partition_point(|&py| (lens[py as usize] as f64) < min_len);
                    for &py in &list[start..] {
                        if py as usize >= px {
                            break;
                        }
                        if !seen[py as usize] {
                            seen[py as usize] = true;
                            cand.push(py);
                        }
                    }
                }
                cand.iter().for_each(|&py| seen[py as usize] = false);
                let sx = &sets[x as usize];
                for &py in &cand {
                    let y = order[py as usize];
                    let sy = &sets[y as usize];
                    if similar(intersection(sx, sy), sx.len(), sy.len(), t) {
                        found.push((x.min(y), x.max(y)));
                    }
                }
            }
            progress(positions.len() as u64);
            found
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// The pairs of [`join`] with their exact intersection sizes: `(i, j, |sets[i] ∩ sets[j]|)`,
/// `i < j`, every pair with Jaccard ≥ `t`, sorted by `(i, j)`.
///
/// A pair's Jaccard is the exact fraction inter / (|x| + |y| − inter), so the pairs at any higher
/// threshold t′ are those for which [`similar`]`(inter, |x|, |y|, t′)` holds: one join at the lowest
/// threshold of a sweep serves every threshold of it, with the same predicate as a separate run.
pub fn join_scored(sets: &[Vec<u32>], t: f64, progress: &(dyn Fn(u64) + Sync)) -> Vec<(u32, u32, u32)> {
    join(sets, t, progress)
        .into_par_iter()
        .map(|(a, b)| (a, b, intersection(&sets[a as usize], &sets[b as usize]) as u32))
        .collect()
}

/// Brute-force reference: every pair compared (O(n²)); for tests.
pub fn brute_force(sets: &[Vec<u32>], t: f64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            if similar(intersection(&sets[i], &sets[j]), sets[i].len(), sets[j].len(), t) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::shingle::{normalize, token_sets};
    use crate::protocol::Normalization;
    use proptest::prelude::*;

    fn sets_of(texts: &[&str], n: usize) -> Vec<Vec<u32>> {
        let t: Vec<String> = texts.iter().map(|s| normalize(s, Normalization::Nfc)).collect();
        token_sets(&t, n)
    }

    #[test]
    fn hand_cases() {
        // "abcdefgh" vs "abcdefgx", n = 3: 6 shingles each, 5 shared, J = 5/7 ≈ 0.714.
        let s = sets_of(&["abcdefgh", "abcdefgx", "", "", "abc", "abc"], 3);
        assert_eq!(join(&s, 0.7, &|_| ()), vec![(0, 1), (4, 5)]);
        assert_eq!(join(&s, 0.72, &|_| ()), vec![(4, 5)]);
        // Exactly at the threshold: 4 of 5 → J = 4/5 (abcdef, abcdeg with n = 2 share 4 of 6 total).
        let s = sets_of(&["abcdef", "abcdeg"], 2);
        assert_eq!(intersection(&s[0], &s[1]), 4);
        assert_eq!(join(&s, 4.0 / 6.0, &|_| ()), vec![(0, 1)]);
        assert_eq!(join(&s, 0.67, &|_| ()), vec![]);
        assert_eq!(join_scored(&s, 0.5, &|_| ()), vec![(0, 1, 4)]);
    }

    #[test]
    fn nfd_hangul_equals_nfc() {
        let nfc = "제1조 이 법은 목적으로 한다";
        let nfd: String = unicode_normalization::UnicodeNormalization::nfd(nfc).collect();
        assert_ne!(nfc, nfd);
        let s = sets_of(&[nfc, &nfd], 5);
        assert_eq!(s[0], s[1]);
        assert_eq!(join(&s, 1.0, &|_| ()), vec![(0, 1)]);
    }

    fn corpus() -> impl Strategy<Value = (Vec<String>, usize, f64)> {
        let base = prop::collection::vec(prop::collection::vec(0u8..4, 0..14), 1..6);
        (
            base,
            prop::collection::vec((0usize..6, 0usize..14, 0u8..5), 0..25),
            1usize..5,
            0.3f64..1.0,
        )
            .prop_map(|(bases, edits, n, t)| {
                let mut texts: Vec<Vec<u8>> = bases.clone();
                for (b, pos, c) in edits {
                    let mut v = bases[b % bases.len()].clone();
                    if v.is_empty() || c == 4 {
                        v.insert(pos.min(v.len()), b'a');
                    } else {
                        let p = pos % v.len();
                        v[p] = c;
                    }
                    texts.push(v);
                }
                let texts = texts
                    .into_iter()
                    .map(|v| v.into_iter().map(|c| (b'a' + c) as char).collect())
                    .collect();
                (texts, n, (t * 100.0).round() / 100.0)
            })
    }

    proptest! {
        #[test]
        fn join_equals_brute_force((texts, n, t) in corpus()) {
            let sets = token_sets(&texts, n);
            prop_assert_eq!(join(&sets, t, &|_| ()), brute_force(&sets, t));
        }

        #[test]
        fn join_scored_carries_exact_intersections((texts, n, t) in corpus()) {
            let sets = token_sets(&texts, n);
            let scored = join_scored(&sets, t, &|_| ());
            let plain: Vec<(u32, u32)> = scored.iter().map(|&(a, b, _)| (a, b)).collect();
            prop_assert_eq!(plain, brute_force(&sets, t));
            for (a, b, k) in scored {
                let (x, y) = (&sets[a as usize], &sets[b as usize]);
                prop_assert_eq!(k as usize, x.iter().filter(|v| y.contains(v)).count());
            }
        }
    }
}
