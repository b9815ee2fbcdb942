//! A fixed-bin histogram of resampled differences, for the report's plot (the resamples
//! themselves are not stored).

use serde::Serialize;

/// Equal-width bins from `min` to `max`; the last bin includes `max`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Bin width (`(max − min) / bins`; 0 when all values are equal, with one bin).
    pub bin_width: f64,
    /// Count per bin.
    pub counts: Vec<u64>,
}

/// Histogram of `sorted` (ascending) with `bins` equal-width bins.
pub fn histogram(sorted: &[f64], bins: usize) -> Histogram {
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return Histogram { min: 0.0, max: 0.0, bin_width: 0.0, counts: vec![] };
    };
    if max <= min || bins == 0 {
        return Histogram { min, max, bin_width: 0.0, counts: vec![sorted.len() as u64] };
    }
    let w = (max - min) / bins as f64;
    let mut counts = vec![0u64; bins];
    for &x in sorted {
        let i = (((x - min) / w) as usize).min(bins - 1);
        counts[i] += 1;
    }
    Histogram { min, max, bin_width: w, counts }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bins_cover_all_values() {
        let h = super::histogram(&[0.0, 0.5, 1.0, 1.0], 2);
        assert_eq!(h.counts, vec![1, 3]);
        assert_eq!(h.bin_width, 0.5);
        let h = super::histogram(&[2.0, 2.0], 40);
        assert_eq!(h.counts, vec![2]);
    }
}
