//! Counting components: union-find over the graph, one snapshot after each rule (the ablation
//! table), the final components with their ids, the largest one and a size histogram.

use super::rules::Graph;
use super::unionfind::UnionFind;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Counts after a given set of rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Components in all (including those holding only passages).
    pub components: usize,
    /// Components holding at least one candidate question.
    pub with_candidates: usize,
    /// Units in the largest component (by units, then questions).
    pub largest_units: usize,
    /// Candidate questions in that component.
    pub largest_questions: usize,
}

/// Takes a snapshot of `uf` over `g` with per-node question counts `qcount`.
pub fn snapshot(uf: &mut UnionFind, g: &Graph, qcount: &[u32]) -> Snapshot {
    let mut units: HashMap<usize, (usize, usize)> = HashMap::new();
    for (n, node) in g.nodes.iter().enumerate() {
        let r = uf.find(n);
        let e = units.entry(r).or_insert((0, 0));
        e.0 += node.unit as usize;
        e.1 += qcount[n] as usize;
    }
    let with_candidates = units.values().filter(|v| v.1 > 0).count();
    let (lu, lq) = units.values().copied().max().unwrap_or((0, 0));
    Snapshot {
        components: units.len(),
        with_candidates,
        largest_units: lu,
        largest_questions: lq,
    }
}

/// One candidate-holding component of the final graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Component {
    /// Stable id `C1`, `C2`, … numbered by the component's smallest question id (byte order).
    pub id: String,
    /// Units (nodes that are questions or unit field values).
    pub units: usize,
    /// Candidate questions, indices into the corpus, sorted by question id.
    #[serde(skip)]
    pub questions: Vec<usize>,
    /// Number of candidate questions.
    pub size: usize,
}

/// The final components holding candidates, in id order, and the component index of each
/// question. `ids` are the question ids.
pub fn components(uf: &mut UnionFind, g: &Graph, ids: &[&str]) -> (Vec<Component>, Vec<usize>) {
    let mut units: HashMap<usize, usize> = HashMap::new();
    for (n, node) in g.nodes.iter().enumerate() {
        if node.unit {
            *units.entry(uf.find(n)).or_insert(0) += 1;
        }
    }
    let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
    for (qi, &n) in g.question_node.iter().enumerate() {
        by_root.entry(uf.find(n as usize)).or_default().push(qi);
    }
    let mut comps: Vec<(usize, Vec<usize>)> = by_root.into_iter().collect();
    for (_, qs) in comps.iter_mut() {
        qs.sort_by(|&a, &b| ids[a].cmp(ids[b]));
    }
    comps.sort_by(|a, b| ids[a.1[0]].cmp(ids[b.1[0]]));
    let mut of_question = vec![0; ids.len()];
    let out = comps
        .into_iter()
        .enumerate()
        .map(|(ci, (root, qs))| {
            for &q in &qs {
                of_question[q] = ci;
            }
            Component {
                id: format!("C{}", ci + 1),
                units: units.get(&root).copied().unwrap_or(0),
                size: qs.len(),
                questions: qs,
            }
        })
        .collect();
    (out, of_question)
}

/// One bin of the size histogram: components holding `min..=max` candidate questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Smallest size in the bin.
    pub min: usize,
    /// Largest size in the bin.
    pub max: usize,
    /// Components in the bin.
    pub components: usize,
    /// Candidate questions in those components.
    pub questions: usize,
}

/// Histogram of component sizes (candidate questions) in bins 1, 2, 3–4, 5–8, … (powers of
/// two); empty bins past the largest are left out.
pub fn histogram(comps: &[Component]) -> Vec<Bin> {
    let max = comps.iter().map(|c| c.size).max().unwrap_or(0);
    let mut bins = Vec::new();
    let (mut lo, mut hi) = (1usize, 1usize);
    while lo <= max {
        let in_bin: Vec<&Component> = comps.iter().filter(|c| c.size >= lo && c.size <= hi).collect();
        bins.push(Bin {
            min: lo,
            max: hi,
            components: in_bin.len(),
            questions: in_bin.iter().map(|c| c.size).sum(),
        });
        lo = hi + 1;
        hi *= 2;
    }
    bins
}
