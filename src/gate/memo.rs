//! Hash maps keyed by short strings or by keyed hashes, for the gate's hot loops.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast, non-cryptographic hasher for short byte strings (8 bytes at a time, each word
/// multiplied in as FxHash does, then mixed by the final multiply-xorshift of SplitMix64). Only
/// for in-memory maps whose keys are not chosen by an adversary who could see the table; the
/// keyed hashes of shingles are already uniform and go through [`Identity`].
#[derive(Default, Clone, Copy)]
pub(crate) struct Fast(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for Fast {
    fn write(&mut self, bytes: &[u8]) {
        // The length first, so that strings differing only by trailing NULs differ.
        let mut h = (self.0.rotate_left(5) ^ bytes.len() as u64).wrapping_mul(K);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(K);
    }
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The identity hasher for `u64` keys that are already uniformly distributed (keyed hashes).
#[derive(Default, Clone, Copy)]
pub(crate) struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map from short strings, hashed with [`Fast`].
pub(crate) type StrMap<'a, V> = HashMap<&'a str, V, BuildHasherDefault<Fast>>;

/// A map from keyed hashes, hashed by [`Identity`].
pub(crate) type HashIndex<V> = HashMap<u64, V, BuildHasherDefault<Identity>>;

/// The value of each distinct string computed once: `get` looks `s` up and calls `make` only
/// the first time a string is seen.
pub(crate) struct Memo<'a, V> {
    map: StrMap<'a, V>,
}

impl<'a, V: Copy> Memo<'a, V> {
    /// An empty memo with room for about `capacity` strings.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Memo {
            map: StrMap::with_capacity_and_hasher(capacity, Default::default()),
        }
    }

    /// The value of `s`, made by `make` the first time.
    pub(crate) fn get(&mut self, s: &'a str, make: impl FnOnce(&str) -> V) -> V {
        *self.map.entry(s).or_insert_with(|| make(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memo_makes_each_value_once() {
        let mut m = Memo::with_capacity(4);
        let mut calls = 0;
        for s in ["ab", "cd", "ab", "abcdefghij", "abcdefghij", "cd"] {
            m.get(s, |x| {
                calls += 1;
                x.len()
            });
        }
        assert_eq!(calls, 3);
        assert_eq!(m.get("abcdefghij", |_| 0), 10);
    }

    #[test]
    fn fast_hash_separates_lengths_and_contents() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let b = BuildHasherDefault::<Fast>::default();
        let h = |s: &str| b.hash_one(s);
        assert_ne!(h("a"), h("a\0"));
        assert_ne!(h("abcdefgh"), h("abcdefgi"));
        assert_ne!(h(""), h("\0"));
    }
}
