//! Run reader: `qid Q0 docno rank score tag` per line (spaces or tabs), and ranx runs saved as
//! JSON (`{query: {doc: score}}`) or Parquet (`q_id`, `doc_id`, `score`), detected from the
//! content (compression too, see [`crate::input`]); a ranx run's tag is its file name without
//! extensions. ranx's LZ4 runs (`Run.save("run.lz4")`: CBOR in two LZ4 frames) and MS MARCO
//! 3-column runs (`qid<TAB>docid<TAB>rank`, as Anserini and pyserini write them; each document's
//! score is `1/rank`, as pyserini's `convert_msmarco_run_to_trec_run` gives it) are read too. The rank column is ignored: documents are ordered as trec_eval orders them (score
//! descending, then docno descending in byte order; `form_res_rels.c`, `comp_sim_docno`), with
//! scores compared in single precision by default (see [`ScorePrecision`]).

mod msmarco;

use super::parse::{fields, Duplicates};
use crate::error::{Error, Result};
use crate::input::{Input, Kind, Limits};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// How scores are compared when a topic's documents are ranked.
///
/// trec_eval up to 9.0.8 (the release most installations use, and the one pytrec_eval builds
/// on) reads scores into a C `float` (`trec_format.h`) and sorts by it, so scores that differ only
/// below single precision tie and fall back to docno order; trec_eval 10.0 (commit dc0c991,
/// 2023) reads them as `double`. Either way −0 and +0 tie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScorePrecision {
    /// Compare scores rounded to the nearest `f32` (trec_eval ≤ 9.0.8; default).
    #[default]
    Single,
    /// Compare the scores as read, in `f64` (trec_eval 10.0; `--full-precision`).
    Double,
}

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
        Run::read_with(path, dups, ScorePrecision::default())
    }

    /// Reads a run from an input already read (a file, standard input, bytes), detecting the
    /// layout (see the module docs).
    ///
    /// Errors (exit 2): as [`Run::read`]; a ranx JSON or Parquet file of another shape.
    pub fn from_input(input: &Input, dups: Duplicates) -> Result<Run> {
        Run::from_input_with(input, dups, ScorePrecision::default())
    }

    /// [`Run::from_input`] with the score comparison chosen.
    ///
    /// Errors: as [`Run::from_input`].
    pub fn from_input_with(input: &Input, dups: Duplicates, precision: ScorePrecision) -> Result<Run> {
        let path = input.path();
        let pairs = match input.kind() {
            Kind::Parquet => super::ranx::parquet_pairs(input, "run")?,
            Kind::Zip => return Err(Error::in_file(path, "is a ZIP archive, expected a TREC run")),
            Kind::Arrow => return Err(Error::in_file(path, "is an Arrow IPC stream, expected a TREC run")),
            Kind::Lz4 => super::ranx::lz4_pairs(input, "run")?,
            Kind::Text => {
                let text = input.text()?;
                if msmarco::detect(text) {
                    msmarco::pairs(path, text)?
                } else if !text.trim_start().starts_with('{') {
                    return Run::parse_with(text, path, dups, precision);
                } else {
                    super::ranx::json_pairs(path, text, "run")?
                }
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
            list.sort_unstable_by(|a, b| {
                let by_score = match precision {
                    ScorePrecision::Single => (b.score as f32).partial_cmp(&(a.score as f32)),
                    ScorePrecision::Double => b.score.partial_cmp(&a.score),
                };
                by_score
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| b.docno.cmp(&a.docno))
            });
            topics.insert(t, list);
        }
        if topics.values().all(Vec::is_empty) {
            return Err(Error::in_file(path, "run is empty"));
        }
        Ok(Run {
            path: path.to_path_buf(),
            tag: crate::input::system_name_from_path(path),
            topics,
        })
    }

    /// [`Run::read`] with the score comparison chosen.
    ///
    /// Errors: as [`Run::read`].
    pub fn read_with(path: &Path, dups: Duplicates, precision: ScorePrecision) -> Result<Run> {
        Run::from_input_with(&Input::from_path(path, Limits::default())?, dups, precision)
    }

    /// Parses run text; `path` is kept and used in error messages. Scores are compared in
    /// single precision ([`ScorePrecision::Single`]).
    ///
    /// Errors: as [`Run::read`].
    pub fn parse(text: &str, path: &Path, dups: Duplicates) -> Result<Run> {
        Run::parse_with(text, path, dups, ScorePrecision::default())
    }

    /// [`Run::parse`] with the score comparison chosen.
    ///
    /// Errors: as [`Run::read`].
    pub fn parse_with(text: &str, path: &Path, dups: Duplicates, precision: ScorePrecision) -> Result<Run> {
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
            // Scores are finite, so partial_cmp always answers (and -0 equals +0, as in C).
            let by_score = |a: f64, b: f64| match precision {
                ScorePrecision::Single => (b as f32).partial_cmp(&(a as f32)),
                ScorePrecision::Double => b.partial_cmp(&a),
            };
            docs.sort_unstable_by(|a, b| {
                by_score(a.1, b.1)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| b.0.cmp(a.0))
            });
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
    fn scores_equal_in_single_precision_tie() {
        // 1.00000001 and 1.00000002 are one f32 (1.0); in f64 b is above a. -0 and +0 tie.
        let text = "1 Q0 b 1 1.00000002 T\n1 Q0 a 2 1.00000001 T\n1 Q0 c 3 1.0000001 T\n\
                    2 Q0 x 1 0.0 T\n2 Q0 y 2 -0.0 T\n";
        let single = Run::parse(text, p(), Duplicates::Error).unwrap();
        let d: Vec<_> = single.topics["1"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(d, vec!["c", "b", "a"], "b and a tie, docno descending");
        let double = Run::parse_with(text, p(), Duplicates::Error, ScorePrecision::Double).unwrap();
        let d: Vec<_> = double.topics["1"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(d, vec!["c", "b", "a"]);
        let text2 = "1 Q0 a 1 1.00000002 T\n1 Q0 b 2 1.00000001 T\n";
        let single = Run::parse(text2, p(), Duplicates::Error).unwrap();
        let d: Vec<_> = single.topics["1"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(d, vec!["b", "a"], "a tie: docno descending, b first");
        let double = Run::parse_with(text2, p(), Duplicates::Error, ScorePrecision::Double).unwrap();
        let d: Vec<_> = double.topics["1"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(d, vec!["a", "b"], "a's score is higher in f64");
        let z = Run::parse_with(text, p(), Duplicates::Error, ScorePrecision::Double).unwrap();
        let d: Vec<_> = z.topics["2"].iter().map(|x| x.docno.as_str()).collect();
        assert_eq!(
            d,
            vec!["y", "x"],
            "-0 = +0, docno descending (total_cmp would put x first)"
        );
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
