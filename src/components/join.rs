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
//! Between the prefix filter and the merge, two exact filters drop candidates unverified:
//! PPJoin's positional filter (the tokens left after a shared one cannot reach the pair's
//! minimum overlap), and the l-prefix filter of Wang, Li & Feng ("Can we beat the prefix
//! filtering? An adaptive framework for similarity join and search", SIGMOD 2012), with a fixed
//! l = [`SHARED_IN_PREFIXES`]: if |x ∩ y| ≥ o ≥ l, the first |x| − o + l tokens of x hold the l
//! smallest tokens of x ∩ y (at most |x| − o of its tokens lie outside the intersection), and so
//! do y's, so two prefixes each extended by l − 1 tokens share at least min(l, o) tokens. The
//! probe counts the shared tokens of the extended prefixes anyway (for the positional filter and
//! the resumed merge), so the filter costs l − 1 more postings per set and one comparison per
//! candidate. Natural-language passages need it: their rarest character 5-grams are parts of
//! rare words that other passages also use, so most candidates of the prefix filter share one
//! or two tokens by chance. On 100,000 passages of `tools/realistic_corpus.py` (NFC 5-grams,
//! Jaccard 0.8; `cargo bench --bench candidates`) the prefix filter gives 10.9 M candidates, the
//! positional filter leaves 5.06 M to merge, the l-prefix filter with l = 3 197,000 (26× fewer;
//! at 50,000, l = 2 and l = 4 took the same time), the join's CPU 3.1 s instead of 4.3 s, the same 107 pairs.
//! The candidates still grow as the square of the passages (×4.4 from 25,000 to 50,000, ×4.2
//! to 100,000), since two passages that share one rare word share all its 5-grams. The
//! partition-based signatures of Deng, Li, Wen & Feng (PVLDB 2015; `signature.rs`, through
//! [`join_counted`] with `pieces`) change that: pieces of the sets under a hash partition of the
//! tokens, a pair a candidate only where whole pieces of both sets agree, the token join finding
//! only the pairs of the few sets with too few pieces. On the same passages they give 305,000
//! candidates at 100,000 and 558,000 at 200,000 (1,261 and 4,748 merges, the same pairs), but
//! cutting every set into pieces twice and looking its keys up at random costs more CPU than the
//! token join saves at these sizes (6.5 s against 2.7 s at 100,000), so [`join_each`] joins by
//! tokens until that cost is brought down.
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
pub fn intersection<T: Ord>(a: &[T], b: &[T]) -> usize {
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
pub(super) fn min_overlap(l: usize, t: f64) -> usize {
    ((t * l as f64 - 1e-6).ceil().max(1.0) as usize).min(l)
}

/// The prefix filter's probing prefix of a set of `l` tokens: l − ⌈t·l⌉ + 1 (at least one
/// token of it is shared with any set no larger with Jaccard ≥ t).
fn probe_prefix(l: usize, t: f64) -> usize {
    l - min_overlap(l, t) + 1
}

/// The indexing prefix of a set of `l` tokens, the smaller of a pair: since |x ∩ y| ≥
/// t/(1+t)·(|x|+|y|) ≥ 2t/(1+t)·|y| for |y| ≤ |x|, its first l − ⌈2t/(1+t)·l⌉ + 1 tokens hold
/// a shared one.
fn index_prefix(l: usize, t: f64) -> usize {
    l - min_overlap(l, 2.0 * t / (1.0 + t)) + 1
}

/// The l-prefix of Wang, Li & Feng ("Can we beat the prefix filtering? An adaptive framework
/// for similarity join and search", SIGMOD 2012): a set's `prefix` extended by l − 1 tokens, at
/// most the whole set of `len` tokens.
fn extended(prefix: usize, len: usize, l: usize) -> usize {
    (prefix + l.max(1) - 1).min(len)
}

/// The l of the l-prefix filter [`join`] applies: a candidate is verified only when the two
/// sets' prefixes extended by l − 1 tokens share at least min(l, the pair's minimum overlap)
/// tokens. Chosen from candidate counts measured on realistic passages (see the module docs).
pub const SHARED_IN_PREFIXES: usize = 3;

/// Minimum overlap of a pair of sizes `a`, `b` with Jaccard ≥ t: J ≥ t ⇔ |x ∩ y| ≥
/// t/(1+t)·(a+b); with a safety margin, so never more than the true bound (pruning below it can
/// only keep a candidate too many, never drop a pair).
pub(super) fn pair_overlap(a: usize, b: usize, t: f64) -> usize {
    (t / (1.0 + t) * (a + b) as f64 - 1e-6).ceil().max(1.0) as usize
}

/// Size of the intersection of two sorted, distinct slices if it can reach `need`, else `None`:
/// the merge stops as soon as the elements left cannot make up the difference.
pub(super) fn intersection_at_least(a: &[u32], b: &[u32], need: usize) -> Option<usize> {
    let (mut i, mut j, mut n) = (0, 0, 0);
    if a.len().min(b.len()) < need {
        return None;
    }
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                i += 1;
                if n + (a.len() - i).min(b.len() - j) < need {
                    return None;
                }
            }
            std::cmp::Ordering::Greater => {
                j += 1;
                if n + (a.len() - i).min(b.len() - j) < need {
                    return None;
                }
            }
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
                // Near-duplicates share long runs: step over equal blocks of 8 at once (the
                // count and the remaining lengths move together, so the bound is unchanged).
                while let (Some(x), Some(y)) = (a.get(i..i + 8), b.get(j..j + 8)) {
                    if x != y {
                        break;
                    }
                    n += 8;
                    i += 8;
                    j += 8;
                }
            }
        }
    }
    Some(n)
}

/// The exact intersection of the probing set `x` and the indexed set `y` if it can reach the
/// pair's minimum overlap ([`pair_overlap`]), else `None`, resuming where the probe left off:
/// `seen` is how many of x's first `probed` tokens (its probing prefix) lie among y's first
/// `indexed` tokens (its indexing prefix), as the probe counted them. Both sets are sorted, so
/// with R the smaller of the two prefixes' last tokens, every token ≤ R of either set lies in its
/// prefix, and x ∩ y below or at R is exactly what the probe counted. So only the tokens past R
/// are merged (from where each set passes R, a binary search inside the other's prefix), with
/// `seen` counted already: the same intersection as a merge of the whole sets, and for a
/// candidate that shares a prefix token by chance, a few steps instead of a merge through both
/// prefixes (PPJoin's verification also resumes after the prefixes; Xiao et al., WWW 2008).
fn verify(x: &[u32], probed: usize, y: &[u32], indexed: usize, seen: usize, t: f64) -> Option<usize> {
    let need = pair_overlap(x.len(), y.len(), t);
    let (rx, ry) = (x[probed - 1], y[indexed - 1]);
    let (ix, iy) = if rx <= ry {
        (probed, y[..indexed].partition_point(|&tok| tok <= rx))
    } else {
        (x[..probed].partition_point(|&tok| tok <= ry), indexed)
    };
    intersection_at_least(&x[ix..], &y[iy..], need.saturating_sub(seen)).map(|rest| seen + rest)
}

/// Marks a candidate pruned by the positional filter for the current probe.
const PRUNED: u32 = u32::MAX;

/// All pairs `(i, j)`, `i < j`, of `sets` (sorted, distinct token ids in the global order) with
/// Jaccard ≥ `t` (0 < t ≤ 1), sorted. `progress` is called with the number of sets probed.
///
/// Candidates come from the prefix and length filters; PPJoin's positional filter drops a
/// candidate as soon as the tokens left after a shared prefix token cannot reach the pair's
/// minimum overlap; survivors are verified by a merge that stops early on the same bound, and
/// the pair is kept by the exact predicate [`similar`] on the full intersection.
pub fn join(sets: &[Vec<u32>], t: f64, progress: &(dyn Fn(u64) + Sync)) -> Vec<(u32, u32)> {
    join_indexed(sets, 0, t, &|_| true, progress)
}

/// [`join`] of sets whose tokens `0..unique` each lie in one set only (as
/// [`super::shingle::TokenSets::unique`] says of its sets): such a token can never be shared, so
/// it is neither indexed nor probed, and the verifying merge starts past it; the pairs are
/// those of [`join`]. If a token below `unique` did lie in two sets, pairs could be missed: the
/// count must come from the ranking that numbered the tokens.
pub fn join_unique(sets: &[Vec<u32>], unique: u32, t: f64, progress: &(dyn Fn(u64) + Sync)) -> Vec<(u32, u32)> {
    join_indexed(sets, unique, t, &|_| true, progress)
}

/// The pairs of [`join_unique`] whose smaller set (the earlier in the order by `(size, index)`)
/// is one that `indexed` picks: only those sets enter the inverted index, every set probes it.
/// With `unique = 0` and `|_| true` this is [`join`].
pub fn join_indexed(
    sets: &[Vec<u32>],
    unique: u32,
    t: f64,
    indexed: &(dyn Fn(usize) -> bool + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<(u32, u32)> {
    join_owned(sets, unique, t, indexed, &|_, _, _| true, progress)
}

/// The pairs of [`join_indexed`] that `keep(x, y, token)` accepts, where `token` is the smallest
/// token the two sets share; `keep` is asked before the pair is verified, so a pair it refuses
/// costs no merge (a partitioned join keeps a pair only where that token is owned). `keep` is
/// asked about every candidate once, with the first token of the probing set's prefix found in
/// the other's indexing prefix: for a pair with Jaccard ≥ t that is the smallest shared token
/// (both prefixes hold it, and the probe visits its tokens in ascending order); for any other
/// candidate it may be another token, and the pair is dropped either way.
pub fn join_owned(
    sets: &[Vec<u32>],
    unique: u32,
    t: f64,
    indexed: &(dyn Fn(usize) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<(u32, u32)> {
    let batches = std::sync::Mutex::new(Vec::new());
    join_each(
        sets,
        unique,
        t,
        indexed,
        keep,
        &|batch| {
            batches
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend_from_slice(batch)
        },
        progress,
    );
    let mut pairs = batches.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    pairs.sort_unstable();
    pairs
}

/// The most pairs [`join_each`] holds per task before handing them on (8 bytes each).
pub const PAIR_BATCH: usize = 1 << 16;

/// What [`join_each`] hands its pairs to: a batch of `(i, j)` pairs, `i < j`; called from
/// several threads at once.
pub type Emit<'a> = dyn Fn(&[(u32, u32)]) + Sync + 'a;

/// The pairs of [`join_owned`], handed to `emit` a batch at a time as they are found (at most
/// [`PAIR_BATCH`] pairs a batch, each `(i, j)` with `i < j`, in no fixed order, every pair in
/// exactly one batch; `emit` is called from several threads at once). So the pairs are never all
/// held at once: a corpus with a great many pairs (thousands of copies of one text) needs no more
/// memory for them than a batch per task.
pub fn join_each(
    sets: &[Vec<u32>],
    unique: u32,
    t: f64,
    indexed: &(dyn Fn(usize) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    emit: &Emit<'_>,
    progress: &(dyn Fn(u64) + Sync),
) {
    join_batched(
        sets,
        unique,
        (t, SHARED_IN_PREFIXES, false),
        indexed,
        keep,
        PAIR_BATCH,
        emit,
        progress,
    );
}

/// The pairs of [`join_unique`], sorted, with what the join counted on the way, under the
/// l-prefix filter with `l` (1 is the plain prefix filter of PPJoin; [`join`] uses
/// [`SHARED_IN_PREFIXES`]): for benchmarks of the filters, which give the same pairs for every
/// `l` ≥ 1. With `pieces`, the partition-based signatures of Deng, Li, Wen & Feng (PVLDB 2015)
/// find the pairs they can (candidates are then pairs sharing a piece's key of the two
/// extended key prefixes) and the token join only the pairs of sets with too few pieces.
pub fn join_counted(sets: &[Vec<u32>], unique: u32, t: f64, l: usize, pieces: bool) -> (Vec<(u32, u32)>, Candidates) {
    let batches = std::sync::Mutex::new(Vec::new());
    let counts = join_batched(
        sets,
        unique,
        (t, l, pieces),
        &|_| true,
        &|_, _, _| true,
        PAIR_BATCH,
        &|batch| {
            batches
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend_from_slice(batch)
        },
        &|_| (),
    );
    let mut pairs = batches.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    pairs.sort_unstable();
    (pairs, counts)
}

/// The bytes [`join_each`] allocates for its own structures on `sets` (with `unique` as in
/// [`join_unique`]), besides the sets: per non-empty set its place in the size order, its size
/// and where its shared tokens begin (16 bytes, 4 more per set for the latter); per token of the
/// indexing prefixes its posting (8 bytes) and, while the index is built, its scattered copy (12
/// bytes, up to twice that as the scatter's vectors grow); per distinct token the index's offsets (4 bytes); and per probing task (four per
/// thread) a cursor per shared token and an overlap counter per set (4 bytes each) and a batch of
/// pairs. Computed from the sets' sizes, as the join lays its structures out, so the in-memory
/// decision ([`super::ooc::JoinDecision`]) rests on the sizes the join will allocate.
pub fn working_bytes(sets: &[Vec<u32>], unique: u32, t: f64) -> u64 {
    let ntok = sets.iter().filter_map(|s| s.last()).max().map_or(0, |&m| m as u64 + 1);
    let lo = u64::from(unique).min(ntok);
    let (live, indexed) = sets
        .par_iter()
        .filter(|s| !s.is_empty())
        .map(|s| {
            let prefix = extended(index_prefix(s.len(), t), s.len(), SHARED_IN_PREFIXES);
            let skipped = s[..prefix].partition_point(|&tok| u64::from(tok) < lo);
            (1u64, (prefix - skipped) as u64)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let stripes = (4 * rayon::current_num_threads() as u64).clamp(1, live.max(1));
    16 * live
        + 4 * sets.len() as u64
        + 32 * indexed
        + 4 * (ntok + 1)
        + stripes * (4 * (ntok - lo) + 4 * live + 8 * PAIR_BATCH as u64)
}

/// [`join_each`] with batches of at most `batch` pairs (at least 1), under the l-prefix filter
/// with `l` ≥ 1 where the token join runs; returns what the probes counted. With `pieces`,
/// the pieces' signatures ([`super::signature`]) find the pairs where the threshold allows
/// them (a [`super::signature::Scheme`] for `t`); the token join finds the rest (the pairs of
/// deficient sets) or all of them.
#[allow(clippy::too_many_arguments)]
fn join_batched(
    sets: &[Vec<u32>],
    unique: u32,
    (t, l, pieces): (f64, usize, bool),
    indexed: &(dyn Fn(usize) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    batch: usize,
    emit: &Emit<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Candidates {
    let (batch, l) = (batch.max(1), l.max(1));
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| !sets[i as usize].is_empty())
        .collect();
    order.sort_by_key(|&i| (sets[i as usize].len(), i));
    let lens: Vec<usize> = order.iter().map(|&i| sets[i as usize].len()).collect();
    let token_join = |indexed: &(dyn Fn(usize) -> bool + Sync),
                      probing: &(dyn Fn(usize) -> bool + Sync),
                      progress: &(dyn Fn(u64) + Sync)| {
        let index = PrefixIndex::build(sets, &order, &lens, unique, (t, l), indexed);
        probe_stripes(
            sets,
            &order,
            &lens,
            &index,
            (t, l),
            probing,
            keep,
            batch,
            emit,
            progress,
        )
    };
    let scheme = super::signature::Scheme::new(t).filter(|_| pieces);
    let Some((counts, deficient, bad)) = scheme.and_then(|scheme| {
        super::signature::join(
            sets,
            &order,
            &lens,
            unique,
            (t, scheme),
            indexed,
            keep,
            batch,
            emit,
            progress,
        )
    }) else {
        return token_join(indexed, &|_| true, progress);
    };
    // Pairs whose smaller set is deficient, then pairs of a deficient probing set with a
    // smaller set that is not: each pair in exactly one of the three joins.
    let mut counts = counts;
    if deficient.iter().any(|&d| d) {
        counts = counts + token_join(&|i| deficient[i] && indexed(i), &|_| true, &|_| ());
    }
    if bad.iter().any(|&b| b) {
        counts = counts + token_join(&|i| !deficient[i] && indexed(i), &|i| bad[i], &|_| ());
    }
    counts
}

/// The inverted index over the sets' indexing prefixes, laid out flat (CSR): token -> (position
/// in the size order, position of the token in that set), positions ascending, so sizes
/// ascending.
struct PrefixIndex {
    /// Tokens below it lie in one set only: they have no postings and are never probed.
    lo: usize,
    /// One past the largest token.
    ntok: usize,
    /// Where each set's tokens that may be shared begin (searched once per set, not once per
    /// candidate), by set number.
    shared: Vec<u32>,
    /// Token `tok`'s postings are `postings[start[tok]..start[tok + 1]]`.
    start: Vec<u32>,
    /// The postings: (position in the size order, position of the token in that set).
    postings: Vec<(u32, u32)>,
}

impl PrefixIndex {
    /// Where set `i`'s tokens that may be shared begin.
    fn shared_from(&self, i: u32) -> usize {
        self.shared[i as usize] as usize
    }

    /// Indexes the prefixes of the sets in `order` (with their sizes `lens`) that `indexed`
    /// admits, each extended by l − 1 tokens for the l-prefix filter ([`extended`]).
    ///
    /// Probing prefix (x, the larger): |x| − ⌈t·|x|⌉ + 1 ([`probe_prefix`]). Indexing prefix
    /// (y ≤ x in size): |y| − ⌈2t/(1+t)·|y|⌉ + 1 tokens suffice ([`index_prefix`]).
    ///
    /// The index is built in parallel without shared writes, in two radix passes (as
    /// `token_sets` ranks its keys): chunks of positions, in parallel, scatter their indexing
    /// prefixes' (token, position, offset) triples into one segment per token range; then each
    /// range, in parallel, counts and places its tokens' postings from its segments in chunk
    /// order, so every posting list comes out in ascending position. A range's counts and
    /// postings are a small stretch of memory, so neither pass writes at random across the index.
    fn build(
        sets: &[Vec<u32>],
        order: &[u32],
        lens: &[usize],
        unique: u32,
        (t, l): (f64, usize),
        indexed: &(dyn Fn(usize) -> bool + Sync),
    ) -> PrefixIndex {
        let ntok = sets
            .iter()
            .filter_map(|s| s.last())
            .max()
            .map_or(0, |&m| m as usize + 1);
        let lo = (unique as usize).min(ntok);
        let threads = rayon::current_num_threads();
        let ranges = (8 * threads).clamp(1, (ntok - lo).max(1));
        let width = (ntok - lo).div_ceil(ranges).max(1);
        let range_of = |r: usize| (lo + r * width).min(ntok)..(lo + (r + 1) * width).min(ntok);
        let shared: Vec<u32> = sets
            .par_iter()
            .map(|s| s.partition_point(|&tok| (tok as usize) < lo) as u32)
            .collect();
        let shared_from = |i: u32| shared[i as usize] as usize;
        let per_chunk = order.len().div_ceil(8 * threads).max(1);
        let segments: Vec<Vec<Vec<(u32, u32, u32)>>> = order
            .par_chunks(per_chunk)
            .enumerate()
            .map(|(c, chunk)| {
                let mut seg: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); ranges];
                for (k, &i) in chunk.iter().enumerate() {
                    if !indexed(i as usize) {
                        continue;
                    }
                    let pos = c * per_chunk + k;
                    let len = lens[pos];
                    let prefix = &sets[i as usize][..extended(index_prefix(len, t), len, l)];
                    for (j, &tok) in prefix.iter().enumerate().skip(shared_from(i)) {
                        seg[(tok as usize - lo) / width].push((tok, pos as u32, j as u32));
                    }
                }
                seg
            })
            .collect();
        let counts: Vec<Vec<u32>> = (0..ranges)
            .into_par_iter()
            .map(|r| {
                let toks = range_of(r);
                let mut c = vec![0u32; toks.len()];
                for &(tok, _, _) in segments.iter().flat_map(|seg| &seg[r]) {
                    c[tok as usize - toks.start] += 1;
                }
                c
            })
            .collect();
        let mut start = vec![0u32; lo + 1];
        start.reserve(ntok - lo);
        for &c in counts.iter().flatten() {
            start.push(start[start.len() - 1] + c);
        }
        drop(counts);
        let mut postings = vec![(0u32, 0u32); start[ntok] as usize];
        let mut stretches: Vec<&mut [(u32, u32)]> = Vec::with_capacity(ranges);
        let mut rest = postings.as_mut_slice();
        for r in 0..ranges {
            let toks = range_of(r);
            let (stretch, tail) = rest.split_at_mut((start[toks.end] - start[toks.start]) as usize);
            stretches.push(stretch);
            rest = tail;
        }
        stretches.into_par_iter().enumerate().for_each(|(r, stretch)| {
            let toks = range_of(r);
            let base = start[toks.start];
            let mut fill: Vec<u32> = start[toks.clone()].iter().map(|&s| s - base).collect();
            for &(tok, pos, j) in segments.iter().flat_map(|seg| &seg[r]) {
                let f = &mut fill[tok as usize - toks.start];
                stretch[*f as usize] = (pos, j);
                *f += 1;
            }
        });
        drop(segments);
        PrefixIndex {
            lo,
            ntok,
            shared,
            start,
            postings,
        }
    }
}

/// What one probe's stripe counted: the pairs that share a token of the two prefixes
/// (`candidates`: the prefix filter's candidates, less those the length filter drops), and the
/// pairs verified by a merge after the positional and l-prefix filters (`verified`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Pairs sharing a token of the probing set's prefix and the indexed set's prefix (sizes
    /// within the length filter's bounds).
    pub candidates: u64,
    /// Candidates left for the verifying merge after the positional and l-prefix filters.
    pub verified: u64,
}

impl std::ops::Add for Candidates {
    type Output = Candidates;
    fn add(self, o: Candidates) -> Candidates {
        Candidates {
            candidates: self.candidates + o.candidates,
            verified: self.verified + o.verified,
        }
    }
}

/// One stripe's scratch for [`probe_stripes`]: a cursor per posting list, the candidates of
/// the current probe, and per set in the size order the tokens of the extended prefixes seen
/// so far for the current probe, or PRUNED (all zero between probes).
struct Stripe {
    /// cursor[tok − lo]: where the entries long enough for this stripe's probes begin.
    cursor: Vec<u32>,
    cand: Vec<u32>,
    overlap: Vec<u32>,
    counts: Candidates,
}

/// The probing set of one probe: its position in the size order, its number, its tokens, and
/// how long its prefix (basic, as the prefix filter has it) and its extended prefix are.
struct Prober<'a> {
    px: usize,
    x: u32,
    sx: &'a [u32],
    basic: usize,
    probed: usize,
}

impl Stripe {
    /// Collects the candidates of `p` from the index (those past `shortest` in the size order,
    /// before `p` in it) and counts for each the tokens its extended prefix shares with `p`'s,
    /// or marks it PRUNED. A pair is a candidate only when its first shared token lies in both
    /// basic prefixes (else the basic prefixes share nothing and the pair cannot reach t);
    /// `keep` is asked then, once; the positional filter (PPJoin) prunes a candidate as soon as
    /// the tokens left after a shared token cannot reach the pair's minimum overlap.
    #[allow(clippy::too_many_arguments)]
    fn collect(
        &mut self,
        p: &Prober<'_>,
        shortest: u32,
        index: &PrefixIndex,
        order: &[u32],
        lens: &[usize],
        t: f64,
        keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    ) {
        let (lo, start, postings) = (index.lo, &index.start, &index.postings);
        let lx = p.sx.len();
        for (i, &tok) in p.sx[..p.probed].iter().enumerate().skip(index.shared_from(p.x)) {
            let end = start[tok as usize + 1] as usize;
            let at = &mut self.cursor[tok as usize - lo];
            let mut from = *at as usize;
            while from < end && postings[from].0 < shortest {
                from += 1;
            }
            *at = from as u32;
            for &(py, j) in &postings[from..end] {
                if py as usize >= p.px {
                    break;
                }
                let seen = &mut self.overlap[py as usize];
                if *seen == PRUNED {
                    continue;
                }
                let ly = lens[py as usize];
                if *seen == 0 {
                    if i >= p.basic || j as usize >= index_prefix(ly, t) {
                        continue;
                    }
                    self.cand.push(py);
                    if !keep(p.x, order[py as usize], tok) {
                        *seen = PRUNED;
                        continue;
                    }
                }
                let bound = *seen as usize + 1 + (lx - i - 1).min(ly - j as usize - 1);
                *seen = if bound < pair_overlap(lx, ly, t) {
                    PRUNED
                } else {
                    *seen + 1
                };
            }
        }
        self.counts.candidates += self.cand.len() as u64;
    }

    /// Verifies the candidates of `p` that the filters left and pushes the similar pairs onto
    /// `found`, handing it to `emit` whenever it holds `batch` pairs; resets the scratch. The
    /// l-prefix filter (Wang, Li & Feng 2012) drops a candidate whose extended prefixes share
    /// fewer than min(l, the pair's minimum overlap) tokens.
    #[allow(clippy::too_many_arguments)]
    fn verify_all(
        &mut self,
        p: &Prober<'_>,
        sets: &[Vec<u32>],
        order: &[u32],
        l: usize,
        t: f64,
        batch: usize,
        found: &mut Vec<(u32, u32)>,
        emit: &Emit<'_>,
    ) {
        let lx = p.sx.len();
        for &py in &self.cand {
            let seen = std::mem::take(&mut self.overlap[py as usize]);
            if seen == PRUNED {
                continue;
            }
            let y = order[py as usize];
            let sy = &sets[y as usize];
            if (seen as usize) < l.min(pair_overlap(lx, sy.len(), t)) {
                continue;
            }
            self.counts.verified += 1;
            let indexed = extended(index_prefix(sy.len(), t), sy.len(), l);
            if let Some(inter) = verify(p.sx, p.probed, sy, indexed, seen as usize, t) {
                if similar(inter, lx, sy.len(), t) {
                    found.push((p.x.min(y), p.x.max(y)));
                    if found.len() >= batch {
                        emit(found);
                        found.clear();
                    }
                }
            }
        }
        self.cand.clear();
    }
}

/// Probes every set of `order` against the index and emits the similar pairs in batches of
/// `batch`; returns what the stripes counted.
///
/// The probes are dealt round-robin to `stripes` tasks: stripe k probes positions k, k + S,
/// k + 2S, … in ascending order, so every stripe sees sets of all sizes (the largest cost the
/// most; both cores stay busy to the end), and within a stripe the length bound only grows.
/// So each stripe keeps a cursor per posting list: the entries before it belong to sets too
/// short for every later probe (AllPairs' "remove from the front of the list"), and the
/// length filter costs a short forward scan instead of a search. Each stripe also keeps its
/// scratch ([`Stripe`]).
#[allow(clippy::too_many_arguments)]
fn probe_stripes(
    sets: &[Vec<u32>],
    order: &[u32],
    lens: &[usize],
    index: &PrefixIndex,
    (t, l): (f64, usize),
    probing: &(dyn Fn(usize) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    batch: usize,
    emit: &Emit<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Candidates {
    let stripes = (4 * rayon::current_num_threads()).clamp(1, order.len().max(1));
    (0..stripes)
        .into_par_iter()
        .map(|stripe| {
            let mut s = Stripe {
                cursor: index.start[index.lo..index.ntok].to_vec(),
                cand: Vec::new(),
                overlap: vec![0u32; order.len()],
                counts: Candidates::default(),
            };
            let mut found = Vec::new();
            let mut probed = 0u64;
            for px in (stripe..order.len()).step_by(stripes) {
                let x = order[px];
                if !probing(x as usize) {
                    continue;
                }
                let sx = &sets[x as usize][..];
                let basic = probe_prefix(lens[px], t);
                let p = Prober {
                    px,
                    x,
                    sx,
                    basic,
                    probed: extended(basic, sx.len(), l),
                };
                // Length filter: sets are numbered by ascending size, so the candidates long
                // enough (|y| ≥ t·|x|) are those from position `shortest` on.
                let min_len = t * lens[px] as f64 - 1e-6;
                let shortest = lens.partition_point(|&n| (n as f64) < min_len) as u32;
                s.collect(&p, shortest, index, order, lens, t, keep);
                s.verify_all(&p, sets, order, l, t, batch, &mut found, emit);
                probed += 1;
                if probed == 256 {
                    progress(std::mem::take(&mut probed));
                }
            }
            progress(probed);
            if !found.is_empty() {
                emit(&found);
            }
            s.counts
        })
        .reduce(Candidates::default, |a, b| a + b)
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
pub(in crate::components) mod tests {
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

    /// l-prefix edge cases by hand: sets shorter than l, a threshold of 1, duplicate sets, and
    /// a pair whose prefixes share one token only (verified under l = 1, filtered under l = 2).
    #[test]
    fn l_prefix_edge_cases() {
        let dup = vec![vec![1, 2], vec![1, 2], vec![1, 2], vec![7], vec![7], vec![], vec![]];
        for l in 1..=4 {
            for t in [0.5, 0.8, 1.0] {
                assert_eq!(
                    join_counted(&dup, 0, t, l, false).0,
                    vec![(0, 1), (0, 2), (1, 2), (3, 4)],
                    "l {l} t {t}"
                );
            }
        }
        // {1, 2, 3} and {1, 2, 4}: J = 2/4; at t = 0.5 the pair overlap is 2 ≥ l = 2.
        let s = vec![vec![1, 2, 3], vec![1, 2, 4]];
        for l in 1..=5 {
            assert_eq!(join_counted(&s, 0, 0.5, l, false).0, vec![(0, 1)], "l {l}");
            assert_eq!(join_counted(&s, 0, 0.51, l, false).0, vec![], "l {l}");
        }
        // Ten tokens each, one shared (the rarest): a candidate of the prefix filter at t = 0.1
        // (prefixes of 10 tokens), but the pair needs an overlap of 2: l = 2 drops it unverified.
        let x: Vec<u32> = std::iter::once(0).chain(1..10).collect();
        let y: Vec<u32> = std::iter::once(0).chain(11..20).collect();
        let s = vec![x, y];
        let (pairs, plain) = join_counted(&s, 0, 0.1, 1, false);
        assert_eq!(
            (pairs, plain),
            (
                vec![],
                Candidates {
                    candidates: 1,
                    verified: 1
                }
            )
        );
        let (pairs, two) = join_counted(&s, 0, 0.1, 2, false);
        assert_eq!(
            (pairs, two),
            (
                vec![],
                Candidates {
                    candidates: 1,
                    verified: 0
                }
            )
        );
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

    /// Alphabets for generated texts: ASCII, Hangul syllables (3-byte UTF-8), decomposed Hangul
    /// jamo (NFD, composed by normalization), accents as combining marks, and 4-byte emoji.
    const ALPHABETS: [[&str; 5]; 5] = [
        ["a", "b", "c", "d", "e"],
        ["가", "나", "법", "률", "조"],
        [
            "\u{1100}\u{1161}",
            "\u{1102}\u{1161}",
            "\u{1107}\u{1165}\u{11b8}",
            "가",
            "e\u{301}",
        ],
        ["e", "\u{e9}", "e\u{301}", "\u{301}", "z"],
        ["😀", "😃", "🦀", "a", "\u{10ffff}"],
    ];

    /// Corpora of edited copies of a few base texts (so many pairs are near or exact
    /// duplicates), with empty texts and texts shorter than n; n is small (u64 keys), middling
    /// (u128 keys) or large (shingles kept as text), so every key width is exercised.
    pub(in crate::components) fn corpus() -> impl Strategy<Value = (Vec<String>, usize, f64)> {
        let base = prop::collection::vec(prop::collection::vec(0u8..5, 0..40), 1..6);
        (
            base,
            prop::collection::vec((0usize..6, 0usize..40, 0u8..6), 0..30),
            prop_oneof![1usize..6, 12usize..16, 26usize..34],
            0usize..ALPHABETS.len(),
            0.3f64..1.0,
        )
            .prop_map(|(bases, edits, n, alphabet, t)| {
                let mut texts: Vec<Vec<u8>> = bases.clone();
                for (b, pos, c) in edits {
                    let mut v = bases[b % bases.len()].clone();
                    if c == 5 {
                        // an exact duplicate
                    } else if v.is_empty() || c == 4 {
                        v.insert(pos.min(v.len()), c % 5);
                    } else {
                        let p = pos % v.len();
                        v[p] = c;
                    }
                    texts.push(v);
                }
                let texts = texts
                    .into_iter()
                    .map(|v| {
                        let raw: String = v.into_iter().map(|c| ALPHABETS[alphabet][c as usize]).collect();
                        normalize(&raw, Normalization::Nfc)
                    })
                    .collect();
                (texts, n, (t * 100.0).round() / 100.0)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn join_equals_brute_force((texts, n, t) in corpus()) {
            let sets = token_sets(&texts, n);
            prop_assert_eq!(join(&sets, t, &|_| ()), brute_force(&sets, t));
        }

        /// Skipping the tokens the ranking says occur once (not indexed, not probed, not merged)
        /// keeps every pair; indexing only some sets on top of it too.
        #[test]
        fn join_unique_equals_brute_force((texts, n, t) in corpus(), mask in any::<u64>()) {
            let ranked = crate::components::shingle::ranked_token_sets(&texts, n);
            let sets = &ranked.sets;
            let want = brute_force(sets, t);
            prop_assert_eq!(join_unique(sets, ranked.unique, t, &|_| ()), want.clone());
            let picked = |i: usize| mask >> (i % 64) & 1 == 1;
            let key = |i: u32| (sets[i as usize].len(), i);
            let want: Vec<(u32, u32)> = want.into_iter().filter(|&(a, b)| picked(key(a).min(key(b)).1 as usize)).collect();
            prop_assert_eq!(join_indexed(sets, ranked.unique, t, &picked, &|_| ()), want);
        }

        /// Indexing only some sets keeps exactly the pairs whose smaller set (by size, then
        /// index) is one of them.
        #[test]
        fn join_indexed_keeps_the_pairs_of_indexed_smaller_sets(
            (texts, n, t) in corpus(),
            mask in any::<u64>(),
        ) {
            let sets = token_sets(&texts, n);
            let picked = |i: usize| mask >> (i % 64) & 1 == 1;
            let want: Vec<(u32, u32)> = brute_force(&sets, t)
                .into_iter()
                .filter(|&(a, b)| {
                    let key = |i: u32| (sets[i as usize].len(), i);
                    picked(key(a).min(key(b)).1 as usize)
                })
                .collect();
            prop_assert_eq!(join_indexed(&sets, 0, t, &picked, &|_| ()), want);
        }

        /// Ownership asked before verification: the pairs kept are exactly those whose
        /// smallest shared token the predicate accepts (and every candidate is asked about
        /// with the pair's own two sets).
        #[test]
        fn join_owned_keeps_the_pairs_owning_their_smallest_shared_token(
            (texts, n, t) in corpus(),
            mask in any::<u64>(),
        ) {
            let ranked = crate::components::shingle::ranked_token_sets(&texts, n);
            let sets = &ranked.sets;
            let owned = |tok: u32| mask >> (tok % 64) & 1 == 1;
            let smallest_shared = |a: u32, b: u32| {
                let y = &sets[b as usize];
                sets[a as usize].iter().copied().find(|tok| y.binary_search(tok).is_ok())
            };
            let want: Vec<(u32, u32)> = brute_force(sets, t)
                .into_iter()
                .filter(|&(a, b)| smallest_shared(a, b).is_some_and(owned))
                .collect();
            let got = join_owned(sets, ranked.unique, t, &|_| true, &|x, y, tok| {
                assert!(sets[x as usize].contains(&tok) && sets[y as usize].contains(&tok));
                owned(tok)
            }, &|_| ());
            prop_assert_eq!(got, want);
        }

        /// Batches handed on as they fill: each at most the batch size, every pair of the
        /// sorted join in exactly one of them.
        #[test]
        fn join_batched_hands_on_every_pair_once((texts, n, t) in corpus(), batch in 1usize..5, pieces in any::<bool>()) {
            let ranked = crate::components::shingle::ranked_token_sets(&texts, n);
            let sets = &ranked.sets;
            let got = std::sync::Mutex::new(Vec::new());
            join_batched(sets, ranked.unique, (t, SHARED_IN_PREFIXES, pieces), &|_| true, &|_, _, _| true, batch, &|b| {
                assert!(!b.is_empty() && b.len() <= batch);
                got.lock().unwrap().extend_from_slice(b);
            }, &|_| ());
            let mut got = got.into_inner().unwrap();
            got.sort_unstable();
            prop_assert_eq!(got, brute_force(sets, t));
        }

        /// The l-prefix filter keeps every pair for every l (1 is the plain prefix filter), with
        /// the same candidates, and verifies no more of them as l grows.
        #[test]
        fn l_prefix_keeps_every_pair((texts, n, t) in corpus()) {
            let ranked = crate::components::shingle::ranked_token_sets(&texts, n);
            let want = brute_force(&ranked.sets, t);
            let (pairs, plain) = join_counted(&ranked.sets, ranked.unique, t, 1, false);
            prop_assert_eq!(&pairs, &want);
            prop_assert!(plain.verified <= plain.candidates);
            let mut before = plain;
            for l in 2..=5 {
                let (pairs, counts) = join_counted(&ranked.sets, ranked.unique, t, l, false);
                prop_assert_eq!(&pairs, &want);
                prop_assert_eq!(counts.candidates, plain.candidates);
                prop_assert!(counts.verified <= before.verified);
                before = counts;
            }
        }

        /// Short sets of a small universe (many shorter than l, many duplicates), thresholds up
        /// to 1: the same pairs as brute force for every l.
        #[test]
        fn l_prefix_on_short_sets(
            sets in prop::collection::vec(prop::collection::btree_set(0u32..12, 0..7), 0..24),
            t in prop::sample::select(vec![0.2, 0.5, 0.6, 0.75, 0.8, 0.9, 0.99, 1.0]),
            l in 1usize..7,
        ) {
            let sets: Vec<Vec<u32>> = sets.into_iter().map(|s| s.into_iter().collect()).collect();
            prop_assert_eq!(join_counted(&sets, 0, t, l, false).0, brute_force(&sets, t));
        }

        /// The pieces' signatures with the token join for deficient sets: short sets of a
        /// small universe (most deficient) and near-copies of longer sets (most found by the
        /// pieces), thresholds up to 1, with tokens held by one set: the pairs of brute force.
        #[test]
        fn pieces_keep_every_pair(
            short in prop::collection::vec(prop::collection::btree_set(0u32..12, 0..7), 0..16),
            bases in prop::collection::vec(prop::collection::btree_set(0u32..400, 10..120), 1..6),
            edits in prop::collection::vec((0usize..6, prop::collection::vec((0u32..400, any::<bool>()), 0..8)), 0..24),
            t in prop::sample::select(vec![0.5, 0.6, 0.75, 0.8, 0.85, 0.9, 0.99, 1.0]),
        ) {
            let mut sets: Vec<Vec<u32>> = short.into_iter().map(|s| s.into_iter().map(|x| x + 400).collect()).collect();
            for (b, ops) in edits {
                let mut s = bases[b % bases.len()].clone();
                for (tok, add) in ops {
                    if add { s.insert(tok); } else { s.remove(&tok); }
                }
                sets.push(s.into_iter().collect());
            }
            sets.extend(bases.into_iter().map(|s| s.into_iter().collect::<Vec<u32>>()));
            let want = brute_force(&sets, t);
            prop_assert_eq!(&join_counted(&sets, 0, t, SHARED_IN_PREFIXES, true).0, &want);
            prop_assert_eq!(&join(&sets, t, &|_| ()), &want);
        }

        #[test]
        fn early_exit_intersection_is_exact_or_below(
            a in prop::collection::btree_set(0u32..60, 0..40),
            b in prop::collection::btree_set(0u32..60, 0..40),
            need in 0usize..45,
        ) {
            let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
            let full = intersection(&a, &b);
            let got = intersection_at_least(&a, &b, need);
            if full >= need {
                prop_assert_eq!(got, Some(full));
            } else {
                prop_assert_eq!(got, None);
            }
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
