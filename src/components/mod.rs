//! Component counting under link rules (the design-effect argument: dependent questions count
//! as one unit; Kish, *Survey Sampling*, 1965):
//! questions that rely on the same passage, on near-identical passages, or on each other's decoy
//! documents are one component, and statistics count components, not questions.
//!
//! Pipeline: [`read`] the corpus → build the graph of units and passages ([`rules::graph`]) →
//! add each link rule's edges in protocol order to a union-find, taking a [`count::Snapshot`]
//! after each (the ablation table) → final components, histogram → [`stop::decide`] the stop
//! rule → optionally [`assign::assign`] whole components to splits. Entry point: [`count()`].

pub mod assign;
pub mod bridges;
pub mod count;
pub mod join;
pub mod layouts;
pub mod ooc;
pub mod pairs;
pub mod read;
pub mod rules;
pub mod sensitivity;
pub mod shingle;
mod signature;
pub mod stop;
pub mod store;
pub mod unionfind;

use crate::assignment::AssignmentRow;
use crate::error::Result;
use crate::protocol::{LinkKind, Protocol};
use serde::{Deserialize, Serialize};

/// Progress reporting for long stages (the CLI shows an indicatif bar; the library never prints).
pub trait Progress: Sync {
    /// A stage begins; `total` units of work (0 when unknown).
    fn start(&self, stage: &str, total: u64);
    /// `n` more units done.
    fn advance(&self, n: u64);
    /// The stage is over.
    fn finish(&self);
}

/// No progress output.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

/// One row of the ablation table: the counts once this rule (and all before it) are applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AblationRow {
    /// The rule's name from the protocol.
    pub rule: String,
    /// Its kind (kebab-case).
    pub kind: LinkKind,
    /// Edges the rule contributed (for a near-duplicate rule: passage pairs with Jaccard ≥ t).
    pub links: usize,
    /// Counts after the rule.
    #[serde(flatten)]
    pub counts: count::Snapshot,
    /// For a near-duplicate rule whose pairs were read from a file (`--pairs`) instead of joined:
    /// how many were checked exactly. Absent when the join ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<pairs::SampleCheck>,
    /// For a near-duplicate rule whose join ran: in memory or partitioned, and into how many
    /// partitions (a disclosure; the pairs are the same either way). Absent for other rules
    /// and for listed pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<ooc::JoinRun>,
}

/// The result of counting: what `pledge components` prints and stores in the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountResult {
    /// The component unit: `question` or a field name.
    pub unit: String,
    /// Passages read.
    pub passages: usize,
    /// Candidate questions read.
    pub questions: usize,
    /// Unit nodes (questions, or distinct unit field values).
    pub units: usize,
    /// Titles of a HotpotQA/MuSiQue file seen with differing texts (the first text is kept).
    pub conflicting_titles: usize,
    /// Counts with no link rule (questions joined only to their own passages).
    pub before_rules: count::Snapshot,
    /// One row per link rule, in protocol order; the last row is the final count.
    pub ablation: Vec<AblationRow>,
    /// Components in all, after every rule.
    pub components: usize,
    /// Components holding at least one candidate question, after every rule.
    pub with_candidates: usize,
    /// The largest component holding candidates (by units, then questions; first by id on ties).
    pub largest: Option<count::Component>,
    /// Histogram of candidate-holding components by candidate questions.
    pub histogram: Vec<count::Bin>,
    /// The candidate-holding components (id, units, size), in id order.
    #[serde(skip)]
    pub list: Vec<count::Component>,
    /// The question → component assignment (no split, no cap), one row per question.
    #[serde(skip)]
    pub rows: Vec<AssignmentRow>,
    /// The near-duplicate rule's passage pairs with their sizes, when asked for
    /// ([`CountOptions::keep_pairs`]).
    #[serde(skip)]
    pub near_pairs: Vec<pairs::ScoredPair>,
}

/// Pairs listed in a file that stand in for the near-duplicate rule's join.
#[derive(Debug, Clone, Copy)]
pub struct ListedPairs<'a> {
    /// The pairs file, as read (for error locations).
    pub input: &'a crate::input::Input,
    /// How many pairs to check exactly (a seeded random sample; all when fewer).
    pub sample: usize,
    /// Seed of the sample.
    pub seed: u64,
}

/// How [`count_with`] counts beyond the protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountOptions<'a> {
    /// Take the near-duplicate rule's pairs from a file instead of running the join.
    pub listed: Option<ListedPairs<'a>>,
    /// Keep the joined pairs with their sizes in [`CountResult::near_pairs`].
    pub keep_pairs: bool,
    /// The memory limit of the whole count: the near-duplicate join gets what the corpus, the
    /// graph and the union-find leave of it ([`read::Corpus::resident_bytes`]), and past that
    /// runs out of core ([`ooc::join_partitioned`]); `None`: always in memory.
    pub memory: Option<ooc::MemoryLimit<'a>>,
}

/// Diagnostics of a count, asked for with `--sensitivity` and `--bridges`: they show how the
/// count depends on the near-duplicate rule and which elements join the units, and never change
/// the registered count or the stop rule's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnostics {
    /// The count as a function of the near-duplicate rule's threshold and shingle size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<sensitivity::Sensitivity>,
    /// The elements that join the most units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridges: Option<bridges::Bridges>,
}

/// Counts components of `corpus` under `protocol`'s unit and link rules.
///
/// Errors (exit 2): a question lacking the unit field; a shared-field rule without `field`.
pub fn count(protocol: &Protocol, corpus: &read::Corpus, progress: &dyn Progress) -> Result<CountResult> {
    count_with(protocol, corpus, progress, CountOptions::default())
}

/// [`count()`], with the near-duplicate pairs read from a file or kept (see [`CountOptions`]).
///
/// Errors (exit 2): those of [`count()`]; with listed pairs, a protocol without exactly one
/// near-duplicate rule, a bad pairs file ([`pairs::read_pairs`]), a sampled pair that does not
/// hold ([`pairs::check_sample`]).
pub fn count_with(
    protocol: &Protocol,
    corpus: &read::Corpus,
    progress: &dyn Progress,
    o: CountOptions<'_>,
) -> Result<CountResult> {
    let listed = listed_pairs(protocol, corpus, o.listed)?;
    let mut near_pairs = Vec::new();
    let unit = protocol.components.unit.as_str();
    let g = rules::graph(corpus, unit)?;
    let mut qcount = vec![0u32; g.nodes.len()];
    for &n in &g.question_node {
        qcount[n as usize] += 1;
    }
    let mut uf = unionfind::UnionFind::new(g.nodes.len());
    for (a, b) in rules::base_edges(corpus, &g) {
        uf.union(a as usize, b as usize);
    }
    let before_rules = count::snapshot(&mut uf, &g, &qcount);
    let memory = join_budget(corpus, &g, &uf, &qcount, o.memory);
    let mut texts = rules::Texts::default();
    let mut ablation = Vec::new();
    for rule in &protocol.link_rules {
        let near = rule.kind == LinkKind::NearDuplicatePassage;
        let mut join = None;
        let ((edges, pairs), check) = match &listed {
            Some((l, list)) if near => {
                let (e, c) = rules::listed_edges(corpus, &g, rule, &mut texts, l.input, list, l.sample, l.seed)?;
                (e, Some(c))
            }
            _ if near => {
                let pn = &g.passage_node;
                let found = rules::near_duplicate_pairs(
                    corpus,
                    rule,
                    &mut texts,
                    progress,
                    memory,
                    o.keep_pairs,
                    &mut |a, b| {
                        uf.union(pn[a as usize] as usize, pn[b as usize] as usize);
                    },
                )?;
                near_pairs = found.scored;
                join = Some(found.run);
                ((vec![], Some(found.links)), None)
            }
            _ => (rules::edges(corpus, &g, rule, &mut texts, progress)?, None),
        };
        for &(a, b) in &edges {
            uf.union(a as usize, b as usize);
        }
        ablation.push(AblationRow {
            rule: rule.name.clone(),
            kind: rule.kind,
            links: pairs.unwrap_or(edges.len()),
            counts: count::snapshot(&mut uf, &g, &qcount),
            listed: check,
            join,
        });
    }
    let last = ablation
        .last()
        .map(|r| r.counts.clone())
        .unwrap_or_else(|| before_rules.clone());
    let ids: Vec<&str> = corpus.questions.iter().map(|q| q.id.as_str()).collect();
    let (list, of_q) = count::components(&mut uf, &g, &ids);
    let (largest, rows) = largest_and_rows(corpus, &g, &list, &of_q);
    Ok(CountResult {
        unit: unit.to_string(),
        passages: corpus.passages.len(),
        questions: corpus.questions.len(),
        units: g.nodes.iter().filter(|n| n.unit).count(),
        conflicting_titles: corpus.conflicting_titles,
        before_rules,
        components: last.components,
        with_candidates: last.with_candidates,
        largest,
        histogram: count::histogram(&list),
        list,
        rows,
        ablation,
        near_pairs,
    })
}

/// The pairs listed in a file (with how to check them) when the options give some; refused
/// (exit 2) unless the protocol has exactly one near-duplicate rule.
fn listed_pairs<'a>(
    protocol: &Protocol,
    corpus: &read::Corpus,
    listed: Option<ListedPairs<'a>>,
) -> Result<Option<(ListedPairs<'a>, pairs::PairList)>> {
    Ok(match listed {
        Some(l) => {
            let near = protocol
                .link_rules
                .iter()
                .filter(|r| r.kind == LinkKind::NearDuplicatePassage)
                .count();
            if near != 1 {
                return Err(crate::error::Error::input(format!(
                    "{}: listed pairs stand in for the protocol's near-duplicate-passage rule, and it has {} such rules",
                    l.input.path().display(),
                    near
                ))
                .with_hint("give --pairs only for a protocol with exactly one near-duplicate-passage link rule"));
            }
            let ids: Vec<&str> = corpus.passages.iter().map(|p| p.id.as_str()).collect();
            Some((l, pairs::read_pairs(l.input, &ids)?))
        }
        None => None,
    })
}

/// The near-duplicate join's memory limit: what `memory` leaves beside the corpus, the graph
/// and the union-find (and the normalized texts' handles); at least an eighth of it.
fn join_budget<'a>(
    corpus: &read::Corpus,
    g: &rules::Graph,
    uf: &unionfind::UnionFind,
    qcount: &[u32],
    memory: Option<ooc::MemoryLimit<'a>>,
) -> Option<ooc::MemoryLimit<'a>> {
    // The join's budget is what the limit leaves beside the corpus, the graph and the union-find
    // (and the normalized texts' handles); at least an eighth of the limit.
    let resident = corpus.resident_bytes()
        + g.nodes.iter().map(|n| 32 + n.label.capacity() as u64).sum::<u64>()
        + 4 * (g.question_node.len() + g.passage_node.len()) as u64
        + 8 * uf.len() as u64
        + 4 * qcount.len() as u64
        + if corpus.texts.is_spilled() {
            0
        } else {
            24 * corpus.passages.len() as u64
        };
    memory.map(|m| ooc::MemoryLimit {
        bytes: m.bytes.saturating_sub(resident).max(m.bytes / 8),
        spill_dir: m.spill_dir,
    })
}

/// The largest component (by units, then questions; then the shorter, then the smaller id) and
/// each question's assignment row (its component and unit, no split yet).
fn largest_and_rows(
    corpus: &read::Corpus,
    g: &rules::Graph,
    list: &[count::Component],
    of_q: &[usize],
) -> (Option<count::Component>, Vec<AssignmentRow>) {
    let largest = list
        .iter()
        .max_by(|a, b| {
            (a.units, a.size)
                .cmp(&(b.units, b.size))
                .then(b.id.len().cmp(&a.id.len()))
                .then(b.id.cmp(&a.id))
        })
        .cloned();
    let rows = corpus
        .questions
        .iter()
        .enumerate()
        .map(|(qi, q)| AssignmentRow {
            question: q.id.clone(),
            component: list[of_q[qi]].id.clone(),
            unit: g.nodes[g.question_node[qi] as usize].label.clone(),
            split: None,
            counted: None,
        })
        .collect();
    (largest, rows)
}

#[cfg(test)]
mod tests;
