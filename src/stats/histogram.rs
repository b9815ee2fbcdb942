//! A fixed-bin histogram of resampled differences, for the report's plot (the resamples
//! themselves are not stored).

use serde::{Deserialize, Serialize};

/// Equal-width bins from `min` to `max` (bin `i` is `[min + i·w, min + (i+1)·w)`; the last bin
/// includes `max`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Left edge of the first bin: the smallest value, or half a lattice step below it.
    pub min: f64,
    /// Right edge of the last bin.
    pub max: f64,
    /// Bin width (`(max − min) / bins`; 0 when all values are equal, with one bin).
    pub bin_width: f64,
    /// Count per bin.
    pub counts: Vec<u64>,
}

/// Histogram of `sorted` (ascending) with `bins` equal-width bins. When the values lie on a
/// lattice (every gap between distinct values a whole multiple of the smallest gap, as the mean
/// differences of 0/1 accuracies do) and there are at most `2·bins` lattice points, each lattice
/// point gets its own bin centred on it, so the picture has no aliasing gaps.
pub fn histogram(sorted: &[f64], bins: usize) -> Histogram {
    if let Some(h) = lattice(sorted, 2 * bins) {
        return h;
    }
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return Histogram {
            min: 0.0,
            max: 0.0,
            bin_width: 0.0,
            counts: vec![],
        };
    };
    if max <= min || bins == 0 {
        return Histogram {
            min,
            max,
            bin_width: 0.0,
            counts: vec![sorted.len() as u64],
        };
    }
    let w = (max - min) / bins as f64;
    let mut counts = vec![0u64; bins];
    for &x in sorted {
        let i = (((x - min) / w) as usize).min(bins - 1);
        counts[i] += 1;
    }
    Histogram {
        min,
        max,
        bin_width: w,
        counts,
    }
}

/// One bin per lattice point when the distinct values form a lattice of at most `most` points.
fn lattice(sorted: &[f64], most: usize) -> Option<Histogram> {
    let (first, last) = (*sorted.first()?, *sorted.last()?);
    let tol = 1e-9 * first.abs().max(last.abs()).max(1e-12);
    let mut distinct: Vec<f64> = Vec::new();
    for &x in sorted {
        if distinct.last().is_none_or(|&d| x - d > tol) {
            distinct.push(x);
            if distinct.len() > most {
                return None;
            }
        }
    }
    if distinct.len() < 2 {
        return None;
    }
    let g = distinct.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
    let on_lattice = distinct.windows(2).all(|w| {
        let k = (w[1] - w[0]) / g;
        (k - k.round()).abs() < 1e-6
    });
    let n = ((last - first) / g).round() as usize + 1;
    if !on_lattice || n > most {
        return None;
    }
    let mut counts = vec![0u64; n];
    for &x in sorted {
        counts[(((x - first) / g).round() as usize).min(n - 1)] += 1;
    }
    Some(Histogram {
        min: first - g / 2.0,
        max: last + g / 2.0,
        bin_width: g,
        counts,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn lattice_values_get_one_bin_each() {
        // Differences of 0/1 means over 100 topics are multiples of 0.01.
        let v = [-0.02, 0.0, 0.0, 0.01, 0.03, 0.03, 0.03];
        let h = super::histogram(&v, 40);
        assert_eq!(h.counts, vec![1, 0, 2, 1, 0, 3]);
        assert!((h.bin_width - 0.01).abs() < 1e-12);
        assert!((h.min + 0.025).abs() < 1e-12 && (h.max - 0.035).abs() < 1e-12);
    }

    #[test]
    fn bins_cover_all_values() {
        // Not a lattice (gaps 0.3 and 0.7): equal-width bins, the last including the maximum.
        let h = super::histogram(&[0.0, 0.3, 1.0, 1.0], 2);
        assert_eq!(h.counts, vec![2, 2]);
        assert_eq!(h.bin_width, 0.5);
        let h = super::histogram(&[2.0, 2.0], 40);
        assert_eq!(h.counts, vec![2]);
    }
}
