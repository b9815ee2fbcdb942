//! Paired t-test and its confidence interval (as `scipy.stats.ttest_rel`, two-sided), with the
//! tail-accurate Student t of [`super::dist`].

use super::describe::{self, Maybe};
use super::dist::{t_isf, t_sf};
use serde::{Deserialize, Serialize};

/// A one-sample t-test of the mean of the differences against 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// Number of differences n.
    pub n: usize,
    /// Mean difference.
    pub mean: f64,
    /// Sample variance of the differences (ddof 1); undefined (`null`) below 2 differences,
    /// exactly 0 when all are equal.
    pub variance: Maybe,
    /// Standard error sd/√n; undefined (`null`) below 2 differences (or, for the cluster-robust
    /// test, below 2 components), exactly 0 when all differences are equal.
    pub se: Maybe,
    /// t statistic; `None` when undefined (n < 2 or zero variance; see `flag`).
    pub t: Option<f64>,
    /// Degrees of freedom n − 1.
    pub df: usize,
    /// Two-sided p-value; `None` when undefined.
    pub p: Option<f64>,
    /// Confidence interval for the mean difference at `level`; `None` when undefined.
    pub ci: Option<[f64; 2]>,
    /// Level of `ci`.
    pub level: f64,
    /// Why a value is missing (n < 2, all differences equal).
    pub flag: Option<String>,
}

/// Paired t-test of differences `d` with a `level` confidence interval (Student t, df = n − 1).
/// With n < 2 or zero variance the statistic is undefined: `t`, `p` and `ci` are `None` and
/// `flag` says why (never NaN).
pub fn paired_t(d: &[f64], level: f64) -> TTest {
    let n = d.len();
    let mean = describe::mean(d);
    // Equal values give exactly zero variance (rounding in the mean must not fake a tiny one).
    let variance = describe::variance(d);
    let se = variance.map(|v| (v / n as f64).sqrt());
    t_from(n, mean, variance, se, n.saturating_sub(1), level)
}

/// A t-test from an estimate, its standard error (`None`: undefined) and degrees of freedom
/// (used by the cluster-robust test with df = G − 1).
pub fn t_from(n: usize, mean: f64, variance: Option<f64>, se: Option<f64>, df: usize, level: f64) -> TTest {
    let mut out = TTest {
        n,
        mean,
        variance: Maybe(variance),
        se: Maybe(se),
        t: None,
        df,
        p: None,
        ci: None,
        level,
        flag: None,
    };
    if df < 1 {
        out.flag = Some("fewer than 2 units: no t-test".into());
        return out;
    }
    let Some(se) = se else {
        out.flag = Some("the standard error is undefined: no t-test".into());
        return out;
    };
    if se <= 0.0 || !se.is_finite() {
        out.flag = Some("all differences are equal (zero variance): no t-test".into());
        return out;
    }
    let t = mean / se;
    let df = df as f64;
    let p = (2.0 * t_sf(t.abs(), df)).min(1.0);
    let q = t_isf((1.0 - level) / 2.0, df);
    if !p.is_finite() || !q.is_finite() {
        out.flag = Some("the t distribution could not be evaluated".into());
        return out;
    }
    out.t = Some(t);
    out.p = Some(p);
    out.ci = Some([mean - q * se, mean + q * se]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const X: [f64; 20] = [
        0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50,
        0.20, 0.10,
    ];
    pub const Y: [f64; 20] = [
        0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60,
        0.30, 0.20,
    ];
    pub const Z: [f64; 20] = [
        0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40, 0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50,
        0.40, 0.30,
    ];

    fn diff(a: &[f64], b: &[f64]) -> Vec<f64> {
        a.iter().zip(b).map(|(x, y)| x - y).collect()
    }

    /// Oracle: statistics.md data set S (scipy.stats.ttest_rel).
    #[test]
    fn data_set_s() {
        let cases = [
            (
                diff(&X, &Y),
                0.0750,
                0.0251315789,
                2.1157598613,
                0.0477967618,
                [0.0008059447, 0.1491940553],
            ),
            (
                diff(&X, &Z),
                0.1000,
                0.0768421053,
                1.6133008790,
                0.1231651046,
                [-0.0297355057, 0.2297355057],
            ),
            (
                diff(&Y, &Z),
                0.0250,
                0.0293421053,
                0.6526936254,
                0.5217734484,
                [-0.0551687029, 0.1051687029],
            ),
        ];
        for (d, mean, var, t, p, ci) in cases {
            let r = paired_t(&d, 0.95);
            assert!((r.mean - mean).abs() < 1e-9);
            assert!((r.variance.get().unwrap() - var).abs() < 1e-9);
            assert!((r.t.unwrap() - t).abs() < 1e-9, "{:?}", r.t);
            assert!((r.p.unwrap() - p).abs() < 1e-9, "{:?}", r.p);
            let c = r.ci.unwrap();
            assert!((c[0] - ci[0]).abs() < 1e-9 && (c[1] - ci[1]).abs() < 1e-9, "{:?}", c);
            assert_eq!(r.df, 19);
        }
    }

    #[test]
    fn degenerate_is_flagged() {
        let r = paired_t(&[0.1, 0.1, 0.1], 0.95);
        assert!(r.t.is_none() && r.p.is_none() && r.flag.is_some());
        assert_eq!((r.variance, r.se), (Maybe(Some(0.0)), Maybe(Some(0.0))), "exactly 0");
        assert_eq!(r.mean, 0.1);
        let r = paired_t(&[0.3], 0.95);
        assert!(r.flag.unwrap().contains("fewer than 2"));
        assert_eq!(r.mean, 0.3);
        assert_eq!((r.variance.get(), r.se.get()), (None, None), "undefined, not 0");
    }
}
