//! Cluster-robust standard error of a mean difference when questions are grouped in components
//! (Cameron & Miller 2015; statsmodels OLS `cov_type='cluster'`, CRV1).

use super::describe::{self, Maybe};
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
    /// Naive standard error sd/√N, treating questions as independent; undefined (`null`) below 2
    /// questions.
    pub naive_se: Maybe,
    /// CRV1 standard error, with the small-sample factor G/(G−1)·(N−1)/(N−K), K = 1; undefined
    /// (`null`, see `undefined`) below 2 components, where statsmodels raises; exactly 0 when
    /// every difference is the same.
    pub se: Maybe,
    /// Without the small-sample factor: √(Σ_g (Σ_{i∈g} e_i)²) / N; undefined below 2 components
    /// (one cluster's residuals always sum to 0, which says nothing about sampling error).
    pub se_uncorrected: Maybe,
    /// se / naive_se (the square root of the design effect), when both are defined and the naive
    /// SE is positive.
    pub se_ratio: Option<f64>,
    /// Why the SEs are undefined, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
    /// t-test of the mean with the CRV1 SE and G − 1 degrees of freedom.
    pub test: TTest,
}

/// CRV1 for the mean of `d` (one value per question) with `cluster[i]` the component index of
/// question i (0..G). Below 2 components (or 2 questions) the SEs are undefined (`None`, with
/// the reason in `undefined`, and the test flagged), never 0.
pub fn crv1(d: &[f64], cluster: &[usize], level: f64) -> ClusterRobust {
    let n = d.len();
    let g = cluster.iter().copied().max().map(|m| m + 1).unwrap_or(0);
    let mean = describe::mean(d);
    let mut sums = vec![0.0; g];
    for (x, &c) in d.iter().zip(cluster) {
        sums[c] += x - mean;
    }
    let groups = {
        let mut seen = vec![false; g];
        cluster.iter().for_each(|&c| seen[c] = true);
        seen.iter().filter(|&&s| s).count()
    };
    let equal = describe::all_equal(d);
    let meat: f64 = if equal { 0.0 } else { sums.iter().map(|s| s * s).sum() };
    let nf = n.max(1) as f64;
    let undefined = if groups < 2 {
        Some(format!(
            "{} component(s): a cluster-robust SE needs at least 2 (statsmodels raises)",
            groups
        ))
    } else if n < 2 {
        Some("fewer than 2 questions: no SE".to_string())
    } else {
        None
    };
    let (se_uncorrected, se) = if undefined.is_some() {
        (None, None)
    } else {
        let gf = groups as f64;
        let unc = meat.sqrt() / nf;
        (Some(unc), Some((gf / (gf - 1.0) * (nf - 1.0) / (nf - K)).sqrt() * unc))
    };
    let var = describe::variance(d);
    let naive_se = var.map(|v| (v / nf).sqrt());
    let se_ratio = match (se, naive_se) {
        (Some(s), Some(nv)) if nv > 0.0 => Some(s / nv),
        _ => None,
    };
    ClusterRobust {
        clusters: groups,
        questions: n,
        naive_se: Maybe(naive_se),
        se: Maybe(se),
        se_uncorrected: Maybe(se_uncorrected),
        se_ratio,
        undefined,
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
        assert!((r.naive_se.get().unwrap() - 0.1880253583).abs() < 1e-9);
        assert!((r.se.get().unwrap() - 0.2078698548).abs() < 1e-9, "{}", r.se);
        assert!((r.se_uncorrected.get().unwrap() - 0.1800205750).abs() < 1e-9);
        assert_eq!((r.clusters, r.test.df), (4, 3));
    }

    /// statsmodels 0.15.0 raises for one cluster; before, pledge stored and printed an SE of 0.
    #[test]
    fn one_cluster_is_undefined_not_zero() {
        let r = crv1(&[1.0, 0.0, 1.0], &[0, 0, 0], 0.95);
        assert!(r.test.p.is_none() && r.test.flag.is_some());
        assert_eq!((r.se.get(), r.se_uncorrected.get(), r.se_ratio), (None, None, None));
        assert!(r.undefined.as_deref().unwrap().contains("at least 2"));
        assert_eq!(format!("{:.4}", r.se), "undefined");
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["se"].is_null() && json["test"]["se"].is_null());
        // The naive SE is defined (3 questions): sd(1, 0, 1)/√3.
        assert!((r.naive_se.get().unwrap() - (1.0f64 / 3.0 / 3.0).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn equal_differences_give_exactly_zero() {
        let r = crv1(&[0.1, 0.1, 0.1, 0.1], &[0, 0, 1, 1], 0.95);
        assert_eq!((r.se.get(), r.naive_se.get()), (Some(0.0), Some(0.0)));
        assert!(r.undefined.is_none() && r.test.p.is_none());
    }
}
