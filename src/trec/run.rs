//! Run reader: `qid Q0 docno rank score tag` per line (spaces or tabs), and ranx runs saved as
//! JSON (`{query: {doc: score}}`) or Parquet (`q_id`, `doc_id`, `score`), detected from the
//! content (compression too, see [`crate::input`]); a ranx run's tag is its file name without
//! extensions. The rank column is ignored: documents are ordered as trec_eval orders them (score
//! descending, then docno descending in byte order; `form_res_rels.c`, `comp_sim_docno`).

use super::parse::{fields, Duplicates};
use crate::error::{Error, Result};
use crate::input::{Input, Kind, Limits};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// One retrieved document.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    /// Document id (may contain `#`).
    pub docno: String,
    /// Retrieval score (higher is better).
    pub score: f64,
}

/// A TREC run: the ranked documents of each topic, already in trec_eval's order.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file it was read from.
    pub path: PathBuf,
    /// The run tag (6th column of the first line).
    pub tag: String,
    /// Topic id (byte order) -> documents, best first.
    pub topics: BTreeMap<String, Vec<Retrieved>>,
}

impl Run {
    /// Reads a run file (gzip detected). Blank lines and lines starting with `#` are skipped.
    ///
    /// Errors (exit 2, `file:line`): fewer than 6 fields, a score that is not a finite number,
    /// a duplicate (topic, docno) unless `dups` is [`Duplicates::KeepFirst`]; an empty run.
    pub fn read(path: &Path, dups: Duplicates) -> Result<Run> {
        Run::from_input(&Input::from_path(path, Limits::default())?, dups)
    }

    /// Reads a run from an input already read (a file, standard input, bytes), detecting the
    /// layout (see the module docs).
    ///
    /// Errors (exit 2): as [`Run::read`]; a ranx JSON or Parquet file of another shape.
    pub fn from_input(input: &Input, dups: Duplicates) -> Result<Run> {
        let path = input.path();
        let pairs = match input.kind() {
            Kind::Parquet => super::ranx::parquet_pairs(input, "run")?,
            Kind::Zip => return Err(Error::in_file(path, "is a ZIP archive, expected a TREC run")),
            Kind::Text => {
                let text = input.text()?;
                if !text.trim_start().starts_with('{') {
                    return Run::parse(text, path, dups);
                }
                super::ranx::json_pairs(path, text, "run")?
            }
        };
        let mut topics = BTreeMap::new();
        for (t, docs) in pairs {
            let mut list: Vec<Retrieved> = docs
                .into_iter()
                .map(|(docno, score)| Retrieved { docno, score })
                .collect();
            let mut seen = HashSet::new();
            let mut dup = None;
            list.retain(|d| {
                let fresh = seen.insert(d.docno.clone());
                if !fresh && dup.is_none() {
                    dup = Some(d.docno.clone());
                }
                fresh
            });
            if let (Some(d), Duplicates::Error) = (dup, dups) {
                return Err(
                    Error::in_file(path, format!("document `{}` appears twice for topic `{}`", d, t))
                        .with_hint("pass --keep-first-duplicate to keep the first line"),
                );
            }
            list.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then_with(|| b.docno.cmp(&a.docno)));
            topics.insert(t, list);
        }
        if topics.values().all(Vec::is_empty) {
            return Err(Error::in_file(path, "run is empty"));
        }
        Ok(Run {
            path: path.to_path_buf(),
            tag: crate::scores::system_name_from_path(path),
            topics,
        })
    }

    /// Parses run text; `path` is kept and used in error messages.
    pub fn parse(text: &str, path: &Path, dups: Duplicates) -> Result<Run> {
        let mut tag: Option<String> = None;
        // Per topic: (docno, score, line).
        let mut raw: BTreeMap<&str, Vec<(&str, f64, usize)>> = BTreeMap::new();
        let mut last: Option<(&str, usize)> = None;
        let mut groups: Vec<Vec<(&str, f64, usize)>> = Vec::new();
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (no, line) in crate::io::lines(text) {
            let Some(f) = fields::<6>(line, path, no, "qid Q0 docno rank score tag")? else {
                continue;
            };
            let score: f64 = match f[4].parse::<f64>() {
                Ok(s) if s.is_finite() => s,
                _ => return Err(Error::at(path, no, format!("score `{}` is not a finite number", f[4]))),
            };
            if tag.is_none() {
                tag = Some(f[5].to_string());
            }
            let g = match last {
                Some((t, g)) if t == f[0] => g,
                _ => {
                    let g = *index.entry(f[0]).or_insert_with(|| {
                        groups.push(Vec::new());
                        groups.len() - 1
                    });
                    last = Some((f[0], g));
                    g
                }
            };
            groups[g].push((f[2], score, no));
        }
        for (t, g) in index {
            raw.insert(t, std::mem::take(&mut groups[g]));
        }
        let Some(tag) = tag else {
            return Err(Error::in_file(
                path,
                "run is empty (expected `qid Q0 docno rank score tag` lines)",
            ));
        };
        let mut topics = BTreeMap::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for (t, mut docs) in raw {
            // Duplicates: a set of the topic's docnos, in line order, so the first line wins.
            seen.clear();
            let mut dup_at: Option<(&str, usize)> = None;
            let before = docs.len();
            docs.retain(|d| {
                let fresh = seen.insert(d.0);
                if !fresh && dup_at.is_none() {
                    dup_at = Some((d.0, d.2));
                }
                fresh
            });
            if let (Some((d, no)), Duplicates::Error) = (dup_at, dups) {
                return Err(
                    Error::at(path, no, format!("document `{}` appears twice for topic `{}`", d, t))
                        .with_hint("pass --keep-first-duplicate to keep the first line"),
                );
            }
            debug_assert!(docs.len() <= before);
            // trec_eval's order; runs usually come in this order already, which sorts fast.
            docs.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(a.0)));
            let list = docs
                .into_iter()
                .map(|(d, s, _)| Retrieved {
                    docno: d.to_string(),
                    score: s,
                })
                .collect();
            topics.insert(t.to_string(), list);
        }
        Ok(Run {
            path: path.to_path_buf(),
            tag,
            topics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("r.txt")
    }

    #[test]
    fn orders_by_score_then_docno_descending() {
        let r = Run::parse(
            "1 Q0 a 1 2.0 T\n1\tQ0\tc\t9\t1.0\tT\n1 Q0 b 3 2.0 T\n2 Q0 x#1 1 5 T\n",
            p(),
            Duplicates::Error,
        )
        .unwrap();
        assert_eq!(r.tag, "T");
        let d: Vec<_> = r.topics["1"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(d, vec!["b", "a", "c"]);
        assert_eq!(r.topics["2"][0].docno, "x#1");
    }

    #[test]
    fn bad_lines() {
        let e = Run::parse("1 Q0 a 1 2.0 T\n1 Q0 b 1 2.0\n", p(), Duplicates::Error).unwrap_err();
        assert!(e.message.starts_with("r.txt:2:"), "{}", e.message);
        let e = Run::parse("1 Q0 a 1 high T\n", p(), Duplicates::Error).unwrap_err();
        assert!(
            e.message.starts_with("r.txt:1:") && e.message.contains("not a finite"),
            "{}",
            e.message
        );
        let e = Run::parse("1 Q0 a 1 2 T\n2 Q0 a 1 1 T\n1 Q0 a 2 1 T\n", p(), Duplicates::Error).unwrap_err();
        assert!(
            e.message.starts_with("r.txt:3:") && e.message.contains("twice"),
            "{}",
            e.message
        );
        let r = Run::parse("1 Q0 a 1 2 T\n1 Q0 a 2 9 T\n", p(), Duplicates::KeepFirst).unwrap();
        assert_eq!(r.topics["1"].len(), 1);
        assert_eq!(r.topics["1"][0].score, 2.0);
        let e = Run::parse("\n# nothing\n", p(), Duplicates::Error).unwrap_err();
        assert!(e.message.contains("empty"), "{}", e.message);
    }
}
