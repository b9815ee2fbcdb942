//! Unicode normalization and character n-gram shingles.
//!
//! A text's shingles are the set of its character (Unicode scalar value) n-grams after
//! normalization. A non-empty text shorter than n has the whole text as its only shingle; an empty
//! text has no shingle (and is never a near-duplicate of anything, see [`super::join`]).
//! Shingles are interned exactly (no hashing to fingerprints, so no collisions) and each set is
//! returned as token ids sorted by ascending global frequency (occurrences in the corpus), the
//! ordering the prefix-filter join wants (rare tokens first).

use crate::protocol::Normalization;
use rayon::prelude::*;
use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

/// Normalizes `text` as the protocol asks.
pub fn normalize(text: &str, n: Normalization) -> String {
    normalized(text, n).into_owned()
}

/// Normalizes `text` as the protocol asks, borrowing it when it is already in that form (the
/// quick check of UAX #15 says so).
pub fn normalized(text: &str, n: Normalization) -> Cow<'_, str> {
    use unicode_normalization::IsNormalized;
    match n {
        Normalization::None => Cow::Borrowed(text),
        _ if matches!(quick_check(text, n), IsNormalized::Yes) => Cow::Borrowed(text),
        Normalization::Nfc => Cow::Owned(text.nfc().collect()),
        Normalization::Nfkc => Cow::Owned(text.nfkc().collect()),
    }
}

/// The quick check of UAX #15 (section 9) for form `n` (NFC or NFKC), run by run: a [`stable`]
/// character has canonical combining class 0 and quick-check value Yes, so it adds nothing to
/// the result and resets the check's state (the last combining class) to 0; the result is
/// therefore that of the runs of other characters, each checked from that state by the
/// `unicode-normalization` crate: No if any run is No, else Maybe if any is Maybe, else Yes.
/// The same answer as the crate's check on the whole text, with one bit lookup per character
/// where the text is stable ([`stable_prefix`]) and the crate's check only on the other runs.
fn quick_check(text: &str, n: Normalization) -> unicode_normalization::IsNormalized {
    use unicode_normalization::IsNormalized;
    let mut result = IsNormalized::Yes;
    let mut rest = text;
    loop {
        let run = &rest[stable_prefix(rest.as_bytes(), n)..];
        if run.is_empty() {
            break;
        }
        let to = run.find(|c: char| stable(c, n)).unwrap_or(run.len());
        let chars = run[..to].chars();
        match match n {
            Normalization::Nfkc => unicode_normalization::is_nfkc_quick(chars),
            _ => unicode_normalization::is_nfc_quick(chars),
        } {
            IsNormalized::No => return IsNormalized::No,
            IsNormalized::Maybe => result = IsNormalized::Maybe,
            IsNormalized::Yes => {}
        }
        rest = &run[to..];
    }
    result
}

/// The length in bytes of the longest prefix of `text` (UTF-8) made of [`stable`] characters
/// of normalization form `n`: ASCII eight bytes at a time, then each character of the Basic
/// Multilingual Plane decoded from its bytes and looked up in [`stable_bmp`] (a character
/// outside it ends the prefix; the crate's check reads it).
fn stable_prefix(text: &[u8], n: Normalization) -> usize {
    let table = stable_bmp(n);
    let mut i = 0;
    while i < text.len() {
        if let Some(w) = text.get(i..i + 8) {
            let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            if w & 0x8080_8080_8080_8080 == 0 {
                i += 8;
                continue;
            }
        }
        let b = text[i] as usize;
        let cont = |k: usize| text.get(i + k).map_or(0, |&x| x as usize & 0x3f);
        let (c, len) = match b {
            0x00..=0x7f => (b, 1),
            0xc0..=0xdf => ((b & 0x1f) << 6 | cont(1), 2),
            0xe0..=0xef => ((b & 0x0f) << 12 | cont(1) << 6 | cont(2), 3),
            _ => return i,
        };
        if table[c / 64] >> (c % 64) & 1 == 0 {
            return i;
        }
        i += len;
    }
    text.len()
}

/// Which characters of the Basic Multilingual Plane are [`stable`] under normalization form `n`
/// (one bit per scalar value, surrogates clear): canonical combining class 0 and quick-check
/// value Yes (UAX #15, section 9). Such a character adds nothing to the quick check's answer
/// and resets its state (the last combining class) to 0. Built once per form from the
/// `unicode-normalization` crate's tables.
fn stable_bmp(n: Normalization) -> &'static [u64; 1024] {
    use std::sync::OnceLock;
    use unicode_normalization::char::canonical_combining_class;
    use unicode_normalization::IsNormalized;
    static NFC: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    static NFKC: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    let nfkc = n == Normalization::Nfkc;
    let build = || {
        let mut t = Box::new([0u64; 1024]);
        for c in (0..=0xffffu32).filter_map(char::from_u32) {
            let one = std::iter::once(c);
            let quick = if nfkc {
                unicode_normalization::is_nfkc_quick(one)
            } else {
                unicode_normalization::is_nfc_quick(one)
            };
            if canonical_combining_class(c) == 0 && matches!(quick, IsNormalized::Yes) {
                t[c as usize / 64] |= 1 << (c as usize % 64);
            }
        }
        t
    };
    if nfkc {
        NFKC.get_or_init(build)
    } else {
        NFC.get_or_init(build)
    }
}

/// Characters that normalization form `n` maps to themselves and that never change the
/// character before them (combining class 0, quick check Yes). The character after one may
/// still change it: `e` followed by U+0301 composes to `é`. So in a run of stable characters
/// only the last can change, and only through the character after the run. These are
/// [`stable_bmp`]'s characters of the Basic Multilingual Plane (ASCII, the precomposed Hangul
/// syllables, the CJK unified ideographs, compatibility jamo, corner brackets, box drawing, and
/// for NFC Latin-1 and circled digits among them). A character outside the plane is treated as
/// not stable (the crate's check reads it).
fn stable(c: char, n: Normalization) -> bool {
    let c = c as usize;
    c <= 0xffff && stable_bmp(n)[c / 64] >> (c % 64) & 1 == 1
}

/// Words of a set of Unicode scalar values, one bit each.
const SEEN_WORDS: usize = (char::MAX as usize + 1).div_ceil(64);

/// Marks the characters of `text` in `seen` (one bit per scalar value).
fn mark_chars(text: &str, seen: &mut [u64]) {
    for c in text.chars() {
        seen[c as usize / 64] |= 1 << (c as usize % 64);
    }
}

/// [`normalized`] `text`, marking the characters of the result in `seen` (one bit per scalar
/// value) in the same pass over the text where the text is made of [`stable`] characters (the
/// usual case): each is marked once the character after it is known to be stable too (or the
/// text ends), since only a character that is not stable can make normalization change the one
/// before it (by composing with it); at the first character that is not stable, the text is
/// normalized by [`normalized`] and the result's characters are all marked. So the marks are
/// exactly the result's characters, as if it had been read again.
fn normalized_marking<'a>(text: &'a str, n: Normalization, seen: &mut [u64]) -> Cow<'a, str> {
    if n == Normalization::None {
        mark_chars(text, seen);
        return Cow::Borrowed(text);
    }
    let table = stable_bmp(n);
    let mut pending: Option<usize> = None;
    for c in text.chars() {
        let c = c as usize;
        if c > 0xffff || table[c / 64] >> (c % 64) & 1 == 0 {
            let out = normalized(text, n);
            mark_chars(&out, seen);
            return out;
        }
        if let Some(p) = pending.replace(c) {
            seen[p / 64] |= 1 << (p % 64);
        }
    }
    if let Some(p) = pending {
        seen[p / 64] |= 1 << (p % 64);
    }
    Cow::Borrowed(text)
}

/// Texts under one normalization form (each borrowed when it is already in that form) and the
/// alphabet of the normalized texts, found in the same pass ([`normalize_all`]); dereferences to
/// the texts.
pub struct Normalized<'a> {
    texts: Vec<Cow<'a, str>>,
    alphabet: Alphabet,
}

impl<'a> std::ops::Deref for Normalized<'a> {
    type Target = [Cow<'a, str>];
    fn deref(&self) -> &[Cow<'a, str>] {
        &self.texts
    }
}

/// Normalizes each of `texts` as [`normalized`] does (in parallel) and finds the characters the
/// results use in the same pass (a stable character is marked once the next is stable too), so
/// shingling them ([`Normalized::ranked`]) needs no further pass to build its alphabet.
pub fn normalize_all<'a>(texts: &[&'a str], n: Normalization) -> Normalized<'a> {
    let per = texts.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let parts: Vec<(Vec<Cow<'a, str>>, Vec<u64>)> = texts
        .par_chunks(per)
        .map(|chunk| {
            let mut seen = vec![0u64; SEEN_WORDS];
            let out = chunk.iter().map(|t| normalized_marking(t, n, &mut seen)).collect();
            (out, seen)
        })
        .collect();
    let mut seen = vec![0u64; SEEN_WORDS];
    let mut out = Vec::with_capacity(texts.len());
    for (texts, s) in parts {
        out.extend(texts);
        seen.iter_mut().zip(&s).for_each(|(x, y)| *x |= y);
    }
    Normalized {
        texts: out,
        alphabet: Alphabet::from_seen(&seen),
    }
}

impl Normalized<'_> {
    /// The texts' token sets for character n-grams ([`ranked_token_sets`], the same sets), with
    /// the alphabet already found.
    pub fn ranked(&self, n: usize) -> TokenSets {
        ranked_with(&self.texts, n, &self.alphabet)
    }

    /// Bytes of one shingle key of size `n` while the shingles are ranked: 8 (a u64) when `n`
    /// characters of the alphabet pack into 64 bits, else 16 (a u128, or a string slice).
    pub fn key_bytes(&self, n: usize) -> u64 {
        if n.max(1) * self.alphabet.bits as usize <= 64 {
            8
        } else {
            16
        }
    }

    /// Characters of all the texts (in parallel): an upper bound on their shingle occurrences.
    pub fn chars(&self) -> u64 {
        self.texts.par_iter().map(|t| t.chars().count() as u64).sum()
    }
}

/// The distinct character n-grams of `text` as string slices (sorted, deduplicated).
pub fn shingles(text: &str, n: usize) -> Vec<&str> {
    let mut out = ngrams(text, n);
    out.sort_unstable();
    out.dedup();
    out
}

/// The character n-grams of `text` as string slices, in text order with repeats (the whole text
/// when it has fewer than n characters, none when it is empty).
pub fn ngrams(text: &str, n: usize) -> Vec<&str> {
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
    (0..=chars - n).map(|i| &text[bounds[i]..bounds[i + n]]).collect()
}

/// The characters of all texts, dictionary-coded: code `1..=len` by ascending scalar value (0 is
/// never a code, so a text shorter than n packs to a key whose top character slots are zero and
/// cannot equal any full n-gram's key).
pub(super) struct Alphabet {
    /// Code of each scalar value `0..=max`, 0 when the character does not occur.
    codes: Vec<u32>,
    /// Bits per packed character: enough for the largest code.
    pub(super) bits: u32,
}

impl Alphabet {
    pub(super) fn of<S: AsRef<str> + Sync>(texts: &[S]) -> Alphabet {
        let seen = texts
            .par_iter()
            .fold(
                || vec![0u64; SEEN_WORDS],
                |mut set, t| {
                    mark_chars(t.as_ref(), &mut set);
                    set
                },
            )
            .reduce(
                || vec![0u64; SEEN_WORDS],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                    a
                },
            );
        Alphabet::from_seen(&seen)
    }

    /// The alphabet of the characters marked in `seen` (one bit per scalar value).
    fn from_seen(seen: &[u64]) -> Alphabet {
        let max = seen
            .iter()
            .rposition(|&w| w != 0)
            .map_or(0, |w| w * 64 + 63 - seen[w].leading_zeros() as usize);
        let mut codes = vec![0u32; max + 1];
        let mut next = 0u32;
        for (c, code) in codes.iter_mut().enumerate() {
            if seen[c / 64] >> (c % 64) & 1 == 1 {
                next += 1;
                *code = next;
            }
        }
        Alphabet {
            codes,
            bits: 32 - next.leading_zeros(),
        }
    }
}

/// An exact shingle key: an integer of packed character codes, or the shingle's text itself.
/// Integer keys are stored mixed by a bijection (so still exact) to spread them evenly over the
/// shards of [`rank_sets`].
pub(super) trait Key: Copy + Eq + std::hash::Hash + Ord + Send + Sync {
    /// Which of [`SHARDS`] groups the key falls in; keys of one shard are contiguous in a set
    /// sorted by [`Key::sort`].
    fn shard(&self) -> usize;
    /// Sorts a set so that each shard's keys are contiguous, then removes duplicates.
    fn sort(v: &mut Vec<Self>) {
        v.sort_by_cached_key(|k| (k.shard(), *k));
        v.dedup();
    }
    /// Interns one shard's keys, segment by segment: each segment's local ids (a new key gets
    /// the next id, so ids follow first occurrence) and each id's frequency (occurrences).
    fn intern(segments: Vec<Vec<Self>>) -> (Vec<Vec<u32>>, Vec<u32>) {
        intern_map(segments)
    }
}

/// [`Key::intern`] through a hash map (any key type).
fn intern_map<K: Key>(segments: Vec<Vec<K>>) -> (Vec<Vec<u32>>, Vec<u32>) {
    // Most corpora repeat their shingles many times over; a table sized for an eighth
    // of the occurrences seldom has to grow.
    let occurrences: usize = segments.iter().map(Vec::len).sum();
    let mut local: std::collections::HashMap<K, u32, FastHash> =
        std::collections::HashMap::with_capacity_and_hasher(occurrences / 8, FastHash::default());
    let mut df: Vec<u32> = Vec::new();
    let mut id_of = |k: K| {
        let id = *local.entry(k).or_insert_with(|| {
            df.push(0);
            df.len() as u32 - 1
        });
        df[id as usize] = df[id as usize].saturating_add(1);
        id
    };
    let ids = segments
        .into_iter()
        .map(|seg| seg.iter().map(|&k| id_of(k)).collect())
        .collect();
    (ids, df)
}

/// An open-addressing table (linear probing, a power-of-two number of slots, at most three
/// quarters full) interning integer keys that are already mixed ([`mix64`], [`mix128`]), so a
/// key's low bits pick its slot. Each slot holds the key, its id and its frequency, so finding a
/// repeated key (usually in its first slot) also finds its count: no second lookup. The frequency
/// 0 marks an empty slot; frequencies saturate at `u32::MAX`, as [`intern_map`]'s do.
struct Table<K> {
    slots: Vec<(K, u32, u32)>,
    len: u32,
}

impl<K: Key + Default + Into<u128>> Table<K> {
    fn with_capacity(keys: usize) -> Table<K> {
        let n = (keys * 4 / 3 + 1).next_power_of_two().max(16);
        Table {
            slots: vec![(K::default(), 0, 0); n],
            len: 0,
        }
    }

    fn slot(k: K, mask: usize) -> usize {
        let k: u128 = k.into();
        k as usize & mask
    }

    /// The id of `k` (the next id when it is new), its frequency counted.
    fn id(&mut self, k: K) -> u32 {
        if (self.len as usize + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::slot(k, mask);
        loop {
            let s = &mut self.slots[i];
            if s.2 == 0 {
                *s = (k, self.len, 1);
                self.len += 1;
                return s.1;
            }
            if s.0 == k {
                s.2 = s.2.saturating_add(1);
                return s.1;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let wider = vec![(K::default(), 0, 0); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, wider);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|s| s.2 != 0) {
            let mut i = Self::slot(s.0, mask);
            while self.slots[i].2 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Each id's frequency, by id.
    fn frequencies(&self) -> Vec<u32> {
        let mut df = vec![0u32; self.len as usize];
        for &(_, id, f) in self.slots.iter().filter(|s| s.2 != 0) {
            df[id as usize] = f;
        }
        df
    }
}

/// [`Key::intern`] through a [`Table`]: the same ids and frequencies as the hash map gives.
fn intern_table<K: Key + Default + Into<u128>>(segments: Vec<Vec<K>>) -> (Vec<Vec<u32>>, Vec<u32>) {
    let occurrences: usize = segments.iter().map(Vec::len).sum();
    let mut table = Table::with_capacity(occurrences / 8);
    let ids = segments
        .into_iter()
        .map(|seg| seg.iter().map(|&k| table.id(k)).collect())
        .collect();
    (ids, table.frequencies())
}

/// 64 shards: on a corpus like the statutes (2.3 M distinct 5-grams) each shard's table is about
/// 1 MB (64 Ki slots of 16 bytes for u64 keys; u128 slots take 32), small enough for a core's
/// cache, which interning is bound by.
const SHARD_BITS: u32 = 6;
/// Shards of the global ranking: each is interned by one task with its own table ([`Key::intern`]).
const SHARDS: usize = 1 << SHARD_BITS;

/// A bijection of u64 (the splitmix64 finalizer: xor-shifts and odd multipliers are invertible).
pub(super) fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A bijection of u128 (xor-shift, odd multiplier, xor-shift).
pub(super) fn mix128(mut x: u128) -> u128 {
    x = (x ^ (x >> 64)).wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645);
    x ^ (x >> 64)
}

impl Key for u64 {
    fn shard(&self) -> usize {
        (*self >> (64 - SHARD_BITS)) as usize
    }
    fn sort(v: &mut Vec<Self>) {
        v.sort_unstable();
        v.dedup();
    }
    fn intern(segments: Vec<Vec<Self>>) -> (Vec<Vec<u32>>, Vec<u32>) {
        intern_table(segments)
    }
}

impl Key for u128 {
    fn shard(&self) -> usize {
        (*self >> (128 - SHARD_BITS)) as usize
    }
    fn sort(v: &mut Vec<Self>) {
        v.sort_unstable();
        v.dedup();
    }
    fn intern(segments: Vec<Vec<Self>>) -> (Vec<Vec<u32>>, Vec<u32>) {
        intern_table(segments)
    }
}

impl Key for &str {
    fn shard(&self) -> usize {
        use std::hash::{BuildHasher, Hasher};
        let mut h = FastHash::default().build_hasher();
        h.write(self.as_bytes());
        (h.finish() >> (64 - SHARD_BITS)) as usize
    }
}

/// A fast, fixed (unseeded) hasher for the shard maps: keys are already well spread or are
/// text, and the maps only intern (their iteration order is never used), so no seed is needed.
///
/// Integer keys are stored mixed ([`mix64`], [`mix128`]), so one multiply by an odd constant
/// is enough to spread every bit of a key into the top bits of the hash (which hashbrown's
/// control bytes use) while its low bits stay as well spread as the key's; bytes (text keys)
/// are mixed fully at the end of each write.
#[derive(Default, Clone, Copy)]
pub(super) struct FastHash(u64);

impl std::hash::Hasher for FastHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
        self.0 = mix64(self.0);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHash;
    fn build_hasher(&self) -> FastHash {
        FastHash(0)
    }
}

/// The packed keys of `text`'s n-grams (or of the whole text when it has fewer than n
/// characters) as integers of type `K` (u64 when n·bits ≤ 64, u128 when ≤ 128), in text order
/// with repeats: `step` shifts one character code in, `mix` spreads the key; appended to `keys`.
fn keys_into<K: Key>(
    text: &str,
    n: usize,
    alpha: &Alphabet,
    keys: &mut Vec<K>,
    (widen, step, mix): &(impl Fn(u32) -> K, impl Fn(K, K) -> K, impl Fn(K) -> K),
) {
    let mut k = widen(0);
    let mut count = 0;
    for c in text.chars() {
        k = step(k, widen(alpha.codes[c as usize]));
        count += 1;
        if count >= n {
            keys.push(mix(k));
        }
    }
    if count > 0 && count < n {
        keys.push(mix(k));
    }
}

/// [`keys_into`], then sorted and deduplicated by [`Key::sort`]: the text's distinct keys.
fn packed_into<K: Key>(
    text: &str,
    n: usize,
    alpha: &Alphabet,
    keys: &mut Vec<K>,
    fns: &(impl Fn(u32) -> K, impl Fn(K, K) -> K, impl Fn(K) -> K),
) {
    keys.clear();
    keys_into(text, n, alpha, keys, fns);
    K::sort(keys);
}

/// [`packed_into`] `scratch`, returned at its exact size.
pub(super) fn packed<K: Key>(
    text: &str,
    n: usize,
    alpha: &Alphabet,
    scratch: &mut Vec<K>,
    fns: (impl Fn(u32) -> K, impl Fn(K, K) -> K, impl Fn(K) -> K),
) -> Vec<K> {
    packed_into(text, n, alpha, scratch, &fns);
    scratch.to_vec()
}

/// Records per generation chunk of [`rank_sets`].
const CHUNK: usize = 2048;

/// Ranks keys globally by ascending frequency and writes each set as sorted, distinct rank ids.
/// `keys_of(i, keys)` appends the keys of record `i` (of `records`) to `keys`, in any order and
/// with repeats; a key's frequency is its number of occurrences over all records (a key
/// repeated inside a record counts each time, so no record needs sorting before the ranking;
/// any fixed global order keeps the join exact, and this one orders rare shingles first as
/// document frequency does).
///
/// A radix partition by shard, so that every pass streams through memory: chunks of records are
/// keyed in parallel, each chunk by one task that scatters its records' keys into one
/// exact-size segment per shard, noting how many keys of each record went to each shard. Each
/// shard is then interned by one task with its own table ([`Key::intern`]; a shard's table is
/// small enough to stay in cache): a new key gets the next local id, and frequencies are counted. Ranks are
/// (frequency, shard, local id) in a counting sort over frequencies, so ties are broken by a
/// fixed function of the input (deterministic). Last, each record gathers its ids back from the
/// shards' id streams, sorts them ([`sort_ranks`]: a radix sort, since the ranks are bounded by
/// the distinct keys) and drops the repeats.
fn rank_sets<K: Key>(records: usize, keys_of: impl Fn(usize, &mut Vec<K>) + Sync) -> TokenSets {
    // Per chunk of records, in parallel: the chunk's keys (appended record after record), how
    // many of them fall in each shard, and the chunk's keys scattered into one exact-size segment
    // per shard. counts[i * SHARDS + s]: keys of record i in shard s.
    let keyed: Vec<(Vec<u32>, Vec<Vec<K>>)> = (0..records.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(Vec::new, |flat, chunk| {
            // `flat` is kept from chunk to chunk by each task, so it stops growing after the
            // first few.
            flat.clear();
            let r = chunk * CHUNK..((chunk + 1) * CHUNK).min(records);
            let mut counts = vec![0u32; r.len() * SHARDS];
            for (c, i) in counts.chunks_mut(SHARDS).zip(r) {
                let from = flat.len();
                keys_of(i, flat);
                for k in &flat[from..] {
                    c[k.shard()] += 1;
                }
            }
            let mut segs: Vec<Vec<K>> = (0..SHARDS)
                .map(|shard| Vec::with_capacity(counts.chunks(SHARDS).map(|c| c[shard] as usize).sum()))
                .collect();
            for &k in flat.iter() {
                segs[k.shard()].push(k);
            }
            (counts, segs)
        })
        .collect();
    let mut counts = Vec::with_capacity(records * SHARDS);
    let mut buckets: Vec<Vec<Vec<K>>> = (0..SHARDS).map(|_| Vec::with_capacity(keyed.len())).collect();
    for (c, segs) in keyed {
        counts.extend_from_slice(&c);
        buckets.iter_mut().zip(segs).for_each(|(b, seg)| b.push(seg));
    }
    // Intern each shard: the local ids of each segment's keys, and each id's frequency.
    let interned: Vec<(Vec<Vec<u32>>, Vec<u32>)> = buckets.into_par_iter().map(K::intern).collect();
    let distinct = interned.iter().map(|(_, df)| df.len()).sum::<usize>() as u32;
    // Rank by (frequency, global id) with a counting sort over frequencies.
    let max_df = interned.iter().flat_map(|(_, df)| df).copied().max().unwrap_or(0) as usize;
    let mut next = vec![0u32; max_df + 2];
    for &d in interned.iter().flat_map(|(_, df)| df) {
        next[d as usize + 1] += 1;
    }
    // Keys seen once: the ranks 0..unique (no key occurs zero times).
    let unique = next.get(2).copied().unwrap_or(0);
    for d in 1..next.len() {
        next[d] += next[d - 1];
    }
    let ranks: Vec<Vec<u32>> = interned
        .iter()
        .map(|(_, df)| {
            df.iter()
                .map(|&d| {
                    let r = next[d as usize];
                    next[d as usize] += 1;
                    r
                })
                .collect()
        })
        .collect();
    // Local ids to ranks, shard by shard (each shard's ranks are a small table).
    let streams: Vec<Vec<Vec<u32>>> = interned
        .into_par_iter()
        .zip(&ranks)
        .map(|((mut ids, _), rank)| {
            ids.iter_mut().flatten().for_each(|x| *x = rank[*x as usize]);
            ids
        })
        .collect();
    drop(ranks);
    // Gather: chunk c of records reads segment c of every shard, in record order.
    // Ranks are below `distinct`: the 8-bit digits the radix sort of each set needs.
    let digits = (u32::BITS - distinct.leading_zeros()).div_ceil(8);
    let sets = counts
        .par_chunks(SHARDS * CHUNK)
        .enumerate()
        .flat_map_iter(|(chunk, counts)| {
            let streams = &streams;
            let mut at = [0usize; SHARDS];
            let mut scratch = Vec::new();
            counts.chunks(SHARDS).map(move |c| {
                let mut v = Vec::with_capacity(c.iter().map(|&x| x as usize).sum());
                for (s, &x) in c.iter().enumerate() {
                    v.extend_from_slice(&streams[s][chunk][at[s]..at[s] + x as usize]);
                    at[s] += x as usize;
                }
                sort_ranks(&mut v, &mut scratch, digits);
                v.dedup();
                v
            })
        })
        .collect();
    TokenSets { sets, unique }
}

/// Sorts `v` ascending when its values are below 2^(8·`digits`): a least-significant-digit
/// radix sort with 8-bit digits (one counting pass for all digits, then one stable scatter per
/// digit between `v` and `scratch`; Knuth, TAOCP vol. 3, section 5.2.5), or the standard
/// library's sort for slices shorter than 64. `digits` is taken as 1 to 4. On the statute corpus
/// (sets of about 300 ranks below 2^22: 3 digits) the whole count ran in 0.91–0.97 of the time
/// it took with `sort_unstable` here (paired whole-process medians).
fn sort_ranks(v: &mut Vec<u32>, scratch: &mut Vec<u32>, digits: u32) {
    if v.len() < 64 {
        v.sort_unstable();
        return;
    }
    let digits = (digits as usize).clamp(1, 4);
    let mut hist = [[0u32; 256]; 4];
    for &x in v.iter() {
        for (d, h) in hist.iter_mut().enumerate().take(digits) {
            h[(x >> (8 * d)) as usize & 0xff] += 1;
        }
    }
    // The scratch only grows (to the longest set a task sorts): every slot the scatter reads is
    // written first, so it is not cleared from set to set.
    if scratch.len() < v.len() {
        scratch.resize(v.len(), 0);
    }
    let n = v.len();
    let (mut src, mut dst): (&mut [u32], &mut [u32]) = (v.as_mut_slice(), &mut scratch[..n]);
    for (d, h) in hist.iter_mut().enumerate().take(digits) {
        let mut sum = 0;
        for c in h.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for &x in src.iter() {
            let b = (x >> (8 * d)) as usize & 0xff;
            dst[h[b] as usize] = x;
            h[b] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
    }
    if digits % 2 == 1 {
        v.copy_from_slice(&scratch[..n]);
    }
}

/// Token sets of `texts` (already normalized): one sorted, distinct `Vec<u32>` per text, token
/// ids ranked by ascending frequency (a shingle's occurrences over all texts), ties broken
/// deterministically (a fixed function of the shingles and the input order).
///
/// Keys are exact: the texts' characters are dictionary-coded (b bits each, enough for the
/// alphabet actually used) and an n-gram is packed into a u64 when n·b ≤ 64, a u128 when
/// n·b ≤ 128, and kept as its text otherwise; no hashing to fingerprints, so no collisions.
pub fn token_sets<S: AsRef<str> + Sync>(texts: &[S], n: usize) -> Vec<Vec<u32>> {
    ranked_token_sets(texts, n).sets
}

/// The token sets of [`token_sets`] and how many of their tokens occur only once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSets {
    /// One sorted, distinct `Vec<u32>` of token ids per text.
    pub sets: Vec<Vec<u32>>,
    /// The tokens that occur once in all the texts are exactly the ids `0..unique` (ranked
    /// first): each lies in one set only, so it can never be shared, and the join skips it
    /// ([`super::join::join_unique`]).
    pub unique: u32,
}

/// [`token_sets`] with the number of tokens that occur only once ([`TokenSets::unique`]).
pub fn ranked_token_sets<S: AsRef<str> + Sync>(texts: &[S], n: usize) -> TokenSets {
    ranked_with(texts, n, &Alphabet::of(texts))
}

/// [`ranked_token_sets`] with the texts' alphabet `alpha` (which must hold every character of
/// the texts).
fn ranked_with<S: AsRef<str> + Sync>(texts: &[S], n: usize, alpha: &Alphabet) -> TokenSets {
    let n = n.max(1);
    let b = alpha.bits as usize;
    if n * b <= 64 {
        let mask = if n * b == 64 { u64::MAX } else { (1u64 << (n * b)) - 1 };
        let fns = (u64::from, |k, c| ((k << b) | c) & mask, mix64);
        rank_sets::<u64>(texts.len(), |i, v| keys_into(texts[i].as_ref(), n, alpha, v, &fns))
    } else if n * b <= 128 {
        let mask = if n * b == 128 {
            u128::MAX
        } else {
            (1u128 << (n * b)) - 1
        };
        let fns = (u128::from, |k, c| ((k << b) | c) & mask, mix128);
        rank_sets::<u128>(texts.len(), |i, v| keys_into(texts[i].as_ref(), n, alpha, v, &fns))
    } else {
        rank_sets::<&str>(texts.len(), |i, v| v.extend(ngrams(texts[i].as_ref(), n)))
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
    fn stable_characters_are_normalized_in_any_context() {
        use unicode_normalization::char::canonical_combining_class;
        use unicode_normalization::IsNormalized;
        for n in [Normalization::Nfc, Normalization::Nfkc] {
            let mut checked = 0;
            for c in (0..=char::MAX as u32)
                .filter_map(char::from_u32)
                .filter(|&c| stable(c, n))
            {
                assert_eq!(canonical_combining_class(c), 0, "{:04X}", c as u32);
                let one = std::iter::once(c);
                let quick = match n {
                    Normalization::Nfc => unicode_normalization::is_nfc_quick(one),
                    _ => unicode_normalization::is_nfkc_quick(one),
                };
                assert!(matches!(quick, IsNormalized::Yes), "{:04X}", c as u32);
                checked += 1;
            }
            // At least the common scripts: 0x300 or 0x80 below, 11,172 Hangul syllables,
            // 20,992 ideographs.
            let low = if n == Normalization::Nfc { 0x300 } else { 0x80 };
            let common = (0..low)
                .chain(0xac00..=0xd7a3)
                .chain(0x4e00..=0x9fff)
                .filter_map(char::from_u32);
            assert!(common.clone().all(|c| stable(c, n)));
            assert!(checked > common.count());
        }
        // Compatibility jamo and circled digits are left alone by NFC, not by NFKC; corner
        // brackets by both; a combining mark, the angstrom sign (a singleton) and a character
        // outside the Basic Multilingual Plane by neither.
        for (c, nfc, nfkc) in [
            ('\u{318d}', true, false),
            ('\u{2460}', true, false),
            ('\u{300c}', true, true),
            ('\u{301}', false, false),
            ('\u{212b}', false, false),
            ('\u{1f600}', false, false),
        ] {
            assert_eq!(stable(c, Normalization::Nfc), nfc, "{:04X}", c as u32);
            assert_eq!(stable(c, Normalization::Nfkc), nfkc, "{:04X}", c as u32);
        }
        // The shortcut and the general path agree, and a combining mark still composes.
        assert!(matches!(
            normalized("가나 abc 法", Normalization::Nfc),
            Cow::Borrowed(_)
        ));
        assert_eq!(normalized("e\u{301}", Normalization::Nfc), "\u{e9}");
        assert_eq!(normalized("\u{a0}", Normalization::Nfkc), " ");
        assert!(matches!(normalized("\u{a0}", Normalization::Nfc), Cow::Borrowed(_)));
    }

    /// The byte-level prefix scan agrees with [`stable`] on every scalar value, alone and
    /// after an ASCII run (so the eight-byte step ends where it must).
    #[test]
    fn stable_prefix_reads_every_character_as_stable_does() {
        for n in [Normalization::Nfc, Normalization::Nfkc] {
            for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
                let mut buf = [0u8; 4];
                let one = c.encode_utf8(&mut buf).as_bytes();
                let want = if stable(c, n) { one.len() } else { 0 };
                assert_eq!(stable_prefix(one, n), want, "{:04X} {:?}", c as u32, n);
                let mut text = b"abcdefghij".to_vec();
                text.extend_from_slice(one);
                text.extend_from_slice("\u{301}".as_bytes());
                assert_eq!(stable_prefix(&text, n), 10 + want, "{:04X} {:?}", c as u32, n);
            }
        }
    }

    #[test]
    fn radix_sort_of_ranks_is_sorted() {
        let mut scratch = Vec::new();
        // 300 values below 2^22 in a scrambled order (an odd multiplier mod 2^22 is a bijection).
        let mut v: Vec<u32> = (0..300u32).map(|i| i.wrapping_mul(2_654_435_761) & 0x3f_ffff).collect();
        let mut want = v.clone();
        want.sort_unstable();
        sort_ranks(&mut v, &mut scratch, 3);
        assert_eq!(v, want);
        // Even and odd digit counts, duplicates, the bounds of each width.
        for digits in 1..=4u32 {
            let top = if digits == 4 {
                u32::MAX
            } else {
                (1u32 << (8 * digits)) - 1
            };
            let mut v: Vec<u32> = (0..200u32)
                .map(|i| [0, top, i % 7, top - i % 5][i as usize % 4])
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_ranks(&mut v, &mut scratch, digits);
            assert_eq!(v, want, "{} digits", digits);
        }
        // Short slices take the standard sort.
        let mut v = vec![5u32, 1, 3];
        sort_ranks(&mut v, &mut scratch, 1);
        assert_eq!(v, [1, 3, 5]);
    }

    /// The one-pass alphabet is that of the normalized texts: a stable character that composes
    /// with the mark after it is not in it.
    #[test]
    fn one_pass_alphabet_is_the_normalized_texts_alphabet() {
        let texts = ["e\u{301}", "가나", ""];
        let t = normalize_all(&texts, Normalization::Nfc);
        assert_eq!(&t[..], ["\u{e9}", "가나", ""]);
        assert_eq!(t.alphabet.codes['e' as usize], 0);
        assert_eq!(t.alphabet.codes[0xe9], 1);
        assert_eq!(t.alphabet.codes['가' as usize], 2);
        assert_eq!(t.alphabet.codes['나' as usize], 3);
        assert_eq!(t.alphabet.codes.len(), '나' as usize + 1);
        assert_eq!(t.alphabet.bits, 2);
        let none = normalize_all(&texts, Normalization::None);
        assert_eq!(none.alphabet.codes['e' as usize], 1);
        assert_eq!(none.alphabet.codes[0x301], 2);
        assert_eq!(none.alphabet.bits, 3);
    }

    proptest::proptest! {
        /// The radix sort of [`sort_ranks`] is the standard sort on any values of its width.
        #[test]
        fn radix_sort_equals_the_standard_sort(
            digits in 1u32..=4,
            raw in proptest::collection::vec(proptest::num::u32::ANY, 0..400),
        ) {
            let mask = if digits == 4 { u32::MAX } else { (1u32 << (8 * digits)) - 1 };
            let mut v: Vec<u32> = raw.iter().map(|x| x & mask).collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_ranks(&mut v, &mut Vec::new(), digits);
            proptest::prop_assert_eq!(v, want);
        }

        /// The run-by-run quick check gives the crate's answer on the whole text, and
        /// `normalized` is the crate's normalization (borrowed exactly when the check says Yes):
        /// texts mixing stable characters, compatibility jamo, circled digits, conjoining jamo,
        /// combining marks in and out of canonical order, singletons and ligatures.
        #[test]
        fn run_wise_quick_check_equals_the_crates(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", " ", "가", "法", "\u{318d}", "\u{2460}", "\u{1100}", "\u{1161}", "\u{11a8}",
                "\u{301}", "\u{323}", "\u{316}", "e", "\u{e9}", "\u{2000}", "\u{212b}", "\u{fb01}",
                "\u{a0}", "\u{ff21}", "\u{0f73}",
            ]), 0..12),
        ) {
            let text: String = parts.concat();
            for n in [Normalization::Nfc, Normalization::Nfkc] {
                let whole = match n {
                    Normalization::Nfc => unicode_normalization::is_nfc_quick(text.chars()),
                    _ => unicode_normalization::is_nfkc_quick(text.chars()),
                };
                let yes = matches!(whole, unicode_normalization::IsNormalized::Yes);
                proptest::prop_assert_eq!(quick_check(&text, n), whole, "{:?} {:?}", text, n);
                let full: String = match n {
                    Normalization::Nfc => text.nfc().collect(),
                    _ => text.nfkc().collect(),
                };
                let got = normalized(&text, n);
                proptest::prop_assert_eq!(got.as_ref(), full.as_str());
                proptest::prop_assert_eq!(matches!(got, Cow::Borrowed(_)), yes);
            }
        }
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

    /// `rank_sets` as its doc states it, computed sequentially: ranks ordered by (frequency,
    /// shard, first occurrence within the shard in record order).
    fn reference_ranks<K: Key>(records: &[Vec<K>]) -> TokenSets {
        use std::collections::HashMap;
        let mut local: Vec<HashMap<K, (u32, u32)>> = (0..SHARDS).map(|_| HashMap::new()).collect();
        for &k in records.iter().flatten() {
            let m = &mut local[k.shard()];
            let next = m.len() as u32;
            m.entry(k).or_insert((next, 0)).1 += 1;
        }
        let mut order: Vec<(u32, usize, u32, K)> = local
            .iter()
            .enumerate()
            .flat_map(|(s, m)| m.iter().map(move |(&k, &(id, f))| (f, s, id, k)))
            .collect();
        order.sort_unstable_by_key(|&(f, s, id, _)| (f, s, id));
        let rank: HashMap<K, u32> = order.iter().enumerate().map(|(r, o)| (o.3, r as u32)).collect();
        let sets = records
            .iter()
            .map(|r| {
                let mut v: Vec<u32> = r.iter().map(|k| rank[k]).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        TokenSets {
            sets,
            unique: order.iter().filter(|o| o.0 == 1).count() as u32,
        }
    }

    /// Over more records than one chunk (so the keys buffer is reused from chunk to chunk and
    /// first occurrences span chunks), the parallel ranking equals the sequential reference,
    /// for u64 and u128 keys; some records are empty, keys repeat inside records and across.
    #[test]
    fn ranking_over_many_chunks_equals_the_reference() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let records: Vec<Vec<u64>> = (0..2 * CHUNK + 904)
            .map(|_| {
                let len = next(14) as usize;
                (0..len).map(|_| mix64(next(4000))).collect()
            })
            .collect();
        let got = rank_sets::<u64>(records.len(), |i, v| v.extend(&records[i]));
        assert_eq!(got, reference_ranks(&records));
        assert!(got.unique > 0 && got.sets.iter().any(Vec::is_empty));
        let wide: Vec<Vec<u128>> = records
            .iter()
            .map(|r| r.iter().map(|&k| mix128((k as u128) << 64 | (k % 3) as u128)).collect())
            .collect();
        let got = rank_sets::<u128>(wide.len(), |i, v| v.extend(&wide[i]));
        assert_eq!(got, reference_ranks(&wide));
    }

    /// Shingles as strings, the reference: `shingles` keeps each distinct n-gram (or the whole
    /// short text) as its text.
    fn reference(texts: &[String], n: usize) -> Vec<std::collections::BTreeSet<&str>> {
        texts.iter().map(|t| shingles(t, n).into_iter().collect()).collect()
    }

    #[test]
    fn each_key_width_is_exact() {
        // 3 distinct characters → 2 bits each: n = 5 packs in u64, n = 40 in u128 (80 bits),
        // n = 70 is kept as text (140 bits).
        let base = "abcabcaabbccabcbacbcabcabccbaabcabcabcbabcabcabcabcaabcbcabcabcabcbabcacbcabc";
        let texts: Vec<String> = vec![
            base.into(),
            base[1..].into(),
            base[..60].into(),
            "ab".into(),
            String::new(),
        ];
        for n in [5, 40, 70] {
            let t = token_sets(&texts, n);
            let r = reference(&texts, n);
            for i in 0..texts.len() {
                assert_eq!(t[i].len(), r[i].len(), "n = {n}, text {i}");
                for j in 0..texts.len() {
                    assert_eq!(
                        crate::components::join::intersection(&t[i], &t[j]),
                        r[i].intersection(&r[j]).count(),
                        "n = {n}, texts {i}, {j}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        /// Normalizing and finding the alphabet in one pass gives the texts, the alphabet and
        /// the token sets of normalizing first and reading the alphabet after.
        #[test]
        fn one_pass_normalization_equals_two_passes(
            texts in proptest::collection::vec("[ae가\u{301}\u{1100}\u{1161}\u{212b}\u{fb01}\u{a0}😀 ]{0,12}", 0..40),
            n in 1usize..6,
        ) {
            let strs: Vec<&str> = texts.iter().map(String::as_str).collect();
            for form in [Normalization::None, Normalization::Nfc, Normalization::Nfkc] {
                let one = normalize_all(&strs, form);
                let two: Vec<String> = strs.iter().map(|t| normalize(t, form)).collect();
                proptest::prop_assert_eq!(one.len(), two.len());
                for (a, b) in one.iter().zip(&two) {
                    proptest::prop_assert_eq!(a.as_ref(), b.as_str());
                }
                let alpha = Alphabet::of(&two);
                proptest::prop_assert_eq!(&one.alphabet.codes, &alpha.codes);
                proptest::prop_assert_eq!(one.alphabet.bits, alpha.bits);
                proptest::prop_assert_eq!(one.ranked(n), ranked_token_sets(&two, n));
            }
        }

        /// Token sets equal the string shingle sets up to renaming (same sizes and the same
        /// intersection for every pair: no two shingles share an id, no shingle gets two).
        #[test]
        fn token_sets_equal_string_shingles(
            texts in proptest::collection::vec("[ab가\u{301}😀]{0,20}", 1..12),
            n in proptest::prop_oneof![1usize..6, 8usize..12, 28usize..32],
        ) {
            let t = token_sets(&texts, n);
            let r = reference(&texts, n);
            for i in 0..texts.len() {
                proptest::prop_assert_eq!(t[i].len(), r[i].len());
                proptest::prop_assert!(t[i].windows(2).all(|w| w[0] < w[1]));
                for j in 0..texts.len() {
                    proptest::prop_assert_eq!(
                        crate::components::join::intersection(&t[i], &t[j]),
                        r[i].intersection(&r[j]).count()
                    );
                }
            }
        }

        /// The open-addressing table gives the hash map's ids and frequencies, also when keys
        /// share their low bits (long probe runs, wrapping past the last slot) and when it
        /// grows from its smallest size many times over.
        #[test]
        fn table_interns_as_the_hash_map_does(
            segments in proptest::collection::vec(
                proptest::collection::vec((0u64..300, 0u32..4, 0u128..3), 0..200), 0..6),
        ) {
            // Keys 0..300 spread over a few low-bit patterns, so many collide in any table, and
            // the key 0 (the empty slot's default key).
            let key = |k: u64, lo: u32| if k == 0 { 0 } else { (k << 40) | (lo as u64 * 15) | 15 << 60 };
            let segs: Vec<Vec<u64>> = segments.iter().map(|s| s.iter().map(|&(k, lo, _)| key(k, lo)).collect()).collect();
            // u128 keys that share their low 64 bits (so their slots) and differ above them.
            let wide: Vec<Vec<u128>> = segments
                .iter()
                .map(|s| s.iter().map(|&(k, lo, hi)| hi << 64 | key(k, lo) as u128).collect())
                .collect();
            proptest::prop_assert_eq!(intern_table(segs.clone()), intern_map(segs.clone()));
            proptest::prop_assert_eq!(intern_table(wide.clone()), intern_map(wide));
            // Sized for no keys at all, so it grows all the way.
            let mut table = Table::<u64>::with_capacity(0);
            let ids: Vec<Vec<u32>> = segs.iter().map(|s| s.iter().map(|&k| table.id(k)).collect()).collect();
            proptest::prop_assert_eq!((ids, table.frequencies()), intern_map(segs));
        }

        /// Ranks ascend with a key's occurrences over all records (repeats inside a record
        /// counted), one id per key: records of one key each, repeated, so each set is that
        /// key's id alone.
        #[test]
        fn ranks_ascend_with_occurrences(
            records in proptest::collection::vec((0u64..6, 1usize..5), 1..30),
        ) {
            let keys: Vec<u64> = records.iter().map(|&(k, _)| mix64(k)).collect();
            let ranked = rank_sets::<u64>(records.len(), |i, v| {
                v.extend(std::iter::repeat_n(keys[i], records[i].1));
            });
            let sets = &ranked.sets;
            let mut occurrences: std::collections::BTreeMap<u64, usize> = Default::default();
            for &(k, r) in &records {
                *occurrences.entry(k).or_default() += r;
            }
            let mut id_of: std::collections::BTreeMap<u64, u32> = Default::default();
            for (i, set) in sets.iter().enumerate() {
                proptest::prop_assert_eq!(set.len(), 1);
                let id = *id_of.entry(records[i].0).or_insert(set[0]);
                proptest::prop_assert_eq!(id, set[0]);
            }
            let mut ids: Vec<u32> = id_of.values().copied().collect();
            ids.sort_unstable();
            ids.dedup();
            proptest::prop_assert_eq!(ids, (0..id_of.len() as u32).collect::<Vec<_>>());
            for (a, ia) in &id_of {
                for (b, ib) in &id_of {
                    if occurrences[a] < occurrences[b] {
                        proptest::prop_assert!(ia < ib, "key {} ({} times) ranked after key {} ({} times)", a, occurrences[a], b, occurrences[b]);
                    }
                }
            }
            // The keys seen once are the ids below `unique`.
            for (k, id) in &id_of {
                proptest::prop_assert_eq!(occurrences[k] == 1, *id < ranked.unique, "key {}", k);
            }
        }
    }
}
