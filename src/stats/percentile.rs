//! Percentiles of a sorted sample, exactly as numpy's `np.quantile(..., method=...)` computes them
//! (Hyndman & Fan 1996 types; numpy 2 method names).

use crate::protocol::Percentile;

/// The numpy method name of a definition (`linear`, `inverted_cdf`, `lower`, `higher`, `nearest`).
pub fn method_name(p: Percentile) -> &'static str {
    match p {
        Percentile::Linear => "linear",
        Percentile::InvertedCdf => "inverted_cdf",
        Percentile::Lower => "lower",
        Percentile::Higher => "higher",
        Percentile::Nearest => "nearest",
    }
}

/// The `q`-quantile (`q` in [0, 1]) of `sorted` (ascending, non-empty, finite) under `method`.
///
/// Index rules, with n values: `linear` virtual index (n−1)q and numpy's interpolation (type 7);
/// `inverted_cdf` nq − 1 rounded up unless integral (type 1); `lower`/`higher` floor/ceil of
/// (n−1)q; `nearest` (n−1)q rounded half to even. Returns 0 for an empty slice (callers flag it).
pub fn quantile(sorted: &[f64], q: f64, method: Percentile) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let last = (n - 1) as f64;
    let at = |i: f64| sorted[i.clamp(0.0, last) as usize];
    match method {
        Percentile::Linear => {
            let h = last * q;
            let lo = h.floor();
            let g = h - lo;
            let a = at(lo);
            let b = at(lo + 1.0);
            lerp(a, b, g)
        }
        Percentile::InvertedCdf => {
            let h = n as f64 * q - 1.0;
            let lo = h.floor();
            if h - lo > 0.0 {
                at(lo + 1.0)
            } else {
                at(lo)
            }
        }
        Percentile::Lower => at((last * q).floor()),
        Percentile::Higher => at((last * q).ceil()),
        Percentile::Nearest => at((last * q).round_ties_even()),
    }
}

/// [`quantile`] of `values` in any order (non-empty, finite), which it reorders: the two order
/// statistics [`quantile`] reads (the floor of its index and the next) are selected in O(n)
/// (`select_nth_unstable`, then the least value above it) instead of sorting, with the same
/// result to the bit. Returns 0 for an empty slice.
pub fn quantile_unsorted(values: &mut [f64], q: f64, method: Percentile) -> f64 {
    let n = values.len();
    if n == 0 {
        return 0.0;
    }
    let last = (n - 1) as f64;
    let base = match method {
        Percentile::InvertedCdf => n as f64 * q - 1.0,
        _ => last * q,
    };
    let k = base.floor().clamp(0.0, last) as usize;
    let (_, _, upper) = values.select_nth_unstable_by(k, f64::total_cmp);
    let least = upper
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(j, _)| j);
    if let Some(j) = least {
        upper.swap(0, j);
    }
    quantile(values, q, method)
}

/// numpy's `_lerp`: `a + (b−a)·t`, computed from the far end when `t ≥ 0.5` for monotonicity.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The selection gives the sorted slice's quantile to the bit, for every method, on values
    /// with ties, at the ends and between.
    #[test]
    fn quantile_unsorted_is_the_sorted_quantile() {
        let mut x = 0.5f64;
        let mut v: Vec<f64> = (0..101)
            .map(|_| {
                x = (x * 3.7 + 0.123).fract();
                (x * 20.0).floor() / 4.0 - 2.0
            })
            .collect();
        v.extend([0.0, -0.0, 0.0]);
        for n in [1usize, 2, 3, 7, 104] {
            let mut s = v[..n].to_vec();
            s.sort_by(f64::total_cmp);
            for method in [
                Percentile::Linear,
                Percentile::InvertedCdf,
                Percentile::Lower,
                Percentile::Higher,
                Percentile::Nearest,
            ] {
                for q in [0.0, 0.01, 0.1, 0.25, 0.5, 0.7, 0.9, 0.975, 0.999, 1.0] {
                    let mut u = v[..n].to_vec();
                    let (a, b) = (quantile(&s, q, method), quantile_unsorted(&mut u, q, method));
                    assert_eq!(a.to_bits(), b.to_bits(), "n {} {:?} q {}", n, method, q);
                }
            }
        }
    }

    fn sorted(mut v: Vec<f64>) -> Vec<f64> {
        v.sort_by(f64::total_cmp);
        v
    }

    /// Oracle: statistics.md "Percentile definitions" (numpy 2.4.6).
    #[test]
    fn numpy_oracle_values() {
        let v = sorted(vec![0.3, -0.1, 0.25, 0.0, 0.05, 0.4, 0.15, 0.1, -0.05, 0.2]);
        let cases = [
            (Percentile::Linear, [-0.08875, 0.125, 0.3775]),
            (Percentile::InvertedCdf, [-0.1, 0.1, 0.4]),
            (Percentile::Lower, [-0.1, 0.1, 0.3]),
            (Percentile::Higher, [-0.05, 0.15, 0.4]),
        ];
        for (m, want) in cases {
            for (q, w) in [0.025, 0.5, 0.975].iter().zip(want) {
                let got = quantile(&v, *q, m);
                assert!((got - w).abs() < 1e-9, "{:?} q{} = {} want {}", m, q, got, w);
            }
        }
        // nearest: (n-1)q = 0.225, 4.5 (half to even: 4), 8.775
        assert_eq!(quantile(&v, 0.5, Percentile::Nearest), 0.1);
        assert_eq!(quantile(&v, 0.025, Percentile::Nearest), -0.1);
        assert_eq!(quantile(&v, 0.975, Percentile::Nearest), 0.4);
    }

    #[test]
    fn single_value_and_empty() {
        for m in [
            Percentile::Linear,
            Percentile::InvertedCdf,
            Percentile::Lower,
            Percentile::Higher,
            Percentile::Nearest,
        ] {
            assert_eq!(quantile(&[2.5], 0.975, m), 2.5);
            assert_eq!(quantile(&[], 0.5, m), 0.0);
        }
    }
}
