//! A small reader of Rust source for the reference generators: the doc comments of structs and
//! their fields, of enums and their variants (`named_enum!` ones with their names), and of
//! constants. It reads the declarations as this crate writes them (rustfmt's layout: one field,
//! variant or attribute a line), which is all the generators need.

/// A struct field: its Rust name, type, doc text and whether serde fills it when absent.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub doc: String,
    pub serde_default: bool,
}

/// An enum variant: its Rust name, its `named_enum!` name or tuple type, and its doc text.
#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub text: Option<String>,
    pub ty: Option<String>,
    pub doc: String,
}

/// A constant: its name, value and doc text.
#[derive(Debug, Clone)]
pub struct Const {
    pub name: String,
    pub value: String,
    pub doc: String,
}

/// What a source file declares.
#[derive(Debug, Default)]
pub struct Items {
    pub structs: Vec<(String, String, Vec<Field>)>,
    pub enums: Vec<(String, String, Vec<Variant>)>,
    pub consts: Vec<Const>,
}

impl Items {
    /// The fields of struct `name`.
    pub fn structure(&self, name: &str) -> Option<&(String, String, Vec<Field>)> {
        self.structs.iter().find(|s| s.0 == name)
    }

    /// The variants of enum `name`.
    pub fn enumeration(&self, name: &str) -> Option<&(String, String, Vec<Variant>)> {
        self.enums.iter().find(|e| e.0 == name)
    }
}

/// What the reader is inside of.
enum Block {
    Top,
    Struct(String, String, Vec<Field>),
    Enum(String, String, Vec<Variant>),
}

/// Reads the items of `text` (the source of one file).
pub fn read(text: &str) -> Items {
    let mut items = Items::default();
    let mut doc: Vec<String> = Vec::new();
    let mut serde_default = false;
    let mut block = Block::Top;
    for line in text.lines() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
            continue;
        }
        if t.starts_with("#[") {
            serde_default |= t.starts_with("#[serde(default");
            continue;
        }
        let text_doc = join_doc(&doc);
        block = step(block, t, text_doc, serde_default, &mut items);
        doc.clear();
        serde_default = false;
    }
    items
}

/// One declaration line `t` (with the doc and attributes above it) in `block`.
fn step(block: Block, t: &str, doc: String, serde_default: bool, items: &mut Items) -> Block {
    match block {
        Block::Top => {
            if let Some(name) = decl_name(t, "struct ") {
                return Block::Struct(name, doc, Vec::new());
            }
            if let Some(name) = decl_name(t, "enum ") {
                return Block::Enum(name, doc, Vec::new());
            }
            if let Some(c) = constant(t, doc) {
                items.consts.push(c);
            }
            Block::Top
        }
        Block::Struct(name, sdoc, mut fields) => {
            if t == "}" {
                items.structs.push((name, sdoc, fields));
                return Block::Top;
            }
            if let Some((field, ty)) = t.strip_prefix("pub ").and_then(|r| r.split_once(": ")) {
                let ty = ty.trim_end_matches(',').to_string();
                fields.push(Field {
                    name: field.to_string(),
                    ty,
                    doc,
                    serde_default,
                });
            }
            Block::Struct(name, sdoc, fields)
        }
        Block::Enum(name, edoc, mut variants) => {
            if t == "}" {
                items.enums.push((name, edoc, variants));
                return Block::Top;
            }
            if let Some(v) = variant(t, doc) {
                variants.push(v);
            }
            Block::Enum(name, edoc, variants)
        }
    }
}

/// The name declared by `pub struct NAME {` / `pub enum NAME {` (or without `pub`).
fn decl_name(t: &str, kw: &str) -> Option<String> {
    let rest = t.strip_prefix("pub ").unwrap_or(t).strip_prefix(kw)?;
    let rest = rest.strip_suffix('{')?.trim();
    rest.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then(|| rest.to_string())
}

/// `pub const NAME: TYPE = VALUE;`
fn constant(t: &str, doc: String) -> Option<Const> {
    let rest = t.strip_prefix("pub const ")?;
    let (name, rest) = rest.split_once(':')?;
    let (_, value) = rest.split_once('=')?;
    let value = value.trim().trim_end_matches(';').to_string();
    Some(Const {
        name: name.trim().to_string(),
        value,
        doc,
    })
}

/// `Variant = "name",`, `Variant(Type),` or `Variant,`.
fn variant(t: &str, doc: String) -> Option<Variant> {
    let t = t.trim_end_matches(',');
    if let Some((name, text)) = t.split_once(" = ") {
        let text = text.trim().trim_matches('"').to_string();
        return Some(Variant {
            name: name.to_string(),
            text: Some(text),
            ty: None,
            doc,
        });
    }
    if let Some((name, ty)) = t.split_once('(') {
        let ty = ty.trim_end_matches(')').to_string();
        return Some(Variant {
            name: name.to_string(),
            text: None,
            ty: Some(ty),
            doc,
        });
    }
    let ident = !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
    ident.then(|| Variant {
        name: t.to_string(),
        text: None,
        ty: None,
        doc,
    })
}

/// Doc lines joined into one line of Markdown: paragraphs joined by a space, rustdoc's
/// intra-doc links (``[`x`](path)``, ``[`path`]``) turned into their code text.
pub fn join_doc(lines: &[String]) -> String {
    let joined = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    strip_intra_doc_links(&joined)
}

/// ``[`x`](path)`` → `` `x` ``, ``[`path`]`` → `` `path` ``; other text unchanged.
fn strip_intra_doc_links(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("[`") {
        let Some(j) = rest[i + 2..].find("`]") else { break };
        let code = &rest[i + 1..i + 2 + j + 1];
        out.push_str(&rest[..i]);
        out.push_str(code);
        rest = &rest[i + 2 + j + 2..];
        if rest.starts_with('(') {
            if let Some(k) = rest.find(')') {
                rest = &rest[k + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn source_reader_reads_structs_enums_and_consts() {
    let src = "/// A thing.\npub struct Thing {\n    /// Its size, see [`crate::x`].\n    #[serde(default)]\n    pub size: Option<u32>,\n    pub name: String,\n}\ncrate::named_enum! {\n    /// A kind.\n    pub enum Kind {\n        /// First\n        /// kind.\n        First = \"first\",\n    }\n}\npub enum R {\n    /// A count.\n    Count(u64),\n}\n/// Zero.\npub const OK: u8 = 0;\n";
    let items = read(src);
    let (name, doc, fields) = items.structure("Thing").unwrap();
    assert_eq!((name.as_str(), doc.as_str()), ("Thing", "A thing."));
    assert_eq!(fields[0].doc, "Its size, see `crate::x`.");
    assert_eq!((fields[0].ty.as_str(), fields[0].serde_default), ("Option<u32>", true));
    assert_eq!((fields[1].name.as_str(), fields[1].serde_default), ("name", false));
    let kind = items.enumeration("Kind").unwrap();
    assert_eq!(kind.2[0].text.as_deref(), Some("first"));
    assert_eq!(kind.2[0].doc, "First kind.");
    assert_eq!(items.enumeration("R").unwrap().2[0].ty.as_deref(), Some("u64"));
    assert_eq!(
        (items.consts[0].name.as_str(), items.consts[0].value.as_str()),
        ("OK", "0")
    );
    assert_eq!(
        strip_intra_doc_links("see [`Ledger`](crate::ledger::Ledger) now"),
        "see `Ledger` now"
    );
}
