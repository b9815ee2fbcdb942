//! Value parsers for the library's named enums: the command line accepts exactly the names the
//! enums serialize as (one list of names, see [`crate::named`]).

use crate::error::Error;
use crate::named::Named;
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// A clap value parser for any [`Named`] enum: its names are the possible values.
pub fn named<T: Named + Send + Sync + Clone>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::NAMES)
        .try_map(|s: String| T::from_name(&s).ok_or_else(|| format!("unknown value `{}`", s)))
}

/// Parses `--label LABEL=VALUE` arguments (shared with `pledge power --pilot`).
pub fn label_args(args: &[String]) -> crate::Result<Vec<(String, f64)>> {
    let mut labels = Vec::new();
    for l in args {
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| Error::input(format!("--label `{}`: expected LABEL=VALUE, e.g. HALTED=0", l)))?;
        let x: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| Error::input(format!("--label `{}`: the value must be a finite number", l)))?;
        labels.push((k.trim().to_string(), x));
    }
    Ok(labels)
}

/// Parses a size in bytes: a positive number with an optional unit, `B`, `KB`/`MB`/`GB`/`TB`
/// (powers of 1000, as SI) or `KiB`/`MiB`/`GiB`/`TiB` and `K`/`M`/`G`/`T` (powers of 1024, as
/// IEC 80000-13), case-insensitive, e.g. `4GiB`, `512MiB`, `1.5G`, `1000000`.
pub fn byte_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0f64.powi(4),
        u => {
            return Err(format!(
                "`{}`: unknown unit `{}` (expected B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, K, M, G or T)",
                s, u
            ))
        }
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("`{}`: expected a size such as 4GiB or 512MiB", s))?;
    let bytes = (x * scale).round();
    if !(bytes >= 1.0 && bytes < 2f64.powi(63)) {
        return Err(format!("`{}`: the size must be at least 1 byte and below 8 EiB", s));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::byte_size;

    #[test]
    fn sizes() {
        assert_eq!(byte_size("4GiB"), Ok(4 << 30));
        assert_eq!(byte_size("512MiB"), Ok(512 << 20));
        assert_eq!(byte_size("1KiB"), Ok(1024));
        assert_eq!(byte_size("1kb"), Ok(1000));
        assert_eq!(byte_size("1.5G"), Ok(3 << 29));
        assert_eq!(byte_size(" 1000 "), Ok(1000));
        assert_eq!(byte_size("2 GB"), Ok(2_000_000_000));
        for bad in ["", "GiB", "-1GiB", "0", "4 parsecs", "1.2.3M", "0.1"] {
            assert!(byte_size(bad).is_err(), "{}", bad);
        }
    }
}
