//! Rank uncertainty over three or more systems: each system's rank interval and its probability
//! of ranking first, from the paired bootstrap of the systems' own estimates (Hall & Miller,
//! "Using the bootstrap to quantify the authority of an empirical ranking", *Annals of
//! Statistics* 37(6B), 2009; the rank interval is their percentile-bootstrap interval of the
//! empirical rank).
//!
//! Input: every system's B resampled estimates drawn from the same resamples of the units
//! ([`super::system::resampled`] draws on one stream, so draw b of every system comes from the
//! same topics or components: the draws are paired). In each draw the systems are ranked,
//! rank 1 for the highest estimate; equal estimates (exactly equal: identical systems resample
//! to identical estimates) share the mean of the ranks they span (mid-rank, e.g. 1.5). Then, per
//! system:
//! - the rank interval at level 1 − α: the α/2 and 1 − α/2 quantiles of its B ranks under
//!   numpy's `inverted_cdf` definition (ranks that occur; F⁻¹(q) = the smallest rank r with
//!   P(rank ≤ r) ≥ q, so the interval holds at least 1 − α of the draws);
//! - P(rank 1): the share of draws in which its estimate is the highest, a draw where m systems
//!   share the highest estimate counting 1/m for each (the shares sum to 1 over the systems).
//!
//! The functions take any list of paired draws, so a tiny input can be checked against the exact
//! bootstrap distribution by passing every resample once (n^n ordered resamples of n units are
//! equally likely).

use super::percentile::quantile;
use crate::protocol::Percentile;
use serde::{Deserialize, Serialize};

/// The ranking of the systems with its uncertainty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ranking {
    /// How the ranks and their intervals are computed, in words.
    pub method: String,
    /// Paired bootstrap draws B the ranks were read from.
    pub trials: usize,
    /// Level of the rank intervals, e.g. 0.95.
    pub level: f64,
    /// Every system, in input order.
    pub systems: Vec<SystemRank>,
    /// Whether lower estimates rank first (a cost, a latency, an error rate); absent (false) in
    /// rankings where higher is better.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lower_is_better: bool,
}

/// One system's place in the ranking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemRank {
    /// System name.
    pub name: String,
    /// Its estimate (the systems' estimator, in the metric's scale).
    pub estimate: f64,
    /// Its rank by estimate, 1 for the highest, tied estimates sharing the mid-rank.
    pub rank: f64,
    /// Percentile interval of its rank over the draws, `[best, worst]` (mid-ranks may be halves).
    pub interval: [f64; 2],
    /// Share of draws in which it ranks first (ties for first split evenly).
    pub p_first: f64,
}

/// Mid-ranks of `values`, 1 for the highest: values that are exactly equal share the mean of the
/// positions they occupy. Empty for an empty slice.
pub fn mid_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let v = values[order[i]];
        let tied = order[i..].iter().take_while(|&&k| values[k] == v).count();
        // Positions i + 1 ..= i + tied.
        let r = (2 * i + tied + 1) as f64 / 2.0;
        for &k in &order[i..i + tied] {
            ranks[k] = r;
        }
        i += tied;
    }
    ranks
}

/// The ranking of systems `names` with observed `estimates` from their paired `draws`
/// (`draws[s][b]`: system s's estimate in draw b; every system has the same number of draws B
/// ≥ 1) at interval `level` in (0, 1).
///
/// `None` below three systems (two systems' ranks are the comparison's reversal rate) or
/// without draws.
pub fn rank_systems(names: &[String], estimates: &[f64], draws: &[Vec<f64>], level: f64) -> Option<Ranking> {
    rank_systems_by(names, estimates, draws, level, false)
}

/// [`rank_systems`] in the metric's direction: with `lower_is_better` (a cost, a latency, an
/// error rate) rank 1 is the lowest estimate and P(rank 1) the share of draws in which a system
/// is lowest; the estimates and draws are ranked negated, so ties and mid-ranks are the same.
pub fn rank_systems_by(
    names: &[String],
    estimates: &[f64],
    draws: &[Vec<f64>],
    level: f64,
    lower_is_better: bool,
) -> Option<Ranking> {
    let sign = if lower_is_better { -1.0 } else { 1.0 };
    let k = names.len();
    let b = draws.first().map_or(0, Vec::len);
    if k < 3 || draws.len() != k || estimates.len() != k || b == 0 || draws.iter().any(|d| d.len() != b) {
        return None;
    }
    let mut ranks: Vec<Vec<f64>> = vec![Vec::with_capacity(b); k];
    let mut first = vec![0.0; k];
    let mut row = vec![0.0; k];
    for t in 0..b {
        for (s, d) in draws.iter().enumerate() {
            row[s] = sign * d[t];
        }
        let r = mid_ranks(&row);
        let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let m = row.iter().filter(|&&x| x == top).count() as f64;
        for s in 0..k {
            ranks[s].push(r[s]);
            if row[s] == top {
                first[s] += 1.0 / m;
            }
        }
    }
    let signed: Vec<f64> = estimates.iter().map(|e| sign * e).collect();
    let observed = mid_ranks(&signed);
    let a = (1.0 - level) / 2.0;
    let systems = (0..k)
        .map(|s| {
            let sorted = &mut ranks[s];
            sorted.sort_by(f64::total_cmp);
            SystemRank {
                name: names[s].clone(),
                estimate: estimates[s],
                rank: observed[s],
                interval: [
                    quantile(sorted, a, Percentile::InvertedCdf),
                    quantile(sorted, 1.0 - a, Percentile::InvertedCdf),
                ],
                p_first: first[s] / b as f64,
            }
        })
        .collect();
    Some(Ranking {
        method: format!(
            "ranks in each of the B = {} paired bootstrap draws of the systems' estimates (1 = {}, equal estimates share the mid-rank); rank interval: inverted_cdf percentiles of a system's ranks; P(rank 1): share of draws it is {} in, ties split (Hall & Miller 2009)",
            b,
            if lower_is_better { "lowest: lower is better" } else { "highest" },
            if lower_is_better { "lowest" } else { "highest" }
        ),
        trials: b,
        level,
        systems,
        lower_is_better,
    })
}

/// Letters of the ordered-means display of a pairwise test (the "underline" display of
/// multiple-comparison tables, a compact letter display over ranks): with the systems in `order`
/// (best first), every longest run of consecutive systems of which no two are told `apart` gets
/// a letter (`a`, `b`, ... in order; `A`... after `z`, `*` after `Z`), and each system lists the
/// letters of the runs it is in. Systems that share a letter are not told apart; systems with no
/// letter in common are. Returns each system's letters by index (`order` is a permutation of
/// `0..order.len()`).
pub fn group_letters(order: &[usize], apart: impl Fn(usize, usize) -> bool) -> Vec<String> {
    let k = order.len();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in 0..k {
        let mut j = i;
        while j + 1 < k && (i..=j).all(|m| !apart(order[m], order[j + 1])) {
            j += 1;
        }
        // The run from i + 1 reaches at least as far: a run is longest when it ends later.
        if runs.last().is_none_or(|&(_, end)| j > end) {
            runs.push((i, j));
        }
    }
    let mut letters = vec![String::new(); k];
    for (n, &(start, end)) in runs.iter().enumerate() {
        let letter = match n {
            0..=25 => char::from(b'a' + n as u8),
            26..=51 => char::from(b'A' + (n - 26) as u8),
            _ => '*',
        };
        for &s in &order[start..=end] {
            if s < k {
                letters[s].push(letter);
            }
        }
    }
    letters
}

/// The compact letter display of a pairwise test over ranked systems, as `compare`'s ranking
/// table and the report both show it: the systems ordered by `ranks` (1 the best; equal ranks
/// in index order), two systems told apart when `p(i, j)` (either order) is below `alpha` (a
/// pair without a p is not told apart), letters by [`group_letters`]. Returns each system's
/// letters by index.
pub fn letters_by_rank(ranks: &[f64], alpha: f64, p: impl Fn(usize, usize) -> Option<f64>) -> Vec<String> {
    let mut order: Vec<usize> = (0..ranks.len()).collect();
    order.sort_by(|&a, &b| ranks[a].total_cmp(&ranks[b]).then(a.cmp(&b)));
    group_letters(&order, |a, b| p(a, b).is_some_and(|p| p < alpha))
}

#[cfg(test)]
mod tests;
