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
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use unicode_normalization::UnicodeNormalization;

/// Normalizes `text` as the protocol asks.
pub fn normalize(text: &str, n: Normalization) -> String {
    match n {
        Normalization::None => text.to_string(),
        Normalization::Nfc => text.nfc().collect(),
        Normalization::Nfkc => text.nfkc().collect(),
    }
}

/// The distinct character n-grams of `text` as string slices (sorted, deduplicated).
pub fn shingles(text: &str, n: usize) -> Vec<&str> {
    let n = n.max(1);
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
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

/// FxHash (rustc's hasher): fast for short keys; exact equality is still checked by the map.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Packs up to 6 chars (21 bits each) into a u128 with the length: an exact, collision-free key.
fn pack(s: &str) -> u128 {
    let mut k: u128 = 0;
    let mut len = 0u128;
    for c in s.chars() {
        k = (k << 21) | c as u128;
        len += 1;
    }
    (k << 3) | len
}

fn intern<K: Hash + Eq + Send + Copy>(sets: Vec<Vec<K>>) -> Vec<Vec<u32>> {
    let mut ids: FxMap<K, u32> = FxMap::default();
    let mut df: Vec<u32> = Vec::new();
    let raw: Vec<Vec<u32>> = sets
        .into_iter()
        .map(|set| {
            set.into_iter()
                .map(|k| {
                    let next = ids.len() as u32;
                    let id = *ids.entry(k).or_insert(next);
                    if id == next {
                        df.push(0);
                    }
                    df[id as usize] += 1;
                    id
                })
                .collect()
        })
        .collect();
    // Global order: ascending document frequency, ties by first appearance.
    let mut order: Vec<u32> = (0..df.len() as u32).collect();
    order.sort_by_key(|&t| (df[t as usize], t));
    let mut rank = vec![0u32; df.len()];
    for (r, &t) in order.iter().enumerate() {
        rank[t as usize] = r as u32;
    }
    raw.into_par_iter()
        .map(|s| {
            let mut v: Vec<u32> = s.into_iter().map(|t| rank[t as usize]).collect();
            v.sort_unstable();
            v
        })
        .collect()
}

/// An interned shingle: n-grams of up to 6 chars packed into a u128 (exact), anything else
/// (longer n, or a whole text shorter than n) by its string.
#[derive(Hash, PartialEq, Eq, Clone, Copy)]
enum Key<'a> {
    Packed(u128),
    Str(&'a str),
}

/// Token sets of `texts` (already normalized): one sorted, distinct `Vec<u32>` per text, token
/// ids ranked by ascending document frequency.
pub fn token_sets(texts: &[String], n: usize) -> Vec<Vec<u32>> {
    let n = n.max(1);
    let sets: Vec<Vec<Key>> = texts
        .par_iter()
        .map(|t| {
            let sh = shingles(t, n);
            let full = sh.first().is_some_and(|s| s.chars().count() == n);
            let mut v: Vec<Key> = if n <= 6 && full {
                sh.into_iter().map(|s| Key::Packed(pack(s))).collect()
            } else {
                sh.into_iter().map(Key::Str).collect()
            };
            v.dedup();
            v
        })
        .collect();
    intern(sets)
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
        assert_eq!(shingles("법률안", 2), vec!["법률", "률안"]);
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
