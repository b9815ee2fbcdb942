//! The AUC of scores for two classes and its variance by DeLong, DeLong & Clarke-Pearson
//! (1988, *Biometrics* 44:837–845), computed by the fast algorithm of Sun & Xu (2014, *IEEE
//! Signal Processing Letters* 21:1389–1393): midranks of the pooled scores and of each class's
//! scores give every placement value in O((m + n) log(m + n)).

/// The AUC and its DeLong variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Auc {
    /// The AUC: the share of (positive, negative) pairs where the positive scores higher, ties
    /// counted ½ (the Mann–Whitney statistic over m·n), in [0, 1].
    pub auc: f64,
    /// DeLong's variance estimate S₁₀/m + S₀₁/n of the AUC (each S the sample variance, divisor
    /// m − 1 or n − 1, of the placement values).
    pub variance: f64,
}

/// Midranks (1-based; tied values share the mean of their ranks) of `x`.
pub fn midranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        // Positions i..=j (0-based) hold ranks i+1..=j+1: their mean.
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            ranks[o] = mid;
        }
        i = j + 1;
    }
    ranks
}

/// The AUC of `positives` against `negatives` (higher scores mean positive) and its DeLong
/// variance. `None` when a class has fewer than two scores (the variance needs two) or a score
/// is not finite.
pub fn delong(positives: &[f64], negatives: &[f64]) -> Option<Auc> {
    let (m, n) = (positives.len(), negatives.len());
    if m < 2 || n < 2 || positives.iter().chain(negatives).any(|s| !s.is_finite()) {
        return None;
    }
    let pooled: Vec<f64> = positives.iter().chain(negatives).copied().collect();
    let tz = midranks(&pooled);
    let tx = midranks(positives);
    let ty = midranks(negatives);
    let (mf, nf) = (m as f64, n as f64);
    // Placement values: V10 the share of negatives below each positive, V01 the share of
    // positives above each negative (ties ½ in both).
    let v10: Vec<f64> = (0..m).map(|i| (tz[i] - tx[i]) / nf).collect();
    let v01: Vec<f64> = (0..n).map(|j| 1.0 - (tz[m + j] - ty[j]) / mf).collect();
    let auc = v10.iter().sum::<f64>() / mf;
    let var = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (v.len() - 1) as f64
    };
    Some(Auc {
        auc,
        variance: var(&v10) / mf + var(&v01) / nf,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: positives 0.9, 0.8, 0.4 against negatives 0.5, 0.3. Five of the six
    /// pairs are ordered, AUC 5/6. V10 = (1, 1, ½), sample variance 1/12; V01 = (⅔, 1), sample
    /// variance 1/18; variance (1/12)/3 + (1/18)/2 = 1/18.
    #[test]
    fn delong_matches_the_hand_computation() {
        let a = delong(&[0.9, 0.8, 0.4], &[0.5, 0.3]).unwrap();
        assert!((a.auc - 5.0 / 6.0).abs() < 1e-15, "{:?}", a);
        assert!((a.variance - 1.0 / 18.0).abs() < 1e-15, "{:?}", a);
    }

    /// Ties count ½: positives 1, 0.5 against negatives 0.5, 0 order 3.5 of 4 pairs. V10 =
    /// (1, ¾), variance 1/32; V01 = (¾, 1), variance 1/32; total 1/64 + 1/64 = 1/32.
    #[test]
    fn ties_count_half() {
        let a = delong(&[1.0, 0.5], &[0.5, 0.0]).unwrap();
        assert!((a.auc - 0.875).abs() < 1e-15, "{:?}", a);
        assert!((a.variance - 1.0 / 32.0).abs() < 1e-15, "{:?}", a);
        assert_eq!(midranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
    }

    #[test]
    fn too_few_or_not_finite_scores_have_no_auc() {
        assert!(delong(&[1.0], &[0.0, 0.5]).is_none());
        assert!(delong(&[1.0, f64::NAN], &[0.0, 0.5]).is_none());
        // Perfect separation: AUC 1, variance 0.
        let a = delong(&[2.0, 3.0], &[0.0, 1.0]).unwrap();
        assert_eq!((a.auc, a.variance), (1.0, 0.0));
    }
}
