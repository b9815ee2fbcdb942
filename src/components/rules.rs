//! The component graph and the edges each link rule adds.
//!
//! Nodes: with `components.unit = "question"`, one node per question and one per passage; with a
//! field as unit (e.g. `doc`), one node per distinct value of that field, shared by the questions
//! and the passages that carry the value (a passage without the field is a node of its own, not a
//! unit). Every question is always joined to the passages it uses (`passages`): that is what a
//! question relies on, and it makes "the same passage id" a link by construction. The rules add:
//! - `identical-passage`: passages whose normalized texts are identical (non-empty texts only: an
//!   empty text links to nothing);
//! - `near-duplicate-passage`: passages whose shingle sets have Jaccard ≥ threshold
//!   ([`super::join`], exact);
//! - `decoy`: a question and each passage it uses as a decoy / distractor (so, with a field unit,
//!   the decoy's document);
//! - `shared-field`: questions with the same value of the field (questions without it: no link).

use super::read::Corpus;
use super::{join, shingle, Progress};
use crate::error::{Error, Result};
use crate::protocol::{LinkKind, LinkRule, Normalization};
use std::borrow::Cow;
use std::collections::HashMap;

/// A node of the component graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The question id, passage id, or unit field value.
    pub label: String,
    /// Whether the node is a unit (a question, or a unit field value), as opposed to a passage.
    pub unit: bool,
}

/// The graph's nodes and where each question and passage sits.
#[derive(Debug, Clone)]
pub struct Graph {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Node of each question (same order as the corpus).
    pub question_node: Vec<u32>,
    /// Node of each passage.
    pub passage_node: Vec<u32>,
}

/// Builds the nodes for the unit `unit` (`question` or a field name).
///
/// Errors (exit 2): a question without the unit field, naming where it was read.
pub fn graph(corpus: &Corpus, unit: &str) -> Result<Graph> {
    let mut nodes = Vec::new();
    let mut by_value: HashMap<String, u32> = HashMap::new();
    let mut value_node = |v: &str, nodes: &mut Vec<Node>| -> u32 {
        if let Some(&n) = by_value.get(v) {
            return n;
        }
        nodes.push(Node {
            label: v.to_string(),
            unit: true,
        });
        by_value.insert(v.to_string(), nodes.len() as u32 - 1);
        nodes.len() as u32 - 1
    };
    let mut question_node = Vec::with_capacity(corpus.questions.len());
    for q in &corpus.questions {
        if unit == "question" {
            nodes.push(Node {
                label: q.id.clone(),
                unit: true,
            });
            question_node.push(nodes.len() as u32 - 1);
        } else {
            let v = q.fields.get(unit).ok_or_else(|| {
                Error::input(format!(
                    "{}: question `{}` has no `{}` field (the component unit)",
                    q.loc, q.id, unit
                ))
            })?;
            question_node.push(value_node(v, &mut nodes));
        }
    }
    let mut passage_node = Vec::with_capacity(corpus.passages.len());
    for p in &corpus.passages {
        match p.fields.get(unit).filter(|_| unit != "question") {
            Some(v) => passage_node.push(value_node(v, &mut nodes)),
            None => {
                nodes.push(Node {
                    label: p.id.clone(),
                    unit: false,
                });
                passage_node.push(nodes.len() as u32 - 1);
            }
        }
    }
    Ok(Graph {
        nodes,
        question_node,
        passage_node,
    })
}

/// Edges every graph has: each question to the passages it uses.
pub fn base_edges(corpus: &Corpus, g: &Graph) -> Vec<(u32, u32)> {
    let mut e = Vec::new();
    for (qi, q) in corpus.questions.iter().enumerate() {
        for &p in &q.passages {
            e.push((g.question_node[qi], g.passage_node[p]));
        }
    }
    e
}

/// Normalized texts, computed once per normalization form (borrowed from the corpus when a
/// text is already in that form). Only for texts in memory: the rules read spilled texts
/// batch by batch instead.
#[derive(Default)]
pub struct Texts<'a> {
    cache: HashMap<&'static str, shingle::Normalized<'a>>,
}

impl<'a> Texts<'a> {
    /// The passages' texts under normalization `n`, with their alphabet (computed on first use,
    /// in one pass: [`shingle::normalize_all`]).
    ///
    /// Errors: the texts are spilled ([`super::store::TextStore::is_spilled`]; an internal
    /// error, the callers check first).
    pub fn get(&mut self, corpus: &'a Corpus, n: Normalization) -> Result<&shingle::Normalized<'a>> {
        let key = match n {
            Normalization::None => "none",
            Normalization::Nfc => "nfc",
            Normalization::Nfkc => "nfkc",
        };
        if !self.cache.contains_key(key) {
            let all = corpus
                .texts
                .as_strs()
                .ok_or_else(|| Error::internal("the passages' texts are spilled, not in memory"))?;
            self.cache.insert(key, shingle::normalize_all(&all, n));
        }
        self.cache
            .get(key)
            .ok_or_else(|| Error::internal("normalized texts missing"))
    }
}

/// The identical-passage edges over texts in memory: each non-empty text to the first passage
/// with the same text. The texts are hashed in parallel (64 bits, [`shingle::FastHash`]); each
/// hash match is confirmed by comparing the texts, and a text whose hash an earlier, different
/// text already has is grouped by its text itself, so the edges are exact.
fn identical_in_memory(t: &[Cow<'_, str>], g: &Graph) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    use std::hash::{BuildHasher, Hasher};
    let hashes: Vec<u64> = t
        .par_iter()
        .map(|s| {
            let mut h = shingle::FastHash::default().build_hasher();
            h.write(s.as_bytes());
            h.finish()
        })
        .collect();
    let mut first: HashMap<u64, usize> = HashMap::with_capacity(t.len());
    let mut collided: HashMap<&str, usize> = HashMap::new();
    let mut e = Vec::new();
    for (i, (s, &h)) in t.iter().zip(&hashes).enumerate() {
        if s.is_empty() {
            continue;
        }
        let mut f = *first.entry(h).or_insert(i);
        if f != i && t[f] != *s {
            f = *collided.entry(s.as_ref()).or_insert(i);
        }
        if f != i {
            e.push((g.passage_node[f], g.passage_node[i]));
        }
    }
    e
}

/// A 128-bit hash of a text (two SipHash-1-3 keys), for grouping spilled texts.
fn hash128(s: &str) -> u128 {
    use std::hash::{Hash, Hasher};
    let mut a = std::collections::hash_map::DefaultHasher::new();
    (0u8, s).hash(&mut a);
    let mut b = std::collections::hash_map::DefaultHasher::new();
    (1u8, s).hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

/// Bytes of spilled text read per batch by the identical-passage rule.
const IDENTICAL_BATCH: u64 = 32 << 20;

/// The identical-passage edges over spilled texts: texts grouped by a 128-bit hash of their
/// normalized form, each hash match confirmed by comparing the texts themselves (the first
/// text read back), so the edges are exactly those of the in-memory rule: each non-empty text to
/// the first passage with the same normalized text.
fn identical_spilled(corpus: &Corpus, g: &Graph, n: Normalization) -> Result<Vec<(u32, u32)>> {
    use rayon::prelude::*;
    let mut first: HashMap<u128, u32> = HashMap::new();
    // Distinct texts whose hash an earlier distinct text has (hash collisions).
    let mut more: HashMap<u128, Vec<u32>> = HashMap::new();
    let mut e = Vec::new();
    let same = |f: u32, s: &str| -> Result<bool> {
        let t = corpus.texts.get(f as usize)?;
        Ok(shingle::normalized(&t, n) == s)
    };
    corpus.texts.batches(IDENTICAL_BATCH, |start, batch| {
        let hashed: Vec<(u128, Cow<'_, str>)> = batch
            .par_iter()
            .map(|t| {
                let s = shingle::normalized(t, n);
                (hash128(&s), s)
            })
            .collect();
        for (k, (h, s)) in hashed.iter().enumerate() {
            let i = (start + k) as u32;
            if s.is_empty() {
                continue;
            }
            let f = *first.entry(*h).or_insert(i);
            if f == i {
                continue;
            }
            if same(f, s)? {
                e.push((g.passage_node[f as usize], g.passage_node[i as usize]));
                continue;
            }
            let reps = more.entry(*h).or_default();
            let mut found = None;
            for &r in reps.iter() {
                if same(r, s)? {
                    found = Some(r);
                    break;
                }
            }
            match found {
                Some(r) => e.push((g.passage_node[r as usize], g.passage_node[i as usize])),
                None => reps.push(i),
            }
        }
        Ok(())
    })?;
    Ok(e)
}

/// Edges over graph nodes, and for a near-duplicate rule the number of passage pairs found.
pub type RuleEdges = (Vec<(u32, u32)>, Option<usize>);

/// The edges rule `rule` adds, and for a near-duplicate rule the number of passage pairs found.
pub fn edges<'a>(
    corpus: &'a Corpus,
    g: &Graph,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    progress: &dyn Progress,
) -> Result<RuleEdges> {
    let mut e = Vec::new();
    match rule.kind {
        LinkKind::IdenticalPassage if corpus.texts.is_spilled() => {
            e = identical_spilled(corpus, g, rule.normalization)?;
        }
        LinkKind::IdenticalPassage => {
            let t = texts.get(corpus, rule.normalization)?;
            e = identical_in_memory(t, g);
        }
        LinkKind::NearDuplicatePassage => {
            let (_, pairs) = near_duplicates(corpus, rule, texts, progress)?;
            return Ok(pair_edges(g, pairs.iter().copied()));
        }
        LinkKind::Decoy => {
            for (qi, q) in corpus.questions.iter().enumerate() {
                for &p in &q.decoys {
                    e.push((g.question_node[qi], g.passage_node[p]));
                }
            }
        }
        LinkKind::SharedField => {
            let field = rule
                .field
                .as_deref()
                .ok_or_else(|| Error::input(format!("link rule `{}` (shared-field) needs a `field`", rule.name)))?;
            let mut first: HashMap<&str, usize> = HashMap::new();
            for (qi, q) in corpus.questions.iter().enumerate() {
                if let Some(v) = q.fields.get(field) {
                    let f = *first.entry(v.as_str()).or_insert(qi);
                    e.push((g.question_node[f], g.question_node[qi]));
                }
            }
        }
    }
    Ok((e, None))
}

/// Token sets of the passages, and passage pairs.
pub type SetsAndPairs = (Vec<Vec<u32>>, Vec<(u32, u32)>);

/// The token sets of the passages under a near-duplicate rule and the passage pairs (`a < b`,
/// sorted) whose Jaccard reaches the rule's threshold ([`join::join`], exact).
///
/// Errors: the texts are spilled (the callers check first).
pub fn near_duplicates<'a>(
    corpus: &'a Corpus,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    progress: &dyn Progress,
) -> Result<SetsAndPairs> {
    let t = texts.get(corpus, rule.normalization)?;
    progress.start("shingling", 0);
    let ranked = t.ranked(rule.shingle_size());
    let sets = ranked.sets;
    progress.start("near-duplicate join", sets.len() as u64);
    let pairs = join::join_unique(&sets, ranked.unique, rule.jaccard(), &|n| progress.advance(n));
    progress.finish();
    Ok((sets, pairs))
}

/// What the near-duplicate join of a count found.
pub struct NearPairs {
    /// Passage pairs with Jaccard ≥ the threshold.
    pub links: usize,
    /// The pairs with their sizes, sorted by `(a, b)`, when asked for (else empty).
    pub scored: Vec<super::pairs::ScoredPair>,
    /// How the join ran.
    pub run: super::ooc::JoinRun,
}

/// The passage pairs (`a < b`) of a near-duplicate rule, each passed to `sink` once, in no fixed
/// order: in memory ([`join::join_each`]) when the sizes measured before the join fit `memory`
/// (or there is no limit), else out of core ([`super::ooc::join_partitioned`]; always when the
/// texts are spilled, read back in order); the pairs are the same. Either way the pairs are passed on a
/// batch at a time as the join finds them, never all held at once. With `keep`, the pairs are
/// also returned with their sizes (sorted), and those are held (16 bytes a pair).
///
/// Errors (exit 2): spill files that cannot be written (out of core only).
pub fn near_duplicate_pairs<'a>(
    corpus: &'a Corpus,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    progress: &dyn Progress,
    memory: Option<super::ooc::MemoryLimit<'_>>,
    keep: bool,
    sink: &mut (dyn FnMut(u32, u32) + Send),
) -> Result<NearPairs> {
    use super::ooc::{JoinMode, JoinRun};
    let (ranked, decision) = plan(corpus, rule, texts, progress, memory)?;
    let (links, mut scored, mode, partitions) = match (ranked, memory) {
        (Some(ranked), _) => {
            let (links, scored) = join_in_memory(&ranked, rule, progress, keep, sink);
            (links, scored, JoinMode::InMemory, 1)
        }
        (None, Some(limit)) => {
            let (links, scored, parts) = join_out_of_core(corpus, rule, texts, progress, limit, keep, sink)?;
            (links, scored, JoinMode::Partitioned, parts)
        }
        (None, None) => return Err(Error::internal("no token sets and no memory limit")),
    };
    scored.sort_unstable_by_key(|p| (p.a, p.b));
    Ok(NearPairs {
        links,
        scored,
        run: JoinRun {
            mode,
            partitions,
            decision,
        },
    })
}

/// Where the near-duplicate join runs, decided from measured sizes
/// ([`super::ooc::JoinDecision`]): with no limit, in memory; with spilled texts, out of core;
/// else the texts' characters give the shingling's estimate ([`super::ooc::shingling_bytes`]),
/// and when it fits the budget with the margin, the texts are shingled in memory and the token
/// sets' elements give the join's estimate ([`super::ooc::join_bytes`]); the join runs in memory
/// when that fits too ([`super::ooc::fits`]). Returns the token sets when it runs in memory.
fn plan<'a>(
    corpus: &'a Corpus,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    progress: &dyn Progress,
    memory: Option<super::ooc::MemoryLimit<'_>>,
) -> Result<(Option<shingle::TokenSets>, Option<super::ooc::JoinDecision>)> {
    use super::ooc::{fits, join_bytes, shingling_bytes, JoinDecision};
    let Some(limit) = memory else {
        let t = texts.get(corpus, rule.normalization)?;
        progress.start("shingling", 0);
        return Ok((Some(t.ranked(rule.shingle_size())), None));
    };
    if corpus.texts.is_spilled() {
        let bytes = corpus.texts.bytes();
        let estimate = shingling_bytes(bytes, corpus.passages.len(), 8);
        return Ok((
            None,
            Some(JoinDecision {
                occurrences: bytes,
                elements: None,
                estimate_bytes: estimate,
                budget_bytes: limit.bytes,
            }),
        ));
    }
    let t = texts.get(corpus, rule.normalization)?;
    let occurrences = t.chars();
    let shingling = shingling_bytes(occurrences, t.len(), t.key_bytes(rule.shingle_size()));
    let mut decision = JoinDecision {
        occurrences,
        elements: None,
        estimate_bytes: shingling,
        budget_bytes: limit.bytes,
    };
    if !fits(shingling, limit.bytes) {
        return Ok((None, Some(decision)));
    }
    progress.start("shingling", 0);
    let ranked = t.ranked(rule.shingle_size());
    let (elements, bytes) = join_bytes(&ranked.sets, ranked.unique, rule.jaccard());
    decision.elements = Some(elements);
    decision.estimate_bytes = bytes;
    Ok((decision.fits().then_some(ranked), Some(decision)))
}

/// The in-memory join of the ranked token sets: the number of pairs, passed to `sink` a batch at a
/// time, and with `keep` the pairs with their sizes (unsorted).
fn join_in_memory(
    ranked: &shingle::TokenSets,
    rule: &LinkRule,
    progress: &dyn Progress,
    keep: bool,
    sink: &mut (dyn FnMut(u32, u32) + Send),
) -> (usize, Vec<super::pairs::ScoredPair>) {
    let sets = &ranked.sets;
    progress.start("near-duplicate join", sets.len() as u64);
    let found = std::sync::Mutex::new((0usize, Vec::new(), sink));
    join::join_each(
        sets,
        ranked.unique,
        rule.jaccard(),
        &|_| true,
        &|_, _, _| true,
        &|batch| {
            let scored = if keep {
                super::pairs::scored(batch, sets)
            } else {
                vec![]
            };
            let mut f = found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (links, kept, sink) = &mut *f;
            *links += batch.len();
            batch.iter().for_each(|&(a, b)| sink(a, b));
            kept.extend(scored);
        },
        &|n| progress.advance(n),
    );
    progress.finish();
    let (links, scored, _) = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    (links, scored)
}

/// The out-of-core join ([`super::ooc::join_partitioned`], or over the spilled texts read back in
/// order): the number of pairs, passed to `sink` as found, with `keep` the pairs with their sizes
/// (unsorted), and the partitions joined.
///
/// Errors (exit 2): spill files that cannot be written or read back.
fn join_out_of_core<'a>(
    corpus: &'a Corpus,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    progress: &dyn Progress,
    limit: super::ooc::MemoryLimit<'_>,
    keep: bool,
    sink: &mut (dyn FnMut(u32, u32) + Send),
) -> Result<(usize, Vec<super::pairs::ScoredPair>, usize)> {
    let mut links = 0;
    let mut scored = Vec::new();
    let mut each = |a: u32, b: u32, intersection: u32, union: u32| {
        links += 1;
        sink(a, b);
        if keep {
            scored.push(super::pairs::ScoredPair {
                a,
                b,
                intersection,
                union,
            });
        }
    };
    let (n, t) = (rule.shingle_size(), rule.jaccard());
    let parts = if corpus.texts.is_spilled() {
        let src = super::ooc::Normalized {
            store: &corpus.texts,
            normalization: rule.normalization,
        };
        super::ooc::join_partitioned_source(&src, n, t, limit, keep, progress, &mut each)?
    } else {
        let texts = texts.get(corpus, rule.normalization)?;
        super::ooc::join_partitioned(texts, n, t, limit, keep, progress, &mut each)?
    };
    Ok((links, scored, parts))
}

/// Graph edges of passage pairs, and their number.
pub fn pair_edges(g: &Graph, pairs: impl ExactSizeIterator<Item = (u32, u32)>) -> RuleEdges {
    let n = pairs.len();
    let e = pairs
        .map(|(a, b)| (g.passage_node[a as usize], g.passage_node[b as usize]))
        .collect();
    (e, Some(n))
}

/// The edges of a near-duplicate rule from pairs listed in a file ([`super::pairs`]) instead of
/// the join, after checking a seeded sample of `sample` pairs exactly against the passages.
///
/// Errors (exit 2): a sampled pair that does not hold under the rule (see
/// [`super::pairs::check_sample`]).
#[allow(clippy::too_many_arguments)]
pub fn listed_edges<'a>(
    corpus: &'a Corpus,
    g: &Graph,
    rule: &LinkRule,
    texts: &mut Texts<'a>,
    input: &crate::input::Input,
    listed: &super::pairs::PairList,
    sample: usize,
    seed: u64,
) -> Result<(RuleEdges, super::pairs::SampleCheck)> {
    let ids: Vec<&str> = corpus.passages.iter().map(|p| p.id.as_str()).collect();
    let mem = if corpus.texts.is_spilled() {
        None
    } else {
        Some(texts.get(corpus, rule.normalization)?)
    };
    // Spilled texts: only the sampled passages are read back.
    let text = |i: u32| -> Result<Cow<'_, str>> {
        match mem {
            Some(t) => Ok(Cow::Borrowed(t[i as usize].as_ref())),
            None => {
                let t = corpus.texts.get(i as usize)?;
                Ok(Cow::Owned(shingle::normalized(&t, rule.normalization).into_owned()))
            }
        }
    };
    let check = super::pairs::check_sample(
        input,
        listed,
        &text,
        rule.shingle_size(),
        &ids,
        rule.jaccard(),
        sample,
        seed,
    )?;
    Ok((pair_edges(g, listed.pairs.iter().map(|p| (p.a, p.b))), check))
}
