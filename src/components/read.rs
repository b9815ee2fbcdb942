//! Reading the inputs of `pledge components`: passages and candidate questions.
//!
//! Every file is JSON Lines, a JSON array of objects, or Parquet (one record per row, nested
//! columns as JSON), detected from the content; compression (gzip, zstd, bzip2, xz) and a BOM are
//! accepted (see [`crate::input`]), and each reader has a variant taking an [`Input`] already read
//! (standard input, bytes).
//!
//! Layouts (detected from the content):
//! - **pledge JSON Lines.** Passages `{"id", "text", ...}` one per line; questions
//!   `{"id", "passages": [ids], "decoys": [ids] | "decoy": id, ...}`. Other scalar fields (strings,
//!   numbers, booleans) are kept as strings for the component unit and shared-field rules.
//!   The passage id is `id`, else `_id` (BEIR's `corpus.jsonl`, whose `title` is kept as a
//!   field), else `title` (the HippoRAG `*_corpus.json` files). A question without `passages`
//!   (LLM answer scores, TREC topics, BEIR queries) uses none: it is its own unit unless a
//!   `shared-field` rule (or the unit field) links it to others; `--passages` is then optional.
//! - **BEIR** queries (`{"_id", "text"}`) with qrels (`qrels/SPLIT.tsv`, three or four columns,
//!   or any qrels [`crate::trec::Qrels`] reads): the documents a query's qrels grade above 0 are
//!   its passages; only queries in the qrels are candidates (the others are counted in
//!   [`Corpus::notes`]), and a qrels query missing from the queries file is an error.
//! - **Hugging Face hub** `hotpot_qa` and 2WikiMultihopQA schema (`id` or `_id`; `context` as
//!   `{title: [...], sentences: [[...]]}` or `{title, content}`; `supporting_facts` as
//!   `{title: [...], sent_id: [...]}`): read as the HotpotQA layout below.
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
//! Errors (exit 2, naming file and line, or file and record for JSON arrays, or file and row for
//! Parquet): malformed JSON, a missing `id`/`text`, a duplicate passage or question id, a
//! question naming a passage that does not exist, an empty file.

use crate::error::{Error, Result};
use crate::input::{Input, Kind, Limits};
use crate::tabular::Unit;
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
        /// HotpotQA distractor layout (also the original 2WikiMultihopQA files).
        Hotpotqa = "hotpotqa",
        /// The Hugging Face hub schema of `hotpot_qa` and 2WikiMultihopQA (context as columns).
        HotpotqaHub = "hotpotqa-hub",
        /// MuSiQue layout.
        Musique = "musique",
        /// BEIR queries joined with qrels.
        Beir = "beir",
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
    /// Notes found while reading (e.g. BEIR queries left out because the qrels do not name them).
    pub notes: Vec<String>,
}

/// Where a record came from: `file:line` for JSON Lines, `file: record N` for a JSON array.
#[derive(Clone, Copy)]
struct Loc<'a> {
    path: &'a Path,
    line: usize,
    unit: Unit,
}

impl Loc<'_> {
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        match self.unit {
            Unit::Line => Error::at(self.path, self.line, msg),
            Unit::Record => Error::in_file(self.path, format!("record {}: {}", self.line, msg)),
            Unit::Row => Error::in_file(self.path, format!("row {}: {}", self.line, msg)),
        }
    }

    /// `line 3`, `record 3`, `row 3`.
    fn named(&self, n: usize) -> String {
        format!("{} {}", unit_word(self.unit), n)
    }

    /// `file:3`, `file: record 3`, `file: row 3`.
    fn place(&self) -> String {
        match self.unit {
            Unit::Line => format!("{}:{}", self.path.display(), self.line),
            u => format!("{}: {} {}", self.path.display(), unit_word(u), self.line),
        }
    }
}

fn unit_word(u: Unit) -> &'static str {
    match u {
        Unit::Line => "line",
        Unit::Record => "record",
        Unit::Row => "row",
    }
}

/// A JSON object with its line (JSON Lines) or 1-based record number (JSON array).
type Record = (usize, Map<String, Value>);

/// Parses an input as Parquet, as a JSON array when its first non-blank character is `[`, else
/// as JSON Lines. Returns the records with their line (JSONL), 1-based record number (array) or
/// row (Parquet).
fn records(input: &Input) -> Result<(Vec<Record>, Unit)> {
    let path = input.path();
    if input.kind() == Kind::Parquet {
        let rows = crate::tabular::parquet_objects(input)?;
        let out = rows.into_iter().map(|(n, o)| (n, o.into_iter().collect())).collect();
        return Ok((out, Unit::Row));
    }
    let text = input.text()?;
    let mut out = Vec::new();
    if text.trim_start().starts_with('[') {
        let v: Vec<Value> = serde_json::from_str(text)
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
        return Ok((out, Unit::Record));
    }
    for (n, line) in crate::io::lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => out.push((n, m)),
            Ok(_) => return Err(Error::at(path, n, "expected a JSON object")),
            Err(e) => return Err(Error::at(path, n, "malformed JSON (expected one JSON object per line)").caused_by(e)),
        }
    }
    Ok((out, Unit::Line))
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

/// Reads a passages file (JSON Lines `{id, text, ...}`, a JSON array, or Parquet; `_id`, else
/// `title`, accepted for `id`).
pub fn read_passages(path: &Path) -> Result<Vec<Passage>> {
    read_passages_input(&Input::from_path(path, Limits::default())?)
}

/// Reads passages from an input already read (see [`read_passages`]).
pub fn read_passages_input(input: &Input) -> Result<Vec<Passage>> {
    let path = input.path();
    let (recs, unit) = records(input)?;
    let mut out = Vec::with_capacity(recs.len());
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(recs.len());
    for (line, m) in recs {
        let loc = Loc { path, line, unit };
        let key = ["id", "_id", "title"]
            .into_iter()
            .find(|k| m.contains_key(*k))
            .unwrap_or("id");
        let id = str_field(&m, key, loc)?;
        let text = str_field(&m, "text", loc)?;
        if let Some(first) = seen.insert(id.clone(), line) {
            return Err(loc.err(format!("duplicate passage id `{}` (first at {})", id, loc.named(first))));
        }
        out.push(Passage {
            id,
            text,
            fields: scalar_fields(&m, &[key, "text"]),
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
        if m.get("context").is_some_and(Value::is_object) {
            Layout::HotpotqaHub
        } else {
            Layout::Hotpotqa
        }
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

/// Reads the corpus: `passages` (optional for HotpotQA/MuSiQue layouts and for questions that
/// name no passage) and `questions`.
///
/// Errors: see the module documentation. Returns the layout of the questions file too.
pub fn read_corpus(passages: Option<&Path>, questions: &Path) -> Result<(Corpus, Layout)> {
    let p = passages.map(|p| Input::from_path(p, Limits::default())).transpose()?;
    let q = Input::from_path(questions, Limits::default())?;
    read_corpus_inputs(p.as_ref(), &q, None)
}

/// Reads the corpus from inputs already read (files, standard input, bytes): `passages`,
/// `questions`, and `qrels` whose relevant documents (grade > 0) are each query's passages
/// (BEIR; see the module docs).
///
/// Errors: see the module documentation.
pub fn read_corpus_inputs(
    passages: Option<&Input>,
    questions: &Input,
    qrels: Option<&Input>,
) -> Result<(Corpus, Layout)> {
    let qpath = questions.path();
    let (recs, unit) = records(questions)?;
    if recs.is_empty() {
        return Err(Error::in_file(qpath, "no questions (the file is empty)"));
    }
    let mut layout = layout_of(&recs[0].1);
    let qrels = match qrels {
        Some(q) if layout == Layout::Pledge => {
            layout = Layout::Beir;
            Some((
                q.path().to_path_buf(),
                crate::trec::Qrels::from_input(q, crate::trec::Duplicates::Error)?,
            ))
        }
        Some(q) => {
            return Err(Error::in_file(
                q.path(),
                format!(
                    "qrels cannot be joined with a questions file in the {:?} layout, which names its own passages",
                    layout
                ),
            ))
        }
        None => None,
    };
    let mut corpus = Corpus::default();
    if let Some(p) = passages {
        corpus.passages = read_passages_input(p)?;
    }
    let mut index: HashMap<String, usize> = corpus
        .passages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.clone(), i))
        .collect();
    let embedded = passages.is_none();
    let mut raws = Vec::with_capacity(recs.len());
    let mut left_out = 0usize;
    for (line, m) in &recs {
        let loc = Loc {
            path: qpath,
            line: *line,
            unit,
        };
        let raw = match layout {
            Layout::Pledge | Layout::Beir => {
                let mut decoys = id_list(m, "decoys", loc)?;
                decoys.extend(id_list(m, "decoy", loc)?);
                let key = if m.contains_key("id") { "id" } else { "_id" };
                let id = str_field(m, key, loc)?;
                let mut passages = id_list(m, "passages", loc)?;
                if let Some((_, q)) = &qrels {
                    match q.topic(&id) {
                        Some(tq) => {
                            let mut rel: Vec<&String> =
                                tq.grades.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d).collect();
                            rel.sort();
                            passages.extend(rel.into_iter().cloned());
                        }
                        None => {
                            left_out += 1;
                            continue;
                        }
                    }
                }
                RawQuestion {
                    line: *line,
                    id,
                    passages,
                    decoys,
                    fields: scalar_fields(m, &[key, "passages", "decoys", "decoy"]),
                }
            }
            Layout::Hotpotqa | Layout::HotpotqaHub | Layout::Musique => {
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
    if let Some((qp, q)) = &qrels {
        let ids: std::collections::HashSet<&str> = raws.iter().map(|r| r.id.as_str()).collect();
        let missing: Vec<&String> = q.topics.keys().filter(|t| !ids.contains(t.as_str())).collect();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(5).map(|s| s.as_str()).collect();
            return Err(Error::in_file(
                qp,
                format!(
                    "{} qrels quer{} not in the questions file {}: {}{}",
                    missing.len(),
                    if missing.len() == 1 { "y is" } else { "ies are" },
                    qpath.display(),
                    shown.join(", "),
                    if missing.len() > 5 { ", ..." } else { "" }
                ),
            ));
        }
        if left_out > 0 {
            corpus.notes.push(format!(
                "{}: {} of {} queries are not in the qrels {} and are not candidates",
                qpath.display(),
                left_out,
                recs.len(),
                qp.display()
            ));
        }
    }
    if embedded && matches!(layout, Layout::Pledge | Layout::Beir) {
        if let Some(r) = raws.iter().find(|r| !r.passages.is_empty() || !r.decoys.is_empty()) {
            let loc = Loc {
                path: qpath,
                line: r.line,
                unit,
            };
            return Err(Error::input(format!(
                "--passages is required: question `{}` ({}) names passages",
                r.id,
                loc.place()
            ))
            .with_hint("questions without passages need none; HotpotQA, MuSiQue and 2WikiMultihopQA files carry their own paragraphs"));
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(raws.len());
    for raw in raws {
        let loc = Loc {
            path: qpath,
            line: raw.line,
            unit,
        };
        if let Some(first) = seen.insert(raw.id.clone(), raw.line) {
            return Err(loc.err(format!(
                "duplicate question id `{}` (first at {})",
                raw.id,
                loc.named(first)
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
        corpus.questions.push(Question {
            id: raw.id,
            passages,
            decoys,
            fields: raw.fields,
            loc: loc.place(),
        });
    }
    Ok((corpus, layout))
}
