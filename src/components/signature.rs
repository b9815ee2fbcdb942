//! Partition-based signatures for the exact join ([`super::join`]): candidates that share a
//! whole piece of both sets, not one token.
//!
//! Method: the partition-based framework of Deng, Li, Wen & Feng ("An efficient partition based
//! method for exact set similarity joins", PVLDB 9(4), 2015), with the prefix filter applied to
//! the pieces. The token universe is cut into `m` parts by a hash; a set x falls into pieces
//! xᵢ = x ∩ partᵢ. Each piece of x that differs from y's piece of the same part holds at least
//! one token of the symmetric difference x Δ y, and the pieces are disjoint, so if x has k
//! non-empty pieces, at least k − |x Δ y| of them equal y's (Deng et al.'s pigeonhole lemma,
//! counted over x's non-empty pieces so that a matching piece is never empty). J(x, y) ≥ t
//! bounds |x Δ y| = |x| + |y| − 2|x ∩ y| ≤ (|x| + |y|)(1 − t)/(1 + t) ([`hamming_bound`]). So the
//! pieces work as tokens of a second join: each piece gets a key (its size, larger first, its
//! smallest token, then a hash of its tokens), a set's keys are sorted, and with c ≥ k − |x Δ y| ≥ 1 shared keys the
//! smallest shared key lies in the first k − c + 1 keys of each set (the prefix filter of
//! AllPairs, Bayardo et al., WWW 2007). Keys ordered by size, then smallest token, put a set's
//! large pieces first (two sets share a piece of one common token by chance far more often) and,
//! among pieces of one size, those holding its rarest tokens. As on tokens, the l-prefix filter (Wang,
//! Li & Feng, SIGMOD 2012) then asks for [`SHARED_PIECES`] shared keys of the prefixes each
//! extended by l − 1 keys (or all the c ≥ k − |x Δ y| the pair must share, if fewer).
//!
//! Why: two natural-language passages that share one rare word share all of its character
//! n-grams, so the token prefix filter makes them candidates and the candidates grow as the
//! square of the corpus. Such a pair shares a piece only where one of those n-grams is alone in
//! its part in both passages. A hash collision of two different pieces only adds a candidate
//! (every candidate is verified by the exact merge); equal pieces always have equal keys.
//!
//! The number of parts depends on the sets' sizes: sizes fall into geometric classes of ratio
//! 1/t ([`Scheme::class`]), each with its own parts ([`Scheme::parts`]), chosen so that a set
//! has comfortably more non-empty pieces than the bound needs; a set is indexed under its own
//! class, and probes every class its length filter reaches. A set with too few non-empty pieces
//! for the bound (a hash can always crowd one) is *deficient*: the join hands every pair it is
//! in to the token join instead, so no pair is lost or found twice.

use super::join::{intersection_at_least, pair_overlap, similar, Candidates, Emit};
use super::shingle::mix64;
use rayon::prelude::*;

/// The largest |x Δ y| of a pair with |x| + |y| ≤ `s` and Jaccard ≥ `t`: |x ∩ y| ≥
/// t/(1+t)·(|x| + |y|) ([`super::join`]'s pair overlap), so |x Δ y| ≤ s·(1 − t)/(1 + t); with
/// a margin above rounding (an overestimate only lengthens prefixes).
pub(super) fn hamming_bound(s: usize, t: f64) -> usize {
    ((s as f64 * (1.0 - t) / (1.0 + t) + 1e-5).floor().max(0.0) as usize).min(s)
}

/// The largest size a set of size `b` can be paired with (the length filter admits |y| ≥
/// t·|x| − 1e-6), plus one for safety.
fn longest_partner(b: usize, t: f64) -> usize {
    ((b as f64 + 1e-6) / t).floor() as usize + 1
}

/// The keys a set of size `a` must show when it probes smaller or equal sets: |x Δ y| ≤
/// [`hamming_bound`]`(2a)`.
pub(super) fn probe_bound(a: usize, t: f64) -> usize {
    hamming_bound(2 * a, t)
}

/// The bound of a set of size `b` indexed for larger or equal sets (up to
/// [`longest_partner`]).
pub(super) fn index_bound(b: usize, t: f64) -> usize {
    hamming_bound(b + longest_partner(b, t), t)
}

/// (1 − e^−r)/r: the expected non-empty parts per token when a set puts r tokens per part on
/// average (decreasing in r).
fn filled(r: f64) -> f64 {
    (1.0 - (-r).exp()) / r
}

/// The largest r with [`filled`]`(r)` ≥ `need` (0 when `need` ≥ 1), by bisection.
fn tokens_per_part(need: f64) -> f64 {
    if need >= 1.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (1e-9, 1e3);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if filled(mid) >= need {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// How sets are cut into pieces at threshold `t`: size classes of ratio `g` and, per class,
/// parts enough for `r` tokens per part at the class's top size.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scheme {
    ln_g: f64,
    r: f64,
}

/// The l of the l-prefix filter (Wang, Li & Feng, SIGMOD 2012) on the pieces' keys: both key
/// prefixes are extended by l − 1 keys, and a candidate is verified only when they share at
/// least min(l, o) keys, o = pieces − bound being the shared keys the pair has at least (the j-th
/// smallest shared key lies within the first keys − o + j).
const SHARED_PIECES: usize = 3;

/// Below this many tokens per part, pieces are mostly single tokens: the token join is used.
const MIN_TOKENS_PER_PART: f64 = 1.5;

/// How much more non-empty pieces than the bound a set of its class's top size is to have on
/// average (the hash's spread is a few pieces: deficient sets are rare).
const MARGIN: f64 = 1.1;

impl Scheme {
    /// The scheme for threshold `t`, or `None` where pieces would be too small to be worth it
    /// (low thresholds: the bound allows so many differences that pieces are single tokens).
    pub(super) fn new(t: f64) -> Option<Scheme> {
        if !(t > 0.0 && t <= 1.0) {
            return None;
        }
        let g = (1.0 / t).max(1.1);
        // Indexed at the class top U: about U·(1 − t)/t pieces needed; probing from the next
        // class up, up to U·g tokens over the same parts: about 2·U·g·(1 − t)/(1 + t).
        let index = tokens_per_part(MARGIN * (1.0 - t) / t);
        let probe = tokens_per_part(MARGIN * 2.0 * (1.0 - t) / (1.0 + t)) / g;
        let r = index.min(probe);
        (r >= MIN_TOKENS_PER_PART).then_some(Scheme { ln_g: g.ln(), r })
    }

    /// The size class of a set of `s` ≥ 1 tokens (monotone in s).
    pub(super) fn class(&self, s: usize) -> u32 {
        ((s.max(1) as f64).ln() / self.ln_g).floor().max(0.0) as u32
    }

    /// The parts of class `c`.
    fn parts(&self, c: u32) -> usize {
        ((self.ln_g * (f64::from(c) + 1.0)).exp() / self.r)
            .ceil()
            .clamp(1.0, 1e9) as usize
    }
}

/// One thread's scratch for cutting sets into pieces.
#[derive(Default)]
pub(super) struct Pieces {
    acc: Vec<u64>,
    size: Vec<u32>,
    first: Vec<u32>,
    touched: Vec<u32>,
    /// The keys of the last set cut, sorted.
    pub(super) keys: Vec<u64>,
}

impl Pieces {
    /// Cuts the sorted set `s` into its pieces under class `c` of `scheme`; leaves in `keys`
    /// the sorted keys of its pieces that may be shared (those without a token below `unique`,
    /// which lies in this set only) and returns how many non-empty pieces it has in all. A key
    /// is 255 − the piece's size (top 8 bits, so larger pieces, which two sets share by chance
    /// less often, come first), its smallest token (32 bits) and a hash of its tokens (24 bits).
    pub(super) fn cut(&mut self, s: &[u32], unique: u32, scheme: &Scheme, c: u32) -> usize {
        let m = scheme.parts(c);
        if self.first.len() < m {
            self.first.resize(m, u32::MAX);
            self.acc.resize(m, 0);
            self.size.resize(m, 0);
        }
        self.touched.clear();
        self.keys.clear();
        let salt = u64::from(c) << 32;
        for &tok in s {
            let h = mix64(u64::from(tok) | salt);
            let p = ((u128::from(h) * m as u128) >> 64) as usize;
            if self.first[p] == u32::MAX {
                self.first[p] = tok;
                self.acc[p] = 0x9e37_79b9_7f4a_7c15;
                self.size[p] = 0;
                self.touched.push(p as u32);
            }
            self.size[p] += 1;
            self.acc[p] = mix64(self.acc[p] ^ u64::from(tok));
        }
        for &p in &self.touched {
            let p = p as usize;
            let min = std::mem::replace(&mut self.first[p], u32::MAX);
            if min >= unique {
                let larger = 255 - u64::from(self.size[p].min(255));
                self.keys
                    .push(larger << 56 | u64::from(min) << 24 | (self.acc[p] >> 40));
            }
        }
        self.keys.sort_unstable();
        self.touched.len()
    }
}

/// How many keys of a set with `pieces` non-empty pieces, `keys` of them shareable, to index
/// or probe for a bound `bound` on |x Δ y|: `None` if the set is deficient (pieces ≤ bound: no
/// piece need match), else the prefix (possibly 0: no partner can reach the threshold).
pub(super) fn prefix(pieces: usize, keys: usize, bound: usize) -> Option<usize> {
    if pieces <= bound {
        return None;
    }
    // c ≥ pieces − bound shared keys, so the smallest lies in the first keys − c + 1.
    Some((keys + bound + 1).saturating_sub(pieces).min(keys))
}

/// The smallest token of a piece's key ([`Pieces::cut`]).
fn key_token(key: u64) -> u32 {
    (key >> 24) as u32
}

/// The rest of a piece's key: its size byte and hash (32 bits).
fn key_rest(key: u64) -> u32 {
    ((key >> 56) << 24 | (key & 0xff_ffff)) as u32
}

/// One chunk's index entries (smallest token, [`key_rest`], position) and deficient sets.
type Chunk = (Vec<(u32, u32, u32)>, Vec<u32>);

/// The pieces' inverted index: per smallest token (CSR over tokens from `lo`), the entries
/// ([`key_rest`], position in the size order), sorted by the former, then position.
struct KeyIndex {
    lo: usize,
    start: Vec<u32>,
    entries: Vec<(u32, u32)>,
}

impl KeyIndex {
    /// The positions indexed under `key`, ascending.
    fn lookup(&self, key: u64) -> &[(u32, u32)] {
        let (tok, h) = (key_token(key) as usize, key_rest(key));
        if tok < self.lo || tok - self.lo + 1 >= self.start.len() {
            return &[];
        }
        let e = &self.entries[self.start[tok - self.lo] as usize..self.start[tok - self.lo + 1] as usize];
        let from = e.partition_point(|&(x, _)| x < h);
        let to = e.partition_point(|&(x, _)| x <= h);
        &e[from..to]
    }

    /// Indexes the key prefixes ([`prefix`] with [`index_bound`]) of the sets in `order` (with
    /// sizes `lens`) that `indexed` admits, each under its own size class; returns the index and
    /// the deficient sets (by set number), or `None` when the entries would not fit 32-bit
    /// offsets (the caller joins by tokens then).
    fn build(j: &Join<'_>, indexed: &(dyn Fn(usize) -> bool + Sync)) -> Option<(KeyIndex, Vec<bool>)> {
        let per_chunk = j.order.len().div_ceil(8 * rayon::current_num_threads()).max(1);
        let chunks: Vec<Chunk> = j
            .order
            .par_chunks(per_chunk)
            .enumerate()
            .map(|(c, chunk)| {
                let (mut pieces, mut out, mut deficient) = (Pieces::default(), Vec::new(), Vec::new());
                for (k, &i) in chunk.iter().enumerate() {
                    if !indexed(i as usize) {
                        continue;
                    }
                    let (s, pos) = (&j.sets[i as usize], (c * per_chunk + k) as u32);
                    let pieces_n = pieces.cut(s, j.unique, &j.scheme, j.scheme.class(s.len()));
                    match prefix(pieces_n, pieces.keys.len(), index_bound(s.len(), j.t)) {
                        None => deficient.push(i),
                        Some(0) => {}
                        Some(p) => {
                            let p = (p + SHARED_PIECES - 1).min(pieces.keys.len());
                            out.extend(pieces.keys[..p].iter().map(|&key| (key_token(key), key_rest(key), pos)))
                        }
                    }
                }
                (out, deficient)
            })
            .collect();
        let total: usize = chunks.iter().map(|c| c.0.len()).sum();
        if total >= u32::MAX as usize {
            return None;
        }
        let lo = (j.unique as usize).min(j.ntok);
        let mut start = vec![0u32; j.ntok - lo + 1];
        for &(tok, _, _) in chunks.iter().flat_map(|c| &c.0) {
            start[tok as usize - lo + 1] += 1;
        }
        for w in 1..start.len() {
            start[w] += start[w - 1];
        }
        let mut fill = start.clone();
        let mut entries = vec![(0u32, 0u32); total];
        let mut deficient = vec![false; j.sets.len()];
        for (out, def) in chunks {
            for (tok, h, pos) in out {
                let f = &mut fill[tok as usize - lo];
                entries[*f as usize] = (h, pos);
                *f += 1;
            }
            for i in def {
                deficient[i as usize] = true;
            }
        }
        drop(fill);
        // Positions were placed in ascending order: a stable sort by hash keeps them so.
        for w in start.windows(2) {
            if w[1] - w[0] > 1 {
                entries[w[0] as usize..w[1] as usize].sort_by_key(|e| e.0);
            }
        }
        Some((KeyIndex { lo, start, entries }, deficient))
    }
}

/// What the signature join works on: the sets, their order by (size, number) and sizes in
/// it, where each set's shareable tokens begin, the scheme and threshold.
struct Join<'a> {
    sets: &'a [Vec<u32>],
    order: &'a [u32],
    lens: &'a [usize],
    shared: Vec<u32>,
    unique: u32,
    ntok: usize,
    t: f64,
    scheme: Scheme,
}

/// The smallest token two sorted slices share, if any.
fn first_common(a: &[u32], b: &[u32]) -> Option<u32> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return Some(a[i]),
        }
    }
    None
}

/// One probing task's scratch and results.
#[derive(Default)]
struct Probe {
    pieces: Pieces,
    keys: Vec<u64>,
    /// Per class probed: its extended prefix's length in `keys`, and the shared keys needed.
    needs: Vec<(usize, usize)>,
    hits: Vec<u32>,
    cand: Vec<u32>,
    found: Vec<(u32, u32)>,
    bad: Vec<u32>,
    counts: Candidates,
}

impl Probe {
    /// The candidates of the set at position `px` (sets before it in the size order, from
    /// `shortest` on, sharing at least min([`SHARED_PIECES`], o) keys of the two extended
    /// prefixes under one class), sorted and distinct; `false` if the set is deficient under a
    /// class it probes (then it has no candidates here).
    fn collect(&mut self, j: &Join<'_>, index: &KeyIndex, px: usize, shortest: usize) -> bool {
        let (sx, a) = (&j.sets[j.order[px] as usize], j.lens[px]);
        let bound = probe_bound(a, j.t);
        // Each class's extended prefix and the shared keys it needs, cut before any lookup
        // (a set deficient under one class probes none).
        self.keys.clear();
        self.needs.clear();
        for c in j.scheme.class(j.lens[shortest])..=j.scheme.class(a) {
            let pieces = self.pieces.cut(sx, j.unique, &j.scheme, c);
            match prefix(pieces, self.pieces.keys.len(), bound) {
                None => return false,
                Some(0) => {}
                Some(p) => {
                    let p = (p + SHARED_PIECES - 1).min(self.pieces.keys.len());
                    self.keys.extend_from_slice(&self.pieces.keys[..p]);
                    self.needs.push((p, SHARED_PIECES.min(pieces - bound)));
                }
            }
        }
        self.cand.clear();
        let mut from = 0;
        for &(p, need) in &self.needs {
            self.hits.clear();
            for &key in &self.keys[from..from + p] {
                for &(_, py) in index.lookup(key) {
                    if (py as usize) >= px {
                        break;
                    }
                    if py as usize >= shortest {
                        self.hits.push(py);
                    }
                }
            }
            from += p;
            self.hits.sort_unstable();
            for run in self.hits.chunk_by(|a, b| a == b) {
                self.counts.candidates += 1;
                if run.len() >= need {
                    self.cand.push(run[0]);
                }
            }
        }
        self.cand.sort_unstable();
        self.cand.dedup();
        true
    }

    /// Verifies the candidates of the set at `px` with the exact merge and predicate, and
    /// passes the similar pairs `keep` accepts (asked with their smallest shared token) on to
    /// `emit` in batches of `batch`.
    fn verify(
        &mut self,
        j: &Join<'_>,
        px: usize,
        keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
        batch: usize,
        emit: &Emit<'_>,
    ) {
        let x = j.order[px];
        let sx = &j.sets[x as usize][j.shared[x as usize] as usize..];
        let a = j.lens[px];
        for &py in &self.cand {
            let y = j.order[py as usize];
            let sy = &j.sets[y as usize][j.shared[y as usize] as usize..];
            let b = j.lens[py as usize];
            self.counts.verified += 1;
            let Some(inter) = intersection_at_least(sx, sy, pair_overlap(a, b, j.t)) else {
                continue;
            };
            if !similar(inter, a, b, j.t) {
                continue;
            }
            if first_common(sx, sy).is_some_and(|tok| keep(x, y, tok)) {
                self.found.push((x.min(y), x.max(y)));
                if self.found.len() >= batch {
                    emit(&self.found);
                    self.found.clear();
                }
            }
        }
    }
}

/// The pairs of the exact join ([`super::join::join_owned`]'s contract: only pairs whose
/// smaller set `indexed` admits, kept where `keep(x, y, smallest shared token)` says so) that
/// the pieces can find, emitted in batches of `batch`; returns the counts, the deficient
/// indexed sets and the deficient probing sets (by set number), whose pairs the caller finds
/// by the token join: every pair whose smaller set is deficient, and every pair of a deficient
/// probing set with a smaller set that is not. `None` when the index would not fit (nothing
/// was emitted then).
#[allow(clippy::too_many_arguments)]
pub(super) fn join(
    sets: &[Vec<u32>],
    order: &[u32],
    lens: &[usize],
    unique: u32,
    (t, scheme): (f64, Scheme),
    indexed: &(dyn Fn(usize) -> bool + Sync),
    keep: &(dyn Fn(u32, u32, u32) -> bool + Sync),
    batch: usize,
    emit: &Emit<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Option<(Candidates, Vec<bool>, Vec<bool>)> {
    let ntok = sets
        .iter()
        .filter_map(|s| s.last())
        .max()
        .map_or(0, |&m| m as usize + 1);
    let shared = sets
        .par_iter()
        .map(|s| s.partition_point(|&tok| tok < unique) as u32)
        .collect();
    let j = Join {
        sets,
        order,
        lens,
        shared,
        unique,
        ntok,
        t,
        scheme,
    };
    let (index, deficient) = KeyIndex::build(&j, indexed)?;
    let stripes = (4 * rayon::current_num_threads()).clamp(1, order.len().max(1));
    let probes: Vec<Probe> = (0..stripes)
        .into_par_iter()
        .map(|stripe| {
            let mut p = Probe::default();
            let mut probed = 0u64;
            for px in (stripe..order.len()).step_by(stripes) {
                let min_len = t * lens[px] as f64 - 1e-6;
                let shortest = lens.partition_point(|&n| (n as f64) < min_len);
                if shortest < px {
                    if p.collect(&j, &index, px, shortest) {
                        p.verify(&j, px, keep, batch, emit);
                    } else {
                        p.bad.push(order[px]);
                    }
                }
                probed += 1;
                if probed == 256 {
                    progress(std::mem::take(&mut probed));
                }
            }
            progress(probed);
            if !p.found.is_empty() {
                emit(&p.found);
            }
            p
        })
        .collect();
    let mut bad = vec![false; sets.len()];
    let mut counts = Candidates::default();
    for p in probes {
        counts = counts + p.counts;
        for x in p.bad {
            bad[x as usize] = true;
        }
    }
    Some((counts, deficient, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_by_hand() {
        // t = 0.8: (1 − t)/(1 + t) = 1/9; |x| = |y| = 9: |x ∩ y| ≥ 8, |x Δ y| ≤ 2.
        assert_eq!(hamming_bound(18, 0.8), 2);
        assert_eq!(probe_bound(9, 0.8), 2);
        // b = 8: partners up to 10 (+1): (8 + 11)/9 → 2.
        assert_eq!(index_bound(8, 0.8), 2);
        assert_eq!(hamming_bound(10, 1.0), 0);
        // Every pair of sizes with J ≥ t is within the bound (exhaustive over small sizes).
        for t in [0.5, 0.7, 0.8, 0.9, 0.95, 1.0] {
            for a in 1..60usize {
                for b in 1..=a {
                    for inter in 0..=b {
                        let j = inter as f64 / (a + b - inter) as f64;
                        if j >= t {
                            assert!(a + b - 2 * inter <= probe_bound(a, t), "{t} {a} {b} {inter}");
                            assert!(a + b - 2 * inter <= index_bound(b, t), "{t} {a} {b} {inter}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn prefixes_by_hand() {
        assert_eq!(prefix(5, 5, 5), None);
        assert_eq!(prefix(6, 6, 2), Some(3));
        // Two pieces hold a token of this set only: the prefix shrinks by two.
        assert_eq!(prefix(6, 4, 2), Some(1));
        assert_eq!(prefix(6, 3, 2), Some(0));
    }

    #[test]
    fn schemes() {
        assert!(Scheme::new(0.3).is_none());
        let s = Scheme::new(0.8).expect("a scheme at 0.8");
        assert!(s.r > 3.0 && s.r < 3.5, "{}", s.r);
        assert!(s.class(600) > s.class(400));
        assert_eq!(s.class(1), 0);
        // Equal sets cut into equal keys; the count of pieces is the same.
        let mut p = Pieces::default();
        let x: Vec<u32> = (10..400).collect();
        let k = p.cut(&x, 0, &s, s.class(x.len()));
        let keys = p.keys.clone();
        assert_eq!(p.cut(&x, 0, &s, s.class(x.len())), k);
        assert_eq!(p.keys, keys);
        assert!(k > probe_bound(x.len(), 0.8));
        // Tokens below `unique` make their pieces unshareable.
        p.cut(&x, 12, &s, s.class(x.len()));
        assert!(p.keys.len() < keys.len() && p.keys.len() >= keys.len() - 2);
    }
}
