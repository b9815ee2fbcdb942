//! One reader for delimited files (CSV, TSV, semicolon-separated) with a header row, used by the
//! score, strata and assignment readers: delimiter detection, the header, records mapped to
//! their 1-based file lines, and `file:line` errors. The same [`Table`] also holds records that
//! came from JSON objects or Parquet rows, so the score layouts are decided once for all three.
//!
//! # Delimiter detection ([`Delimiter::detect`])
//! From the header line, counting separators outside double quotes: tab when it holds a tab;
//! else semicolon when it holds semicolons and no comma (the European spreadsheet CSV); else
//! comma. Quoting follows RFC 4180 (the `csv` crate): a quoted cell may hold the delimiter, a
//! doubled quote and line breaks; a record's line is the line it starts on.
//!
//! Every record must have as many fields as the header (an error names the line and both
//! counts). Cells and headers are trimmed of surrounding white space. Rows whose cells are all
//! empty are kept in [`Table::records`] and flagged by [`Record::is_blank`].

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Header names taken as the topic-id column (case-insensitive), in order of preference: the
/// score and strata readers use the same list.
pub const ID_NAMES: [&str; 8] = [
    "topic",
    "topic_id",
    "qid",
    "query_id",
    "question_id",
    "id",
    "_id",
    "index",
];

/// Whether `h` is one of [`ID_NAMES`] (case-insensitive, trimmed).
pub fn is_id_name(h: &str) -> bool {
    ID_NAMES.iter().any(|n| h.trim().eq_ignore_ascii_case(n))
}

/// A field delimiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delimiter {
    /// `,` (RFC 4180 CSV).
    Comma,
    /// A tab (TSV).
    Tab,
    /// `;` (CSV as spreadsheets in comma-decimal locales write it).
    Semicolon,
}

impl Delimiter {
    /// Detects the delimiter from the header line (see the module docs).
    pub fn detect(header: &str) -> Delimiter {
        let (mut tabs, mut commas, mut semis, mut quoted) = (0, 0, 0, false);
        for c in header.chars() {
            match c {
                '"' => quoted = !quoted,
                '\t' if !quoted => tabs += 1,
                ',' if !quoted => commas += 1,
                ';' if !quoted => semis += 1,
                _ => {}
            }
        }
        if tabs > 0 {
            Delimiter::Tab
        } else if semis > 0 && commas == 0 {
            Delimiter::Semicolon
        } else {
            Delimiter::Comma
        }
    }

    /// The delimiter byte.
    pub fn byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Tab => b'\t',
            Delimiter::Semicolon => b';',
        }
    }
}

/// How a record's position is named in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A 1-based line of a text file: `file:12: ...`.
    Line,
    /// A 1-based record of a JSON array: `file: record 12: ...`.
    Record,
    /// A 1-based row of a Parquet file: `file: row 12: ...`.
    Row,
}

/// One record with its position (see [`Unit`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line (or record / row number, see [`Table::unit`]).
    pub line: usize,
    /// Cells, trimmed, one per header column (empty for a missing value).
    pub cells: Vec<String>,
}

impl Record {
    /// Whether every cell is empty.
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(|c| c.is_empty())
    }

    /// The cell of column `i` (empty when out of range).
    pub fn get(&self, i: usize) -> &str {
        self.cells.get(i).map(String::as_str).unwrap_or("")
    }
}

/// A header and its records.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The file the records came from (for messages).
    pub path: PathBuf,
    /// Column names, trimmed.
    pub headers: Vec<String>,
    /// Records in file order.
    pub records: Vec<Record>,
    /// How positions are named.
    pub unit: Unit,
    /// The delimiter, for delimited text.
    pub delimiter: Option<Delimiter>,
}

impl Table {
    /// Parses delimited text with a header row; the delimiter is `delimiter`, else detected.
    ///
    /// Errors (exit 2, `file:line`): an unreadable header, a record with another number of
    /// fields than the header.
    pub fn parse(path: &Path, text: &str, delimiter: Option<Delimiter>) -> Result<Table> {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let delim = delimiter.unwrap_or_else(|| Delimiter::detect(first));
        // Lines are counted from byte offsets: the csv crate's own line count skips blank lines.
        let newlines: Vec<usize> = text
            .bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i)
            .collect();
        // A record's position is where the previous one ended: blank lines before it are skipped.
        let bytes = text.as_bytes();
        let line_at = |byte: u64| {
            let mut b = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
            while b < bytes.len() && (bytes[b] == b'\n' || bytes[b] == b'\r') {
                b += 1;
            }
            newlines.partition_point(|&n| n < b) + 1
        };
        let line_of = |e: &csv::Error| e.position().map_or(0, |p| line_at(p.byte()));
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delim.byte())
            .has_headers(true)
            .flexible(false)
            .from_reader(text.as_bytes());
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| Error::at(path, line_of(&e).max(1), "cannot read the header row").caused_by(e))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let mut records = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| {
                let found = match e.kind() {
                    csv::ErrorKind::UnequalLengths { len, .. } => format!(", found {}", len),
                    _ => String::new(),
                };
                Error::at(
                    path,
                    line_of(&e),
                    format!(
                        "malformed row (expected {} fields like the header{})",
                        headers.len(),
                        found
                    ),
                )
                .caused_by(e)
            })?;
            let line = rec.position().map_or(0, |p| line_at(p.byte()));
            records.push(Record {
                line,
                cells: rec.iter().map(|c| c.trim().to_string()).collect(),
            });
        }
        Ok(Table {
            path: path.to_path_buf(),
            headers,
            records,
            unit: Unit::Line,
            delimiter: Some(delim),
        })
    }

    /// The index of the column named `name` (case-insensitive).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h.eq_ignore_ascii_case(name.trim()))
    }

    /// The index of the column named `name`, or an error at the header naming `what` and the
    /// columns there are.
    pub fn require(&self, name: &str, what: &str) -> Result<usize> {
        self.column(name).ok_or_else(|| {
            self.header_err(format!(
                "no {} column `{}` in the header ({})",
                what,
                name,
                self.headers.join(", ")
            ))
        })
    }

    /// The topic-id column: the first of [`ID_NAMES`] present (in that order of preference).
    pub fn id_column(&self) -> Option<usize> {
        ID_NAMES.iter().find_map(|n| self.column(n))
    }

    /// An error at `rec`'s position.
    pub fn err(&self, rec: &Record, msg: impl std::fmt::Display) -> Error {
        self.err_at(rec.line, msg)
    }

    /// An error at position `line` (see [`Unit`]).
    pub fn err_at(&self, line: usize, msg: impl std::fmt::Display) -> Error {
        match self.unit {
            Unit::Line => Error::at(&self.path, line, msg),
            Unit::Record => Error::in_file(&self.path, format!("record {}: {}", line, msg)),
            Unit::Row => Error::in_file(&self.path, format!("row {}: {}", line, msg)),
        }
    }

    /// An error about the header (line 1 of a text file; the schema otherwise).
    pub fn header_err(&self, msg: impl std::fmt::Display) -> Error {
        match self.unit {
            Unit::Line => Error::at(&self.path, 1, msg),
            _ => Error::in_file(&self.path, msg),
        }
    }

    /// Builds a table from flat JSON objects (JSON Lines, a JSON array, Parquet rows): the
    /// columns are the keys in first-seen order; strings are kept, numbers and booleans written
    /// as JSON writes them, `null` and a missing key are empty cells, nested values are their
    /// JSON text.
    pub fn from_objects(path: &Path, unit: Unit, objects: impl IntoIterator<Item = (usize, Fields)>) -> Table {
        let mut headers: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let mut records = Vec::new();
        for (line, obj) in objects {
            let mut cells = vec![String::new(); headers.len()];
            for (k, v) in obj {
                let i = *index.entry(k.clone()).or_insert_with(|| {
                    headers.push(k.trim().to_string());
                    headers.len() - 1
                });
                if cells.len() <= i {
                    cells.resize(i + 1, String::new());
                }
                cells[i] = cell_text(&v);
            }
            records.push(Record { line, cells });
        }
        for r in &mut records {
            r.cells.resize(headers.len(), String::new());
        }
        Table {
            path: path.to_path_buf(),
            headers,
            records,
            unit,
            delimiter: None,
        }
    }
}

/// The fields of one record in file (or schema) order.
pub type Fields = Vec<(String, serde_json::Value)>;

/// A JSON object with its keys in file order (`serde_json::Map` sorts them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderedObject(pub Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for OrderedObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OrderedObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> std::result::Result<OrderedObject, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, serde_json::Value>()? {
                    out.push((k, v));
                }
                Ok(OrderedObject(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The text of one JSON value as a cell (see [`Table::from_objects`]).
pub fn cell_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.trim().to_string(),
        other => other.to_string(),
    }
}

/// The rows of a Parquet file as JSON objects in schema order, numbered from 1 (nested lists and
/// structs become JSON arrays and objects, as `parquet::record::Row::to_json_value` maps them).
///
/// Errors (exit 2): not a readable Parquet file (naming the file), including a corrupt file on
/// which the `parquet` decoder itself panics (caught here, so a damaged input is bad input, not
/// a crash); row groups that declare more uncompressed data than the input's limits allow
/// ([`crate::input::Limits::check_expansion`]); a build without the `parquet` feature (every
/// Parquet file, with a hint naming the feature).
pub fn parquet_objects(input: &crate::input::Input) -> Result<Vec<(usize, Fields)>> {
    crate::error::caught::catch_quietly(|| parquet_rows(input)).unwrap_or_else(|_| {
        Err(Error::in_file(
            input.path(),
            "is not a readable Parquet file (its encoded data is corrupt)",
        ))
    })
}

#[cfg(feature = "parquet")]
fn parquet_rows(input: &crate::input::Input) -> Result<Vec<(usize, Fields)>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let path = input.path();
    let bad = |e: parquet::errors::ParquetError| Error::in_file(path, "is not a readable Parquet file").caused_by(e);
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(input.bytes())).map_err(bad)?;
    // The uncompressed size the row groups declare, against the input's limits, before any page
    // is decompressed.
    let declared: i64 = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.total_byte_size().max(0))
        .sum();
    input
        .limits()
        .check_expansion(path, "Parquet", input.raw().len() as u64, declared as u64)?;
    let rows = reader.get_row_iter(None).map_err(bad)?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| Error::in_file(path, format!("row {}: cannot be read", i + 1)).caused_by(e))?;
        let obj = row
            .get_column_iter()
            .map(|(name, field)| (name.clone(), field.to_json_value()))
            .collect();
        out.push((i + 1, obj));
    }
    Ok(out)
}

/// Without the `parquet` feature: every Parquet input is refused (exit 2), naming the feature.
#[cfg(not(feature = "parquet"))]
fn parquet_rows(input: &crate::input::Input) -> Result<Vec<(usize, Fields)>> {
    Err(Error::in_file(
        input.path(),
        "is a Parquet file, and this pledge was built without the `parquet` feature",
    )
    .with_hint("build pledge with its default features, or with `--features parquet`"))
}

/// A Parquet file as a [`Table`] (see [`parquet_objects`]).
///
/// Errors: as [`parquet_objects`].
pub fn parquet_table(input: &crate::input::Input) -> Result<Table> {
    Ok(Table::from_objects(input.path(), Unit::Row, parquet_objects(input)?))
}

/// The rows of an Arrow IPC stream (Hugging Face `Dataset.save_to_disk`'s
/// `data-00000-of-00001.arrow`) as JSON objects in schema order, numbered from 1: strings,
/// integers, floats, booleans and nulls (the columns of a score table).
///
/// Errors (exit 2): not a readable Arrow stream (naming the file; a decoder panic on corrupt
/// data is caught as for Parquet); a column of another type (named, with its type).
pub fn arrow_objects(input: &crate::input::Input) -> Result<Vec<(usize, Fields)>> {
    crate::error::caught::catch_quietly(|| arrow_rows(input)).unwrap_or_else(|_| {
        Err(Error::in_file(
            input.path(),
            "is not a readable Arrow IPC stream (its encoded data is corrupt)",
        ))
    })
}

fn arrow_rows(input: &crate::input::Input) -> Result<Vec<(usize, Fields)>> {
    let path = input.path();
    let bad = |e: arrow_schema::ArrowError| Error::in_file(path, "is not a readable Arrow IPC stream").caused_by(e);
    let reader = arrow_ipc::reader::StreamReader::try_new(input.bytes(), None).map_err(bad)?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(bad)?;
        let schema = batch.schema();
        let start = out.len();
        for i in 0..batch.num_rows() {
            out.push((start + i + 1, Fields::with_capacity(batch.num_columns())));
        }
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            for (i, v) in arrow_values(path, field.name(), column.as_ref())?
                .into_iter()
                .enumerate()
            {
                out[start + i].1.push((field.name().clone(), v));
            }
        }
    }
    Ok(out)
}

/// One Arrow column's values as JSON values.
fn arrow_values(path: &Path, name: &str, a: &dyn arrow_array::Array) -> Result<Vec<serde_json::Value>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::DataType as T;
    use serde_json::Value;
    fn nums<P: arrow_array::ArrowPrimitiveType>(a: &dyn arrow_array::Array) -> Vec<Value>
    where
        P::Native: Into<serde_json::Number> + Copy,
    {
        a.as_primitive::<P>()
            .iter()
            .map(|x| x.map_or(Value::Null, |x| Value::Number(x.into())))
            .collect()
    }
    fn floats<P: arrow_array::ArrowPrimitiveType>(a: &dyn arrow_array::Array) -> Vec<Value>
    where
        P::Native: Into<f64> + Copy,
    {
        let f = |x: f64| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
        a.as_primitive::<P>()
            .iter()
            .map(|x| x.map_or(Value::Null, |x| f(x.into())))
            .collect()
    }
    let strings = |it: &mut dyn Iterator<Item = Option<&str>>| -> Vec<Value> {
        it.map(|x| x.map_or(Value::Null, |s| Value::String(s.to_string())))
            .collect()
    };
    Ok(match a.data_type() {
        T::Utf8 => strings(&mut a.as_string::<i32>().iter()),
        T::LargeUtf8 => strings(&mut a.as_string::<i64>().iter()),
        T::Utf8View => strings(&mut a.as_string_view().iter()),
        T::Boolean => a
            .as_boolean()
            .iter()
            .map(|x| x.map_or(Value::Null, Value::Bool))
            .collect(),
        T::Null => vec![Value::Null; a.len()],
        T::Int8 => nums::<Int8Type>(a),
        T::Int16 => nums::<Int16Type>(a),
        T::Int32 => nums::<Int32Type>(a),
        T::Int64 => nums::<Int64Type>(a),
        T::UInt8 => nums::<UInt8Type>(a),
        T::UInt16 => nums::<UInt16Type>(a),
        T::UInt32 => nums::<UInt32Type>(a),
        T::UInt64 => nums::<UInt64Type>(a),
        T::Float32 => floats::<Float32Type>(a),
        T::Float64 => floats::<Float64Type>(a),
        other => {
            return Err(Error::in_file(
                path,
                format!(
                    "column `{}` is of Arrow type {}, which pledge does not read in a score table",
                    name, other
                ),
            ))
        }
    })
}

/// An Arrow IPC stream as a [`Table`] (see [`arrow_objects`]).
///
/// Errors: as [`arrow_objects`].
pub fn arrow_table(input: &crate::input::Input) -> Result<Table> {
    Ok(Table::from_objects(input.path(), Unit::Row, arrow_objects(input)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("t.csv")
    }

    #[test]
    fn delimiters_are_detected_from_the_header() {
        assert_eq!(Delimiter::detect("a,b"), Delimiter::Comma);
        assert_eq!(Delimiter::detect("a\tb,c"), Delimiter::Tab);
        assert_eq!(Delimiter::detect("topic;system;score"), Delimiter::Semicolon);
        assert_eq!(Delimiter::detect("\"a;b\",c"), Delimiter::Comma);
        assert_eq!(Delimiter::detect("\"a,b\";c"), Delimiter::Semicolon);
        assert_eq!(Delimiter::detect("single"), Delimiter::Comma);
    }

    #[test]
    fn records_keep_their_file_lines_across_quoted_line_breaks() {
        let t = Table::parse(p(), "id;text;score\n1;\"two\nlines\";0,5\n\n2;x;1\n", None).unwrap();
        assert_eq!(t.delimiter, Some(Delimiter::Semicolon));
        assert_eq!(t.headers, vec!["id", "text", "score"]);
        let lines: Vec<usize> = t.records.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![2, 5]);
        assert_eq!(t.records[0].get(1), "two\nlines");
        assert_eq!(t.column("SCORE"), Some(2));
        assert_eq!(t.id_column(), Some(0));
    }

    #[test]
    fn wrong_field_counts_name_the_line_and_both_counts() {
        let e = Table::parse(p(), "a,b,c\n1,2,3\n1,2\n", None).unwrap_err();
        assert!(
            e.message
                .starts_with("t.csv:3: malformed row (expected 3 fields like the header, found 2)"),
            "{}",
            e.message
        );
        let t = Table::parse(p(), "a,b\n1,2\n", None).unwrap();
        let e = t.require("c", "score").unwrap_err();
        assert_eq!(e.message, "t.csv:1: no score column `c` in the header (a, b)");
    }

    #[test]
    fn objects_make_a_table_with_first_seen_columns() {
        let o = |s: &str| serde_json::from_str::<OrderedObject>(s).unwrap().0;
        let objs = vec![
            (1, o(r#"{"id": 1, "a": 0.5}"#)),
            (2, o(r#"{"id": "x", "b": true, "a": null}"#)),
        ];
        let t = Table::from_objects(Path::new("w.jsonl"), Unit::Line, objs);
        assert_eq!(t.headers, vec!["id", "a", "b"]);
        assert_eq!(t.records[0].cells, vec!["1", "0.5", ""]);
        assert_eq!(t.records[1].cells, vec!["x", "", "true"]);
        let r = Table::from_objects(Path::new("f.parquet"), Unit::Row, vec![]);
        assert_eq!(r.err_at(3, "bad").message, "f.parquet: row 3: bad");
    }

    /// Single-byte corruptions of a real Parquet file: the `parquet` decoder panics on some of
    /// them (RLE and buffer slicing); every one must be `Ok` or an input error naming the file.
    #[test]
    fn corrupt_parquet_is_an_input_error_not_a_panic() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats/hf/hotpotqa-100-correctness.parquet");
        let good = std::fs::read(path).unwrap();
        let (mut errors, mut checked) = (0, 0);
        for at in (4..good.len() - 8).step_by(3) {
            for b in [0x00, 0xff, 0x7f] {
                let mut bytes = good.clone();
                bytes[at] = b;
                let input = crate::input::Input::from_bytes("bad.parquet", bytes, Default::default()).unwrap();
                checked += 1;
                if let Err(e) = parquet_objects(&input) {
                    assert_eq!(e.exit_code(), 2, "{}", e.render());
                    assert!(e.render().contains("bad.parquet"), "{}", e.render());
                    errors += 1;
                }
            }
        }
        assert!(errors > 0 && checked > errors, "{} errors in {} cases", errors, checked);
    }
}
