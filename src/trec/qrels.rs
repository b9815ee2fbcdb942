//! Qrels reader: `qid iter docno rel` per line (whitespace-separated), as trec_eval's
//! `get_qrels.c` reads them; also BEIR's three-column `qrels/SPLIT.tsv` (`query-id corpus-id
//! score`, with or without that header row), ranx qrels saved as JSON (`{query: {doc: grade}}`)
//! and as Parquet (`q_id`, `doc_id`, `score`). The layout is detected from the content, as is
//! compression (see [`crate::input`]). Grades are integers; negative grades are allowed.

use super::parse::{fields, Duplicates};
use crate::error::{Error, Result};
use crate::input::{Input, Kind, Limits};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The judgments of one topic: docno -> grade.
#[derive(Debug, Clone, Default)]
pub struct TopicQrels {
    /// Grade of each judged document. A negative grade is judged and non-relevant (by default;
    /// see [`super::Judging::negative_unjudged`] for trec_eval's "in pool, unjudged").
    pub grades: HashMap<String, i32>,
}

impl TopicQrels {
    /// Number of documents with grade >= `level` (trec_eval's num_rel at `-l level`).
    pub fn num_rel(&self, level: i32) -> usize {
        self.grades.values().filter(|&&g| g >= level).count()
    }
}

/// Relevance judgments of several topics, keyed by topic id (byte order).
#[derive(Debug, Clone, Default)]
pub struct Qrels {
    /// Topic id -> its judgments.
    pub topics: BTreeMap<String, TopicQrels>,
}

impl Qrels {
    /// Reads a qrels file (gzip detected). Lines starting with `#` and blank lines are skipped;
    /// doc ids may contain `#`.
    ///
    /// Errors (exit 2, `file:line`): fewer than 4 fields, a grade that is not an integer, a
    /// duplicate (topic, docno) (unless `dups` is [`Duplicates::KeepFirst`]), an empty file.
    pub fn read(path: &Path, dups: Duplicates) -> Result<Qrels> {
        Qrels::from_input(&Input::from_path(path, Limits::default())?, dups)
    }

    /// Reads qrels from an input already read (a file, standard input, bytes), detecting the
    /// layout (see the module docs).
    ///
    /// Errors (exit 2): as [`Qrels::read`]; a ranx JSON or Parquet file of another shape.
    pub fn from_input(input: &Input, dups: Duplicates) -> Result<Qrels> {
        let path = input.path();
        let pairs = match input.kind() {
            Kind::Parquet => Some(super::ranx::parquet_pairs(input, "qrels")?),
            Kind::Zip => return Err(Error::in_file(path, "is a ZIP archive, expected qrels")),
            Kind::Arrow => return Err(Error::in_file(path, "is an Arrow IPC stream, expected qrels")),
            Kind::Lz4 => {
                return Err(Error::in_file(
                    path,
                    "is LZ4-compressed: ranx saves runs as .lz4, not qrels; expected qrels",
                ))
            }
            Kind::Text => {
                let text = input.text()?;
                if text.trim_start().starts_with('{') {
                    Some(super::ranx::json_pairs(path, text, "qrels")?)
                } else {
                    return Qrels::parse(text, path, dups);
                }
            }
        };
        let mut q = Qrels::default();
        for (topic, docs) in pairs.unwrap_or_default() {
            let tq = q.topics.entry(topic.clone()).or_default();
            for (doc, grade) in docs {
                if grade.fract() != 0.0 || grade.abs() > f64::from(i32::MAX) {
                    return Err(Error::in_file(
                        path,
                        format!(
                            "topic `{}` document `{}`: grade {} is not an integer",
                            topic, doc, grade
                        ),
                    ));
                }
                if tq.grades.insert(doc.clone(), grade as i32).is_some() && dups == Duplicates::Error {
                    return Err(Error::in_file(
                        path,
                        format!("duplicate judgment of document `{}` for topic `{}`", doc, topic),
                    ));
                }
            }
        }
        if q.topics.values().all(|t| t.grades.is_empty()) {
            return Err(Error::in_file(path, "qrels file has no judgments"));
        }
        Ok(q)
    }

    /// Parses qrels text; `path` is used in error messages only. Four fields (`qid iter docno
    /// rel`, TREC) or three (`query-id corpus-id score`, BEIR) per line, decided by the first
    /// line; a first line whose last field is not an integer is BEIR's header and skipped.
    pub fn parse(text: &str, path: &Path, dups: Duplicates) -> Result<Qrels> {
        let mut q = Qrels::default();
        let mut seen = 0usize;
        let mut cur: Option<(String, TopicQrels)> = None;
        let mut width: Option<usize> = None;
        for (no, line) in crate::io::lines(text) {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if width.is_none() {
                let f: Vec<&str> = t.split_ascii_whitespace().collect();
                // Any run of digits is a grade (one too large is an out-of-range error below,
                // not BEIR's header).
                let last_is_int = f.last().is_some_and(|x| {
                    let d = x.strip_prefix(['-', '+']).unwrap_or(x);
                    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                });
                if !last_is_int && f.len() == 3 {
                    // BEIR's header `query-id corpus-id score`.
                    width = Some(3);
                    continue;
                }
                width = Some(if f.len() == 3 { 3 } else { 4 });
            }
            let f = if width == Some(3) {
                match fields::<3>(line, path, no, "query-id corpus-id score")? {
                    Some([a, b, c]) => [a, "0", b, c],
                    None => continue,
                }
            } else {
                match fields::<4>(line, path, no, "qid iter docno rel")? {
                    Some(f) => f,
                    None => continue,
                }
            };
            let grade: i32 = f[3].parse().map_err(|e: std::num::ParseIntError| {
                use std::num::IntErrorKind::{NegOverflow, PosOverflow};
                match e.kind() {
                    PosOverflow | NegOverflow => Error::at(
                        path,
                        no,
                        format!(
                            "relevance grade `{}` is out of range: expected an integer from {} to {}",
                            f[3],
                            i32::MIN,
                            i32::MAX
                        ),
                    ),
                    _ => Error::at(path, no, format!("relevance grade `{}` is not an integer", f[3])),
                }
            })?;
            seen += 1;
            // Lines of one topic are usually contiguous: keep the current topic at hand.
            if cur.as_ref().map(|(t, _)| t.as_str() != f[0]).unwrap_or(true) {
                if let Some((t, tq)) = cur.take() {
                    q.topics.insert(t, tq);
                }
                let tq = q.topics.remove(f[0]).unwrap_or_default();
                cur = Some((f[0].to_string(), tq));
            }
            if let Some((_, tq)) = cur.as_mut() {
                if tq.grades.contains_key(f[2]) {
                    if dups == Duplicates::Error {
                        return Err(Error::at(
                            path,
                            no,
                            format!("duplicate judgment of document `{}` for topic `{}`", f[2], f[0]),
                        )
                        .with_hint("pass --keep-first-duplicate to keep the first judgment"));
                    }
                } else {
                    tq.grades.insert(f[2].to_string(), grade);
                }
            }
        }
        if let Some((t, tq)) = cur.take() {
            q.topics.insert(t, tq);
        }
        if seen == 0 {
            return Err(Error::in_file(
                path,
                "qrels file has no judgments (expected `qid iter docno rel` lines)",
            ));
        }
        Ok(q)
    }

    /// The judgments of `topic`, if any.
    pub fn topic(&self, topic: &str) -> Option<&TopicQrels> {
        self.topics.get(topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("q.txt")
    }

    #[test]
    fn reads_graded_negative_and_hash_ids() {
        let q = Qrels::parse("# c\n1 0 a#1 2\n1 0 b -1\n\n2 0 a 0\n1 0 c 1\n", p(), Duplicates::Error).unwrap();
        assert_eq!(q.topics.len(), 2);
        let t1 = q.topic("1").unwrap();
        assert_eq!(t1.grades["a#1"], 2);
        assert_eq!(t1.grades["b"], -1);
        assert_eq!(t1.num_rel(1), 2);
        assert_eq!(t1.num_rel(2), 1);
    }

    #[test]
    fn errors_name_line() {
        let e = Qrels::parse("1 0 a 1\n1 0 b\n", p(), Duplicates::Error).unwrap_err();
        assert!(e.message.starts_with("q.txt:2:"), "{}", e.message);
        let e = Qrels::parse("1 0 a x\n", p(), Duplicates::Error).unwrap_err();
        assert!(
            e.message.contains("q.txt:1:") && e.message.contains("not an integer"),
            "{}",
            e.message
        );
        let e = Qrels::parse("1 0 a 1\n1 0 a 0\n", p(), Duplicates::Error).unwrap_err();
        assert!(
            e.message.contains("q.txt:2:") && e.message.contains("duplicate"),
            "{}",
            e.message
        );
        let q = Qrels::parse("1 0 a 1\n1 0 a 0\n", p(), Duplicates::KeepFirst).unwrap();
        assert_eq!(q.topic("1").unwrap().grades["a"], 1);
        assert!(Qrels::parse("# only\n", p(), Duplicates::Error).is_err());
    }

    #[test]
    fn beir_three_columns_with_and_without_header() {
        for text in [
            "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n",
            "q1 d1 1\nq1 d2 0\n",
        ] {
            let q = Qrels::parse(text, p(), Duplicates::Error).unwrap();
            assert_eq!(q.topic("q1").unwrap().grades["d1"], 1);
            assert_eq!(q.topic("q1").unwrap().num_rel(1), 1);
        }
        let e = Qrels::parse("q1 d1 1\nq1 d2\n", p(), Duplicates::Error).unwrap_err();
        assert!(e.message.starts_with("q.txt:2: expected 3 fields"), "{}", e.message);
    }

    #[test]
    fn a_grade_beyond_i32_names_the_line_and_the_range() {
        for (text, line, grade) in [
            ("1 0 a 1\n1 0 b 99999999999999999999\n", 2, "99999999999999999999"),
            ("1 0 a -2147483649\n", 1, "-2147483649"),
            // A first BEIR line with a huge grade is a row, not the header.
            ("q1 d1 2147483648\nq1 d2 0\n", 1, "2147483648"),
        ] {
            let e = Qrels::parse(text, p(), Duplicates::Error).unwrap_err();
            assert_eq!(
                e.message,
                format!(
                    "q.txt:{line}: relevance grade `{grade}` is out of range: expected an integer from -2147483648 to 2147483647"
                )
            );
        }
        let q = Qrels::parse("1 0 a 2147483647\n1 0 b -2147483648\n", p(), Duplicates::Error).unwrap();
        assert_eq!(q.topic("1").unwrap().grades["a"], i32::MAX);
    }
}
