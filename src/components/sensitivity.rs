//! Sensitivity of the component count to the near-duplicate rule: the final count (every rule
//! applied) as a function of the Jaccard threshold and of the shingle size.
//!
//! Method: for each shingle size, one exact join at the lowest threshold of the grid
//! ([`super::join::join_scored`], pairs with their intersection sizes); the pairs are sorted by
//! their exact Jaccard, descending (compared as fractions, without rounding), and added in that
//! order to a union-find that already holds every other edge (own passages and every other rule).
//! Thresholds are visited from the highest down: the pairs a separate run at threshold t would
//! find are exactly those for which [`super::join::similar`] holds, a prefix of that order
//! (correctly rounded division is monotone), so a snapshot when the prefix ends gives the count
//! a full run at t gives. This is the incremental-connectivity view of single-linkage
//! clustering (Gower & Ross, "Minimum spanning trees and single linkage cluster analysis",
//! Applied Statistics 1969): one pass yields the components at every threshold.
//!
//! The sweep is a diagnostic: it never changes the registered decision, which rests on the
//! registered rule alone.

use super::count::{self, Snapshot};
use super::read::Corpus;
use super::rules::{self, Texts};
use super::unionfind::UnionFind;
use super::{join, Progress};
use crate::error::{Error, Result};
use crate::protocol::{LinkKind, Protocol};
use serde::{Deserialize, Serialize};

/// The grid of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct SensitivitySpec {
    /// Jaccard thresholds, each in (0, 1].
    pub thresholds: Vec<f64>,
    /// Shingle sizes (characters), each ≥ 1.
    pub shingle_sizes: Vec<usize>,
}

impl SensitivitySpec {
    /// The default grid around a registered rule with shingle size `n` and threshold `t`:
    /// thresholds 0.50, 0.55, …, 1.00 (plus `t` when it is not on that grid), shingle sizes
    /// n − 1, n, n + 1 (those ≥ 1).
    pub fn around(n: usize, t: f64) -> Self {
        let mut thresholds: Vec<f64> = (10..=20).map(|k| k as f64 / 20.0).collect();
        if !thresholds.contains(&t) {
            thresholds.push(t);
        }
        thresholds.sort_by(f64::total_cmp);
        SensitivitySpec {
            thresholds,
            shingle_sizes: (n.saturating_sub(1).max(1)..=n + 1).collect(),
        }
    }
}

/// One point of the sweep: the final count with the near-duplicate rule at `(shingle_size,
/// jaccard)` and every other rule as registered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitivityPoint {
    /// Shingle size (characters).
    pub shingle_size: usize,
    /// Jaccard threshold (a fraction).
    pub jaccard: f64,
    /// Passage pairs with Jaccard ≥ the threshold.
    pub pairs: usize,
    /// Whether this is the registered rule.
    pub registered: bool,
    /// The final counts (every rule applied).
    #[serde(flatten)]
    pub counts: Snapshot,
}

/// The sensitivity curve of a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sensitivity {
    /// The near-duplicate rule varied (its name in the protocol).
    pub rule: String,
    /// Its registered shingle size.
    pub registered_shingle_size: usize,
    /// Its registered Jaccard threshold.
    pub registered_jaccard: f64,
    /// Points by shingle size (ascending), then threshold (ascending).
    pub points: Vec<SensitivityPoint>,
}

/// Sweeps the protocol's near-duplicate rule over `spec` (see the module docs).
///
/// Errors (exit 2): the protocol has no near-duplicate-passage rule, or more than one (which one
/// to vary would be a guess); a threshold outside (0, 1] or a shingle size of 0; the errors of
/// [`super::count()`] (unit field missing, shared-field rule without a field).
pub fn sweep(
    protocol: &Protocol,
    corpus: &Corpus,
    spec: &SensitivitySpec,
    progress: &dyn Progress,
) -> Result<Sensitivity> {
    let varied = varied_rule(protocol, spec)?;
    let rule = &protocol.link_rules[varied];
    let g = rules::graph(corpus, protocol.components.unit.as_str())?;
    let mut qcount = vec![0u32; g.nodes.len()];
    for &n in &g.question_node {
        qcount[n as usize] += 1;
    }
    let mut fixed = UnionFind::new(g.nodes.len());
    for (a, b) in rules::base_edges(corpus, &g) {
        fixed.union(a as usize, b as usize);
    }
    let mut texts = Texts::default();
    for (i, r) in protocol.link_rules.iter().enumerate() {
        if i != varied {
            let (edges, _) = rules::edges(corpus, &g, r, &mut texts, progress)?;
            for (a, b) in edges {
                fixed.union(a as usize, b as usize);
            }
        }
    }
    let mut desc = spec.thresholds.clone();
    desc.sort_by(|a, b| b.total_cmp(a));
    desc.dedup();
    let lowest = desc[desc.len() - 1];
    let mut sizes = spec.shingle_sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    let mut points = Vec::new();
    for &n in &sizes {
        progress.start(&format!("sensitivity: shingles n={}", n), 0);
        let sets = texts.get(corpus, rule.normalization)?.ranked(n).sets;
        progress.start(&format!("sensitivity: join n={}", n), sets.len() as u64);
        let mut pairs = join::join_scored(&sets, lowest, &|k| progress.advance(k));
        // Exact Jaccard order, descending: a/(la+lb−a) vs c/(lc+ld−c) compared cross-multiplied.
        let scored: Vec<(u64, u64)> = pairs
            .iter()
            .map(|&(a, b, k)| {
                let k = k as u64;
                (k, sets[a as usize].len() as u64 + sets[b as usize].len() as u64 - k)
            })
            .collect();
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by(|&x, &y| {
            let ((kx, ux), (ky, uy)) = (scored[x], scored[y]);
            (ky * ux).cmp(&(kx * uy)).then(pairs[x].cmp(&pairs[y]))
        });
        pairs = order.iter().map(|&i| pairs[i]).collect();
        let mut uf = fixed.clone();
        let mut added = 0;
        let mut at = Vec::with_capacity(desc.len());
        for &t in &desc {
            while let Some(&(a, b, k)) = pairs.get(added) {
                if !join::similar(k as usize, sets[a as usize].len(), sets[b as usize].len(), t) {
                    break;
                }
                uf.union(g.passage_node[a as usize] as usize, g.passage_node[b as usize] as usize);
                added += 1;
            }
            at.push(SensitivityPoint {
                shingle_size: n,
                jaccard: t,
                pairs: added,
                registered: n == rule.shingle_size() && t == rule.jaccard(),
                counts: count::snapshot(&mut uf, &g, &qcount),
            });
        }
        at.reverse();
        points.extend(at);
    }
    progress.finish();
    Ok(Sensitivity {
        rule: rule.name.clone(),
        registered_shingle_size: rule.shingle_size(),
        registered_jaccard: rule.jaccard(),
        points,
    })
}

/// The position of the one near-duplicate rule the sweep varies; refused (exit 2) without
/// exactly one, or with a grid that has no thresholds or shingle sizes, a threshold outside
/// (0, 1] or a shingle size of 0.
fn varied_rule(protocol: &Protocol, spec: &SensitivitySpec) -> Result<usize> {
    let near: Vec<usize> = protocol
        .link_rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == LinkKind::NearDuplicatePassage)
        .map(|(i, _)| i)
        .collect();
    let [varied] = near.as_slice() else {
        return Err(Error::input(format!(
            "--sensitivity varies the protocol's near-duplicate-passage rule, and the protocol has {}",
            near.len()
        ))
        .with_hint("the sweep needs exactly one `near-duplicate-passage` link rule"));
    };
    if let Some(t) = spec.thresholds.iter().find(|t| !(**t > 0.0 && **t <= 1.0)) {
        return Err(Error::input(format!("sensitivity threshold {} is outside (0, 1]", t)));
    }
    if spec.shingle_sizes.contains(&0) || spec.shingle_sizes.is_empty() || spec.thresholds.is_empty() {
        return Err(Error::input(
            "a sensitivity grid needs thresholds and shingle sizes ≥ 1",
        ));
    }
    Ok(*varied)
}
