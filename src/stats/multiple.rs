//! Multiple-comparison adjustment of p-values, as statsmodels `multipletests` (`bonferroni`,
//! `holm`, `fdr_bh`): Bonferroni (Dunn 1961), Holm step-down (Holm 1979), Benjamini–Hochberg
//! step-up (1995). The randomized Tukey HSD choice ([`Adjust::TukeyHsd`]) is a test over the
//! scores of all systems, not a function of p-values: [`super::tukey`] computes it.

use crate::protocol::Adjust;

/// The statsmodels name of a method (`holm`, `fdr_bh`, `bonferroni`, `none`), and `tukey-hsd`
/// for the randomized Tukey HSD test.
pub fn method_name(a: Adjust) -> &'static str {
    match a {
        Adjust::Holm => "holm",
        Adjust::Bh => "fdr_bh",
        Adjust::Bonferroni => "bonferroni",
        Adjust::None => "none",
        Adjust::TukeyHsd => "tukey-hsd",
    }
}

/// Adjusted p-values in the input order, each capped at 1; `None` for [`Adjust::TukeyHsd`],
/// which needs the scores ([`super::tukey::randomized_tukey`]).
pub fn adjust(p: &[f64], method: Adjust) -> Option<Vec<f64>> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; m];
    let mf = m as f64;
    match method {
        Adjust::TukeyHsd => return None,
        Adjust::None => out.copy_from_slice(p),
        Adjust::Bonferroni => {
            for i in 0..m {
                out[i] = (p[i] * mf).min(1.0);
            }
        }
        Adjust::Holm => {
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                running = running.max((p[i] * (mf - rank as f64)).min(1.0));
                out[i] = running;
            }
        }
        Adjust::Bh => {
            let mut running: f64 = 1.0;
            for (rank, &i) in order.iter().enumerate().rev() {
                running = running.min((p[i] * mf / (rank as f64 + 1.0)).min(1.0));
                out[i] = running;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: statistics.md "Multiple comparisons" (statsmodels multipletests).
    #[test]
    fn statsmodels_values() {
        let p = [0.010, 0.040, 0.030, 0.200];
        let close = |a: Option<Vec<f64>>, b: [f64; 4]| a.unwrap().iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
        assert!(close(adjust(&p, Adjust::Bonferroni), [0.04, 0.16, 0.12, 0.8]));
        assert!(close(adjust(&p, Adjust::Holm), [0.04, 0.09, 0.09, 0.2]));
        assert!(close(adjust(&p, Adjust::Bh), [0.04, 0.0533333333, 0.0533333333, 0.2]));
        assert!(close(adjust(&p, Adjust::None), p));
        assert!(adjust(&[], Adjust::Holm).unwrap().is_empty());
        assert_eq!(adjust(&p, Adjust::TukeyHsd), None);
        assert_eq!(method_name(Adjust::TukeyHsd), "tukey-hsd");
    }
}
