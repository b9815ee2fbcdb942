//! The protocol-key reference, from the protocol types of `src/protocol/mod.rs`: every key (the
//! kebab-case field name), its type (enum keys list their values), its default (what serde fills
//! in, read from a parsed minimal protocol; `required` when serde fills nothing; a doc comment's
//! closing `Default: ...` sentence where the default is computed later) and its doc comment.

use super::source::{self, Field, Items};
use super::{cell, source_text};
use serde_json::Value;

/// A protocol with every table present and only the required keys, so that serializing it
/// shows what serde fills in for every other key.
const MINIMAL: &str = r#"
schema-version = 2
[study]
id = "s"
title = "t"
registered-by = "r"
[target]
metric = "accuracy"
mde = 0.1
[[link-rules]]
name = "n"
kind = "near-duplicate-passage"
[[splits]]
name = "final"
required-components = 10
[scores]
[[hypotheses]]
name = "h"
system = "a"
comparator = "b"
direction = "greater"
[topic-filter]
[witness]
[[contamination-rules]]
name = "c"
fingerprint = "f"
fingerprint-sha256 = "h"
key-sha256 = "k"
threshold = 0.5
[build]
attempts = 2
attempt-may-change = ["anything"]
[repair-trace]
threshold = 0.6
"#;

/// The reference: the top-level keys, then one table per protocol table.
pub fn generate() -> String {
    let items = source::read(&source_text("src/protocol/mod.rs"));
    let parsed: pledge::protocol::Protocol = toml::from_str(MINIMAL).expect("the minimal protocol parses");
    let defaults = serde_json::to_value(&parsed).expect("a protocol serializes");
    let (_, _, fields) = items.structure("Protocol").expect("struct Protocol");
    let mut top = Vec::new();
    let mut sections = String::new();
    for f in fields {
        let key = kebab(&f.name);
        match table_of(&f.ty, &items) {
            Some((inner, array)) => {
                let header = if array {
                    format!("[[{}]]", key)
                } else {
                    format!("[{}]", key)
                };
                sections.push_str(&section(&header, f, inner, &items, &defaults[&key], array));
            }
            None => top.push(row(f, &items, &defaults[&key], &key)),
        }
    }
    format!("### Top level\n\n{}{}\n{}", TABLE_HEAD, top.concat(), sections)
}

const TABLE_HEAD: &str = "| key | type | default | meaning |\n|-----|------|---------|---------|\n";

/// The struct a field's type names (`T`, `Option<T>`, `Vec<T>`), and whether it is an array of
/// tables; `None` for a scalar, a list of strings or an enum.
fn table_of<'a>(ty: &str, items: &'a Items) -> Option<(&'a str, bool)> {
    let (inner, array) = match ty.strip_prefix("Vec<").and_then(|t| t.strip_suffix('>')) {
        Some(t) => (t, true),
        None => (unwrap_option(ty), false),
    };
    items.structure(inner).map(|s| (s.0.as_str(), array))
}

/// One protocol table: its header, its doc and its keys.
fn section(header: &str, field: &Field, name: &str, items: &Items, defaults: &Value, array: bool) -> String {
    let (_, sdoc, fields) = items.structure(name).expect("struct");
    let doc = strip_header(if sdoc.is_empty() { &field.doc } else { sdoc }, header);
    let table = if array {
        defaults.get(0).unwrap_or(&Value::Null)
    } else {
        defaults
    };
    let mut out = format!("### `{}`\n\n{}\n\n{}", header, doc, TABLE_HEAD);
    for f in fields {
        let key = kebab(&f.name);
        if f.ty.contains("BTreeMap<") {
            let sub = format!("[{}.{}]", header.trim_matches(['[', ']']), key);
            out.push_str(&row(f, items, &table[&key], &sub));
            continue;
        }
        out.push_str(&row(f, items, &table[&key], &key));
    }
    out.push('\n');
    out
}

/// One key's row.
fn row(f: &Field, items: &Items, default: &Value, key: &str) -> String {
    assert!(!f.doc.is_empty(), "protocol field `{}` has no doc comment", f.name);
    let (doc, stated) = split_default(&f.doc);
    let required = !f.serde_default && !f.ty.starts_with("Option<");
    let default = match (stated, default) {
        (Some(s), Value::Null) => s,
        (Some(_), v) => panic!(
            "protocol field `{}` says `Default: ...` but serde fills in {}: say the default once (drop the sentence)",
            f.name, v
        ),
        (None, _) if required => "required".to_string(),
        (None, v) => show(v),
    };
    let mut meaning = doc;
    if let Some(values) = enum_values(unwrap_option(&f.ty), items) {
        meaning.push_str(&format!(" Values: {}", values));
    }
    format!(
        "| `{}` | {} | {} | {} |\n",
        key,
        cell(&type_name(&f.ty, items)),
        cell(&default),
        cell(meaning.trim())
    )
}

/// A table's doc without the table's name it starts with: "`[study]`: identity of the study."
/// under the heading `[study]` reads "Identity of the study."
fn strip_header(doc: &str, header: &str) -> String {
    let name = format!("`{}`", header);
    match doc.strip_prefix(&name) {
        Some(rest) => match rest.trim().strip_prefix("(format 2):") {
            Some(r) => format!("Format 2. {}", capitalize(r.trim())),
            None => capitalize(rest.trim_start_matches(':').trim()),
        },
        None => doc.to_string(),
    }
}

/// `s` with its first letter upper-case.
fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A doc text without its closing `Default: X.` sentence, and X.
fn split_default(doc: &str) -> (String, Option<String>) {
    match doc.rfind("Default: ") {
        Some(i) => {
            let stated = doc[i + "Default: ".len()..].trim().trim_end_matches('.').to_string();
            (doc[..i].trim().to_string(), Some(stated))
        }
        None => (doc.to_string(), None),
    }
}

/// The type as a reader says it: `integer`, `number`, `string`, `boolean`, a list, or an enum's
/// values.
fn type_name(ty: &str, items: &Items) -> String {
    let ty = unwrap_option(ty);
    match ty {
        "u8" | "u16" | "u32" | "u64" | "usize" => "integer".into(),
        "f64" | "f32" => "number".into(),
        "String" => "string".into(),
        "bool" => "boolean".into(),
        "Vec<String>" => "list of strings".into(),
        t if t.starts_with("Vec<") && t.ends_with('>') => format!("list of {}", type_name(&t[4..t.len() - 1], items)),
        t if t.contains("BTreeMap<String, f64>") => "table: label = number".into(),
        t => {
            let (_, _, variants) = items.enumeration(t).unwrap_or_else(|| {
                panic!(
                    "protocol type `{}` is not one the reference knows: teach tests/cli/docs/protocol.rs",
                    t
                )
            });
            let names: Vec<String> = variants
                .iter()
                .map(|v| match (&v.text, &v.ty) {
                    (Some(text), _) => format!("`{}`", text),
                    (None, Some(inner)) => type_name(inner, items),
                    (None, None) => v.name.clone(),
                })
                .collect();
            let sep = if variants.iter().all(|v| v.text.is_some()) {
                " | "
            } else {
                " or "
            };
            names.join(sep)
        }
    }
}

/// For a `named_enum!` type, each value with its doc: "`a`: doc. `b`: doc."
fn enum_values(ty: &str, items: &Items) -> Option<String> {
    let (_, _, variants) = items.enumeration(ty)?;
    variants.iter().all(|v| v.text.is_some()).then(|| {
        variants
            .iter()
            .map(|v| format!("`{}`: {}", v.text.as_deref().unwrap_or_default(), v.doc))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// A default value as a reader writes it in TOML.
fn show(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) if s.is_empty() => "`\"\"`".into(),
        Value::String(s) => format!("`{}`", s),
        Value::Array(a) if a.is_empty() => "`[]` (none)".into(),
        Value::Object(o) if o.is_empty() => "`{}` (none)".into(),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x != 0.0 && x.abs() < 1e-4 => format!("`{:e}`", x),
            _ => format!("`{}`", n),
        },
        v => format!("`{}`", v),
    }
}

/// `Option<T>` → `T`.
fn unwrap_option(ty: &str) -> &str {
    ty.strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(ty)
}

/// `max_per_component` → `max-per-component`.
fn kebab(name: &str) -> String {
    name.replace('_', "-")
}

#[test]
fn docs_protocol_default_sentence_is_split_off() {
    assert_eq!(
        split_default("Jaccard threshold in (0, 1]. Default: 0.8."),
        ("Jaccard threshold in (0, 1].".to_string(), Some("0.8".to_string()))
    );
    assert_eq!(
        split_default("No default here."),
        ("No default here.".to_string(), None)
    );
    assert_eq!(show(&serde_json::json!(1e-12)), "`1e-12`");
    assert_eq!(show(&serde_json::json!(0.05)), "`0.05`");
}
