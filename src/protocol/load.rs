//! Reading a protocol file: TOML parse errors and unknown keys are reported with file, line,
//! column and the closest known key (or value, for a misspelled name); range checks name the
//! offending key's line.

use super::validate::{validate, PathSeg};
use super::Protocol;
use crate::error::{Error, Result};
use std::path::Path;

/// Reads, parses and validates the protocol at `path`.
///
/// Returns the protocol and its source text (BOM removed, line endings as in the file).
/// Errors (exit 2): missing file, larger than [`crate::input::PROTOCOL_MAX_BYTES`] or binary,
/// invalid UTF-8 or TOML, unknown key, missing key, wrong type, value out of range; each message
/// is `FILE:LINE:COL: what was expected`.
pub fn load(path: &Path) -> Result<(Protocol, String)> {
    let (protocol, text, _) = load_raw(path)?;
    Ok((protocol, text))
}

/// As [`load`], also returning the raw bytes (for the hash), read once.
pub(crate) fn load_raw(path: &Path) -> Result<(Protocol, String, Vec<u8>)> {
    let bytes = crate::input::read_small_text(
        path,
        crate::input::PROTOCOL_MAX_BYTES,
        "protocol file",
        "a protocol TOML text file",
    )?;
    let text = std::str::from_utf8(crate::input::strip_bom(&bytes))
        .map_err(|_| Error::in_file(path, "protocol is not valid UTF-8"))?
        .to_owned();
    let protocol = parse(&text, path)?;
    Ok((protocol, text, bytes))
}

/// Parses and validates protocol source `text`; `path` is used in error messages only.
///
/// Errors (exit 2): the first problem [`parse_all`] finds.
pub fn parse(text: &str, path: &Path) -> Result<Protocol> {
    let (protocol, problems) = parse_all(text, path);
    match (protocol, problems.into_iter().next()) {
        (Some(p), None) => Ok(p),
        (_, Some(e)) => Err(e),
        (None, None) => Err(Error::in_file(path, "protocol could not be parsed")),
    }
}

/// Parses protocol source `text` and lists every problem, each an error at its line and column
/// (`path` is used in the messages only): a TOML or type error alone (then no protocol), else
/// every range and consistency problem of the parsed protocol, in file order as far as possible.
pub fn parse_all(text: &str, path: &Path) -> (Option<Protocol>, Vec<Error>) {
    let protocol: Protocol = match toml::from_str(text) {
        Ok(p) => p,
        Err(e) => return (None, vec![toml_error(text, path, &e)]),
    };
    let problems = validate(&protocol)
        .into_iter()
        .map(|(seg, msg)| {
            let (line, col) = locate(text, &seg).unwrap_or((1, 1));
            Error::at_col(path, line, col, msg)
        })
        .collect();
    (Some(protocol), problems)
}

fn toml_error(text: &str, path: &Path, e: &toml::de::Error) -> Error {
    let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
    let raw = e.message().trim().to_string();
    if let Some(msg) = e.span().and_then(|s| integer_out_of_range(text, s, &raw)) {
        return Error::at_col(path, line, col, msg);
    }
    // One line: TOML syntax errors come as "what\nexpected ..."; serde speaks of fields, TOML of keys.
    let msg = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
        .replacen("unknown field", "unknown key", 1)
        .replacen("missing field", "missing key", 1)
        .replace("expected u64", "expected a whole number ≥ 0")
        .replace("expected u32", "expected a whole number from 0 to 4294967295")
        .replace("expected u8", "expected a small whole number")
        .replace("expected f64", "expected a number");
    let mut err = Error::at_col(path, line, col, &msg);
    if let Some((unknown, expected)) = parse_unknown_name(&raw) {
        if let Some(hint) = crate::named::did_you_mean(&unknown, &expected) {
            err = err.with_hint(hint);
        }
    }
    err
}

/// Largest TOML integer (TOML 1.0: integers are signed 64-bit).
const TOML_INT_MAX: &str = "9223372036854775807";

/// The message for an integer that does not fit the key it is given to: one beyond TOML's
/// 64-bit integers (the parser's "number too large to fit in target type") or beyond the key's
/// own type (serde's "invalid value: integer `N`, expected u32"). Names the dotted key (from the
/// `key =` of the value's line and the table header above it), the value and the allowed range;
/// for a value beyond 64 bits the key's range is found by parsing the protocol again with the
/// largest TOML integer in its place. `None` for any other error.
fn integer_out_of_range(text: &str, span: std::ops::Range<usize>, raw: &str) -> Option<String> {
    let too_big = raw.contains("number too large to fit in target type")
        || raw.contains("number too small to fit in target type");
    let invalid = raw.starts_with("invalid value: integer `");
    if !too_big && !invalid {
        return None;
    }
    // The whole literal (the parser's span may cover only its first character).
    let len = text
        .get(span.start..)?
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '+' | '-' | '_')))
        .unwrap_or(text.len() - span.start);
    let span = span.start..span.start + len.max(1);
    let value = text.get(span.clone())?.trim();
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let key = text[start..span.start]
        .trim_end()
        .strip_suffix('=')?
        .trim()
        .trim_matches('"')
        .to_string();
    let table = text[..start].lines().rev().map(str::trim).find_map(|l| {
        let inner = l
            .strip_prefix("[[")
            .and_then(|x| x.split("]]").next())
            .or_else(|| l.strip_prefix('[').and_then(|x| x.split(']').next()))?;
        Some(inner.trim().to_string())
    });
    let name = match table {
        Some(t) if !t.is_empty() => format!("{}.{}", t, key),
        _ => key,
    };
    let expected = if invalid {
        raw.split("expected ").nth(1).map(str::trim).map(str::to_string)
    } else {
        // The key's type: what serde expects of the largest TOML integer, else of −1 (an
        // unsigned 64-bit key takes the first), else a signed 64-bit key.
        let expects = |probe_value: &str| {
            let mut probe = text.to_string();
            probe.replace_range(span.clone(), probe_value);
            match toml::from_str::<Protocol>(&probe) {
                Err(e) if e.message().contains(&format!("integer `{}`, expected ", probe_value)) => {
                    e.message().split("expected ").nth(1).map(|x| x.trim().to_string())
                }
                _ => None,
            }
        };
        Some(
            expects(TOML_INT_MAX)
                .or_else(|| expects("-1"))
                .unwrap_or_else(|| "i64".to_string()),
        )
    }?;
    let range = match expected.as_str() {
        "u8" => "a whole number from 0 to 255".to_string(),
        "u16" => "a whole number from 0 to 65535".to_string(),
        "u32" => "a whole number from 0 to 4294967295".to_string(),
        "u64" | "usize" => format!("a whole number from 0 to {} (the largest TOML integer)", TOML_INT_MAX),
        "i32" => "a whole number from -2147483648 to 2147483647".to_string(),
        "i64" => format!(
            "a whole number from -9223372036854775808 to {} (TOML integers are 64-bit)",
            TOML_INT_MAX
        ),
        other => other.to_string(),
    };
    Some(format!("`{}` = {} is out of range: expected {}", name, value, range))
}

/// 1-based line and column (in characters) of byte offset `pos`.
pub(crate) fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(text.len());
    let before = &text[..text.floor_char_boundary_compat(pos)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}
impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while i > 0 && !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

/// From serde's "unknown field `x`, expected one of `a`, `b`" (a misspelled key) or "unknown
/// variant `x`, expected `a` or `b`" (a misspelled value of a named enum, see
/// [`crate::named`]) extracts ("x", ["a", "b"]).
fn parse_unknown_name(msg: &str) -> Option<(String, Vec<String>)> {
    let rest = msg
        .strip_prefix("unknown field `")
        .or_else(|| msg.strip_prefix("unknown variant `"))?;
    let end = rest.find('`')?;
    let unknown = rest[..end].to_string();
    let expected: Vec<String> = rest[end + 1..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    Some((unknown, expected))
}

/// The error `message` at the line and column of the key `keys` (e.g. `["target", "metric"]`)
/// of protocol `path` with source `text` (line 1 when the key is absent).
pub fn error_at_key(path: &Path, text: &str, keys: &[&str], message: impl std::fmt::Display) -> Error {
    let segs: Vec<PathSeg> = keys.iter().map(|k| PathSeg::Key(k.to_string())).collect();
    let (line, col) = locate(text, &segs).unwrap_or((1, 1));
    Error::at_col(path, line, col, message)
}

/// Line and column of the value at `path` in the TOML source.
fn locate(text: &str, path: &[PathSeg]) -> Option<(usize, usize)> {
    let doc = toml_edit::ImDocument::parse(text.to_owned()).ok()?;
    let mut item: &toml_edit::Item = doc.as_item();
    let mut last_span = None;
    for seg in path {
        let next = match seg {
            PathSeg::Key(k) => item.get(k.as_str()),
            PathSeg::Index(i) => item.get(*i),
        };
        match next {
            Some(n) => {
                item = n;
                if let Some(s) = item.span() {
                    last_span = Some(s);
                }
            }
            None => break,
        }
    }
    last_span.map(|s| line_col(text, s.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_out_of_range_integer_names_the_key_and_the_range() {
        let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocols/hotpotqa.toml")).unwrap();
        assert!(base.contains("max-per-component = 4\n"));
        let at = |v: &str| {
            let text = base.replace("max-per-component = 4\n", &format!("max-per-component = {v}\n"));
            parse(&text, Path::new("p.toml")).unwrap_err().message
        };
        // Line 29, column 21 of protocols/hotpotqa.toml: `max-per-component = ` is 20 characters.
        let range = "is out of range: expected a whole number from 0 to 4294967295";
        assert_eq!(
            at("99999999999999999999"),
            format!("p.toml:29:21: `components.max-per-component` = 99999999999999999999 {range}")
        );
        assert_eq!(
            at("5000000000"),
            format!("p.toml:29:21: `components.max-per-component` = 5000000000 {range}")
        );
        assert_eq!(
            at("-3"),
            format!("p.toml:29:21: `components.max-per-component` = -3 {range}")
        );
        // analysis.seed is a u64: TOML's own limit is the range.
        let text = base.replace("seed = 20261130", "seed = 18446744073709551615");
        assert_eq!(
            parse(&text, Path::new("p.toml")).unwrap_err().message,
            "p.toml:66:8: `analysis.seed` = 18446744073709551615 is out of range: expected a whole number from 0 to 9223372036854775807 (the largest TOML integer)"
        );
    }

    #[test]
    fn unknown_field_hint() {
        let (u, e) = parse_unknown_name("unknown field `alpah`, expected one of `alpha`, `power`").unwrap();
        assert_eq!(u, "alpah");
        assert_eq!(e, vec!["alpha", "power"]);
        assert_eq!(crate::named::closest(&u, &e), Some("alpha"));
        let (u, e) = parse_unknown_name("unknown variant `holn`, expected `none` or `holm`").unwrap();
        assert_eq!((u.as_str(), e), ("holn", vec!["none".to_string(), "holm".to_string()]));
    }

    #[test]
    fn line_col_counts_chars() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
    }
}
