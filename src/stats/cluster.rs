//! Cluster-robust standard error of a mean difference when questions are grouped in components
//! (Cameron & Miller 2015; statsmodels OLS `cov_type='cluster'`, CRV1).

use super::ttest::{t_from, TTest};
use serde::{Deserialize, Serialize};

/// Number of regressors of the intercept-only model.
const K: f64 = 1.0;

/// The question-weighted mean difference with a cluster-robust (CRV1) standard error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterRobust {
    /// Number of clusters (components) G.
    pub clusters: usize,
    /// Number of questions N.
    pub questions: usize,
    /// Naive standard error sd/√N, treating questions as independent.
    pub naive_se: f64,
    /// CRV1 standard error, with the small-sample factor G/(G−1)·(N−1)/(N−K), K = 1.
    pub se: f64,
    /// Without the small-sample factor: √(Σ_g (Σ_{i∈g} e_i)²) / N.
    pub se_uncorrected: f64,
    /// se / naive_se (the square root of the design effect), when the naive SE is positive.
    pub se_ratio: Option<f64>,
    /// t-test of the mean with the CRV1 SE and G − 1 degrees of freedom.
    pub test: TTest,
}

/// CRV1 for the mean of `d` (one value per question) with `cluster[i]` the component index of
/// question i (0..G). Degenerate cases (G < 2, zero residuals) are flagged in `test.flag`.
pub fn crv1(d: &[f64], cluster: &[usize], level: f64) -> ClusterRobust {
    let n = d.len();
    let g = cluster.iter().copied().max().map(|m| m + 1).unwrap_or(0);
    let mean = if n > 0 { d.iter().sum::<f64>() / n as f64 } else { 0.0 };
    let mut sums = vec![0.0; g];
    for (x, &c) in d.iter().zip(cluster) {
        sums[c] += x - mean;
    }
    let groups = {
        let mut seen = vec![false; g];
        cluster.iter().for_each(|&c| seen[c] = true);
        seen.iter().filter(|&&s| s).count()
    };
    let equal = super::units::all_equal(d);
    let meat: f64 = if equal { 0.0 } else { sums.iter().map(|s| s * s).sum() };
    let nf = n.max(1) as f64;
    let se_uncorrected = meat.sqrt() / nf;
    let se = if groups > 1 && n > 1 {
        let gf = groups as f64;
        (gf / (gf - 1.0) * (nf - 1.0) / (nf - K)).sqrt() * se_uncorrected
    } else {
        0.0
    };
    let var = if n > 1 && !equal {
        d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let naive_se = (var / nf).sqrt();
    ClusterRobust {
        clusters: groups,
        questions: n,
        naive_se,
        se,
        se_uncorrected,
        se_ratio: if naive_se > 0.0 { Some(se / naive_se) } else { None },
        test: t_from(n, mean, var, se, groups.saturating_sub(1), level),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: statistics.md "Clustered questions" (statsmodels OLS cov_type='cluster').
    #[test]
    fn statsmodels_crv1() {
        let a = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
        let b = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let c = [0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 3];
        let r = crv1(&d, &c, 0.95);
        assert!((r.test.mean - 0.3333333333).abs() < 1e-9);
        assert!((r.naive_se - 0.1880253583).abs() < 1e-9);
        assert!((r.se - 0.2078698548).abs() < 1e-9, "{}", r.se);
        assert!((r.se_uncorrected - 0.1800205750).abs() < 1e-9);
        assert_eq!((r.clusters, r.test.df), (4, 3));
    }

    #[test]
    fn one_cluster_is_flagged() {
        let r = crv1(&[1.0, 0.0, 1.0], &[0, 0, 0], 0.95);
        assert!(r.test.p.is_none() && r.test.flag.is_some());
    }
}
