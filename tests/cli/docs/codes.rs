//! The exit-code table (from `pledge::error::exit`'s constants and their doc comments) and the
//! finding-code tables (from `pledge::ledger::FindingCode`'s values and their doc comments).

use super::{cell, source, source_text};
use pledge::named::Named;

/// The exit codes, one row each, from `src/error.rs`'s `pub mod exit`.
pub fn exit_codes() -> String {
    let text = source_text("src/error.rs");
    let start = text.find("pub mod exit {").expect("src/error.rs has `pub mod exit {`");
    let end = start + text[start..].find("\n}").expect("the exit module ends");
    let items = source::read(&text[start + "pub mod exit {".len()..end]);
    assert!(!items.consts.is_empty(), "no exit code constants found in src/error.rs");
    let mut rows: Vec<(u8, String, String)> = items
        .consts
        .iter()
        .map(|c| {
            let code: u8 = c
                .value
                .parse()
                .unwrap_or_else(|_| panic!("exit::{} = {} is not a number", c.name, c.value));
            assert!(!c.doc.is_empty(), "exit::{} has no doc comment", c.name);
            (code, c.name.clone(), c.doc.clone())
        })
        .collect();
    rows.sort();
    let mut out = String::from("| code | constant | meaning |\n|-----:|----------|---------|\n");
    for (code, name, doc) in rows {
        out.push_str(&format!("| {} | `exit::{}` | {} |\n", code, name, cell(&doc)));
    }
    out
}

/// The finding codes and the note codes, each a table, from `src/ledger/finding.rs`.
pub fn finding_codes() -> String {
    let items = source::read(&source_text("src/ledger/finding.rs"));
    let (_, _, variants) = items
        .enumeration("FindingCode")
        .expect("FindingCode in src/ledger/finding.rs");
    let names: Vec<&str> = variants.iter().filter_map(|v| v.text.as_deref()).collect();
    assert_eq!(
        names,
        pledge::ledger::FindingCode::NAMES,
        "the source reader and the FindingCode enum disagree"
    );
    let mut findings = String::from("| code | what it means |\n|------|---------------|\n");
    let mut notes = findings.clone();
    for v in variants {
        assert!(!v.doc.is_empty(), "FindingCode::{} has no doc comment", v.name);
        let name = v.text.as_deref().unwrap_or_default();
        match v.doc.strip_prefix("Note: ") {
            Some(doc) => notes.push_str(&format!("| `{}` | {} |\n", name, cell(&capitalize(doc)))),
            None => findings.push_str(&format!("| `{}` | {} |\n", name, cell(&v.doc))),
        }
    }
    format!(
        "### Findings\n\nA finding fails verification (exit 1).\n\n{}\n### Notes\n\nA note leaves the ledger verifying; it says what a reviewer should know.\n\n{}",
        findings, notes
    )
}

/// `s` with its first letter upper-case.
fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
