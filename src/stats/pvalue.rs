//! p-values for people: one formatting rule for every output (terminal and report), so that a
//! p-value below the printed precision reads `< 0.0001`, never `0.0000` (the convention of the
//! APA Publication Manual, 7th ed., §6.36, and of R's `format.pval`).

/// Most decimals [`format_p`] prints.
pub const MAX_DECIMALS: usize = 12;

/// Formats a p-value with `decimals` decimals (clamped to 1..=[`MAX_DECIMALS`]): `0.0109` at 4
/// decimals, and `< 0.0001` for any p below 10^−decimals (including 0, which an exact p-value
/// never is and a floating-point tail can underflow to). p-values above 1 (rounding) print as
/// `1.0000`; NaN prints as `undefined`. Values are rounded, so a printed `0.0001` is a p-value
/// of at least 0.0001.
pub fn format_p(p: f64, decimals: usize) -> String {
    let k = decimals.clamp(1, MAX_DECIMALS);
    if p.is_nan() {
        return "undefined".into();
    }
    let floor = 10f64.powi(-(k as i32));
    if p < floor {
        return format!("< {:.*}", k, floor);
    }
    format!("{:.*}", k, p.min(1.0))
}

/// `p = 0.0109`, or `p < 0.0001` below the precision: [`format_p`] as a phrase.
pub fn p_phrase(p: f64, decimals: usize) -> String {
    let t = format_p(p, decimals);
    if t.starts_with('<') {
        format!("p {}", t)
    } else {
        format!("p = {}", t)
    }
}

/// [`format_p`] of an optional p-value (`None`: undefined test) with `missing` in its place.
pub fn format_p_or(p: Option<f64>, decimals: usize, missing: &str) -> String {
    p.map_or_else(|| missing.to_string(), |v| format_p(v, decimals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases() {
        assert_eq!(p_phrase(0.01093, 4), "p = 0.0109");
        assert_eq!(p_phrase(0.00001, 4), "p < 0.0001");
    }

    #[test]
    fn below_the_precision_is_a_bound() {
        assert_eq!(format_p(0.00001, 4), "< 0.0001");
        assert_eq!(format_p(0.0, 4), "< 0.0001");
        assert_eq!(
            format_p(1.0 / 10_001.0, 4),
            "< 0.0001",
            "the Monte-Carlo floor 1/(B + 1)"
        );
        assert_eq!(format_p(0.0001, 4), "0.0001");
        assert_eq!(format_p(0.0109, 4), "0.0109");
        assert_eq!(format_p(0.019, 6), "0.019000");
        assert_eq!(format_p(3e-7, 6), "< 0.000001");
        assert_eq!(format_p(1.0000000000000002, 4), "1.0000");
        assert_eq!(format_p(f64::NAN, 4), "undefined");
        assert_eq!(format_p(0.5, 0), "0.5", "at least one decimal");
        assert_eq!(format_p(1e-20, 40), "< 0.000000000001");
        assert_eq!(format_p_or(None, 4, "—"), "—");
        assert_eq!(format_p_or(Some(2e-5), 4, "—"), "< 0.0001");
    }
}
