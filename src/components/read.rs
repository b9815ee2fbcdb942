//! Reading the inputs of `pledge components`: passages and candidate questions.
//!
//! Every file is JSON Lines, a JSON array of objects, or Parquet (one record per row, nested
//! columns as JSON), detected from the content; compression (gzip, zstd, bzip2, xz) and a BOM are
//! accepted (see [`crate::input`]), and each reader has a variant taking an [`Input`] already read
//! (standard input, bytes).
//!
//! Layouts (detected from the content):
//! - **pledge JSON Lines.** Passages `{"id", "text", ...}` one per line; questions
//!   `{"id", "passages": [ids], "distractors": [ids], "decoys": [ids] | "decoy": id, ...}`
//!   (distractors and decoys are both linked by the decoy rule; contamination rules tell them
//!   apart). Other scalar fields (strings, numbers, booleans) are kept as strings for the
//!   component unit and shared-field rules.
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
//!
//! A JSON Lines passages file opened as a [`Stream`] is parsed as it is decompressed, in batches
//! whose lines are parsed in parallel, with exactly the semantics above; its texts go to a
//! [`TextStore`] that spills past [`ReadOptions::text_budget`]. JSON arrays, Parquet files and
//! questions files are read whole. The first error in file order is reported: a streamed file
//! reports a duplicate id on an earlier line before a malformed line further on.

use super::store::TextStore;
use crate::error::{Error, Result};
use crate::input::{Input, Kind, Limits, Stream};
use crate::tabular::Unit;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// One passage (its text is in [`Corpus::texts`], at the passage's index).
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// Passage id (unique).
    pub id: String,
    /// Other scalar fields, as strings (e.g. `doc`).
    pub fields: Fields,
}

/// The scalar fields of a passage, as strings, sorted by name; names and values are shared
/// between passages (a law's `doc` value is held once however many articles carry it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields(Box<[(Arc<str>, Arc<str>)]>);

impl Fields {
    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .binary_search_by(|(k, _)| k.as_ref().cmp(name))
            .ok()
            .map(|i| self.0[i].1.as_ref())
    }

    /// The fields in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bytes held per passage (not counting the shared names and values).
    fn resident_bytes(&self) -> u64 {
        16 + 32 * self.0.len() as u64
    }
}

impl From<BTreeMap<String, String>> for Fields {
    fn from(m: BTreeMap<String, String>) -> Fields {
        Fields(m.into_iter().map(|(k, v)| (Arc::from(k), Arc::from(v))).collect())
    }
}

/// Shares equal field names and values between passages.
#[derive(Default)]
struct Interner(HashSet<Arc<str>>);

impl Interner {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(a.clone());
        a
    }

    /// Fields from `(name, value)` pairs, the last value of a repeated name kept (as JSON
    /// objects are read).
    fn fields<K: AsRef<str>, V: AsRef<str>>(&mut self, mut pairs: Vec<(K, V)>) -> Fields {
        pairs.reverse();
        // A stable sort keeps the last value of a name first.
        pairs.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        pairs.dedup_by(|a, b| a.0.as_ref() == b.0.as_ref());
        Fields(
            pairs
                .into_iter()
                .map(|(k, v)| (self.get(k.as_ref()), self.get(v.as_ref())))
                .collect(),
        )
    }
}

/// Passage ids to passage indices, for the duplicate check and for resolving the ids questions
/// name: 64-bit hashes of the ids, with the ids themselves compared on a hash match (so exact),
/// and the rare ids whose hash another id already has kept whole.
#[derive(Debug, Clone, Default)]
pub struct IdIndex {
    first: HashMap<u64, u32>,
    more: HashMap<String, u32>,
}

fn id_hash(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl IdIndex {
    /// The index of the passage with id `id`.
    pub fn get(&self, id: &str, passages: &[Passage]) -> Option<usize> {
        match self.first.get(&id_hash(id)) {
            Some(&i) if passages[i as usize].id == id => Some(i as usize),
            Some(_) => self.more.get(id).map(|&i| i as usize),
            None => None,
        }
    }

    /// Records that passage `i` (already in `passages`, or about to be pushed there) has id
    /// `id`; returns the index of an earlier passage with that id instead, if there is one.
    fn insert(&mut self, id: &str, i: usize, passages: &[Passage]) -> Option<usize> {
        match self.first.entry(id_hash(id)) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i as u32);
                None
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                let f = *e.get() as usize;
                if passages[f].id == id {
                    return Some(f);
                }
                match self.more.entry(id.to_string()) {
                    std::collections::hash_map::Entry::Occupied(m) => Some(*m.get() as usize),
                    std::collections::hash_map::Entry::Vacant(m) => {
                        m.insert(i as u32);
                        None
                    }
                }
            }
        }
    }

    fn resident_bytes(&self) -> u64 {
        // A hash map entry with its control byte and load factor headroom.
        (self.first.capacity() as u64) * 13 + self.more.len() as u64 * 64
    }
}

/// One candidate question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Question id (unique).
    pub id: String,
    /// Indices into [`Corpus::passages`] of the passages the question uses.
    pub passages: Vec<usize>,
    /// Indices into [`Corpus::passages`] of its distractors, then its decoys: every passage it
    /// carries but does not use (the decoy link rule links them all).
    pub decoys: Vec<usize>,
    /// How many of [`Question::decoys`], from the first, are distractors (the other paragraphs of
    /// a HotpotQA or MuSiQue context, a pledge file's `distractors`); the rest are decoys (a
    /// pledge file's `decoys` or `decoy`).
    pub distractors: usize,
    /// Other scalar fields, as strings (e.g. `doc`, `type`).
    pub fields: BTreeMap<String, String>,
    /// Where it was read: `file:line` (JSON Lines) or `file: record N` (JSON array).
    pub loc: String,
}

impl Question {
    /// The question's passages in role `r`.
    pub fn role(&self, r: crate::protocol::PassageRole) -> &[usize] {
        use crate::protocol::PassageRole;
        match r {
            PassageRole::Supporting => &self.passages,
            PassageRole::Distractors => &self.decoys[..self.distractors],
            PassageRole::Decoys => &self.decoys[self.distractors..],
        }
    }
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
#[derive(Debug, Default)]
pub struct Corpus {
    /// Passages in file order.
    pub passages: Vec<Passage>,
    /// The passages' texts as given (normalized later by the rules), by passage index: in
    /// memory, or spilled past the reader's text budget ([`ReadOptions::text_budget`]).
    pub texts: TextStore,
    /// The passages' ids, indexed.
    pub ids: IdIndex,
    /// Questions in file order.
    pub questions: Vec<Question>,
    /// Titles seen with differing texts in a HotpotQA/MuSiQue file (first text kept).
    pub conflicting_titles: usize,
    /// Notes found while reading (e.g. BEIR queries left out because the qrels do not name them).
    pub notes: Vec<String>,
}

impl Corpus {
    /// Appends a passage with its text (to [`Corpus::texts`], which must not be finished yet).
    ///
    /// Errors (exit 2): a duplicate id; a spill file that cannot be written.
    pub fn push_passage(&mut self, id: String, text: &str, fields: Fields) -> Result<()> {
        if let Some(first) = self.ids.insert(&id, self.passages.len(), &self.passages) {
            return Err(Error::input(format!(
                "duplicate passage id `{}` (first at passage {})",
                id,
                first + 1
            )));
        }
        self.texts.push(text)?;
        self.passages.push(Passage { id, fields });
        Ok(())
    }

    /// Estimated bytes the corpus holds in memory: ids, fields, the id index, the texts in
    /// memory (none when spilled) with their offsets, the questions.
    pub fn resident_bytes(&self) -> u64 {
        let passages: u64 = self
            .passages
            .iter()
            .map(|p| 24 + p.id.capacity() as u64 + p.fields.resident_bytes())
            .sum();
        let questions: u64 = self
            .questions
            .iter()
            .map(|q| {
                160 + (q.id.capacity() + q.loc.capacity()) as u64
                    + 8 * (q.passages.len() + q.decoys.len()) as u64
                    + q.fields
                        .iter()
                        .map(|(k, v)| 64 + (k.len() + v.len()) as u64)
                        .sum::<u64>()
            })
            .sum();
        passages + questions + self.ids.resident_bytes() + self.texts.resident_bytes()
    }
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
/// The first line a questions or passages file may start with, and the error for a file that
/// starts otherwise (a CSV or TSV table, plain text): `None` when `text` starts as JSON does.
fn not_json(path: &Path, text: &str) -> Option<Error> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let t = first.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        return None;
    }
    let kind = match (first.contains('\t'), first.contains(',')) {
        (true, _) => "a tab-separated table",
        (false, true) => "a comma-separated table",
        _ => "not JSON",
    };
    Some(
        Error::at(
            path,
            1,
            format!(
                "this is {}, not questions or passages: the first line is `{}`",
                kind,
                crate::text::short(first.trim(), 80)
            ),
        )
        .with_hint(
            "questions are JSON Lines starting like {\"id\": \"q1\", \"passages\": [\"p1\"], \"decoy\": \"p2\"} (or just {\"id\": \"q1\"} without passages), passages like {\"id\": \"p1\", \"text\": \"...\"}; a JSON array of such objects, Parquet, HotpotQA, MuSiQue and BEIR files are read too (the book's guide/inputs.md)",
        ),
    )
}

fn records(input: &Input) -> Result<(Vec<Record>, Unit)> {
    let path = input.path();
    if input.kind() == Kind::Parquet {
        let rows = crate::tabular::parquet_objects(input)?;
        let out = rows.into_iter().map(|(n, o)| (n, o.into_iter().collect())).collect();
        return Ok((out, Unit::Row));
    }
    let text = input.text()?;
    if let Some(e) = not_json(path, text) {
        return Err(e);
    }
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
    // Lines are parsed in parallel; the first error in file order stands.
    use rayon::prelude::*;
    let lines: Vec<(usize, &str)> = crate::io::lines(text).filter(|(_, l)| !l.trim().is_empty()).collect();
    let parsed: Vec<Result<Record>> = lines
        .into_par_iter()
        .map(|(n, line)| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => Ok((n, m)),
            Ok(_) => Err(Error::at(path, n, "expected a JSON object")),
            Err(e) => Err(Error::at(path, n, "malformed JSON (expected one JSON object per line)").caused_by(e)),
        })
        .collect();
    for r in parsed {
        out.push(r?);
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

/// Passages as read: in file order, with their texts and their ids indexed.
#[derive(Debug, Default)]
pub struct Passages {
    /// Passages in file order.
    pub passages: Vec<Passage>,
    /// Their texts, by passage index.
    pub texts: TextStore,
    /// Their ids, indexed.
    pub ids: IdIndex,
}

impl Passages {
    /// Number of passages.
    pub fn len(&self) -> usize {
        self.passages.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }
}

/// How passages are read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions<'a> {
    /// Past this many bytes of text, the texts go to an unnamed spill file in this directory
    /// ([`TextStore::with_budget`]); `None`: all in memory.
    pub text_budget: Option<(u64, &'a Path)>,
}

/// Where passages are read from: an input read whole, or a stream (a JSON Lines file is then
/// parsed as it streams; a JSON array or a Parquet file is read whole).
#[derive(Debug)]
pub enum PassageSource<'a> {
    /// An input already read whole (standard input, bytes).
    Input(&'a Input),
    /// A file opened as a stream ([`Stream::open`]).
    Stream(Stream),
}

/// Collects passages: the duplicate check, the shared field values, the text store.
struct Builder {
    out: Passages,
    /// The line (record, row) of each passage, for the duplicate-id message.
    lines: Vec<usize>,
    interner: Interner,
}

impl Builder {
    fn new(o: ReadOptions) -> Builder {
        Builder {
            out: Passages {
                texts: match o.text_budget {
                    Some((b, dir)) => TextStore::with_budget(b, dir),
                    None => TextStore::in_memory(),
                },
                ..Passages::default()
            },
            lines: Vec::new(),
            interner: Interner::default(),
        }
    }

    fn add<K: AsRef<str>, V: AsRef<str>>(
        &mut self,
        loc: Loc,
        id: String,
        text: &str,
        fields: Vec<(K, V)>,
    ) -> Result<()> {
        let i = self.out.passages.len();
        if let Some(first) = self.out.ids.insert(&id, i, &self.out.passages) {
            return Err(loc.err(format!(
                "duplicate passage id `{}` (first at {})",
                id,
                loc.named(self.lines[first])
            )));
        }
        self.out.texts.push(text)?;
        self.lines.push(loc.line);
        let fields = self.interner.fields(fields);
        self.out.passages.push(Passage { id, fields });
        Ok(())
    }

    fn finish(mut self, path: &Path) -> Result<Passages> {
        if self.out.passages.is_empty() {
            return Err(Error::in_file(
                path,
                "no passages (the file is empty or lists none; expected one record per passage)",
            ));
        }
        self.out.texts.finish()?;
        Ok(self.out)
    }
}

/// Reads a passages file (JSON Lines `{id, text, ...}`, a JSON array, or Parquet; `_id`, else
/// `title`, accepted for `id`), a JSON Lines file as it streams.
pub fn read_passages(path: &Path) -> Result<Passages> {
    let s = Stream::open(path, Limits::default())?;
    read_passages_from(PassageSource::Stream(s), ReadOptions::default()).map(|(p, _)| p)
}

/// Reads passages from an input already read (see [`read_passages`]).
pub fn read_passages_input(input: &Input) -> Result<Passages> {
    read_passages_from(PassageSource::Input(input), ReadOptions::default()).map(|(p, _)| p)
}

/// Reads passages from `source` (see [`read_passages`]), with their texts in memory or spilled
/// as `o` says. Returns the passages and the SHA-256 of the raw bytes read (what
/// [`Input::sha256`] gives of the same file).
///
/// A JSON Lines stream is decompressed in pieces (the raw bytes hashed as they pass) and parsed
/// batch by batch, each batch's lines in parallel; neither the file nor a JSON object per line
/// is kept: only the ids, the scalar fields and the texts (see [`TextStore`]).
///
/// Errors (exit 2): see the module documentation; a spill file that cannot be written.
pub fn read_passages_from(source: PassageSource, o: ReadOptions) -> Result<(Passages, String)> {
    let mut b = Builder::new(o);
    let input = match source {
        PassageSource::Input(i) => Cow::Borrowed(i),
        PassageSource::Stream(s) => {
            let head = crate::input::strip_bom(s.head());
            let first = head.iter().find(|c| !c.is_ascii_whitespace());
            if first == Some(&b'[') || s.is_container() {
                // A JSON array or a container: read whole.
                let limits = s.limits();
                let path = s.path().to_path_buf();
                drop(s);
                Cow::Owned(Input::from_path(&path, limits)?)
            } else {
                let path = s.path().to_path_buf();
                let sha = stream_jsonl(s, &mut b)?;
                return Ok((b.finish(&path)?, sha));
            }
        }
    };
    let path = input.path();
    let (recs, unit) = records(&input)?;
    for (line, m) in recs {
        let loc = Loc { path, line, unit };
        let key = ["id", "_id", "title"]
            .into_iter()
            .find(|k| m.contains_key(*k))
            .unwrap_or("id");
        let id = str_field(&m, key, loc)?;
        let text = str_field(&m, "text", loc)?;
        let fields: Vec<(String, String)> = scalar_fields(&m, &[key, "text"]).into_iter().collect();
        b.add(loc, id, &text, fields)?;
    }
    Ok((b.finish(path)?, input.sha256()))
}

/// A JSON string, borrowed from the line when it has no escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Str<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A field's value as the readers keep it: a string, a number or boolean as text (as
/// `serde_json` prints them), or nothing kept (null, arrays, objects).
enum Scalar<'a> {
    Str(Cow<'a, str>),
    NotScalar,
}

impl<'de> serde::Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, v: bool) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(serde_json::Number::from(v).to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Str(Cow::Owned(serde_json::Number::from(v).to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> std::result::Result<Scalar<'de>, E> {
                Ok(serde_json::Number::from_f64(v)
                    .map_or(Scalar::NotScalar, |n| Scalar::Str(Cow::Owned(n.to_string()))))
            }
            fn visit_unit<E>(self) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::NotScalar)
            }
            fn visit_none<E>(self) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::NotScalar)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Scalar<'de>, A::Error> {
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Scalar::NotScalar)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> std::result::Result<Scalar<'de>, A::Error> {
                while a
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Scalar::NotScalar)
            }
        }
        d.deserialize_any(V)
    }
}

/// One line's JSON value: an object's `(name, value)` pairs in order, or `None` for a value
/// that is not an object.
struct Object<'a>(Option<Vec<(Cow<'a, str>, Scalar<'a>)>>);

impl<'de> serde::Deserialize<'de> for Object<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Object<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> std::result::Result<Object<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some((Str(k), v)) = a.next_entry::<Str<'de>, Scalar<'de>>()? {
                    out.push((k, v));
                }
                Ok(Object(Some(out)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> std::result::Result<Object<'de>, A::Error> {
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Object(None))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
            fn visit_unit<E>(self) -> std::result::Result<Object<'de>, E> {
                Ok(Object(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// One passage line, parsed (its strings borrowed from the line where they have no escapes).
struct Parsed<'a> {
    line: usize,
    id: String,
    text: Cow<'a, str>,
    fields: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

/// Parses one JSON Lines passage line `n` (`None`: a blank line), exactly as
/// [`read_passages_input`] reads it: the id from `id`, else `_id`, else `title`; `text`; the
/// other scalar fields; the last value of a repeated name.
fn parse_line<'a>(bytes: &'a [u8], n: usize, path: &Path) -> Result<Option<Parsed<'a>>> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let line = simdutf8::basic::from_utf8(bytes)
        .map_err(|_| Error::at(path, n, "invalid UTF-8 (expected a UTF-8 text file)"))?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let loc = Loc {
        path,
        line: n,
        unit: Unit::Line,
    };
    if let Some(e) = (n == 1).then(|| not_json(path, line)).flatten() {
        return Err(e);
    }
    let malformed =
        |e: serde_json::Error| Error::at(path, n, "malformed JSON (expected one JSON object per line)").caused_by(e);
    let mut de = serde_json::Deserializer::from_str(line);
    let obj = <Object as serde::Deserialize>::deserialize(&mut de).map_err(malformed)?;
    de.end().map_err(malformed)?;
    let Some(mut pairs) = obj.0 else {
        return Err(Error::at(path, n, "expected a JSON object"));
    };
    let key = ["id", "_id", "title"]
        .into_iter()
        .find(|k| pairs.iter().any(|(p, _)| p == k))
        .unwrap_or("id");
    let take = |pairs: &mut Vec<(Cow<'a, str>, Scalar<'a>)>, k: &str| -> Result<Cow<'a, str>> {
        let Some(at) = pairs.iter().rposition(|(p, _)| p == k) else {
            return Err(loc.err(format!("missing `{}`", k)));
        };
        let (_, v) = pairs.remove(at);
        pairs.retain(|(p, _)| p != k);
        match v {
            Scalar::Str(s) => Ok(s),
            Scalar::NotScalar => Err(loc.err(format!("`{}` must be a string", k))),
        }
    };
    let id = take(&mut pairs, key)?.into_owned();
    let text = take(&mut pairs, "text")?;
    let fields = pairs
        .into_iter()
        .filter_map(|(k, v)| match v {
            Scalar::Str(s) => Some((k, s)),
            Scalar::NotScalar => None,
        })
        .collect();
    Ok(Some(Parsed {
        line: n,
        id,
        text,
        fields,
    }))
}

/// Bytes of content per batch of lines parsed in parallel.
const BATCH: usize = 8 << 20;

/// Reads a JSON Lines passages stream into `b`: a thread decompresses pieces, cut at line ends,
/// while the lines of the previous piece are parsed in parallel. Returns the raw bytes' SHA-256.
fn stream_jsonl(mut stream: Stream, b: &mut Builder) -> Result<String> {
    use rayon::prelude::*;
    let path = stream.path().to_path_buf();
    let path = path.as_path();
    std::thread::scope(|scope| -> Result<String> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let reader = scope.spawn(move || -> Result<Stream> {
            let mut carry: Vec<u8> = Vec::new();
            let mut piece = Vec::new();
            let mut first = true;
            loop {
                stream.next_piece(&mut piece, BATCH)?;
                if first {
                    first = false;
                    let n = piece.len() - crate::input::strip_bom(&piece).len();
                    piece.drain(..n);
                }
                if piece.is_empty() {
                    if !carry.is_empty() {
                        let _ = tx.send(std::mem::take(&mut carry));
                    }
                    return Ok(stream);
                }
                carry.extend_from_slice(&piece);
                if let Some(end) = memchr::memrchr(b'\n', &carry) {
                    let rest = carry.split_off(end + 1);
                    if tx.send(std::mem::replace(&mut carry, rest)).is_err() {
                        return Ok(stream);
                    }
                }
            }
        });
        let mut line = 1usize;
        let threads = rayon::current_num_threads().max(1);
        let work = (|| -> Result<()> {
            for batch in rx.iter() {
                // Sub-chunks cut at line ends, parsed in parallel, merged in order.
                let want = (batch.len() / (4 * threads)).max(1 << 16);
                let mut chunks = Vec::new();
                let mut at = 0;
                while at < batch.len() {
                    let mut end = (at + want).min(batch.len());
                    if end < batch.len() {
                        end = memchr::memchr(b'\n', &batch[end..]).map_or(batch.len(), |p| end + p + 1);
                    }
                    chunks.push(&batch[at..end]);
                    at = end;
                }
                let counts: Vec<usize> = chunks
                    .par_iter()
                    .map(|c| memchr::memchr_iter(b'\n', c).count())
                    .collect();
                let mut starts = Vec::with_capacity(chunks.len());
                for c in &counts {
                    starts.push(line);
                    line += c;
                }
                let parsed: Vec<Result<Vec<Parsed>>> = chunks
                    .par_iter()
                    .zip(starts)
                    .map(|(c, l0)| {
                        let mut out = Vec::new();
                        let mut from = 0;
                        let ends = memchr::memchr_iter(b'\n', c).chain(std::iter::once(c.len()));
                        for (k, end) in ends.enumerate() {
                            if let Some(p) = parse_line(&c[from..end], l0 + k, path)? {
                                out.push(p);
                            }
                            from = (end + 1).min(c.len());
                        }
                        Ok(out)
                    })
                    .collect();
                for r in parsed {
                    for p in r? {
                        let loc = Loc {
                            path,
                            line: p.line,
                            unit: Unit::Line,
                        };
                        b.add(loc, p.id, &p.text, p.fields)?;
                    }
                }
            }
            Ok(())
        })();
        drop(rx);
        let stream = reader
            .join()
            .map_err(|_| Error::internal("the passages reading thread failed"))?;
        // A parse error comes first when both fail: it is on an earlier line than the read.
        work?;
        stream?.sha256()
    })
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
    /// Distractors first, then decoys.
    decoys: Vec<String>,
    /// How many of `decoys` are distractors.
    distractors: usize,
    fields: BTreeMap<String, String>,
}

/// One question record of the pledge or BEIR layout (`None`: a BEIR query the qrels do not
/// name, left out).
fn pledge_question(
    m: &Map<String, Value>,
    loc: Loc,
    qrels: Option<&crate::trec::Qrels>,
) -> Result<Option<RawQuestion>> {
    let mut decoys = id_list(m, "distractors", loc)?;
    let distractors = decoys.len();
    decoys.extend(id_list(m, "decoys", loc)?);
    decoys.extend(id_list(m, "decoy", loc)?);
    // `_id` (BEIR) only when it is there and `id` is not: a record with neither misses `id`.
    let key = if m.contains_key("_id") && !m.contains_key("id") {
        "_id"
    } else {
        "id"
    };
    let id = str_field(m, key, loc)?;
    let mut passages = id_list(m, "passages", loc)?;
    if let Some(q) = qrels {
        match q.topic(&id) {
            Some(tq) => {
                let mut rel: Vec<&String> = tq.grades.iter().filter(|(_, g)| **g > 0).map(|(d, _)| d).collect();
                rel.sort();
                passages.extend(rel.into_iter().cloned());
            }
            None => return Ok(None),
        }
    }
    Ok(Some(RawQuestion {
        line: loc.line,
        id,
        passages,
        decoys,
        distractors,
        fields: scalar_fields(m, &[key, "passages", "distractors", "decoys", "decoy"]),
    }))
}

/// Reads the corpus: `passages` (optional for HotpotQA/MuSiQue layouts and for questions that
/// name no passage) and `questions`.
///
/// Errors: see the module documentation. Returns the layout of the questions file too.
pub fn read_corpus(passages: Option<&Path>, questions: &Path) -> Result<(Corpus, Layout)> {
    let p = passages.map(|p| Stream::open(p, Limits::default())).transpose()?;
    let q = Input::from_path(questions, Limits::default())?;
    read_corpus_from(p.map(PassageSource::Stream), &q, None, ReadOptions::default()).map(|(c, l, _)| (c, l))
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
    read_corpus_from(
        passages.map(PassageSource::Input),
        questions,
        qrels,
        ReadOptions::default(),
    )
    .map(|(c, l, _)| (c, l))
}

/// [`read_corpus_inputs`], with the passages from a stream or an input, read as `o` says
/// ([`read_passages_from`]). Returns the SHA-256 of the passages' raw bytes too.
///
/// Errors: see the module documentation.
pub fn read_corpus_from(
    passages: Option<PassageSource>,
    questions: &Input,
    qrels: Option<&Input>,
    o: ReadOptions,
) -> Result<(Corpus, Layout, Option<String>)> {
    let qpath = questions.path();
    // The questions are parsed while the passages are read; errors keep their order (the
    // questions' first, then the qrels', then the passages').
    let (recs, read) = std::thread::scope(|scope| {
        let recs = scope.spawn(|| records(questions));
        let read = passages.map(|p| read_passages_from(p, o));
        let recs = recs
            .join()
            .unwrap_or_else(|_| Err(Error::internal("the questions reading thread failed")));
        (recs, read)
    });
    let (recs, unit) = recs?;
    if recs.is_empty() {
        return Err(Error::in_file(
            qpath,
            "no questions (the file is empty or lists none; expected one record per question)",
        ));
    }
    let (layout, qrels) = joined_qrels(layout_of(&recs[0].1), qrels)?;
    let mut corpus = Corpus::default();
    let embedded = read.is_none();
    let mut passages_sha = None;
    if let Some(read) = read {
        let (read, sha) = read?;
        corpus.passages = read.passages;
        corpus.texts = read.texts;
        corpus.ids = read.ids;
        passages_sha = Some(sha);
    }
    let records_read = recs.len();
    let (raws, left_out) = if matches!(layout, Layout::Pledge | Layout::Beir) {
        pledge_questions(recs, qpath, unit, qrels.as_ref().map(|(_, q)| q))?
    } else {
        (
            paragraph_questions(&recs, layout, qpath, unit, embedded, &mut corpus)?,
            0,
        )
    };
    if let Some((qp, q)) = &qrels {
        check_qrels_covered(&raws, qpath, qp, q)?;
        if left_out > 0 {
            corpus.notes.push(format!(
                "{}: {} of {} queries are not in the qrels {} and are not candidates",
                qpath.display(),
                left_out,
                records_read,
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
    corpus.questions = resolve_questions(&corpus, raws, qpath, unit)?;
    Ok((corpus, layout, passages_sha))
}

/// The qrels joined with the questions (their path and qrels) and the layout that makes
/// (a pledge layout joined with qrels is BEIR's); refused (exit 2) for a layout that names its
/// own passages.
fn joined_qrels(
    mut layout: Layout,
    qrels: Option<&Input>,
) -> Result<(Layout, Option<(std::path::PathBuf, crate::trec::Qrels)>)> {
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
    Ok((layout, qrels))
}

/// The questions of a pledge or BEIR layout, each record read on its own in parallel (the
/// first error in file order stands), and how many the qrels leave out.
fn pledge_questions(
    recs: Vec<Record>,
    qpath: &Path,
    unit: Unit,
    qrels: Option<&crate::trec::Qrels>,
) -> Result<(Vec<RawQuestion>, usize)> {
    use rayon::prelude::*;
    let mut raws = Vec::with_capacity(recs.len());
    let mut left_out = 0usize;
    let read: Vec<Result<Option<RawQuestion>>> = recs
        .into_par_iter()
        .map(|(line, m)| {
            let loc = Loc {
                path: qpath,
                line,
                unit,
            };
            pledge_question(&m, loc, qrels)
        })
        .collect();
    for r in read {
        match r? {
            Some(raw) => raws.push(raw),
            None => left_out += 1,
        }
    }
    Ok((raws, left_out))
}

/// The questions of HotpotQA, 2WikiMultihopQA and MuSiQue, whose paragraphs name the passages;
/// without a passages file (`embedded`) the paragraphs are the corpus, added to `corpus` (a
/// title seen with another text counts as a conflicting title).
fn paragraph_questions(
    recs: &[Record],
    layout: Layout,
    qpath: &Path,
    unit: Unit,
    embedded: bool,
    corpus: &mut Corpus,
) -> Result<Vec<RawQuestion>> {
    let mut raws = Vec::with_capacity(recs.len());
    for (line, m) in recs {
        let loc = Loc {
            path: qpath,
            line: *line,
            unit,
        };
        // HotpotQA, 2WikiMultihopQA and MuSiQue: the paragraphs name the passages.
        let (id, paras) = super::layouts::paragraphs(m, layout, loc.line, |msg| loc.err(msg))?;
        let mut raw = RawQuestion {
            line: *line,
            id,
            passages: vec![],
            decoys: vec![],
            distractors: 0,
            fields: scalar_fields(m, &["_id", "id"]),
        };
        for (title, text, supporting) in paras {
            if embedded {
                match corpus.ids.get(&title, &corpus.passages) {
                    Some(i) => {
                        if corpus.texts.get(i)? != text {
                            corpus.conflicting_titles += 1;
                        }
                    }
                    None => {
                        corpus.ids.insert(&title, corpus.passages.len(), &corpus.passages);
                        corpus.texts.push(&text)?;
                        corpus.passages.push(Passage {
                            id: title.clone(),
                            fields: Fields::default(),
                        });
                    }
                }
            }
            if supporting {
                raw.passages.push(title)
            } else {
                raw.decoys.push(title);
                raw.distractors += 1;
            }
        }
        raws.push(raw);
    }
    Ok(raws)
}

/// Refuses (exit 2, naming the qrels file) qrels queries that are not in the questions file.
fn check_qrels_covered(raws: &[RawQuestion], qpath: &Path, qp: &Path, q: &crate::trec::Qrels) -> Result<()> {
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
    Ok(())
}

/// Resolves each question's passage ids against the corpus: in parallel (lookups only), then
/// the duplicate-id check and the errors in file order, so the first error is the one a serial
/// reading meets first.
fn resolve_questions(corpus: &Corpus, raws: Vec<RawQuestion>, qpath: &Path, unit: Unit) -> Result<Vec<Question>> {
    use rayon::prelude::*;
    let mut resolved: Vec<Result<(Vec<usize>, Vec<usize>)>> = {
        let (ids, passages) = (&corpus.ids, &corpus.passages);
        raws.par_iter()
            .map(|raw| {
                let loc = Loc {
                    path: qpath,
                    line: raw.line,
                    unit,
                };
                let resolve = |names: &[String], what: &str| -> Result<Vec<usize>> {
                    names
                        .iter()
                        .map(|id| {
                            ids.get(id, passages).ok_or_else(|| {
                                loc.err(format!(
                                    "question `{}` names {} `{}`, which is not in the passages",
                                    raw.id, what, id
                                ))
                            })
                        })
                        .collect()
                };
                Ok((
                    resolve(&raw.passages, "passage")?,
                    resolve(&raw.decoys, "decoy passage")?,
                ))
            })
            .collect()
    };
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(raws.len());
    for (raw, r) in raws.iter().zip(&resolved) {
        if let Some(first) = seen.insert(raw.id.as_str(), raw.line) {
            let loc = Loc {
                path: qpath,
                line: raw.line,
                unit,
            };
            return Err(loc.err(format!(
                "duplicate question id `{}` (first at {})",
                raw.id,
                loc.named(first)
            )));
        }
        if r.is_err() {
            break;
        }
    }
    drop(seen);
    // No duplicate before it: the first resolution error stands.
    if let Some(at) = resolved.iter().position(Result::is_err) {
        resolved.swap_remove(at)?;
    }
    Ok(raws
        .into_par_iter()
        .zip(resolved)
        .map(|(raw, r)| {
            let (passages, decoys) = r.unwrap_or_default();
            let loc = Loc {
                path: qpath,
                line: raw.line,
                unit,
            };
            Question {
                id: raw.id,
                passages,
                decoys,
                distractors: raw.distractors,
                fields: raw.fields,
                loc: loc.place(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    type Read = Result<(Passages, String)>;

    fn both(text: &str) -> (Read, Read) {
        let input = Input::from_bytes("p.jsonl", text.as_bytes().to_vec(), Limits::default()).unwrap();
        let whole = read_passages_from(PassageSource::Input(&input), ReadOptions::default());
        let stream = Stream::from_reader(
            "p.jsonl",
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            Limits::default(),
        )
        .unwrap();
        let streamed = read_passages_from(PassageSource::Stream(stream), ReadOptions::default());
        (whole, streamed)
    }

    fn texts(p: &Passages) -> Vec<String> {
        (0..p.len()).map(|i| p.texts.get(i).unwrap().into_owned()).collect()
    }

    /// The streamed parse reads every line as the `serde_json::Value` reader of whole inputs:
    /// the id keys in order, numbers and booleans as `serde_json` prints them, the last value of
    /// a repeated name, escapes, nested values left out, blank lines and a BOM skipped.
    #[test]
    fn streamed_lines_read_as_whole_inputs() {
        let text = "\u{feff}{\"id\": 1, \"text\": \"a\\nb \\u00e9\", \"n\": 2.50, \"neg\": -3, \"ok\": true, \"nested\": {\"x\": [1]}, \"nil\": null}\r\n\n  \n{\"_id\": \"d2\", \"title\": \"T\", \"text\": \"x\", \"k\": \"first\", \"k\": \"last\"}\n{\"title\": \"only title\", \"text\": 5, \"big\": 12345678901234567890}";
        let (whole, streamed) = both(text);
        let (w, ws) = whole.unwrap();
        let (s, ss) = streamed.unwrap();
        assert_eq!(w.passages, s.passages);
        assert_eq!(texts(&w), texts(&s));
        assert_eq!(ws, ss);
        assert_eq!(ss, crate::io::sha256_hex(text.as_bytes()));
        let ids: Vec<&str> = s.passages.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, vec!["1", "d2", "only title"]);
        assert_eq!(texts(&s), vec!["a\nb é", "x", "5"]);
        let f: Vec<(&str, &str)> = s.passages[0].fields.iter().collect();
        assert_eq!(f, vec![("n", "2.5"), ("neg", "-3"), ("ok", "true")]);
        assert_eq!(s.passages[1].fields.get("k"), Some("last"));
        assert_eq!(s.passages[1].fields.get("title"), Some("T"));
        assert_eq!(s.ids.get("d2", &s.passages), Some(1));
        assert_eq!(s.ids.get("d3", &s.passages), None);
    }

    #[test]
    fn streamed_errors_are_those_of_whole_inputs() {
        for (text, expect) in [
            (
                "{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"a\", \"text\": \"y\"}\n",
                "p.jsonl:2: duplicate passage id `a` (first at line 1)",
            ),
            (
                "{\"id\": \"a\", \"text\": \"x\"}\n\n[1]\n",
                "p.jsonl:3: expected a JSON object",
            ),
            ("{\"id\": \"a\"}\n", "p.jsonl:1: missing `text`"),
            ("{\"text\": \"a\"}\n", "p.jsonl:1: missing `id`"),
            ("{\"id\": [1], \"text\": \"a\"}\n", "p.jsonl:1: `id` must be a string"),
            ("{\"id\": \"a\", \"text\": \"x\"} x\n", "p.jsonl:1: malformed JSON"),
            ("\n\n", "p.jsonl: no passages"),
        ] {
            let (whole, streamed) = both(text);
            let (w, s) = (whole.unwrap_err(), streamed.unwrap_err());
            assert!(s.message.contains(expect), "{}: {}", expect, s.message);
            assert_eq!(w.message, s.message);
        }
    }

    /// A question record with neither `id` nor `_id` misses `id` (the pledge layout's key);
    /// one with only `_id` (BEIR) is read by it.
    #[test]
    fn a_question_without_an_id_misses_id() {
        let p = Input::from_bytes(
            "p.jsonl",
            b"{\"id\": \"a\", \"text\": \"x\"}\n".to_vec(),
            Limits::default(),
        )
        .unwrap();
        let q = |text: &str| Input::from_bytes("q.jsonl", text.as_bytes().to_vec(), Limits::default()).unwrap();
        let e = read_corpus_inputs(
            Some(&p),
            &q("{\"id\": \"q1\", \"passages\": [\"a\"]}\n{\"passages\": [\"a\"]}\n"),
            None,
        )
        .unwrap_err();
        assert_eq!(e.message, "q.jsonl:2: missing `id`");
        let (c, _) = read_corpus_inputs(Some(&p), &q("{\"_id\": \"q1\", \"passages\": [\"a\"]}\n"), None).unwrap();
        assert_eq!(c.questions[0].id, "q1");
    }

    /// Ids whose 64-bit hashes collide are still told apart (the index compares the ids).
    #[test]
    fn the_id_index_is_exact_on_hash_collisions() {
        let mut idx = IdIndex::default();
        let ps: Vec<Passage> = ["a", "b"]
            .iter()
            .map(|id| Passage {
                id: id.to_string(),
                fields: Fields::default(),
            })
            .collect();
        // Force a collision: "b" filed under the hash of "a".
        idx.first.insert(id_hash("a"), 0);
        idx.more.insert("b".into(), 1);
        assert_eq!(idx.get("a", &ps), Some(0));
        assert_eq!(idx.get("b", &ps), None, "b's own hash is not in `first`");
        idx.first.insert(id_hash("b"), 0);
        assert_eq!(idx.get("b", &ps), Some(1));
        assert_eq!(idx.insert("b", 2, &ps), Some(1));
    }
}
