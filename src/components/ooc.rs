//! The out-of-core exact near-duplicate join: every pair [`super::join::join`] finds, with the
//! same exact Jaccard, when the shingle sets and join structures do not fit in a memory limit.
//!
//! Method: the partitioning of Vernica, Carey & Li, "Efficient parallel set-similarity joins
//! using MapReduce" (SIGMOD 2010), on one machine, with spill files in place of the shuffle:
//! 1. **Token order** (their stage 1): the texts' exact shingle keys (as
//!    [`super::shingle::token_sets`]) are radix-partitioned by key into shard files, each shard
//!    is interned on its own (its hash map only), and tokens are ranked by ascending document
//!    frequency (ties by shard, then first occurrence), so the sets are the same sets of
//!    shingles in the same kind of order as in memory. Each record's ranks are gathered back from
//!    the shards into one sets file, record by record.
//! 2. **Routing by prefix token** (their stage 2): if J(x, y) ≥ t then the smallest token of
//!    x ∩ y lies in the probing prefix (the first |x| − ⌈t·|x|⌉ + 1 tokens) of both sets: at most
//!    ⌈t·|x|⌉ − 1 ≤ |x ∩ y| − 1 tokens of x ∩ y lie outside x's prefix, so one lies in it, and
//!    every token of x before it is in the prefix too. So only a token in the prefixes of two sets
//!    or more can be that token; each such token gets a *home*, the first record holding it in
//!    its prefix; records are cut into contiguous ranges whose routed sets fit the limit, and a
//!    token belongs to the partition of its home. Each set is routed to the partitions of those
//!    of its prefix tokens: written once to each of their spill files, in one pass over the sets
//!    per group of partitions (their map phase), so the sets file is read a few times per
//!    length band, not once per partition.
//! 3. **Joining each partition on its own**: the sets of one partition (their tokens renumbered
//!    densely, in the same order) go through the in-memory join, which is exact on any
//!    collection; a pair is kept only in the partition that owns the smallest token the two
//!    sets share, so each pair is found exactly once, in exactly one partition, and every pair
//!    is found (both sets are routed to the owner of that token).
//!
//! Spill files are unnamed temporary files (unlinked when created) in a directory the caller
//! names, so they disappear with the process however it ends (success, error, Ctrl-C).
//! Memory: the limit bounds the working sets of each stage (keys in flight, one shard's hash
//! map per thread, the sets of one partition); on top of it come 8⅛ bytes per distinct token
//! (the home and renumbering tables) and 12 bytes per record. A single token held in the prefixes of more
//! sets than fit the limit makes its partition larger than the limit (that partition is joined
//! anyway, exactly).

use super::join;
use super::shingle::{mix128, mix64, packed, Alphabet, FastHash, Key};
use super::store::TextStore;
use super::Progress;
use crate::error::{Error, Result};
use crate::protocol::Normalization;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How much memory the near-duplicate join may use, and where it may spill.
#[derive(Debug, Clone, Copy)]
pub struct MemoryLimit<'a> {
    /// Bytes the shingle sets and join structures may take (not counting the corpus itself).
    pub bytes: u64,
    /// The directory for spill files (they are unlinked as soon as they are created).
    pub spill_dir: &'a Path,
}

crate::named_enum! {
    /// Where a near-duplicate join ran.
    pub enum JoinMode {
        /// All shingle sets and join structures in memory ([`super::join::join`]).
        InMemory = "in-memory",
        /// Out of core, partitioned by prefix token with spill files ([`join_partitioned`]).
        Partitioned = "partitioned",
    }
}

/// How the near-duplicate join of a count ran: disclosed in the count record, never a
/// registered field (the pairs, and so the count, are the same either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinRun {
    /// In memory or partitioned.
    pub mode: JoinMode,
    /// Partitions joined (1 in memory).
    pub partitions: usize,
    /// The sizes and estimate the mode was chosen from (absent without a memory limit, and in
    /// records written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<JoinDecision>,
}

/// Bytes per text the in-memory ranking holds beyond its occurrences: its keys' count in each of
/// the 64 shards (256 bytes) and its set's vector (24 bytes and the allocator's 16).
pub const SHINGLE_BYTES_PER_TEXT: u64 = 296;
/// Bytes per element (a distinct shingle of one text) of a token set held in memory, and per set.
pub const SET_BYTES_PER_ELEMENT: u64 = 4;
/// See [`SET_BYTES_PER_ELEMENT`].
pub const SET_BYTES_PER_SET: u64 = 40;
/// The margin of the in-memory decision: the join runs in memory when its estimate times this
/// is within the budget. The estimates count the structures' own bytes; what the allocator keeps
/// beside them (freed memory it has not returned, the slack of vectors that grew) is the margin.
pub const MARGIN: f64 = 1.25;

/// How the in-memory decision was made, from the measured sizes of the texts and of their token
/// sets: recorded in the count record beside [`JoinRun`] (a disclosure; the pairs are the same
/// either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinDecision {
    /// Shingle occurrences of the texts (characters: an upper bound; for spilled texts, their
    /// bytes).
    pub occurrences: u64,
    /// Elements of the token sets (each text's distinct shingles), when the texts were shingled
    /// in memory; absent when the shingling itself would not have fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements: Option<u64>,
    /// The estimated peak bytes: of the shingling, from the occurrences, when it would not fit;
    /// else of the token sets and the join's structures ([`super::join::working_bytes`]).
    pub estimate_bytes: u64,
    /// The bytes the join had: the memory limit less what the corpus, graph and union-find hold.
    /// Not stored in the count record (read back as 0): without `--memory-limit` it follows the
    /// machine's available memory, and the record must be the same on every machine.
    #[serde(skip)]
    pub budget_bytes: u64,
}

impl JoinDecision {
    /// Whether the estimate, with the [`MARGIN`], is within the budget.
    pub fn fits(&self) -> bool {
        fits(self.estimate_bytes, self.budget_bytes)
    }
}

/// The decision rule: in memory when `estimate` × [`MARGIN`] ≤ `budget`.
pub fn fits(estimate: u64, budget: u64) -> bool {
    estimate as f64 * MARGIN <= budget as f64
}

/// Bytes per shingle occurrence the in-memory ranking holds at its peak beyond its key: every
/// occurrence's key is held once (scattered by shard; interning a shard frees its keys as its
/// ids are made, 4 bytes each, and the gathered sets, 4 bytes an element, replace the ids), and
/// measured on the statute corpus grown 8× (184,561,142 set elements of 235,647,736 occurrences)
/// the whole process peaked at 2.37 GB above what the corpus holds: 10.1 bytes per occurrence
/// with 8-byte keys, so 2 bytes more than the key.
pub const SHINGLE_BYTES_BEYOND_KEY: u64 = 2;

/// The estimated peak bytes of ranking the shingles of texts with `occurrences` characters in
/// all ([`super::shingle::ranked_token_sets`]), whose keys take `key_bytes` each (at least 8):
/// the key and [`SHINGLE_BYTES_BEYOND_KEY`] per occurrence, and [`SHINGLE_BYTES_PER_TEXT`].
pub fn shingling_bytes(occurrences: u64, texts: usize, key_bytes: u64) -> u64 {
    occurrences * (key_bytes.max(8) + SHINGLE_BYTES_BEYOND_KEY) + texts as u64 * SHINGLE_BYTES_PER_TEXT
}

/// The estimated peak bytes of joining `sets` in memory: the sets ([`SET_BYTES_PER_ELEMENT`],
/// [`SET_BYTES_PER_SET`]) and the join's own structures ([`super::join::working_bytes`]).
pub fn join_bytes(sets: &[Vec<u32>], unique: u32, t: f64) -> (u64, u64) {
    let elements: u64 = sets.par_iter().map(|s| s.len() as u64).sum();
    let bytes =
        elements * SET_BYTES_PER_ELEMENT + sets.len() as u64 * SET_BYTES_PER_SET + join::working_bytes(sets, unique, t);
    (elements, bytes)
}

/// Bytes a set of `len` tokens takes in a partition's join (set, index, renumbering).
fn routed_cost(len: usize) -> u64 {
    16 * len as u64 + 96
}

/// A shingle key that can be written to a spill file and read back exactly.
trait SpillKey: Key {
    /// The key as read back (owning its bytes).
    type Owned: Eq + std::hash::Hash + Send;
    /// 64 well-spread bits of the key (to pick its shard).
    fn spread(&self) -> u64;
    /// Appends the key's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads one key.
    fn take(r: &mut Reader) -> std::io::Result<Self::Owned>;
    /// Estimated bytes of one distinct key in the interning map.
    fn map_bytes(n: usize) -> u64;
    /// Bytes of one key in a spill file, at least (a file's length over it bounds its keys).
    fn spill_bytes(n: usize) -> u64;
}

impl SpillKey for u64 {
    type Owned = u64;
    fn spread(&self) -> u64 {
        *self
    }
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn take(r: &mut Reader) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        r.0.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn map_bytes(_: usize) -> u64 {
        40
    }
    fn spill_bytes(_: usize) -> u64 {
        8
    }
}

impl SpillKey for u128 {
    type Owned = u128;
    fn spread(&self) -> u64 {
        (*self >> 64) as u64
    }
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn take(r: &mut Reader) -> std::io::Result<u128> {
        let mut b = [0u8; 16];
        r.0.read_exact(&mut b)?;
        Ok(u128::from_le_bytes(b))
    }
    fn map_bytes(_: usize) -> u64 {
        56
    }
    fn spill_bytes(_: usize) -> u64 {
        16
    }
}

impl SpillKey for &str {
    type Owned = Vec<u8>;
    fn spread(&self) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = FastHash::default().build_hasher();
        h.write(self.as_bytes());
        h.finish()
    }
    fn put(&self, out: &mut Vec<u8>) {
        put_var(out, self.len() as u64);
        out.extend_from_slice(self.as_bytes());
    }
    fn take(r: &mut Reader) -> std::io::Result<Vec<u8>> {
        let len = r.var()?.ok_or_else(truncated)? as usize;
        let mut v = vec![0u8; len];
        r.0.read_exact(&mut v)?;
        Ok(v)
    }
    fn map_bytes(n: usize) -> u64 {
        64 + 4 * n as u64
    }
    fn spill_bytes(n: usize) -> u64 {
        // At least one byte per character and one of length.
        n as u64 + 1
    }
}

fn truncated() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "spill file truncated")
}

/// LEB128: 7 bits per byte, high bit set on all but the last.
fn put_var(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// A buffered spill-file reader.
struct Reader(BufReader<File>);

impl Reader {
    /// Reads `file` from its start.
    fn new(file: &File) -> std::io::Result<Reader> {
        let mut f = file.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        Ok(Reader(BufReader::with_capacity(1 << 16, f)))
    }

    /// The next LEB128 number, `None` at the end of the file.
    fn var(&mut self) -> std::io::Result<Option<u64>> {
        let (mut x, mut shift) = (0u64, 0);
        loop {
            let mut b = [0u8; 1];
            if self.0.read(&mut b)? == 0 {
                return if shift == 0 { Ok(None) } else { Err(truncated()) };
            }
            x |= u64::from(b[0] & 0x7f) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(Some(x));
            }
            shift += 7;
        }
    }

    /// `n` little-endian u32s into `out` (cleared first).
    fn u32s(&mut self, n: usize, out: &mut Vec<u32>, bytes: &mut Vec<u8>) -> std::io::Result<()> {
        bytes.resize(4 * n, 0);
        self.0.read_exact(bytes)?;
        out.clear();
        out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        Ok(())
    }

    /// The next record group `(record, count)` of a shard file, `None` at its end.
    fn group(&mut self, at: &mut u64) -> std::io::Result<Option<(u64, usize)>> {
        let Some(delta) = self.var()? else {
            return Ok(None);
        };
        let count = self.var()?.ok_or_else(truncated)? as usize;
        *at += delta;
        Ok(Some((*at, count)))
    }
}

/// Spill-file I/O errors: exit 2 with the directory named and what to do.
fn spill_err(dir: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| {
        Error::io("writing spill files in", dir, e)
            .with_hint("free space there, point TMPDIR elsewhere, or give a larger --memory-limit")
    }
}

fn spill_file(dir: &Path) -> Result<File> {
    tempfile::tempfile_in(dir).map_err(spill_err(dir))
}

fn u32s_bytes(v: &[u32], out: &mut Vec<u8>) {
    out.extend(v.iter().flat_map(|x| x.to_le_bytes()));
}

/// The token sets of the texts, in a spill file: per record, its length (u32) and its sorted
/// token ranks (u32 each); tokens ranked by ascending document frequency.
struct SpilledSets {
    file: File,
    /// Set sizes, per record.
    lens: Vec<u32>,
    /// Distinct tokens.
    tokens: usize,
    /// Tokens with document frequency 1 (the ranks below this): they join nothing.
    unique: u32,
}

impl SpilledSets {
    /// Calls `f(record, set)` for every record, in order.
    #[cfg(test)]
    fn each(&self, f: impl FnMut(usize, &[u32]) -> std::io::Result<()>) -> std::io::Result<()> {
        self.each_where(&|_| true, f)
    }

    /// Calls `f(record, set)` for every record `want` picks, in order (the others are skipped
    /// unread), up to the first error of a read or of `f`.
    fn each_where(
        &self,
        want: &dyn Fn(usize) -> bool,
        mut f: impl FnMut(usize, &[u32]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut r = Reader::new(&self.file)?;
        let (mut set, mut bytes) = (Vec::new(), Vec::new());
        let mut skip = 0i64;
        for (i, &len) in self.lens.iter().enumerate() {
            if !want(i) {
                skip += 4 * len as i64;
                continue;
            }
            if skip > 0 {
                r.0.seek_relative(skip)?;
                skip = 0;
            }
            r.u32s(len as usize, &mut set, &mut bytes)?;
            f(i, &set)?;
        }
        Ok(())
    }
}

/// What [`TextSource::batches`] calls with each batch: the index of its first text, the texts.
pub type BatchFn<'f> = dyn FnMut(usize, &[Cow<'_, str>]) -> Result<()> + 'f;

/// Texts the out-of-core join reads in order, a batch at a time: a slice in memory, or the
/// passages' texts spilled to a file ([`Normalized`]).
pub trait TextSource: Sync {
    /// Number of texts.
    fn count(&self) -> usize;
    /// Calls `f(first, texts)` for consecutive batches of about `batch_bytes` bytes (at least one
    /// text), in order; the texts are those to shingle (already normalized).
    ///
    /// Errors: those of reading the texts back, or of `f`.
    fn batches(&self, batch_bytes: u64, f: &mut BatchFn<'_>) -> Result<()>;
}

/// Texts in memory, already normalized.
pub struct Slice<'a, S>(pub &'a [S]);

impl<S: AsRef<str> + Sync> TextSource for Slice<'_, S> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn batches(&self, batch_bytes: u64, f: &mut BatchFn<'_>) -> Result<()> {
        let mut first = 0;
        while first < self.0.len() {
            let mut end = first;
            let mut acc = 0u64;
            while end < self.0.len() && (end == first || acc < batch_bytes) {
                acc += self.0[end].as_ref().len() as u64;
                end += 1;
            }
            let batch: Vec<Cow<'_, str>> = self.0[first..end].iter().map(|t| Cow::Borrowed(t.as_ref())).collect();
            f(first, &batch)?;
            first = end;
        }
        Ok(())
    }
}

/// The passages' texts in a [`TextStore`] (in memory or spilled), normalized batch by batch as
/// a rule says.
pub struct Normalized<'a> {
    /// The texts as given.
    pub store: &'a TextStore,
    /// The rule's normalization.
    pub normalization: Normalization,
}

impl TextSource for Normalized<'_> {
    fn count(&self) -> usize {
        self.store.len()
    }
    fn batches(&self, batch_bytes: u64, f: &mut BatchFn<'_>) -> Result<()> {
        self.store.batches(batch_bytes, |first, batch| {
            let normed: Vec<Cow<'_, str>> = batch
                .par_iter()
                .map(|t| super::shingle::normalized(t, self.normalization))
                .collect();
            f(first, &normed)
        })
    }
}

/// Bytes of text read per batch when only the characters are looked at.
const SCAN_BATCH: u64 = 64 << 20;

/// The alphabet of all texts and their number of characters, in one pass.
fn alphabet_of(src: &dyn TextSource) -> Result<(Alphabet, u64)> {
    const WORDS: usize = (char::MAX as usize + 1).div_ceil(64);
    let mut seen = vec![0u64; WORDS];
    let mut chars = 0u64;
    src.batches(SCAN_BATCH, &mut |_, texts| {
        let (set, n) = texts
            .par_iter()
            .fold(
                || (vec![0u64; WORDS], 0u64),
                |(mut set, mut n), t| {
                    for c in t.chars() {
                        set[c as usize / 64] |= 1 << (c as usize % 64);
                        n += 1;
                    }
                    (set, n)
                },
            )
            .reduce(
                || (vec![0u64; WORDS], 0),
                |(mut a, n), (b, m)| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                    (a, n + m)
                },
            );
        seen.iter_mut().zip(&set).for_each(|(x, y)| *x |= y);
        chars += n;
        Ok(())
    })?;
    // Every character seen, once: the alphabet depends on the set of characters only.
    let all: String = (0..WORDS * 64)
        .filter(|&c| seen[c / 64] >> (c % 64) & 1 == 1)
        .filter_map(|c| char::from_u32(c as u32))
        .collect();
    Ok((Alphabet::of(&[all]), chars))
}

/// The shard of key `k` among `2^bits` shards.
fn shard_of<K: SpillKey>(k: &K, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (k.spread() >> (64 - bits)) as usize
    }
}

/// A text's keys grouped by shard, in shard order: `(shard, count, key bytes)`.
type Groups = Vec<(usize, u64, Vec<u8>)>;

fn group<K: SpillKey>(mut ks: Vec<K>, bits: u32) -> Groups {
    ks.sort_unstable_by_key(|k| (shard_of(k, bits), *k));
    let mut out: Groups = Vec::new();
    for k in &ks {
        let s = shard_of(k, bits);
        if out.last().is_none_or(|g| g.0 != s) {
            out.push((s, 0, Vec::new()));
        }
        if let Some(g) = out.last_mut() {
            g.1 += 1;
            k.put(&mut g.2);
        }
    }
    out
}

/// [`super::shingle::token_sets`], spilled: the same shingles of each text, ranked by
/// ascending document frequency, written to a spill file with working memory near `budget`.
fn spill_sets(src: &dyn TextSource, n: usize, budget: u64, dir: &Path, progress: &dyn Progress) -> Result<SpilledSets> {
    let n = n.max(1);
    progress.start("scanning texts", 0);
    let (alpha, chars) = alphabet_of(src)?;
    let b = alpha.bits as usize;
    if n * b <= 64 {
        let mask = if n * b == 64 { u64::MAX } else { (1u64 << (n * b)) - 1 };
        let keys = |t: &str, bits: u32| {
            let ks = packed(
                t,
                n,
                &alpha,
                &mut Vec::new(),
                (u64::from, |k, c| ((k << b) | c) & mask, mix64),
            );
            group(ks, bits)
        };
        rank_spilled::<u64>(src, chars, n, &keys, budget, dir, progress)
    } else if n * b <= 128 {
        let mask = if n * b == 128 {
            u128::MAX
        } else {
            (1u128 << (n * b)) - 1
        };
        let keys = |t: &str, bits: u32| {
            let ks = packed(
                t,
                n,
                &alpha,
                &mut Vec::new(),
                (u128::from, |k, c| ((k << b) | c) & mask, mix128),
            );
            group(ks, bits)
        };
        rank_spilled::<u128>(src, chars, n, &keys, budget, dir, progress)
    } else {
        let keys = |t: &str, bits: u32| {
            let mut v = super::shingle::shingles(t, n);
            Key::sort(&mut v);
            group(v, bits)
        };
        rank_spilled::<&str>(src, chars, n, &keys, budget, dir, progress)
    }
}

/// The most shard files open at once.
const MAX_SHARDS: usize = 256;

#[allow(clippy::too_many_arguments)]
fn rank_spilled<K: SpillKey>(
    src: &dyn TextSource,
    chars: u64,
    n: usize,
    keys_of: &(dyn Fn(&str, u32) -> Groups + Sync),
    budget: u64,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<SpilledSets> {
    let records = src.count();
    // Shards: enough that one shard's map per thread fits the budget.
    let threads = rayon::current_num_threads().max(1) as u64;
    let want = (chars * K::map_bytes(n) * threads).div_ceil(budget.max(1)).max(1);
    let shards = (want as usize)
        .min((chars / 64).max(1) as usize)
        .next_power_of_two()
        .min(MAX_SHARDS);
    let bits = shards.trailing_zeros();
    let key_files = spill_keys(src, keys_of, bits, shards, budget, dir, progress)?;
    let interned = intern_shards::<K>(key_files, n, dir, progress)?;
    let (tokens, unique) = rank_tables(&interned, dir)?;
    let ranked = rank_shards(interned, dir, progress)?;
    let (file, lens) = gather_sets(ranked, records, budget, dir, progress)?;
    Ok(SpilledSets {
        file,
        lens,
        tokens,
        unique,
    })
}

/// Step 1 of [`rank_spilled`]: each record's keys to the shard files (`shards` = 2^`bits`),
/// record groups in record order: (record delta, count, keys).
fn spill_keys(
    src: &dyn TextSource,
    keys_of: &(dyn Fn(&str, u32) -> Groups + Sync),
    bits: u32,
    shards: usize,
    budget: u64,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Vec<File>> {
    let err = spill_err(dir);
    let records = src.count();
    progress.start("shingling to spill files", records as u64);
    let mut writers: Vec<BufWriter<File>> = (0..shards)
        .map(|_| spill_file(dir).map(|f| BufWriter::with_capacity(1 << 13, f)))
        .collect::<Result<_>>()?;
    let mut last = vec![0u64; shards];
    // About 24 bytes of keys in flight per byte of text.
    src.batches((budget / 4 / 24).max(1), &mut |first, texts| {
        let groups: Vec<Groups> = texts.par_iter().map(|t| keys_of(t, bits)).collect();
        let mut head = Vec::new();
        for (off, gs) in groups.into_iter().enumerate() {
            let rec = (first + off) as u64;
            for (s, count, bytes) in gs {
                head.clear();
                put_var(&mut head, rec - last[s]);
                put_var(&mut head, count);
                last[s] = rec;
                writers[s].write_all(&head).map_err(&err)?;
                writers[s].write_all(&bytes).map_err(&err)?;
            }
        }
        progress.advance(texts.len() as u64);
        Ok(())
    })?;
    writers
        .into_iter()
        .map(|w| w.into_inner().map_err(|e| err(e.into_error())))
        .collect::<Result<_>>()
}

/// Step 2 of [`rank_spilled`]: interns each shard on its own: its local ids (same group layout)
/// and document frequencies, as two files, and its largest document frequency.
fn intern_shards<K: SpillKey>(
    key_files: Vec<File>,
    n: usize,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Vec<(File, File, u32)>> {
    let err = spill_err(dir);
    progress.start("interning shingles", key_files.len() as u64);
    key_files
        .into_par_iter()
        .map(|keys| -> Result<(File, File, u32)> {
            let mut r = Reader::new(&keys).map_err(&err)?;
            // Pre-sized for an eighth of the shard's occurrences distinct (as in memory); the
            // shard count already allows one map per thread of every occurrence distinct.
            let occurrences = keys.metadata().map_err(&err)?.len() / K::spill_bytes(n);
            let mut map: std::collections::HashMap<K::Owned, u32, FastHash> =
                std::collections::HashMap::with_capacity_and_hasher((occurrences / 8) as usize, FastHash::default());
            let mut df: Vec<u32> = Vec::new();
            let mut ids = BufWriter::with_capacity(1 << 16, spill_file(dir)?);
            let (mut at, mut prev) = (0u64, 0u64);
            let mut buf = Vec::new();
            while let Some((rec, count)) = r.group(&mut at).map_err(&err)? {
                buf.clear();
                put_var(&mut buf, rec - prev);
                put_var(&mut buf, count as u64);
                prev = rec;
                buf.reserve(4 * count);
                for _ in 0..count {
                    let k = K::take(&mut r).map_err(&err)?;
                    let id = *map.entry(k).or_insert_with(|| {
                        df.push(0);
                        df.len() as u32 - 1
                    });
                    df[id as usize] += 1;
                    buf.extend_from_slice(&id.to_le_bytes());
                }
                ids.write_all(&buf).map_err(&err)?;
            }
            drop(map);
            drop(keys);
            let max_df = df.iter().copied().max().unwrap_or(0);
            let mut dfs = BufWriter::new(spill_file(dir)?);
            let mut bytes = Vec::with_capacity(4 * df.len());
            u32s_bytes(&df, &mut bytes);
            dfs.write_all(&bytes).map_err(&err)?;
            progress.advance(1);
            let ids = ids.into_inner().map_err(|e| err(e.into_error()))?;
            let dfs = dfs.into_inner().map_err(|e| err(e.into_error()))?;
            Ok((ids, dfs, max_df))
        })
        .collect::<Result<_>>()
}

/// The `u32`s of a spill file, from its start.
fn read_u32s(f: &File) -> std::io::Result<Vec<u32>> {
    let mut r = Reader::new(f)?;
    let mut bytes = Vec::new();
    r.0.read_to_end(&mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Step 3 of [`rank_spilled`]: ranks by (df, shard, local id), a counting sort over df, shard by
/// shard in order; each shard's df file becomes its local id → rank table. Returns the number of
/// distinct tokens and of tokens seen once.
///
/// Errors (exit 2): more distinct shingles than token ids can number; spill file errors.
fn rank_tables(interned: &[(File, File, u32)], dir: &Path) -> Result<(usize, u32)> {
    let err = spill_err(dir);
    let max_df = interned.iter().map(|x| x.2).max().unwrap_or(0) as usize;
    let mut next = vec![0u64; max_df + 2];
    for (_, dfs, _) in interned {
        for d in read_u32s(dfs).map_err(&err)? {
            next[d as usize + 1] += 1;
        }
    }
    let unique = next.get(2).copied().unwrap_or(0) as u32;
    for d in 1..next.len() {
        next[d] += next[d - 1];
    }
    let tokens = next[max_df + 1] as usize;
    if tokens > u32::MAX as usize {
        return Err(Error::input(format!(
            "{} distinct shingles: more than token ids can number (2^32)",
            tokens
        )));
    }
    for (_, dfs, _) in interned {
        let mut table = read_u32s(dfs).map_err(&err)?;
        for d in table.iter_mut() {
            let r = next[*d as usize];
            next[*d as usize] += 1;
            *d = r as u32;
        }
        let mut bytes = Vec::with_capacity(4 * table.len());
        u32s_bytes(&table, &mut bytes);
        let mut f = dfs.try_clone().map_err(&err)?;
        f.seek(SeekFrom::Start(0)).map_err(&err)?;
        f.write_all(&bytes).map_err(&err)?;
    }
    Ok((tokens, unique))
}

/// Step 4 of [`rank_spilled`]: each shard's local ids to ranks (one table per thread in memory).
fn rank_shards(interned: Vec<(File, File, u32)>, dir: &Path, progress: &dyn Progress) -> Result<Vec<File>> {
    let err = spill_err(dir);
    progress.start("ranking shingles", interned.len() as u64);
    interned
        .into_par_iter()
        .map(|(ids, ranks, _)| -> Result<File> {
            let table = read_u32s(&ranks).map_err(&err)?;
            drop(ranks);
            let mut r = Reader::new(&ids).map_err(&err)?;
            let mut w = BufWriter::with_capacity(1 << 16, spill_file(dir)?);
            let (mut at, mut prev) = (0u64, 0u64);
            let (mut v, mut bytes, mut buf) = (Vec::new(), Vec::new(), Vec::new());
            while let Some((rec, count)) = r.group(&mut at).map_err(&err)? {
                r.u32s(count, &mut v, &mut bytes).map_err(&err)?;
                buf.clear();
                put_var(&mut buf, rec - prev);
                put_var(&mut buf, count as u64);
                prev = rec;
                for x in &v {
                    buf.extend_from_slice(&table[*x as usize].to_le_bytes());
                }
                w.write_all(&buf).map_err(&err)?;
            }
            progress.advance(1);
            w.into_inner().map_err(|e| err(e.into_error()))
        })
        .collect::<Result<_>>()
}

/// Step 5 of [`rank_spilled`]: gathers each record's ranks from the shards, sorts them and
/// writes the sets file; returns it and the sets' sizes.
fn gather_sets(
    ranked: Vec<File>,
    records: usize,
    budget: u64,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<(File, Vec<u32>)> {
    let err = spill_err(dir);
    let shards = ranked.len();
    progress.start("gathering shingle sets", records as u64);
    let mut readers: Vec<Reader> = ranked
        .iter()
        .map(Reader::new)
        .collect::<std::io::Result<_>>()
        .map_err(&err)?;
    drop(ranked);
    let mut at = vec![0u64; shards];
    let mut head: Vec<Option<(u64, usize)>> = Vec::with_capacity(shards);
    for (s, r) in readers.iter_mut().enumerate() {
        head.push(r.group(&mut at[s]).map_err(&err)?);
    }
    let mut out = BufWriter::with_capacity(1 << 16, spill_file(dir)?);
    let mut lens = Vec::with_capacity(records);
    let (mut v, mut bytes) = (Vec::new(), Vec::new());
    let mut rec = 0usize;
    while rec < records {
        let mut chunk: Vec<Vec<u32>> = Vec::new();
        let mut acc = 0u64;
        while rec < records && (chunk.is_empty() || acc < budget / 4) {
            let mut set = Vec::new();
            for (s, r) in readers.iter_mut().enumerate() {
                if let Some((at_rec, count)) = head[s] {
                    if at_rec == rec as u64 {
                        r.u32s(count, &mut v, &mut bytes).map_err(&err)?;
                        set.extend_from_slice(&v);
                        head[s] = r.group(&mut at[s]).map_err(&err)?;
                    }
                }
            }
            acc += 4 * set.len() as u64 + 32;
            chunk.push(set);
            rec += 1;
        }
        chunk.par_iter_mut().for_each(|s| s.sort_unstable());
        let mut buf = Vec::new();
        for s in &chunk {
            lens.push(s.len() as u32);
            u32s_bytes(s, &mut buf);
        }
        out.write_all(&buf).map_err(&err)?;
        progress.advance(chunk.len() as u64);
    }
    let file = out.into_inner().map_err(|e| err(e.into_error()))?;
    Ok((file, lens))
}

/// No home yet.
const NONE: u32 = u32::MAX;

/// Every pair `(a, b, intersection, union)`, `a < b`, of the token sets of `texts` (already normalized;
/// character `n`-gram shingles as [`super::shingle::token_sets`]) with Jaccard ≥ `t`, each passed
/// to `sink` exactly once (in no fixed order), joined out of core within `limit` (see the module
/// docs). The intersection and union sizes are computed only when `scored` (else 0). Returns the number of
/// partitions joined.
///
/// The pairs are exactly those of [`super::join::join`] on the same texts.
///
/// Errors (exit 2): spill files that cannot be written or read back (a full disk), naming the
/// directory.
pub fn join_partitioned<S: AsRef<str> + Sync>(
    texts: &[S],
    n: usize,
    t: f64,
    limit: MemoryLimit<'_>,
    scored: bool,
    progress: &dyn Progress,
    sink: &mut (dyn FnMut(u32, u32, u32, u32) + Send),
) -> Result<usize> {
    join_partitioned_source(&Slice(texts), n, t, limit, scored, progress, sink)
}

/// [`join_partitioned`] over texts read in order from `src` (e.g. spilled passage texts,
/// [`Normalized`]), each read twice (once for the alphabet, once for the shingles).
///
/// Errors (exit 2): spill files that cannot be written or read back, naming the directory.
pub fn join_partitioned_source(
    src: &dyn TextSource,
    n: usize,
    t: f64,
    limit: MemoryLimit<'_>,
    scored: bool,
    progress: &dyn Progress,
    sink: &mut (dyn FnMut(u32, u32, u32, u32) + Send),
) -> Result<usize> {
    let dir = limit.spill_dir;
    let err = spill_err(dir);
    let sets = spill_sets(src, n, limit.bytes, dir, progress)?;
    let prefix = |len: usize| (len - join::min_overlap(len, t) + 1).min(len);
    let bounds = length_bands(sets.lens.iter().copied().max().unwrap_or(0), t);
    let band: Vec<u32> = sets
        .lens
        .iter()
        .map(|&l| (bounds.partition_point(|&b| b <= l) - 1) as u32)
        .collect();
    let part_budget = (limit.bytes / 2).max(1);
    let mut home: Vec<u32> = Vec::new();
    let mut renumbering = Renumbering::new(sets.tokens);
    let mut parts = 0;
    let bands = bounds.len() as u32;
    for k in 0..bands {
        // Job k: the pairs whose smaller set lies in band k; the larger one lies in band k or
        // k + 1.
        let member = |i: usize| sets.lens[i] > 0 && (band[i] == k || band[i] == k + 1);
        let volume: u64 = (0..sets.lens.len())
            .filter(|&i| member(i))
            .map(|i| routed_cost(sets.lens[i] as usize))
            .sum();
        if volume == 0 || !(0..sets.lens.len()).any(|i| sets.lens[i] > 0 && band[i] == k) {
            continue;
        }
        let owns = |a: u32, b: u32| band[a as usize].min(band[b as usize]) == k;
        // A pair this job owns has its smaller set in band k: only those sets are indexed (the
        // pairs of two band k + 1 sets are job k + 1's, not joined twice).
        let in_band = |r: u32| band[r as usize] == k;
        let label = |p: usize, of: usize| {
            format!(
                "near-duplicate join: length band {}/{}, part {}/{}",
                k + 1,
                bands,
                p + 1,
                of
            )
        };
        if volume <= part_budget {
            parts += 1;
            let (recs, local) = gather(&sets, &member).map_err(&err)?;
            join_sets(
                &recs,
                local,
                sets.unique,
                t,
                scored,
                &label(0, 1),
                progress,
                &mut renumbering,
                &in_band,
                &|a, b, _| owns(a, b),
                sink,
            );
            continue;
        }
        // Too large for one partition: Vernica et al.'s routing by prefix token within the job.
        parts += join_routed(
            &sets,
            &member,
            &prefix,
            &in_band,
            &owns,
            &label,
            &mut home,
            &mut renumbering,
            (t, scored, part_budget),
            dir,
            progress,
            sink,
        )?;
    }
    progress.finish();
    Ok(parts.max(1))
}

/// Joins one length band too large for one partition: its sets routed by prefix token to
/// partitions (Vernica et al.), each partition joined on its own, a pair passed on only by the
/// partition of its smallest shared token. Returns the number of partitions joined.
#[allow(clippy::too_many_arguments)]
fn join_routed(
    sets: &SpilledSets,
    member: &dyn Fn(usize) -> bool,
    prefix: &dyn Fn(usize) -> usize,
    in_band: &(dyn Fn(u32) -> bool + Sync),
    owns: &(dyn Fn(u32, u32) -> bool + Sync),
    label: &dyn Fn(usize, usize) -> String,
    home: &mut Vec<u32>,
    renumbering: &mut Renumbering,
    (t, scored, part_budget): (f64, bool, u64),
    dir: &Path,
    progress: &dyn Progress,
    sink: &mut (dyn FnMut(u32, u32, u32, u32) + Send),
) -> Result<usize> {
    let err = spill_err(dir);
    let mut parts = 0;
    if home.is_empty() {
        *home = vec![NONE; sets.tokens];
    } else {
        home.fill(NONE);
    }
    let volumes = plan(sets, member, prefix, home, part_budget, progress).map_err(&err)?;
    let starts = volumes.len();
    // Each set is written once to the spill file of each partition it is routed to, in one
    // pass over the sets per group of partitions (at most MAX_ROUTED files open, their
    // routed volume at most ROUTED_GROUP partitions' budget, which bounds the disk used).
    let mut first = 0;
    while first < starts {
        let mut end = first;
        let mut acc = 0u64;
        while end < starts
            && end - first < MAX_ROUTED
            && (end == first || acc + volumes[end] <= ROUTED_GROUP * part_budget)
        {
            acc += volumes[end];
            end += 1;
        }
        progress.start("routing sets to partitions", 0);
        let files = route(sets, member, prefix, home, first as u32..end as u32, dir)?;
        for (p, file) in (first as u32..end as u32).zip(files) {
            parts += 1;
            let (recs, local) = read_routed(&file).map_err(&err)?;
            drop(file);
            let home = &*home;
            join_sets(
                &recs,
                local,
                sets.unique,
                t,
                scored,
                &label(p as usize, starts),
                progress,
                renumbering,
                in_band,
                &|a, b, first| owns(a, b) && home[first as usize] == p,
                sink,
            );
        }
        first = end;
    }
    Ok(parts)
}

/// Lower bounds of the length bands, from 0: each next bound is at least 1/t (and 1.1) times
/// the last, so a pair with Jaccard ≥ t (the smaller set of size y, the larger of size
/// x ≤ (y + 10⁻⁶)/t < (y + 1)/t) lies in one band or two adjacent ones.
fn length_bands(max_len: u32, t: f64) -> Vec<u32> {
    let ratio = (1.0 / t).max(1.1);
    let mut b = vec![0u32, 1];
    while *b.last().expect("two bounds") <= max_len {
        let last = *b.last().expect("two bounds");
        let next = ((last as f64 * ratio).ceil() as u32).max(last + 1);
        b.push(next);
    }
    b
}

/// Vernica et al.'s routing within the members of one job: the homes of the tokens in two or
/// more members' probing prefixes (in `home`, `NONE` for the others), cut into contiguous
/// ranges of home records whose routed sets fit `budget`; `home` then holds each token's
/// partition. Returns the routed volume of each partition (in [`routed_cost`] units).
fn plan(
    sets: &SpilledSets,
    member: &dyn Fn(usize) -> bool,
    prefix: &dyn Fn(usize) -> usize,
    home: &mut [u32],
    budget: u64,
    progress: &dyn Progress,
) -> std::io::Result<Vec<u64>> {
    progress.start("planning partitions", 0);
    let mut shared = vec![0u64; home.len().div_ceil(64)];
    sets.each_where(member, |i, x| {
        for &tok in &x[..prefix(x.len())] {
            if tok < sets.unique {
                continue;
            }
            let h = &mut home[tok as usize];
            if *h == NONE {
                *h = i as u32;
            } else if *h != i as u32 {
                shared[tok as usize / 64] |= 1 << (tok % 64);
            }
        }
        Ok(())
    })?;
    for (tok, h) in home.iter_mut().enumerate() {
        if shared[tok / 64] >> (tok % 64) & 1 == 0 {
            *h = NONE;
        }
    }
    drop(shared);
    // The routed volume of each home record: a set goes to the home of each shared prefix token.
    let mut volume = vec![0u64; sets.lens.len()];
    let mut homes = Vec::new();
    sets.each_where(member, |_, x| {
        homes.clear();
        homes.extend(
            x[..prefix(x.len())]
                .iter()
                .map(|&tok| home[tok as usize])
                .filter(|&h| h != NONE),
        );
        homes.sort_unstable();
        homes.dedup();
        for &h in &homes {
            volume[h as usize] += routed_cost(x.len());
        }
        Ok(())
    })?;
    let mut starts = vec![0u32];
    let mut volumes = vec![0u64];
    for (h, &v) in volume.iter().enumerate() {
        let acc = volumes.last_mut().expect("one partition");
        if *acc > 0 && *acc + v > budget {
            starts.push(h as u32);
            volumes.push(v);
        } else {
            *acc += v;
        }
    }
    for h in home.iter_mut().filter(|h| **h != NONE) {
        *h = (starts.partition_point(|&s| s <= *h) - 1) as u32;
    }
    Ok(volumes)
}

/// The most partition spill files written at once.
const MAX_ROUTED: usize = 256;
/// The routed volume of one routing pass, in partition budgets (about a quarter of it is
/// written to disk: 4 bytes per token).
const ROUTED_GROUP: u64 = 16;

/// Writes each member set to the spill file of each partition in `parts` that one of its
/// shared prefix tokens is homed in (`home`, as [`plan`] left it), in one pass over the sets:
/// per set its record (u32), its length (u32) and its tokens (u32 each). Returns the files, in
/// the order of `parts`.
fn route(
    sets: &SpilledSets,
    member: &dyn Fn(usize) -> bool,
    prefix: &dyn Fn(usize) -> usize,
    home: &[u32],
    parts: std::ops::Range<u32>,
    dir: &Path,
) -> Result<Vec<File>> {
    let err = spill_err(dir);
    let mut writers: Vec<BufWriter<File>> = parts
        .clone()
        .map(|_| spill_file(dir).map(|f| BufWriter::with_capacity(1 << 16, f)))
        .collect::<Result<_>>()?;
    let mut homes = Vec::new();
    let mut bytes = Vec::new();
    sets.each_where(member, |i, x| {
        homes.clear();
        homes.extend(
            x[..prefix(x.len())]
                .iter()
                .map(|&tok| home[tok as usize])
                .filter(|h| parts.contains(h)),
        );
        if homes.is_empty() {
            return Ok(());
        }
        homes.sort_unstable();
        homes.dedup();
        bytes.clear();
        bytes.extend_from_slice(&(i as u32).to_le_bytes());
        bytes.extend_from_slice(&(x.len() as u32).to_le_bytes());
        u32s_bytes(x, &mut bytes);
        for &h in &homes {
            writers[(h - parts.start) as usize].write_all(&bytes)?;
        }
        Ok(())
    })
    .map_err(&err)?;
    writers
        .into_iter()
        .map(|w| w.into_inner().map_err(|e| err(e.into_error())))
        .collect()
}

/// The records and sets of one partition's spill file, as [`route`] wrote them.
fn read_routed(file: &File) -> std::io::Result<(Vec<u32>, Vec<Vec<u32>>)> {
    let mut r = Reader::new(file)?;
    let (mut recs, mut local) = (Vec::new(), Vec::new());
    let (mut set, mut bytes) = (Vec::new(), Vec::new());
    let mut head = [0u8; 8];
    loop {
        match r.0.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        let rec = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        r.u32s(len, &mut set, &mut bytes)?;
        recs.push(rec);
        local.push(std::mem::take(&mut set));
    }
    Ok((recs, local))
}

/// The records and sets of the non-empty sets `member` picks, in record order.
fn gather(sets: &SpilledSets, member: &dyn Fn(usize) -> bool) -> std::io::Result<(Vec<u32>, Vec<Vec<u32>>)> {
    let (mut recs, mut local) = (Vec::new(), Vec::new());
    sets.each_where(&|i| sets.lens[i] > 0 && member(i), |i, x| {
        recs.push(i as u32);
        local.push(x.to_vec());
        Ok(())
    })?;
    Ok((recs, local))
}

/// Joins in memory the sets `local` (of records `recs`), only pairs whose smaller set's record
/// `indexed` picks ([`join::join_indexed`]), and passes each pair `keep(a, b, smallest shared
/// token)` accepts to `sink`, with its sizes when `scored`.
#[allow(clippy::too_many_arguments)]
fn join_sets(
    recs: &[u32],
    mut local: Vec<Vec<u32>>,
    unique: u32,
    t: f64,
    scored: bool,
    label: &str,
    progress: &dyn Progress,
    renumbering: &mut Renumbering,
    indexed: &(dyn Fn(u32) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    sink: &mut (dyn FnMut(u32, u32, u32, u32) + Send),
) {
    progress.start(label, 0);
    if local.len() < 2 {
        return;
    }
    let dense = renumbering.apply(&mut local);
    // The renumbering keeps the order, so the tokens held by one set of the whole collection
    // (ranks below `unique`) are the first dense ids: the join neither indexes nor probes them.
    let once = dense.partition_point(|&tok| tok < unique) as u32;
    progress.start(label, local.len() as u64);
    // Ownership is decided before a pair is verified, on the smallest token it shares. The pairs
    // are scored and passed on a batch at a time as the join finds them, so a partition with a
    // great many pairs (thousands of copies of one text) never holds them all.
    let sink = std::sync::Mutex::new(sink);
    join::join_each(
        &local,
        once,
        t,
        &|i| indexed(recs[i]),
        &|i, j, tok| {
            let (a, b) = (recs[i as usize], recs[j as usize]);
            keep(a.min(b), a.max(b), dense[tok as usize])
        },
        &|batch| {
            let owned: Vec<(u32, u32, u32, u32)> = batch
                .iter()
                .map(|&(i, j)| {
                    let (x, y) = (&local[i as usize], &local[j as usize]);
                    let (a, b) = (recs[i as usize], recs[j as usize]);
                    let (inter, union) = if scored {
                        let inter = join::intersection(x, y);
                        (inter as u32, (x.len() + y.len() - inter) as u32)
                    } else {
                        (0, 0)
                    };
                    (a, b, inter, union)
                })
                .collect();
            let mut sink = sink.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (a, b, inter, union) in owned {
                sink(a, b, inter, union);
            }
        },
        &|m| progress.advance(m),
    );
}

/// Dense renumbering of a partition's tokens in the same order, so the join's index is as
/// small as the partition: a bitmap of the tokens present and a token → dense id table, both
/// sized by the distinct tokens of the collection (4⅛ bytes each) and reused from partition to
/// partition.
struct Renumbering {
    tokens: usize,
    present: Vec<u64>,
    id: Vec<u32>,
}

impl Renumbering {
    /// For token ids below `tokens` (the tables are allocated at the first use).
    fn new(tokens: usize) -> Renumbering {
        Renumbering {
            tokens,
            present: Vec::new(),
            id: Vec::new(),
        }
    }

    /// Renumbers the tokens of `sets` (ids below `tokens`) densely from 0 in the same order, in
    /// place; returns the dense id → token table.
    fn apply(&mut self, sets: &mut [Vec<u32>]) -> Vec<u32> {
        if self.id.len() < self.tokens {
            self.present = vec![0; self.tokens.div_ceil(64)];
            self.id = vec![0; self.tokens];
        }
        for s in sets.iter() {
            for &x in s {
                self.present[x as usize / 64] |= 1 << (x % 64);
            }
        }
        let mut dense = Vec::new();
        for (w, word) in self.present.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let tok = w * 64 + bits.trailing_zeros() as usize;
                self.id[tok] = dense.len() as u32;
                dense.push(tok as u32);
                bits &= bits - 1;
            }
        }
        let id = &self.id;
        sets.par_iter_mut().for_each(|s| {
            for x in s.iter_mut() {
                *x = id[*x as usize];
            }
        });
        dense
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::shingle::{normalize, token_sets};
    use crate::components::NoProgress;
    use crate::protocol::Normalization;

    fn run(texts: &[String], n: usize, t: f64, bytes: u64) -> (Vec<(u32, u32, u32)>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let mut got = Vec::new();
        let limit = MemoryLimit {
            bytes,
            spill_dir: dir.path(),
        };
        let parts = join_partitioned(texts, n, t, limit, true, &NoProgress, &mut |a, b, k, _| {
            got.push((a, b, k))
        })
        .unwrap();
        got.sort_unstable();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "spill files left");
        (got, parts)
    }

    #[test]
    fn hand_cases_partitioned() {
        let texts: Vec<String> = ["abcdefgh", "abcdefgx", "", "", "abc", "abc", "zzzzzz", "abcdefgh"]
            .iter()
            .map(|s| normalize(s, Normalization::Nfc))
            .collect();
        // J(0, 1) = 5/7, J(0, 7) = 1, J(4, 5) = 1.
        let (got, parts) = run(&texts, 3, 0.7, 1);
        assert_eq!(got, vec![(0, 1, 5), (0, 7, 6), (1, 7, 5), (4, 5, 1)]);
        assert!(parts > 1, "a 1-byte limit partitions ({} partitions)", parts);
        // A limit everything fits in: one partition per length band holding sets (sizes 1 and
        // 6 fall in the bands [1, 2) and [5, 8)).
        let (big, bands) = run(&texts, 3, 0.7, 1 << 30);
        assert_eq!((big, bands), (got, 2));
        assert_eq!(length_bands(6, 0.7), vec![0, 1, 2, 3, 5, 8]);
    }

    /// The decision rule at its boundary: in memory exactly while the estimate times the margin
    /// is within the budget.
    #[test]
    fn the_in_memory_decision_at_its_boundary() {
        assert_eq!(MARGIN, 1.25);
        assert!(fits(800, 1000));
        assert!(!fits(801, 1000));
        assert!(fits(0, 0));
        let d = JoinDecision {
            occurrences: 10,
            elements: Some(8),
            estimate_bytes: 800,
            budget_bytes: 1000,
        };
        assert!(d.fits());
        assert!(!JoinDecision { budget_bytes: 999, ..d }.fits());
        // Shingling: the key (at least 8 bytes) and 2 bytes per occurrence, and 296 per text.
        assert_eq!(shingling_bytes(1000, 10, 8), 10_000 + 2960);
        assert_eq!(shingling_bytes(1000, 10, 16), 18_000 + 2960);
        assert_eq!(shingling_bytes(1000, 10, 4), 10_000 + 2960);
        // The statute corpus grown 8× (235,647,736 characters in 596,704 passages) was measured
        // at 2.37 GB of ranking above the corpus: the estimate bounds it, and with the margin it
        // fits the 3.64 GB a 4 GiB limit left the join there, so it joins in memory.
        let grown = shingling_bytes(235_647_736, 596_704, 8);
        assert!(grown >= 2_370_000_000 && fits(grown, 3_640_174_380), "{}", grown);
    }

    /// The join's own structures counted by hand on two sets of five tokens (t = 0.8: an
    /// indexing prefix of one token each, extended by two for the l-prefix filter, six distinct
    /// tokens, two probing tasks).
    #[test]
    fn join_working_bytes_by_hand() {
        assert_eq!(join::SHARED_IN_PREFIXES, 3);
        let sets = vec![vec![0, 2, 3, 4, 5], vec![1, 2, 3, 4, 5]];
        let batch = 8 * join::PAIR_BATCH as u64;
        let want = 16 * 2 + 4 * 2 + 32 * 6 + 4 * 7 + 2 * (4 * 6 + 4 * 2 + batch);
        assert_eq!(join::working_bytes(&sets, 0, 0.8), want);
        // Tokens 0 and 1 are each in one set only: neither indexed nor given a cursor.
        let want = 16 * 2 + 4 * 2 + 32 * 4 + 4 * 7 + 2 * (4 * 4 + 4 * 2 + batch);
        assert_eq!(join::working_bytes(&sets, 2, 0.8), want);
        // With the sets: 4 bytes an element, 40 a set.
        assert_eq!(
            join_bytes(&sets, 0, 0.8),
            (10, 40 + 80 + join::working_bytes(&sets, 0, 0.8))
        );
    }

    #[test]
    fn renumbering_is_dense_and_keeps_the_order() {
        let mut r = Renumbering::new(200);
        let mut sets = vec![vec![3, 70, 199], vec![], vec![70, 128]];
        assert_eq!(r.apply(&mut sets), vec![3, 70, 128, 199]);
        assert_eq!(sets, vec![vec![0, 1, 3], vec![], vec![1, 2]]);
        // Reused: nothing of the last partition is left behind.
        let mut next = vec![vec![5], vec![1, 5]];
        assert_eq!(r.apply(&mut next), vec![1, 5]);
        assert_eq!(next, vec![vec![1], vec![0, 1]]);
    }

    #[test]
    fn spilled_sets_are_the_shingle_sets() {
        let texts: Vec<String> = ["abcab", "법률안법률", "", "ab", "abcab abc"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for n in [2usize, 5, 40] {
            let dir = tempfile::tempdir().unwrap();
            let spilled = spill_sets(&Slice(&texts), n, 1, dir.path(), &NoProgress).unwrap();
            let mut got = Vec::new();
            spilled
                .each(|_, s| {
                    got.push(s.to_vec());
                    Ok(())
                })
                .unwrap();
            let mem = token_sets(&texts, n);
            // Same sizes, and the same pairwise intersections (the ranks may differ).
            for i in 0..texts.len() {
                assert_eq!(got[i].len(), mem[i].len());
                for j in 0..texts.len() {
                    assert_eq!(
                        join::intersection(&got[i], &got[j]),
                        join::intersection(&mem[i], &mem[j])
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// The in-memory join, the out-of-core join under limits small enough to partition
        /// into many partitions (and to spill the shingle sets into up to 256 shards), and brute
        /// force give the same pairs, with the same intersections.
        #[test]
        fn partitioned_equals_in_memory_and_brute_force(
            (texts, n, t) in crate::components::join::tests::corpus(),
            bytes in proptest::prop_oneof![proptest::strategy::Just(1u64), 1u64..5000, proptest::strategy::Just(1u64 << 30)],
        ) {
            let sets = token_sets(&texts, n);
            let brute = join::brute_force(&sets, t);
            let memory = join::join(&sets, t, &|_| ());
            proptest::prop_assert_eq!(&memory, &brute);
            let (got, _) = run(&texts, n, t, bytes);
            let plain: Vec<(u32, u32)> = got.iter().map(|&(a, b, _)| (a, b)).collect();
            proptest::prop_assert_eq!(&plain, &brute);
            for (a, b, k) in got {
                proptest::prop_assert_eq!(k as usize, join::intersection(&sets[a as usize], &sets[b as usize]));
            }
        }
    }
}
