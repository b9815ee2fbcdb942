//! Unicode normalization and character n-gram shingles.
//!
//! A text's shingles are the set of its character (Unicode scalar value) n-grams after
//! normalization. A non-empty text shorter than n has the whole text as its only shingle; an empty
//! text has no shingle (and is never a near-duplicate of anything, see [`super::join`]).
//! Shingles are interned exactly (no hashing to fingerprints, so no collisions) and each set is
//! returned as token ids sorted by ascending global document frequency, the ordering the
//! prefix-filter join needs (rare tokens first).

use crate::protocol::Normalization;
use rayon::prelude::*;
use unicode_normalization::UnicodeNormalization;

/// Normalizes `text` as the protocol asks.
pub fn normalize(text: &str, n: Normalization) -> String {
    match n {
        Normalization::None => text.to_string(),
        Normalization::Nfc => match unicode_normalization::is_nfc_quick(text.chars()) {
            unicode_normalization::IsNormalized::Yes => text.to_string(),
            _ => text.nfc().collect(),
        },
        Normalization::Nfkc => match unicode_normalization::is_nfkc_quick(text.chars()) {
            unicode_normalization::IsNormalized::Yes => text.to_string(),
            _ => text.nfkc().collect(),
        },
    }
}

/// The distinct character n-grams of `text` as string slices (sorted, deduplicated).
pub fn shingles(text: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    if chars == 0 {
        return vec![];
    }
    if chars < n {
        return vec![text];
    }
    let mut out: Vec<&str> = (0..=chars - n).map(|i| &text[bounds[i]..bounds[i + n]]).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Packed key of an n-gram (n ≤ 6, 21 bits per char, exact) or of a whole text shorter than n
/// (≤ 5 chars, marked by bit 127 and its length), so no two distinct shingles share a key.
fn packed_set(text: &str, n: usize) -> Vec<u128> {
    let chars: Vec<u32> = text.chars().map(|c| c as u32).collect();
    if chars.is_empty() {
        return vec![];
    }
    if chars.len() < n {
        let k = chars.iter().fold(0u128, |k, &c| (k << 21) | c as u128);
        return vec![k | ((chars.len() as u128) << 110) | (1u128 << 127)];
    }
    let mask: u128 = if n * 21 >= 128 {
        u128::MAX
    } else {
        (1u128 << (n * 21)) - 1
    };
    let mut k: u128 = 0;
    let mut v = Vec::with_capacity(chars.len() + 1 - n);
    for (i, &c) in chars.iter().enumerate() {
        k = ((k << 21) | c as u128) & mask;
        if i + 1 >= n {
            v.push(k);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Ranks keys globally by ascending document frequency (ties by key) and writes each set as
/// sorted rank ids. `keyed` holds one `(key, record)` per distinct shingle of a record. Parallel
/// sort, then one linear pass: no hash map and no per-key search.
fn rank_sets<K: Ord + Copy + Send + Sync>(mut keyed: Vec<(K, u32)>, records: usize) -> Vec<Vec<u32>> {
    keyed.par_sort_unstable();
    // Group boundaries (one group per distinct key) and document frequencies.
    let mut starts: Vec<u32> = Vec::new();
    for (i, (k, _)) in keyed.iter().enumerate() {
        if i == 0 || keyed[i - 1].0 != *k {
            starts.push(i as u32);
        }
    }
    starts.push(keyed.len() as u32);
    let groups = starts.len() - 1;
    let df = |g: usize| starts[g + 1] - starts[g];
    let mut order: Vec<u32> = (0..groups as u32).collect();
    order.par_sort_unstable_by_key(|&g| (df(g as usize), g));
    let mut rank = vec![0u32; groups];
    for (r, &g) in order.iter().enumerate() {
        rank[g as usize] = r as u32;
    }
    let mut sizes = vec![0usize; records];
    for &(_, rec) in &keyed {
        sizes[rec as usize] += 1;
    }
    let mut out: Vec<Vec<u32>> = sizes.iter().map(|&n| Vec::with_capacity(n)).collect();
    for g in 0..groups {
        for &(_, rec) in &keyed[starts[g] as usize..starts[g + 1] as usize] {
            out[rec as usize].push(rank[g]);
        }
    }
    out.par_iter_mut().for_each(|v| v.sort_unstable());
    out
}

/// Token sets of `texts` (already normalized): one sorted, distinct `Vec<u32>` per text, token
/// ids ranked by ascending document frequency (ties by shingle), so the order is deterministic.
pub fn token_sets(texts: &[String], n: usize) -> Vec<Vec<u32>> {
    let n = n.max(1);
    if n <= 6 {
        let keyed: Vec<(u128, u32)> = texts
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, t)| packed_set(t, n).into_iter().map(move |k| (k, i as u32)))
            .collect();
        rank_sets(keyed, texts.len())
    } else {
        let keyed: Vec<(&str, u32)> = texts
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, t)| shingles(t, n).into_iter().map(move |k| (k, i as u32)))
            .collect();
        rank_sets(keyed, texts.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingles_of_short_and_empty_text() {
        assert_eq!(shingles("abcab", 2), vec!["ab", "bc", "ca"]);
        assert_eq!(shingles("abc", 5), vec!["abc"]);
        assert!(shingles("", 5).is_empty());
        // Characters, not bytes: three Hangul syllables, n = 2.
        assert_eq!(shingles("법률안", 2), vec!["률안", "법률"]); // byte order
    }

    #[test]
    fn nfc_makes_nfd_hangul_and_accents_equal() {
        let nfd_hangul = "\u{1100}\u{1161}"; // 가 decomposed
        assert_eq!(normalize(nfd_hangul, Normalization::Nfc), "가");
        assert_ne!(normalize(nfd_hangul, Normalization::None), "가");
        assert_eq!(normalize("e\u{301}t\u{e9}", Normalization::Nfc), "\u{e9}t\u{e9}");
        assert_eq!(normalize("ﬁ", Normalization::Nfkc), "fi");
    }

    #[test]
    fn token_sets_are_exact_and_ordered_by_frequency() {
        let texts: Vec<String> = ["abcd", "abce", "ab", "", "zz"].iter().map(|s| s.to_string()).collect();
        let t = token_sets(&texts, 3);
        // "abc" occurs twice, so it ranks after the singletons "bcd" and "bce".
        assert_eq!(t[0].len(), 2);
        assert_eq!(t[0][1], t[1][1]);
        assert_ne!(t[0][0], t[1][0]);
        assert_eq!(t[2].len(), 1);
        assert!(t[3].is_empty());
        assert_ne!(t[2], t[4]);
    }
}
