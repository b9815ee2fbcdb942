//! Integration tests: protocol files.

/// Every example protocol in `protocols/` parses and validates.
#[test]
fn every_example_protocol_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) == Some("toml") {
            pledge::protocol::load(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
            n += 1;
        }
    }
    assert!(n >= 2, "expected at least two example protocols, found {}", n);
}

use crate::common::Env;

const VALID: &str = "schema-version = 1

[study]
id = \"s\"
title = \"t\"
registered-by = \"test\"

[target]
metric = \"accuracy\"
mde = 0.1
alpha = 0.05
power = 0.8

[[link-rules]]
name = \"near\"
kind = \"near-duplicate-passage\"
jaccard = 0.8
";

/// Registers `text` as `p.toml` in a fresh ledger and checks the one-line `error:` (exit 2,
/// `p.toml:LINE:COL:` and `needle`), that the ledger stays empty, and returns stderr.
fn bad(text: &str, line_col: &str, needle: &str) -> String {
    let env = Env::init();
    env.write("p.toml", text);
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "stderr: {}", r.stderr);
    let first = r.stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error: "), "{}", r.stderr);
    assert!(first.contains(&format!("p.toml:{}: ", line_col)), "{}", r.stderr);
    assert!(first.contains(needle), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // Nothing was written to the ledger.
    assert_ne!(env.git(&["rev-parse", "--verify", "-q", "refs/pledge/ledger"]).code, 0);
    r.stderr
}

#[test]
fn the_valid_base_protocol_registers() {
    let env = Env::init();
    env.write("p.toml", VALID);
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn unknown_key_names_key_line_column_and_close_match() {
    let err = bad(
        &VALID.replace("alpha = 0.05", "alpah = 0.05"),
        "11:1",
        "unknown key `alpah`",
    );
    assert!(err.contains("hint: did you mean `alpha`?"), "{}", err);
    let table = bad(&VALID.replace("[target]", "[targt]"), "8:2", "unknown key `targt`");
    assert!(table.contains("hint: did you mean `target`?"), "{}", table);
    // No close match: no hint.
    let far = bad(&VALID.replace("alpha = 0.05", "zzz = 1"), "11:1", "unknown key `zzz`");
    assert!(!far.contains("hint:"), "{}", far);
}

#[test]
fn invalid_toml_is_one_line_with_position() {
    let err = bad(&VALID.replace("[target]", "[target"), "8:8", "invalid table header");
    assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 1);
    bad(&VALID.replace("mde = 0.1", "mde = "), "10:7", "");
}

#[test]
fn values_out_of_range_name_their_line() {
    bad(
        &VALID.replace("alpha = 0.05", "alpha = 1.5"),
        "11:9",
        "target.alpha must be in (0, 1), got 1.5",
    );
    bad(
        &VALID.replace("alpha = 0.05", "alpha = 0"),
        "11:9",
        "target.alpha must be in (0, 1)",
    );
    bad(
        &VALID.replace("power = 0.8", "power = 1.0"),
        "12:9",
        "target.power must be in (0, 1), got 1",
    );
    bad(
        &VALID.replace("mde = 0.1", "mde = -0.1"),
        "10:7",
        "target.mde must be > 0",
    );
    bad(
        &VALID.replace("jaccard = 0.8", "jaccard = 0"),
        "17:11",
        "jaccard must be in (0, 1], got 0",
    );
    bad(
        &VALID.replace("jaccard = 0.8", "jaccard = 1.01"),
        "17:11",
        "jaccard must be in (0, 1]",
    );
    bad(
        &VALID.replace("alpha = 0.05", "alpha = nan"),
        "11:9",
        "target.alpha must be in (0, 1)",
    );
}

#[test]
fn wrong_type_and_missing_key() {
    bad(&VALID.replace("alpha = 0.05", "alpha = \"x\""), "11:9", "invalid type");
    bad(
        &VALID.replace("metric = \"accuracy\"\n", ""),
        "8:1",
        "missing key `metric`",
    );
    bad(
        &VALID.replace("schema-version = 1", "schema-version = 3"),
        "1:18",
        "schema-version 3 is not supported",
    );
}

#[test]
fn missing_file_and_non_git_directory() {
    let env = Env::init();
    let r = env.run(&["register", "nope.toml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("error: ") && r.stderr.contains("nope.toml: no such file"),
        "{}",
        r.stderr
    );
    let plain = Env::new();
    plain.write("p.toml", VALID);
    let r = plain.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not inside a git repository"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: run `pledge init`"), "{}", r.stderr);
    assert!(!plain.join(".git").exists());
}

#[test]
fn verify_with_an_invalid_protocol_is_bad_input() {
    let env = Env::init();
    env.write("p.toml", VALID.replace("alpha = 0.05", "alpha = 2"));
    let r = env.run(&["verify", "p.toml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("p.toml:11:9:"), "{}", r.stderr);
}

/// `[witness] tsa` (format 2): a URL that is not http(s) with a host is exit 2 at the key; in a
/// format-1 file the table is refused; an unknown key of the table is named.
#[test]
fn the_witness_tsa_key_is_checked_at_its_line() {
    let v2 = VALID.replace("schema-version = 1", "schema-version = 2");
    let with = |url: &str| format!("{}\n[witness]\ntsa = \"{}\"\n", v2, url);
    for url in [
        "ftp://example.org/tsr",
        "https://",
        "timestamp.digicert.com",
        "http://a b/",
    ] {
        let err = bad(
            &with(url),
            "20:7",
            "witness.tsa must be an http:// or https:// URL with a host",
        );
        assert_eq!(
            err.lines().next().unwrap().split("p.toml:20:7: ").nth(1).unwrap(),
            format!(
                "witness.tsa must be an http:// or https:// URL with a host, e.g. https://freetsa.org/tsr, got `{}`",
                url
            )
        );
    }
    bad(
        &format!("{}\n[witness]\ntsa = \"https://freetsa.org/tsr\"\n", VALID),
        "19:1",
        "[witness] needs schema-version = 2",
    );
    let err = bad(
        &format!("{}\n[witness]\nurl = \"x\"\n", v2),
        "20:1",
        "unknown key `url`",
    );
    assert!(err.contains("expected `tsa`"), "{}", err);
    // A good URL parses (registering with it asks the TSA: tests/cli/witness.rs, on loopback).
    let p = pledge::protocol::parse(&with("https://freetsa.org/tsr"), std::path::Path::new("p.toml")).unwrap();
    assert_eq!(p.witness.unwrap().tsa.as_deref(), Some("https://freetsa.org/tsr"));
}

/// A misspelled value of a named enum (protocol or flag) gets the closest valid one as a hint.
#[test]
fn a_misspelled_enum_value_gets_the_closest_one() {
    let err = bad(
        &VALID.replace("kind = \"near-duplicate-passage\"", "kind = \"near-duplicate-pasage\""),
        "16:8",
        "unknown variant `near-duplicate-pasage`",
    );
    assert!(
        err.contains("\nhint: did you mean `near-duplicate-passage`?"),
        "{}",
        err
    );
    let far = bad(
        &VALID.replace("kind = \"near-duplicate-passage\"", "kind = \"zzz\""),
        "16:8",
        "unknown variant `zzz`",
    );
    assert!(!far.contains("hint:"), "{}", far);
}

/// An integer too large for its key (or for TOML's 64 bits) names the key, the value and the
/// allowed range at its line and column.
#[test]
fn an_integer_out_of_range_names_the_key_and_the_range() {
    let with = |table: &str| format!("{VALID}{table}");
    bad(
        &with("\n[components]\nunit = \"doc\"\nmax-per-component = 99999999999999999999\n"),
        "21:21",
        "`components.max-per-component` = 99999999999999999999 is out of range: expected a whole number from 0 to 4294967295",
    );
    bad(
        &with("\n[components]\nunit = \"doc\"\nmax-per-component = 4294967296\n"),
        "21:21",
        "`components.max-per-component` = 4294967296 is out of range: expected a whole number from 0 to 4294967295",
    );
    bad(
        &with("\n[analysis]\nseed = 18446744073709551616\n"),
        "20:8",
        "`analysis.seed` = 18446744073709551616 is out of range: expected a whole number from 0 to 9223372036854775807 (the largest TOML integer)",
    );
}
