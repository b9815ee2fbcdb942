//! Passage-level contamination against a sealed set known only by its keyed
//! [`fingerprint`].
//!
//! A candidate passage's shingles are hashed with the sealed set's key, as the fingerprint's
//! were; A is the set of those hashes and S a sealed passage's. The passage **meets** a
//! `[[contamination-rules]]` entry when, for some sealed passage, |A ∩ S| / |A| (containment) or
//! |A ∩ S| / |A ∪ S| (Jaccard) is at least the threshold; an empty A meets nothing. A question is
//! **flagged** by the rule when a passage in one of the rule's roles meets it.
//!
//! Every sealed passage that a candidate passage meets is found, exactly: the sealed set's
//! hashes are ranked by ascending frequency in the sealed set, a candidate probes the inverted
//! index with the prefix of its hashes in that order (those absent from the sealed set first),
//! |A| − ⌈t·|A|⌉ + 1 of them, since a sealed passage it meets shares at least ⌈t·|A|⌉ hashes
//! with it (the prefix filter of Bayardo, Ma & Srikant, WWW 2007; for Jaccard also their length
//! filter, t·|A| ≤ |S| ≤ |A|/t); each candidate pair is then verified by the exact predicate on
//! the full intersection. Both bounds keep a 1e-6 safety margin, so rounding can only add
//! candidates, never drop a match. A property test compares it with the brute-force overlap of
//! every candidate with every sealed passage.

use super::fingerprint::{self, Fingerprint, Key};
use super::memo::{HashIndex, Memo};
use crate::components::read::Corpus;
use crate::components::{join, shingle};
use crate::error::Result;
use crate::named::Named;
use crate::protocol::{ContaminationRule, Normalization, OverlapMeasure, PassageRole};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A sealed set indexed for probing: its hashes ranked by ascending frequency, each sealed
/// passage's ranks, and the passages holding each rank.
pub struct Sealed<'f> {
    fp: &'f Fingerprint,
    rank_of: HashIndex<u32>,
    sets_off: Vec<usize>,
    sets: Vec<u32>,
    post_off: Vec<usize>,
    post: Vec<u32>,
}

impl<'f> Sealed<'f> {
    /// Indexes `fp`.
    pub fn new(fp: &'f Fingerprint) -> Sealed<'f> {
        let d = fp.hashes.len();
        let mut freq = vec![0u32; d];
        for &p in &fp.positions {
            freq[p as usize] += 1;
        }
        let mut order: Vec<u32> = (0..d as u32).collect();
        order.par_sort_unstable_by_key(|&i| (freq[i as usize], i));
        let mut rank = vec![0u32; d];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut rank_of = HashIndex::with_capacity_and_hasher(d, Default::default());
        for (i, &h) in fp.hashes.iter().enumerate() {
            rank_of.insert(h, rank[i]);
        }
        let mut sets: Vec<u32> = fp.positions.iter().map(|&p| rank[p as usize]).collect();
        for w in fp.offsets.windows(2) {
            sets[w[0]..w[1]].sort_unstable();
        }
        let mut post_off = Vec::with_capacity(d + 1);
        post_off.push(0usize);
        for &i in &order {
            post_off.push(post_off.last().copied().unwrap_or(0) + freq[i as usize] as usize);
        }
        let mut fill = post_off.clone();
        let mut post = vec![0u32; sets.len()];
        for (s, w) in fp.offsets.windows(2).enumerate() {
            for &r in &sets[w[0]..w[1]] {
                post[fill[r as usize]] = s as u32;
                fill[r as usize] += 1;
            }
        }
        Sealed {
            fp,
            rank_of,
            sets_off: fp.offsets.clone(),
            sets,
            post_off,
            post,
        }
    }

    /// Sealed passages.
    pub fn len(&self) -> usize {
        self.fp.ids.len()
    }

    /// Whether the sealed set is empty.
    pub fn is_empty(&self) -> bool {
        self.fp.ids.is_empty()
    }

    /// The fingerprint id of sealed passage `s`.
    pub fn id(&self, s: u32) -> u64 {
        self.fp.ids[s as usize]
    }

    fn set(&self, s: u32) -> &[u32] {
        &self.sets[self.sets_off[s as usize]..self.sets_off[s as usize + 1]]
    }

    fn postings(&self, r: u32) -> &[u32] {
        &self.post[self.post_off[r as usize]..self.post_off[r as usize + 1]]
    }
}

/// A candidate passage as the sealed set sees it: the ranks of its hashes found in the sealed
/// set (ascending) and |A|, its distinct hashes in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Probe {
    /// Ranks of the hashes the sealed set holds, ascending.
    pub ranks: Vec<u32>,
    /// |A|: distinct hashes of the passage's shingles.
    pub size: u32,
}

/// The probes of `texts` (shingle size `n`, normalization `norm`, hashed with `key`) against
/// `sealed`. Each distinct shingle of a chunk of texts is hashed once.
pub fn probes<S: AsRef<str> + Sync>(
    texts: &[S],
    key: &Key,
    sealed: &Sealed,
    n: usize,
    norm: Normalization,
) -> Vec<Probe> {
    const ABSENT: u32 = u32::MAX;
    let per = texts.len().div_ceil(rayon::current_num_threads().max(1)).max(1);
    texts
        .par_chunks(per)
        .flat_map_iter(|chunk| {
            let normalized: Vec<Cow<str>> = chunk.iter().map(|t| shingle::normalized(t.as_ref(), norm)).collect();
            let mut memo = Memo::with_capacity(1 << 12);
            let (mut ranks, mut absent) = (Vec::new(), Vec::new());
            let out: Vec<Probe> = normalized
                .iter()
                .map(|t| {
                    ranks.clear();
                    absent.clear();
                    for s in shingle::ngrams(t, n) {
                        let (h, r) = memo.get(s, |s| {
                            let h = key.shingle(s);
                            (h, sealed.rank_of.get(&h).copied().unwrap_or(ABSENT))
                        });
                        if r == ABSENT {
                            absent.push(h);
                        } else {
                            ranks.push(r);
                        }
                    }
                    ranks.sort_unstable();
                    ranks.dedup();
                    absent.sort_unstable();
                    absent.dedup();
                    Probe {
                        ranks: ranks.clone(),
                        size: (ranks.len() + absent.len()) as u32,
                    }
                })
                .collect();
            out
        })
        .collect()
}

/// Whether an overlap of `inter` hashes between a candidate of `a` and a sealed passage of `s`
/// distinct hashes meets threshold `t` under `measure` (false when `a` is 0). The exact
/// predicate, shared by the index and the brute-force reference.
pub fn meets(measure: OverlapMeasure, inter: usize, a: usize, s: usize, t: f64) -> bool {
    match measure {
        OverlapMeasure::Containment => a > 0 && inter as f64 / a as f64 >= t,
        OverlapMeasure::Jaccard => join::similar(inter, a, s, t),
    }
}

/// The overlap value itself: containment or Jaccard (0 when `a` is 0).
pub fn value(measure: OverlapMeasure, inter: usize, a: usize, s: usize) -> f64 {
    match measure {
        _ if a == 0 => 0.0,
        OverlapMeasure::Containment => inter as f64 / a as f64,
        OverlapMeasure::Jaccard => inter as f64 / (a + s - inter) as f64,
    }
}

/// One sealed passage a candidate passage meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    /// The sealed passage (index into the fingerprint).
    pub sealed: u32,
    /// |A ∩ S|.
    pub overlap: u32,
    /// |S|.
    pub sealed_size: u32,
}

/// Hashes probed past the minimal prefix: a sealed passage a candidate meets then shares at
/// least `1 + EXTRA` of the probed hashes, so those sharing fewer are dropped unverified.
const EXTRA: usize = 2;

/// Every sealed passage `probe` meets under `measure` and threshold `t` (0 < t ≤ 1), by
/// sealed index, ascending.
///
/// A sealed passage S the candidate A meets shares at least `need` = ⌈t·|A|⌉ hashes with it, all
/// among the m hashes the sealed set holds (`probe.ranks`); so of the first p of those (rarest
/// first) it shares at least p − (m − need). The minimal prefix, p = m − need + 1, finds every
/// such S (Bayardo, Ma & Srikant, WWW 2007); probing `EXTRA` (two) more hashes lets the count of
/// shared probed hashes drop most candidates before any verification (the l-prefix filter of
/// Wang, Li & Feng, SIGMOD 2012, with l = 3, as the near-duplicate join uses). The rest are verified by an
/// intersection that stops once too many of A's hashes are missing ([`overlap_at_least`]),
/// then by the exact predicate.
pub fn hits(probe: &Probe, sealed: &Sealed, measure: OverlapMeasure, t: f64) -> Vec<Hit> {
    let a = probe.size as usize;
    if a == 0 {
        return vec![];
    }
    let need = ((t * a as f64 - 1e-6).ceil().max(1.0) as usize).min(a);
    let m = probe.ranks.len();
    if m < need {
        return vec![];
    }
    let prefix = m - need + 1;
    let probed = (prefix + EXTRA).min(m);
    let shared = probed - prefix + 1;
    let mut cands: Vec<u32> = probe.ranks[..probed]
        .iter()
        .flat_map(|&r| sealed.postings(r).iter().copied())
        .collect();
    cands.sort_unstable();
    let (lo, hi) = match measure {
        OverlapMeasure::Containment => (need, usize::MAX),
        OverlapMeasure::Jaccard => (need, (a as f64 / t + 1e-6).floor() as usize),
    };
    let mut out = Vec::new();
    // Each run of equal candidates is one sealed passage and the probed hashes it holds.
    for run in cands.chunk_by(|x, y| x == y) {
        let set = sealed.set(run[0]);
        if run.len() < shared || set.len() < lo || set.len() > hi {
            continue;
        }
        let least = match measure {
            OverlapMeasure::Containment => need,
            // J ≥ t ⇔ |A ∩ S| ≥ t·(|A| + |S|)/(1 + t).
            OverlapMeasure::Jaccard => {
                need.max(((t * (a + set.len()) as f64 / (1.0 + t) - 1e-6).ceil().max(0.0)) as usize)
            }
        };
        let Some(inter) = overlap_at_least(&probe.ranks, set, least) else {
            continue;
        };
        if meets(measure, inter, a, set.len(), t) {
            out.push(Hit {
                sealed: run[0],
                overlap: inter as u32,
                sealed_size: set.len() as u32,
            });
        }
    }
    out
}

/// |a ∩ b| of two ascending, distinct slices when it is at least `least`, else `None`: the
/// merge stops as soon as more than |a| − `least` elements of `a` are missing from `b`. When `b`
/// is much longer than `a`, `b` is skipped by galloping (exponential, then binary search).
pub fn overlap_at_least(a: &[u32], b: &[u32], least: usize) -> Option<usize> {
    if a.len() < least || b.len() < least {
        return None;
    }
    let slack = a.len() - least;
    let gallop = b.len() > 8 * a.len();
    let (mut j, mut n, mut missing) = (0, 0, 0);
    for &x in a {
        let rest = &b[j..];
        j += if gallop {
            lower_bound(rest, x)
        } else {
            rest.iter().take_while(|&&y| y < x).count()
        };
        if b.get(j) == Some(&x) {
            n += 1;
            j += 1;
        } else {
            missing += 1;
            if missing > slack {
                return None;
            }
        }
    }
    Some(n)
}

/// The first index of ascending `b` whose value is at least `x` (`b.len()` when none), by
/// galloping from the start.
fn lower_bound(b: &[u32], x: u32) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step < b.len() && b[lo + step] < x {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step + 1).min(b.len());
    lo + b[lo..hi].partition_point(|&y| y < x)
}

/// Passages per role (a passage in several roles counts in each).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleCounts {
    /// Supporting passages.
    pub supporting: usize,
    /// Distractors.
    pub distractors: usize,
    /// Decoys.
    pub decoys: usize,
}

impl RoleCounts {
    fn add(&mut self, r: PassageRole, n: usize) {
        match r {
            PassageRole::Supporting => self.supporting += n,
            PassageRole::Distractors => self.distractors += n,
            PassageRole::Decoys => self.decoys += n,
        }
    }

    /// The count of role `r`.
    pub fn get(&self, r: PassageRole) -> usize {
        match r {
            PassageRole::Supporting => self.supporting,
            PassageRole::Distractors => self.distractors,
            PassageRole::Decoys => self.decoys,
        }
    }
}

/// What one contamination rule found (the funnel's row for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleResult {
    /// The rule's name.
    pub rule: String,
    /// The roles checked.
    pub roles: Vec<PassageRole>,
    /// The overlap measure.
    pub measure: OverlapMeasure,
    /// The threshold.
    pub threshold: f64,
    /// The shingle size.
    pub shingle_size: u32,
    /// SHA-256 of the fingerprint file used (the registered one).
    pub fingerprint_sha256: String,
    /// The key's commitment (the registered one).
    pub key_sha256: String,
    /// Sealed passages in the fingerprint.
    pub sealed_passages: usize,
    /// Distinct candidate passages checked, per role.
    pub passages_checked: RoleCounts,
    /// Of those, the ones that meet the rule, per role.
    pub passages_flagged: RoleCounts,
    /// Candidate questions the rule flags (of all candidates).
    pub questions_flagged: usize,
    /// Of those, the ones no earlier rule flagged: the funnel's drop at this rule.
    pub removed: usize,
    /// Candidate questions no rule so far flagged.
    pub remaining: usize,
    /// Whether the rule's `stop-share` or `stop-count` was reached.
    pub stop: bool,
}

/// The contamination rules' outcome over the candidates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contamination {
    /// Candidate questions checked.
    pub candidates: usize,
    /// One row per rule, in protocol order.
    pub rules: Vec<RuleResult>,
    /// Candidate questions no rule flagged (they go on to the count).
    pub passed: usize,
    /// The first rule whose stop threshold was reached: the build stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// Per question, in corpus order: the first rule (index) that flagged it, if any.
    #[serde(skip)]
    pub flagged_by: Vec<Option<usize>>,
    /// Every flagged question with each rule's flagged passages and sealed matches (by
    /// fingerprint id), in rule order, then question order.
    #[serde(default)]
    pub flags: Vec<QuestionFlag>,
}

/// A flagged question under one rule (one line of the flags file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionFlag {
    /// The question id.
    pub question: String,
    /// The rule's name.
    pub rule: String,
    /// The question's passages that meet the rule, in role order, then as listed.
    pub passages: Vec<PassageFlag>,
}

/// A candidate passage that meets a rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassageFlag {
    /// The passage id.
    pub passage: String,
    /// Its role in the question.
    pub role: PassageRole,
    /// |A|: the distinct hashes of its shingles.
    pub shingles: u32,
    /// The sealed passages it meets, by fingerprint id.
    pub matches: Vec<SealedMatch>,
}

/// A sealed passage a candidate passage meets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedMatch {
    /// The sealed passage's fingerprint id (16 hex digits).
    pub fingerprint: String,
    /// |A ∩ S|.
    pub overlap: u32,
    /// The overlap under the rule's measure.
    pub value: f64,
}

/// One rule with what it needs: the key and the (registered) fingerprint.
pub struct RuleInput<'a> {
    /// The rule.
    pub rule: &'a ContaminationRule,
    /// The key whose commitment the rule registers.
    pub key: &'a Key,
    /// The fingerprint file, read.
    pub fingerprint: &'a Fingerprint,
    /// Its SHA-256.
    pub fingerprint_sha256: &'a str,
}

/// Runs the rules in order over every candidate question of `corpus`.
///
/// Errors (exit 2): a spilled text that cannot be read back.
pub fn check(corpus: &Corpus, rules: &[RuleInput]) -> Result<Contamination> {
    let nq = corpus.questions.len();
    let mut flagged_by: Vec<Option<usize>> = vec![None; nq];
    let mut out = Contamination {
        candidates: nq,
        rules: vec![],
        passed: nq,
        stopped_by: None,
        flagged_by: vec![],
        flags: vec![],
    };
    for (k, ri) in rules.iter().enumerate() {
        let (row, flags) = check_rule(corpus, ri)?;
        let mut removed = 0;
        for f in &flags {
            let q = f.0;
            if flagged_by[q].is_none() {
                flagged_by[q] = Some(k);
                removed += 1;
            }
        }
        out.passed -= removed;
        let r = &ri.rule;
        let stop = r
            .stop_share
            .is_some_and(|s| nq > 0 && flags.len() as f64 >= s * nq as f64 - 1e-9)
            || r.stop_count.is_some_and(|c| flags.len() as u64 >= c);
        if stop && out.stopped_by.is_none() {
            out.stopped_by = Some(r.name.clone());
        }
        out.rules.push(RuleResult {
            questions_flagged: flags.len(),
            removed,
            remaining: out.passed,
            stop,
            ..row
        });
        out.flags.extend(flags.into_iter().map(|(_, f)| f));
    }
    out.flagged_by = flagged_by;
    Ok(out)
}

/// One rule over every candidate: its row (without the funnel's counts) and its flagged
/// questions (index, flag), in question order.
fn check_rule(corpus: &Corpus, ri: &RuleInput) -> Result<(RuleResult, Vec<(usize, QuestionFlag)>)> {
    let r = ri.rule;
    let mut index_of = vec![u32::MAX; corpus.passages.len()];
    let mut checked: Vec<usize> = Vec::new();
    let mut checked_roles = RoleCounts::default();
    for &role in &r.roles {
        let mut seen = vec![false; corpus.passages.len()];
        for q in &corpus.questions {
            for &p in q.role(role) {
                if !seen[p] {
                    seen[p] = true;
                    checked_roles.add(role, 1);
                }
                if index_of[p] == u32::MAX {
                    index_of[p] = checked.len() as u32;
                    checked.push(p);
                }
            }
        }
    }
    let texts: Vec<Cow<str>> = checked.iter().map(|&p| corpus.texts.get(p)).collect::<Result<_>>()?;
    let sealed = Sealed::new(ri.fingerprint);
    let probes = probes(&texts, ri.key, &sealed, r.shingle_size as usize, r.normalization);
    drop(texts);
    let found: Vec<(u32, Vec<Hit>)> = probes
        .par_iter()
        .map(|p| (p.size, hits(p, &sealed, r.measure, r.threshold)))
        .collect();
    let mut flagged_roles = RoleCounts::default();
    for &role in &r.roles {
        let mut seen = vec![false; corpus.passages.len()];
        for q in &corpus.questions {
            for &p in q.role(role) {
                if !seen[p] && !found[index_of[p] as usize].1.is_empty() {
                    seen[p] = true;
                    flagged_roles.add(role, 1);
                }
            }
        }
    }
    let flags = question_flags(corpus, ri, &index_of, &found, &sealed);
    let row = RuleResult {
        rule: r.name.clone(),
        roles: r.roles.clone(),
        measure: r.measure,
        threshold: r.threshold,
        shingle_size: r.shingle_size,
        fingerprint_sha256: ri.fingerprint_sha256.to_string(),
        key_sha256: ri.key.commitment().to_string(),
        sealed_passages: sealed.len(),
        passages_checked: checked_roles,
        passages_flagged: flagged_roles,
        questions_flagged: 0,
        removed: 0,
        remaining: 0,
        stop: false,
    };
    Ok((row, flags))
}

/// The questions with a passage in the rule's roles that meets it, with those passages.
fn question_flags(
    corpus: &Corpus,
    ri: &RuleInput,
    index_of: &[u32],
    found: &[(u32, Vec<Hit>)],
    sealed: &Sealed,
) -> Vec<(usize, QuestionFlag)> {
    let r = ri.rule;
    let mut roles = r.roles.clone();
    roles.sort_by_key(|x| PassageRole::ALL.iter().position(|y| y == x));
    let mut out = Vec::new();
    for (qi, q) in corpus.questions.iter().enumerate() {
        let mut passages = Vec::new();
        for &role in &roles {
            for &p in q.role(role) {
                let (size, hits) = &found[index_of[p] as usize];
                if hits.is_empty() {
                    continue;
                }
                let mut matches: Vec<SealedMatch> = hits
                    .iter()
                    .map(|h| SealedMatch {
                        fingerprint: fingerprint::id_hex(sealed.id(h.sealed)),
                        overlap: h.overlap,
                        value: value(r.measure, h.overlap as usize, *size as usize, h.sealed_size as usize),
                    })
                    .collect();
                matches.sort_by(|a, b| a.fingerprint.cmp(&b.fingerprint));
                passages.push(PassageFlag {
                    passage: corpus.passages[p].id.clone(),
                    role,
                    shingles: *size,
                    matches,
                });
            }
        }
        if !passages.is_empty() {
            out.push((
                qi,
                QuestionFlag {
                    question: q.id.clone(),
                    rule: r.name.clone(),
                    passages,
                },
            ));
        }
    }
    out
}

/// The flags file: one JSON line per flagged question and rule ([`QuestionFlag`]).
pub fn flags_jsonl(flags: &[QuestionFlag]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in flags {
        if let Ok(line) = serde_json::to_string(f) {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    out
}

#[cfg(test)]
mod tests;
