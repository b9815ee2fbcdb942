//! The RFC 8785 JSON Canonicalization Scheme (JCS): a portable canonical form that any language's
//! JCS library reproduces, so a JSON rewrite that keeps values (e.g. `0.0` written as `0`, keys
//! reordered, `\u00e9` for `é`) keeps the hash.
//!
//! Rules (RFC 8785 section 3.2): no insignificant whitespace; object members sorted by their
//! names' UTF-16 code units (not UTF-8 bytes, not locale); strings with the minimal escaping of
//! ECMAScript's `JSON.stringify` (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other controls below
//! U+0020 as `\u00xx` with lowercase hex, everything else literal UTF-8, `/` unescaped); every
//! number as the IEEE 754 double it denotes, written as ECMAScript's `Number.prototype.toString`
//! does (`0.0` → `0`, `-0` → `0`, `1e21` → `1e+21`, `1e-7` → `1e-7`, `5e-324`, integers above
//! 2^53 rounded to the nearest double, e.g. `9007199254740993` → `9007199254740992`).
//!
//! The work is done by the `serde_json_canonicalizer` crate (numbers through `ryu-js`); this module
//! pins it behind a small API and tests it against RFC 8785's examples, the test data of the
//! reference implementation (cyberphone/json-canonicalization) and 10,000 number vectors.

use crate::error::{Error, Result};

/// The RFC 8785 canonical bytes of `value` (UTF-8, no trailing newline).
///
/// A `serde_json::Value` cannot hold NaN or an infinity, so this does not fail on any value
/// built by parsing JSON; the error (internal, exit 70) exists only because the underlying
/// serializer is fallible.
pub fn canonical_bytes(value: &serde_json::Value) -> Result<Vec<u8>> {
    serde_json_canonicalizer::to_vec(value)
        .map_err(|e| Error::internal("writing the RFC 8785 canonical form").caused_by(e))
}

/// Lowercase hex SHA-256 (64 characters) of [`canonical_bytes`] of `value`.
///
/// Errors: as [`canonical_bytes`].
pub fn sha256_hex(value: &serde_json::Value) -> Result<String> {
    Ok(crate::io::sha256_hex(&canonical_bytes(value)?))
}

/// Parses JSON `text` and returns its RFC 8785 canonical bytes. `what` names the source in errors.
///
/// Errors (exit 2): `text` is not JSON (the line and column are named), or holds a lone UTF-16
/// surrogate escape (RFC 8785 requires valid Unicode).
pub fn canonicalize_text(text: &str, what: &str) -> Result<Vec<u8>> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::input(format!("{}: not JSON (RFC 8785 canonicalizes JSON values)", what)).caused_by(e))?;
    canonical_bytes(&v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jcs(text: &str) -> String {
        String::from_utf8(canonicalize_text(text, "test").unwrap()).unwrap()
    }

    /// The example of RFC 8785 section 3.2.2 and its expected output (section 3.2.3), and the
    /// UTF-16 sorting example of section 3.2.3.
    #[test]
    fn rfc_8785_examples() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            jcs(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        let sorting = r#"{
          "\u20ac": "Euro Sign",
          "\r": "Carriage Return",
          "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One",
          "\ud83d\ude00": "Emoji: Grinning Face",
          "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let got = jcs(sorting);
        let order: Vec<usize> = [
            "Carriage Return",
            "One",
            "Control",
            "Latin Small Letter O With Diaeresis",
            "Euro Sign",
            "Emoji: Grinning Face",
            "Hebrew Letter Dalet With Dagesh",
        ]
        .iter()
        .map(|name| got.find(name).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", got);
    }

    /// UTF-16 order differs from UTF-8 byte order for a supplementary-plane character against
    /// U+E000..U+FFFF: U+1F600 (UTF-16 D83D DE00) sorts before U+FB33, though its UTF-8 bytes
    /// (F0 ..) sort after (EF ..).
    #[test]
    fn members_sort_by_utf16_code_units() {
        assert_eq!(
            jcs(r#"{"\ufb33":1,"\ud83d\ude00":2}"#),
            "{\"\u{1F600}\":2,\"\u{FB33}\":1}"
        );
        assert_eq!(
            jcs(r#"{"b":1,"a":{"d":1,"c":2},"A":0}"#),
            r#"{"A":0,"a":{"c":2,"d":1},"b":1}"#
        );
    }

    #[test]
    fn values_that_standard_tools_rewrite_keep_their_form() {
        // What `jq -S` or a JavaScript round trip writes for the same values.
        assert_eq!(
            jcs(r#"{"x":0.0,"y":-0.0,"z":1.50,"w":1E2}"#),
            r#"{"w":100,"x":0,"y":0,"z":1.5}"#
        );
        assert_eq!(
            sha256_hex(&json!({"x": 0.0})).unwrap(),
            sha256_hex(&json!({"x": 0})).unwrap()
        );
        assert_eq!(jcs("9007199254740993"), "9007199254740992");
        assert_eq!(jcs("18446744073709551615"), "18446744073709552000");
        assert_eq!(jcs("-9223372036854775808"), "-9223372036854776000");
        assert_eq!(jcs("1e21"), "1e+21");
        assert_eq!(jcs("1e20"), "100000000000000000000");
        assert_eq!(jcs("0.000001"), "0.000001");
        assert_eq!(jcs("0.0000001"), "1e-7");
        assert_eq!(jcs("5e-324"), "5e-324");
        assert_eq!(jcs("\"\\u001f\\u007f\\t/\""), "\"\\u001f\u{7f}\\t/\"");
        assert_eq!(jcs("\"A\\u030a\""), "\"A\u{30a}\""); // no Unicode normalization
                                                         // The hash is over exactly these bytes.
        assert_eq!(
            sha256_hex(&json!({"b": [1, 2.5], "a": "x"})).unwrap(),
            crate::io::sha256_hex(br#"{"a":"x","b":[1,2.5]}"#)
        );
    }

    #[test]
    fn bad_input_is_an_input_error() {
        let e = canonicalize_text("{\"a\":", "entry.json").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message.contains("entry.json"));
        assert!(canonicalize_text(r#""\ud800""#, "x").is_err());
        assert!(canonicalize_text("NaN", "x").is_err());
    }

    fn data(rel: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/jcs")
            .join(rel)
    }

    /// The input/output pairs of the reference implementation's test data (see
    /// tests/data/jcs/PROVENANCE.txt): six files covering arrays, locale-independent sorting,
    /// nested structures, unnormalized Unicode, values and control characters.
    #[test]
    fn reference_test_data() {
        let names = ["arrays", "french", "structures", "unicode", "values", "weird"];
        for name in names {
            let input = std::fs::read_to_string(data(&format!("input/{}.json", name))).unwrap();
            let want = std::fs::read(data(&format!("output/{}.json", name))).unwrap();
            let got = canonicalize_text(&input, name).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{}",
                name
            );
        }
    }

    /// 10,000 IEEE 754 doubles (the first lines of the reference implementation's ES6 number test
    /// sequence: edge cases, 2,000 consecutive subnormal-boundary values, then pseudo-random
    /// bit patterns) against ECMAScript's own serialization of each.
    #[test]
    fn es6_number_vectors() {
        let text = std::fs::read_to_string(data("es6-numbers-10000.txt")).unwrap();
        let mut n = 0;
        for line in text.lines() {
            let (hex, want) = line.split_once(',').unwrap();
            let x = f64::from_bits(u64::from_str_radix(hex, 16).unwrap());
            let v = serde_json::Value::from(x);
            let got = String::from_utf8(canonical_bytes(&v).unwrap()).unwrap();
            assert_eq!(got, want, "bits {}", hex);
            // The same double written as serde_json writes it, parsed back: the same JCS text.
            let reparsed = canonicalize_text(&serde_json::to_string(&v).unwrap(), hex).unwrap();
            assert_eq!(String::from_utf8(reparsed).unwrap(), want, "bits {} via text", hex);
            n += 1;
        }
        assert_eq!(n, 10_000);
    }

    /// The interpreter for the independent verifier: `PLEDGE_TEST_PYTHON` (e.g. a venv with the
    /// `rfc8785` package installed), else `python3`.
    fn python() -> String {
        std::env::var("PLEDGE_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
    }

    fn run_verifier(args: &[&str]) -> Option<(i32, String, String)> {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/jcs_sha256.py");
        let out = std::process::Command::new(python())
            .arg(script)
            .args(args)
            .output()
            .ok()?;
        Some((
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    /// tools/jcs_sha256.py, a verifier outside Rust (Python's standard library; and the `rfc8785`
    /// PyPI package when installed), recomputes the same hashes for entry-like objects, the
    /// reference test data and numbers at the edges. Skipped with a note without python3.
    #[test]
    fn the_independent_python_verifier_agrees() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/jcs_sha256.py");
        if !crate::test_tools::available(&python(), &[script, "--help"]) {
            return;
        }
        let mut values: Vec<serde_json::Value> = vec![
            json!({"seq": 1, "kind": "register", "summary": {"mean": 0.0, "delta": -0.25, "n": 1e21, "tiny": 5e-324},
                   "study_id": "s\u{e9}\n\u{1F600}\u{FB33}", "inputs": {"b": "x", "a": null, "\u{80}": [true, false]}}),
            json!([
                9007199254740993u64,
                -0.0,
                1.5e-7,
                123456789012345680000.0,
                "\u{1f}\u{7f}"
            ]),
        ];
        for name in ["arrays", "french", "structures", "unicode", "values", "weird"] {
            let t = std::fs::read_to_string(data(&format!("input/{}.json", name))).unwrap();
            values.push(serde_json::from_str(&t).unwrap());
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("values.jsonl");
        let mut text = String::new();
        let mut want = String::new();
        for (i, v) in values.iter().enumerate() {
            text.push_str(&serde_json::to_string(v).unwrap());
            text.push('\n');
            want.push_str(&format!("{}\t{}\n", i + 1, sha256_hex(v).unwrap()));
        }
        std::fs::write(&file, &text).unwrap();
        let f = file.to_str().unwrap();
        let (code, out, err) = run_verifier(&[f, "--impl", "stdlib"]).unwrap();
        assert_eq!((code, out.as_str()), (0, want.as_str()), "{}", err);
        match run_verifier(&[f, "--impl", "rfc8785"]).unwrap() {
            (0, out, _) => assert_eq!(out, want),
            (_, _, err) => crate::test_tools::unavailable(
                "the rfc8785 Python package (PLEDGE_TEST_PYTHON names a Python that has it)",
                &format!("only the stdlib verifier ran: {}", err.trim()),
            ),
        }
        // Export-like lines: hash `entry` without `entry_sha256`, compare with it.
        let entry = json!({"seq": 1, "x": 0.5});
        let h = sha256_hex(&entry).unwrap();
        let mut with = entry.clone();
        with["entry_sha256"] = json!(h);
        let mut forged = with.clone();
        forged["x"] = json!(0.25);
        let lines = format!("{}\n{}\n", json!({"entry": with}), json!({"entry": forged}));
        std::fs::write(&file, lines).unwrap();
        let (code, out, _) = run_verifier(&[
            f,
            "--impl",
            "stdlib",
            "--select",
            "entry",
            "--drop",
            "entry_sha256",
            "--expect",
            "entry_sha256",
        ])
        .unwrap();
        assert_eq!(code, 1);
        assert_eq!(
            out.lines().map(|l| l.rsplit('\t').next().unwrap()).collect::<Vec<_>>(),
            ["ok", "MISMATCH"]
        );
        // Bad input: file and line named, exit 2.
        std::fs::write(&file, "{\"a\":1}\n{\"a\":1,\"a\":2}\n").unwrap();
        let (code, _, err) = run_verifier(&[f, "--impl", "stdlib"]).unwrap();
        assert_eq!(code, 2);
        assert!(err.contains(":2: duplicate member name"), "{}", err);
    }
}
