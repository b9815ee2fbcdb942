//! Score values: numbers and boolean labels.

use super::ReadOptions;

/// Whether `s` parses as a finite number.
pub(crate) fn is_number(s: &str) -> bool {
    s.parse::<f64>().map(|v| v.is_finite()).unwrap_or(false)
}

/// Parses one score cell: a finite number, a label from `opts.labels` (case-insensitive), or a
/// built-in label `CORRECT`/`INCORRECT`, `true`/`false`, `yes`/`no` (1/0, case-insensitive).
///
/// Returns the message to report (without location) when the cell is none of those.
pub fn parse_value(cell: &str, opts: &ReadOptions) -> std::result::Result<f64, String> {
    let s = cell.trim();
    for (label, v) in &opts.labels {
        if s.eq_ignore_ascii_case(label) {
            return Ok(*v);
        }
    }
    if let Ok(v) = s.parse::<f64>() {
        if v.is_finite() {
            return Ok(v);
        }
        return Err(format!("score `{}` is not a finite number", s));
    }
    const ONE: [&str; 3] = ["correct", "true", "yes"];
    const ZERO: [&str; 3] = ["incorrect", "false", "no"];
    if ONE.iter().any(|l| s.eq_ignore_ascii_case(l)) {
        return Ok(1.0);
    }
    if ZERO.iter().any(|l| s.eq_ignore_ascii_case(l)) {
        return Ok(0.0);
    }
    Err(format!(
        "score `{}` is not a number or a known label (CORRECT/INCORRECT, true/false, yes/no); \
         map other labels explicitly, e.g. --label {}=0",
        s,
        if s.is_empty() { "LABEL" } else { s }
    ))
}
