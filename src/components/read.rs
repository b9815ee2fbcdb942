//! Reading the inputs of `pledge components`: passages and candidate questions.
//!
//! Layouts (detected from the content, gzip and a BOM accepted via [`crate::io::read_text`]):
//! - **pledge JSON Lines.** Passages `{"id", "text", ...}` one per line; questions
//!   `{"id", "passages": [ids], "decoys": [ids] | "decoy": id, ...}`. Other scalar fields (strings,
//!   numbers, booleans) are kept as strings for the component unit and shared-field rules.
//!   A passages file may also be a JSON array of such objects (`title` accepted for `id`, as the
//!   HippoRAG `*_corpus.json` files).
//! - **HotpotQA** (distractor setting; a JSON array, or one object per line): `_id` is the question
//!   id; each `context` entry `[title, [sentences]]` is a passage with id = title and text = the
//!   sentences concatenated as given (they carry their own leading spaces); the titles named in
//!   `supporting_facts` are the question's passages, every other context paragraph is a decoy
//!   (distractor). Other scalar fields (`type`, `level`, ...) are kept.
//! - **MuSiQue** (a JSON array, or one object per line): `id` is the question id; each
//!   `paragraphs` entry `{title, paragraph_text, is_supporting}` is a passage with id = title and
//!   text = `paragraph_text`; supporting paragraphs are the question's passages, the others its
//!   decoys.
//!
//! With a HotpotQA or MuSiQue questions file, `--passages` may be left out: the passages are the
//! paragraphs of the questions file. When a title occurs several times, the first text is kept and
//! the number of titles seen with a different text is reported ([`Corpus::conflicting_titles`]).
//!
//! Errors (exit 2, naming file and line, or file and record for JSON arrays): malformed JSON, a
//! missing `id`/`text`/`passages`, a duplicate passage or question id, a question naming a passage
//! that does not exist, an empty file.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Passage id (unique).
    pub id: String,
    /// Text as given (normalized later by the rule).
    pub text: String,
    /// Other scalar fields, as strings (e.g. `doc`).
    pub fields: BTreeMap<String, String>,
}

/// One candidate question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Question id (unique).
    pub id: String,
    /// Indices into [`Corpus::passages`] of the passages the question uses.
    pub passages: Vec<usize>,
    /// Indices into [`Corpus::passages`] of its decoys / distractors.
    pub decoys: Vec<usize>,
    /// Other scalar fields, as strings (e.g. `doc`, `type`).
    pub fields: BTreeMap<String, String>,
    /// Where it was read: `file:line` (JSON Lines) or `file: record N` (JSON array).
    pub loc: String,
}

crate::named_enum! {
    /// The layout a questions file was read in.
    pub enum Layout {
        /// pledge JSON Lines.
        Pledge = "pledge",
        /// HotpotQA distractor layout.
        Hotpotqa = "hotpotqa",
        /// MuSiQue layout.
        Musique = "musique",
    }
}

/// Passages and questions, cross-referenced by index.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// Passages in file order.
    pub passages: Vec<Passage>,
    /// Questions in file order.
    pub questions: Vec<Question>,
    /// Titles seen with differing texts in a HotpotQA/MuSiQue file (first text kept).
    pub conflicting_titles: usize,
}

/// Where a record came from: `file:line` for JSON Lines, `file: record N` for a JSON array.
#[derive(Clone, Copy)]
struct Loc<'a> {
    path: &'a Path,
    line: usize,
    array: bool,
}

impl Loc<'_> {
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        if self.array {
            Error::in_file(self.path, format!("record {}: {}", self.line, msg))
        } else {
            Error::at(self.path, self.line, msg)
        }
    }
}

/// A JSON object with its line (JSON Lines) or 1-based record number (JSON array).
type Record = (usize, Map<String, Value>);

/// Parses a file as JSON Lines, or as a JSON array when its first non-blank character is `[`.
/// Returns the records with their line (JSONL) or 1-based record number (array).
fn records(path: &Path) -> Result<(Vec<Record>, bool)> {
    let text = crate::io::read_text(path)?;
    let mut out = Vec::new();
    if text.trim_start().starts_with('[') {
        let v: Vec<Value> = serde_json::from_str(&text)
            .map_err(|e| Error::at(path, e.line(), "malformed JSON (expected an array of objects)").caused_by(e))?;
        for (i, r) in v.into_iter().enumerate() {
            match r {
                Value::Object(m) => out.push((i + 1, m)),
                _ => {
                    return Err(Error::in_file(
                        path,
                        format!("record {}: expected a JSON object", i + 1),
                    ))
                }
            }
        }
        return Ok((out, true));
    }
    for (n, line) in crate::io::lines(&text) {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => out.push((n, m)),
            Ok(_) => return Err(Error::at(path, n, "expected a JSON object")),
            Err(e) => return Err(Error::at(path, n, "malformed JSON (expected one JSON object per line)").caused_by(e)),
        }
    }
    Ok((out, false))
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn scalar_fields(m: &Map<String, Value>, skip: &[&str]) -> BTreeMap<String, String> {
    m.iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .filter_map(|(k, v)| scalar(v).map(|s| (k.clone(), s)))
        .collect()
}

fn str_field(m: &Map<String, Value>, key: &str, loc: Loc) -> Result<String> {
    match m.get(key) {
        Some(v) => scalar(v).ok_or_else(|| loc.err(format!("`{}` must be a string", key))),
        None => Err(loc.err(format!("missing `{}`", key))),
    }
}

fn id_list(m: &Map<String, Value>, key: &str, loc: Loc) -> Result<Vec<String>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| scalar(v).ok_or_else(|| loc.err(format!("`{}` must be a list of passage ids", key))))
            .collect(),
        Some(v) => scalar(v)
            .map(|s| vec![s])
            .ok_or_else(|| loc.err(format!("`{}` must be a passage id or a list of them", key))),
    }
}

/// Reads a passages file (JSON Lines `{id, text, ...}` or a JSON array; `title` accepted for `id`).
pub fn read_passages(path: &Path) -> Result<Vec<Passage>> {
    let (recs, array) = records(path)?;
    let mut out = Vec::with_capacity(recs.len());
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(recs.len());
    for (line, m) in recs {
        let loc = Loc { path, line, array };
        let id = if m.contains_key("id") {
            str_field(&m, "id", loc)?
        } else {
            str_field(&m, "title", loc)?
        };
        let text = str_field(&m, "text", loc)?;
        if let Some(first) = seen.insert(id.clone(), line) {
            return Err(loc.err(format!(
                "duplicate passage id `{}` (first at {} {})",
                id,
                if array { "record" } else { "line" },
                first
            )));
        }
        out.push(Passage {
            id,
            text,
            fields: scalar_fields(&m, &["id", "text"]),
        });
    }
    if out.is_empty() {
        return Err(Error::in_file(path, "no passages (the file is empty)"));
    }
    Ok(out)
}

/// Detects the layout of one question record.
fn layout_of(m: &Map<String, Value>) -> Layout {
    if m.contains_key("context") && m.contains_key("supporting_facts") {
        Layout::Hotpotqa
    } else if m.contains_key("paragraphs") {
        Layout::Musique
    } else {
        Layout::Pledge
    }
}

/// A question as read, before passage ids are resolved: (loc info, id, passages, decoys, fields).
struct RawQuestion {
    line: usize,
    id: String,
    passages: Vec<String>,
    decoys: Vec<String>,
    fields: BTreeMap<String, String>,
}

/// Reads the corpus: `passages` (optional for HotpotQA/MuSiQue layouts) and `questions`.
///
/// Errors: see the module documentation. Returns the layout of the questions file too.
pub fn read_corpus(passages: Option<&Path>, questions: &Path) -> Result<(Corpus, Layout)> {
    let (recs, array) = records(questions)?;
    if recs.is_empty() {
        return Err(Error::in_file(questions, "no questions (the file is empty)"));
    }
    let layout = layout_of(&recs[0].1);
    let mut corpus = Corpus::default();
    if let Some(p) = passages {
        corpus.passages = read_passages(p)?;
    } else if layout == Layout::Pledge {
        return Err(
            Error::input("--passages is required for a questions file in the pledge JSON Lines layout")
                .with_hint("only HotpotQA and MuSiQue files carry their own paragraphs"),
        );
    }
    let mut index: HashMap<String, usize> = corpus
        .passages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.clone(), i))
        .collect();
    let embedded = passages.is_none();
    let mut raws = Vec::with_capacity(recs.len());
    for (line, m) in &recs {
        let loc = Loc {
            path: questions,
            line: *line,
            array,
        };
        let raw = match layout {
            Layout::Pledge => {
                let mut decoys = id_list(m, "decoys", loc)?;
                decoys.extend(id_list(m, "decoy", loc)?);
                if !m.contains_key("passages") {
                    return Err(loc.err("missing `passages` (a list of passage ids)"));
                }
                RawQuestion {
                    line: *line,
                    id: str_field(m, "id", loc)?,
                    passages: id_list(m, "passages", loc)?,
                    decoys,
                    fields: scalar_fields(m, &["id", "passages", "decoys", "decoy"]),
                }
            }
            Layout::Hotpotqa | Layout::Musique => {
                let (id, paras) = super::layouts::paragraphs(m, layout, loc.line, |msg| loc.err(msg))?;
                let mut raw = RawQuestion {
                    line: *line,
                    id,
                    passages: vec![],
                    decoys: vec![],
                    fields: scalar_fields(m, &["_id", "id"]),
                };
                for (title, text, supporting) in paras {
                    if embedded {
                        match index.get(&title) {
                            Some(&i) => {
                                if corpus.passages[i].text != text {
                                    corpus.conflicting_titles += 1;
                                }
                            }
                            None => {
                                index.insert(title.clone(), corpus.passages.len());
                                corpus.passages.push(Passage {
                                    id: title.clone(),
                                    text,
                                    fields: BTreeMap::new(),
                                });
                            }
                        }
                    }
                    if supporting {
                        raw.passages.push(title)
                    } else {
                        raw.decoys.push(title)
                    }
                }
                raw
            }
        };
        raws.push(raw);
    }
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(raws.len());
    for raw in raws {
        let loc = Loc {
            path: questions,
            line: raw.line,
            array,
        };
        if let Some(first) = seen.insert(raw.id.clone(), raw.line) {
            return Err(loc.err(format!(
                "duplicate question id `{}` (first at {} {})",
                raw.id,
                if array { "record" } else { "line" },
                first
            )));
        }
        let resolve = |ids: &[String], what: &str| -> Result<Vec<usize>> {
            ids.iter()
                .map(|id| {
                    index.get(id).copied().ok_or_else(|| {
                        loc.err(format!(
                            "question `{}` names {} `{}`, which is not in the passages",
                            raw.id, what, id
                        ))
                    })
                })
                .collect()
        };
        let passages = resolve(&raw.passages, "passage")?;
        let decoys = resolve(&raw.decoys, "decoy passage")?;
        let where_ = if array {
            format!("{}: record {}", questions.display(), raw.line)
        } else {
            format!("{}:{}", questions.display(), raw.line)
        };
        corpus.questions.push(Question {
            id: raw.id,
            passages,
            decoys,
            fields: raw.fields,
            loc: where_,
        });
    }
    Ok((corpus, layout))
}
