//! What a paired comparison looks like topic by topic, beside its mean difference: wins, ties
//! and losses; the correlation between the two systems' scores, with the paired SE and the SE
//! the same difference would have if the systems had been run on different topics (Miller,
//! "Adding Error Bars to Evals", 2024, §4: pairing removes the shared variance, and the
//! correlation says how much); and for 0/1 scores McNemar's test (McNemar 1947), exact
//! (statsmodels `mcnemar(exact=True)`: the two-sided binomial test of the discordant pairs) and
//! its mid-p (Lancaster 1961; Fagerland, Lydersen & Laake 2013, BMC Medical Research Methodology
//! 13:91, recommend it as less conservative). The exact sign-flip test over topics on 0/1 scores
//! *is* McNemar's exact test: each discordant topic flips sign with probability ½, the concordant
//! ones are 0.

use super::describe::{self, Maybe};
use super::ties::Ties;
use serde::{Deserialize, Serialize};
use statrs::function::beta::checked_beta_reg;
use statrs::function::gamma::ln_gamma;

/// Topic-level detail of one comparison `system − baseline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairDetail {
    /// Topics where the system scores higher (beyond the tie tolerance).
    pub wins: usize,
    /// Topics where both score the same (within the tie tolerance).
    pub ties: usize,
    /// Topics where the system scores lower.
    pub losses: usize,
    /// Pearson correlation of the two systems' per-topic scores; undefined when either is
    /// constant or below 2 topics.
    pub correlation: Maybe,
    /// SD(d)/√n of the per-topic differences (ddof 1).
    pub paired_se: Maybe,
    /// √(Var(a)/n + Var(b)/n): the SE of the same difference of means from unpaired samples.
    pub unpaired_se: Maybe,
    /// McNemar's test, for 0/1 scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcnemar: Option<McNemar>,
}

/// McNemar's test on paired 0/1 scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McNemar {
    /// Topics the system gets right and the baseline wrong.
    pub b: u64,
    /// Topics the baseline gets right and the system wrong.
    pub c: u64,
    /// Exact two-sided p: min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½); 1 without
    /// discordant topics.
    pub exact_p: f64,
    /// Mid-p: min(1, 2·(P(X < min(b, c)) + ½·P(X = min(b, c)))).
    pub mid_p: f64,
}

/// P(X ≤ k) for X ~ Binomial(n, ½), through the regularized incomplete beta I_½(n − k, k + 1).
fn binom_half_cdf(k: u64, n: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    checked_beta_reg((n - k) as f64, (k + 1) as f64, 0.5).unwrap_or(f64::NAN)
}

/// P(X = k) for X ~ Binomial(n, ½).
fn binom_half_pmf(k: u64, n: u64) -> f64 {
    let (n, k) = (n as f64, k as f64);
    (ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0) - n * std::f64::consts::LN_2).exp()
}

/// McNemar's exact p and mid-p for `b` and `c` discordant topics.
pub fn mcnemar(b: u64, c: u64) -> McNemar {
    let n = b + c;
    if n == 0 {
        return McNemar {
            b,
            c,
            exact_p: 1.0,
            mid_p: 1.0,
        };
    }
    let k = b.min(c);
    if let Some((exact_p, mid_p)) = mcnemar_by_counting(k, n) {
        return McNemar { b, c, exact_p, mid_p };
    }
    let below = if k == 0 { 0.0 } else { binom_half_cdf(k - 1, n) };
    let at = binom_half_pmf(k, n);
    McNemar {
        b,
        c,
        exact_p: (2.0 * binom_half_cdf(k, n)).min(1.0),
        mid_p: (2.0 * (below + 0.5 * at)).min(1.0),
    }
}

/// McNemar's exact p and mid-p for k = min(b, c) of n ≤ 100 discordant topics, by counting:
/// 2·Σ_{j≤k} C(n, j) / 2ⁿ and (2·Σ_{j<k} C(n, j) + C(n, k)) / 2ⁿ in integers (exact in u128: C(100, 50) < 2¹⁰⁰),
/// so a p that is a short binary fraction (7/32) prints as it is, not a hair below; `None`
/// for larger n (then the incomplete beta function).
fn mcnemar_by_counting(k: u64, n: u64) -> Option<(f64, f64)> {
    if n > 100 || k > n {
        return None;
    }
    let (mut choose, mut below) = (1u128, 0u128); // C(n, 0), Σ_{j<0}
    for j in 0..k {
        below += choose;
        choose = choose * u128::from(n - j) / u128::from(j + 1);
    }
    let total = (2.0f64).powi(n as i32);
    let exact = 2.0 * ((below + choose) as f64) / total;
    let mid = ((2 * below + choose) as f64) / total;
    Some((exact.min(1.0), mid.min(1.0)))
}

/// Pearson's r; `None` below 2 values or when either side is constant.
pub fn correlation(a: &[f64], b: &[f64]) -> Option<f64> {
    let (va, vb) = (describe::variance(a)?, describe::variance(b)?);
    if va <= 0.0 || vb <= 0.0 {
        return None;
    }
    let (ma, mb) = (describe::mean(a), describe::mean(b));
    let cov = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum::<f64>() / (a.len() - 1) as f64;
    Some((cov / (va * vb).sqrt()).clamp(-1.0, 1.0))
}

/// The detail of `a − b` over topics; `binary_max` is the scale's largest value when both
/// systems' scores are all 0 or it (McNemar applies), else `None`.
pub fn pair_detail(a: &[f64], b: &[f64], ties: Ties, binary_max: Option<f64>) -> PairDetail {
    let tol = ties.tolerance();
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let wins = d.iter().filter(|&&x| x > tol).count();
    let losses = d.iter().filter(|&&x| x < -tol).count();
    let n = d.len() as f64;
    let paired_se = describe::variance(&d).map(|v| (v / n).sqrt());
    let unpaired_se = match (describe::variance(a), describe::variance(b)) {
        (Some(va), Some(vb)) => Some((va / n + vb / n).sqrt()),
        _ => None,
    };
    let mcnemar = binary_max.map(|m| {
        let b_ = a.iter().zip(b).filter(|(x, y)| **x == m && **y == 0.0).count() as u64;
        let c_ = a.iter().zip(b).filter(|(x, y)| **x == 0.0 && **y == m).count() as u64;
        mcnemar(b_, c_)
    });
    PairDetail {
        wins,
        ties: d.len() - wins - losses,
        losses,
        correlation: Maybe(correlation(a, b)),
        paired_se: Maybe(paired_se),
        unpaired_se: Maybe(unpaired_se),
        mcnemar,
    }
}

#[cfg(test)]
mod tests;
