//! `--assign`: whole components into the protocol's splits, and the per-component cap.
//!
//! Method: the candidate-holding components (in id order) are shuffled with
//! `ChaCha8Rng::seed_from_u64(analysis.seed)` (Fisher–Yates, `rand` 0.8.5 `SliceRandom::shuffle`)
//! and cut into consecutive slices, one per split in protocol order, so no component straddles two
//! splits. Slice sizes: K · wᵢ rounded by largest remainder (ties to the earlier split), where wᵢ
//! is the split's `share` when given; the share left over is divided among the other splits in
//! proportion to their required counts (equally when those are all 0). Then, in component id
//! order, a component with more than m = `max-per-component` questions keeps m counted: the first
//! m by question id (`first-by-id`) or m drawn by `rand::seq::index::sample` from the same
//! generator (`seeded-sample`).

use super::stop::SplitRequirement;
use super::CountResult;
use crate::assignment::AssignmentRow;
use crate::error::{Error, Result};
use crate::protocol::{Keep, Protocol};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What one split received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitShare {
    /// Split name.
    pub name: String,
    /// Fraction of components aimed at (0–1).
    pub share: f64,
    /// Components assigned.
    pub components: usize,
    /// Candidate questions in them.
    pub questions: usize,
    /// Questions counted under the cap.
    pub counted: usize,
    /// The split's required components.
    pub required: u64,
}

/// The assignment: per-split summary and the rows of the assignment file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// Per split, in protocol order.
    pub splits: Vec<SplitShare>,
    /// The cap m.
    pub max_per_component: u32,
    /// The keep rule.
    pub keep: Keep,
    /// The seed used.
    pub seed: u64,
    /// Rows, one per question, with split and counted set.
    #[serde(skip)]
    pub rows: Vec<AssignmentRow>,
}

fn weights(splits: &[SplitRequirement]) -> Result<Vec<f64>> {
    let given: f64 = splits.iter().filter_map(|s| s.share).sum();
    let rest_req: u64 = splits.iter().filter(|s| s.share.is_none()).map(|s| s.required).sum();
    let others = splits.iter().filter(|s| s.share.is_none()).count();
    let left = (1.0 - given).max(0.0);
    let w: Vec<f64> = splits
        .iter()
        .map(|s| match s.share {
            Some(x) => x.max(0.0),
            None if rest_req > 0 => left * s.required as f64 / rest_req as f64,
            None => left / others as f64,
        })
        .collect();
    let total: f64 = w.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return Err(Error::input("the splits' shares are all 0: nothing to assign"));
    }
    Ok(w.into_iter().map(|x| x / total).collect())
}

/// Slice sizes by largest remainder.
fn sizes(k: usize, w: &[f64]) -> Vec<usize> {
    let raw: Vec<f64> = w.iter().map(|x| x * k as f64).collect();
    let mut n: Vec<usize> = raw.iter().map(|x| x.floor() as usize).collect();
    let mut left = k.saturating_sub(n.iter().sum());
    let mut idx: Vec<usize> = (0..w.len()).collect();
    idx.sort_by(|&a, &b| {
        (raw[b] - raw[b].floor())
            .total_cmp(&(raw[a] - raw[a].floor()))
            .then(a.cmp(&b))
    });
    for i in idx {
        if left == 0 {
            break;
        }
        n[i] += 1;
        left -= 1;
    }
    n
}

/// Assigns `result`'s components to `splits` (from [`super::stop::decide`]).
///
/// Errors (exit 2): the protocol has no splits; all shares are 0.
pub fn assign(protocol: &Protocol, result: &CountResult, splits: &[SplitRequirement]) -> Result<Assignment> {
    if splits.is_empty() {
        return Err(Error::input("the protocol has no [[splits]] to assign components to"));
    }
    let seed = protocol.analysis.seed;
    let w = weights(splits)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..result.list.len()).collect();
    order.shuffle(&mut rng);
    let n = sizes(order.len(), &w);
    let mut split_of = vec![0usize; result.list.len()];
    let mut at = 0;
    for (si, &k) in n.iter().enumerate() {
        for &c in &order[at..at + k] {
            split_of[c] = si;
        }
        at += k;
    }
    let m = protocol.components.max_per_component.max(1) as usize;
    let mut counted = vec![false; result.rows.len()];
    for c in &result.list {
        if c.questions.len() <= m {
            c.questions.iter().for_each(|&q| counted[q] = true);
        } else {
            match protocol.components.keep {
                Keep::FirstById => c.questions[..m].iter().for_each(|&q| counted[q] = true),
                Keep::SeededSample => {
                    for i in rand::seq::index::sample(&mut rng, c.questions.len(), m) {
                        counted[c.questions[i]] = true;
                    }
                }
            }
        }
    }
    let comp_index: std::collections::HashMap<&str, usize> = result
        .list
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut summary: Vec<SplitShare> = splits
        .iter()
        .zip(&w)
        .zip(&n)
        .map(|((s, &share), &k)| SplitShare {
            name: s.name.clone(),
            share,
            components: k,
            questions: 0,
            counted: 0,
            required: s.required,
        })
        .collect();
    let rows = result
        .rows
        .iter()
        .enumerate()
        .map(|(qi, r)| {
            let si = comp_index.get(r.component.as_str()).map_or(0, |&c| split_of[c]);
            summary[si].questions += 1;
            summary[si].counted += counted[qi] as usize;
            AssignmentRow {
                split: Some(splits[si].name.clone()),
                counted: Some(counted[qi]),
                ..r.clone()
            }
        })
        .collect();
    Ok(Assignment {
        splits: summary,
        max_per_component: m as u32,
        keep: protocol.components.keep,
        seed,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_remainder() {
        assert_eq!(sizes(10, &[261.0 / 429.0, 168.0 / 429.0]), vec![6, 4]);
        assert_eq!(sizes(3, &[0.5, 0.5]), vec![2, 1]);
        assert_eq!(sizes(0, &[1.0]), vec![0]);
    }

    #[test]
    fn shares_from_required_and_given() {
        let s = |name: &str, required, share| SplitRequirement {
            name: name.into(),
            required,
            power: None,
            share,
        };
        assert_eq!(weights(&[s("a", 3, None), s("b", 1, None)]).unwrap(), vec![0.75, 0.25]);
        assert_eq!(
            weights(&[s("a", 3, Some(0.5)), s("b", 1, None)]).unwrap(),
            vec![0.5, 0.5]
        );
        assert!(weights(&[s("a", 0, Some(0.0))]).is_err());
    }
}
