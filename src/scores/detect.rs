//! Which score format an input holds, decided from its content (magic bytes, then structure).

use crate::error::{Error, Result};
use crate::input::{Input, Kind};
use crate::tabular::Table;
use serde_json::Value;

/// A score-file format, as detected or forced with `--input-format NAME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreFormat {
    /// `trec_eval -q` output: `measure<TAB>topic<TAB>value`.
    TrecEval,
    /// ir_measures `-q` output: `query_id<TAB>measure<TAB>value`.
    IrMeasures,
    /// pytrec_eval's `evaluate()` result as JSON: `{query: {measure: value}}`.
    PytrecEval,
    /// ranx's per-query scores as JSON (`json.dump(run.scores, f)`): `{metric: {query: value}}`.
    RanxScores,
    /// promptfoo `eval -o` results: JSON, JSON Lines or CSV (one system per prompt and provider).
    Promptfoo,
    /// lm-evaluation-harness `--log_samples` JSON Lines (`samples_TASK_DATE.jsonl`).
    LmEval,
    /// inspect_ai `.eval` log (a ZIP archive).
    InspectEval,
    /// inspect_ai `.json` log.
    InspectJson,
    /// HELM `per_instance_stats.json`.
    Helm,
    /// JSON Lines `{"topic", "system", "score"}`.
    Jsonl,
    /// Flat JSON objects (JSON Lines or a JSON array) read as a table: long, wide, one system per
    /// file, or topic/measure/value (e.g. Hugging Face `to_json` output, ir_measures JSON Lines).
    JsonTable,
    /// CSV/TSV/semicolon-separated with a header: long, wide, one system per file, or
    /// topic/measure/value (PyTerrier's per-query results saved with `to_csv`).
    Delimited,
    /// Apache Parquet, read as a table as [`ScoreFormat::Delimited`] (Hugging Face, pandas).
    Parquet,
}

impl ScoreFormat {
    /// Every format, in the order [`detect`] tries them.
    pub const ALL: [ScoreFormat; 13] = [
        ScoreFormat::InspectEval,
        ScoreFormat::Parquet,
        ScoreFormat::InspectJson,
        ScoreFormat::Promptfoo,
        ScoreFormat::PytrecEval,
        ScoreFormat::RanxScores,
        ScoreFormat::Helm,
        ScoreFormat::LmEval,
        ScoreFormat::Jsonl,
        ScoreFormat::JsonTable,
        ScoreFormat::TrecEval,
        ScoreFormat::IrMeasures,
        ScoreFormat::Delimited,
    ];

    /// The name used by `--input-format` (kebab-case).
    pub fn name(self) -> &'static str {
        match self {
            ScoreFormat::TrecEval => "trec-eval",
            ScoreFormat::IrMeasures => "ir-measures",
            ScoreFormat::PytrecEval => "pytrec-eval",
            ScoreFormat::RanxScores => "ranx-scores",
            ScoreFormat::Promptfoo => "promptfoo",
            ScoreFormat::LmEval => "lm-eval",
            ScoreFormat::InspectEval => "inspect-eval",
            ScoreFormat::InspectJson => "inspect-json",
            ScoreFormat::Helm => "helm",
            ScoreFormat::Jsonl => "jsonl",
            ScoreFormat::JsonTable => "json-table",
            ScoreFormat::Delimited => "delimited",
            ScoreFormat::Parquet => "parquet",
        }
    }

    /// Parses a name given to `--input-format`.
    ///
    /// Errors (exit 2): an unknown name (listing the known ones).
    pub fn from_name(name: &str) -> Result<ScoreFormat> {
        let n = name.trim().to_ascii_lowercase().replace('_', "-");
        let alias = match n.as_str() {
            "csv" | "tsv" => "delimited",
            "inspect" | "eval" => "inspect-eval",
            "pytrec" | "pytrec-eval-terrier" => "pytrec-eval",
            "lm-evaluation-harness" => "lm-eval",
            "pyterrier" | "inspect-samples" | "samples-df" => "delimited",
            other => other,
        };
        ScoreFormat::ALL.into_iter().find(|f| f.name() == alias).ok_or_else(|| {
            let names = ScoreFormat::ALL.map(ScoreFormat::name);
            let close = crate::named::did_you_mean(&n, &names).map(|d| format!("{} ", d));
            Error::input(format!("unknown input format `{}`", name)).with_hint(format!(
                "{}score formats: {}",
                close.unwrap_or_default(),
                names.join(", ")
            ))
        })
    }
}

/// Detects the format of a score input from its content:
/// 1. a ZIP archive → inspect_ai `.eval`; a Parquet file → [`ScoreFormat::Parquet`];
/// 2. text whose first non-blank character is `{` or `[`: one JSON document (an inspect_ai log
///    has `version`, `eval` and `samples` or `results`; `{query: {key: number}}` with the same keys
///    for every query is pytrec_eval; an array of `{instance_id, stats}` is HELM), or JSON Lines
///    (a record with `doc_id` and `filter` or `doc` is lm-evaluation-harness; one with `topic`
///    and `system` or `score` is pledge's own JSON Lines; other flat objects a table);
/// 3. lines of exactly three tab-separated fields, the third numeric: ir_measures `-q` output
///    (`query<TAB>measure<TAB>value`) when a row starts with `all` (its summary rows), `trec_eval
///    -q` output (`measure<TAB>query<TAB>value`) when a `runid` row or an `all` second field is
///    present; without either, trec_eval when the first column has fewer distinct values than the
///    second and no measure name holds `@`, else ir_measures;
/// 4. anything else is delimited text with a header.
///
/// A ranx run or qrels (`{query: {doc: number}}` with differing keys) is refused here with a
/// message saying so (it is read by `--run`/`--qrels`), as is lm-evaluation-harness's aggregated
/// results file.
///
/// Errors (exit 2): an empty input, a ZIP that is not an inspect_ai log, the refusals above.
pub fn detect(input: &Input) -> Result<ScoreFormat> {
    let path = input.path();
    match input.kind() {
        Kind::Zip => return Ok(ScoreFormat::InspectEval),
        Kind::Parquet | Kind::Arrow => return Ok(ScoreFormat::Parquet),
        Kind::Lz4 => {
            return Err(Error::in_file(
                path,
                "is a ranx run saved as LZ4 (documents and their scores), not per-topic scores",
            )
            .with_hint("evaluate runs with --qrels QRELS --run RUN (pledge eval reads ranx LZ4 runs)"))
        }
        Kind::Text => {}
    }
    let text = input.text()?;
    let Some(first) = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| !l.trim().is_empty())
    else {
        return Err(Error::in_file(path, "file is empty (expected per-topic scores)"));
    };
    if is_promptfoo_csv(text) {
        return Ok(ScoreFormat::Promptfoo);
    }
    let lead = first.trim_start();
    if lead.starts_with('{') || lead.starts_with('[') {
        return detect_json(input, text);
    }
    if let Some(f) = detect_three_columns(text) {
        return Ok(f);
    }
    Ok(ScoreFormat::Delimited)
}

/// Whether delimited text has promptfoo's CSV header: a `[PROVIDER] PROMPT` column followed by
/// `Status` and `Score` (the header may span lines: a prompt holds newlines).
fn is_promptfoo_csv(text: &str) -> bool {
    let head = &text[..text.len().min(1 << 16)];
    if !head.contains(",Status,Score") {
        return false;
    }
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(head.as_bytes());
    let Ok(h) = rdr.headers() else {
        return false;
    };
    let h: Vec<&str> = h.iter().map(str::trim).collect();
    (0..h.len().saturating_sub(2)).any(|i| h[i].starts_with('[') && h[i + 1] == "Status" && h[i + 2] == "Score")
}

fn detect_json(input: &Input, text: &str) -> Result<ScoreFormat> {
    let path = input.path();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let first = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            return Err(Error::at(
                path,
                e.line(),
                "malformed JSON (expected a JSON document or JSON Lines)",
            )
            .caused_by(e))
        }
        None => return Err(Error::in_file(path, "file is empty (expected per-topic scores)")),
    };
    let more = stream.next().is_some();
    if !more {
        match &first {
            Value::Object(m) => {
                if m.contains_key("eval")
                    && m.contains_key("version")
                    && (m.contains_key("samples") || m.contains_key("results"))
                {
                    return Ok(ScoreFormat::InspectJson);
                }
                if super::promptfoo::is_output(m) {
                    return Ok(ScoreFormat::Promptfoo);
                }
                if m.contains_key("results") && (m.contains_key("configs") || m.contains_key("versions")) {
                    return Err(Error::in_file(
                        path,
                        "is lm-evaluation-harness's aggregated results file (`results`, `configs`): it holds no per-document scores",
                    )
                    .with_hint("run lm_eval with --log_samples and pass the samples_TASK_DATE.jsonl file beside it"));
                }
                if let Some(kind) = nested_kind(m) {
                    return match kind {
                        Nested::Measures => Ok(ScoreFormat::PytrecEval),
                        Nested::MeasuresOutside => Ok(ScoreFormat::RanxScores),
                        Nested::Documents => Err(Error::in_file(
                            path,
                            "looks like a ranx run or qrels (JSON {query: {document: number}}), not per-topic scores",
                        )
                        .with_hint(
                            "evaluate runs with --qrels QRELS --run RUN (pledge eval reads ranx JSON runs and qrels)",
                        )),
                    };
                }
                if is_document(text, m) {
                    return Err(super::unknown::unknown_json(path, m));
                }
            }
            Value::Array(a) => {
                if a.first()
                    .and_then(Value::as_object)
                    .is_some_and(|o| o.contains_key("instance_id") && o.contains_key("stats"))
                {
                    return Ok(ScoreFormat::Helm);
                }
                return Ok(ScoreFormat::JsonTable);
            }
            _ => {}
        }
    }
    match &first {
        Value::Object(m) => {
            if super::promptfoo::is_result(m) {
                Ok(ScoreFormat::Promptfoo)
            } else if m.contains_key("doc_id") && (m.contains_key("filter") || m.contains_key("doc")) {
                Ok(ScoreFormat::LmEval)
            } else if m.contains_key("topic") && (m.contains_key("system") || m.contains_key("score")) {
                Ok(ScoreFormat::Jsonl)
            } else {
                Ok(ScoreFormat::JsonTable)
            }
        }
        _ => Err(Error::at(
            path,
            1,
            "expected one JSON object per line (JSON Lines) or a JSON document",
        )),
    }
}

/// Whether a lone JSON object is a document rather than one JSON Lines record: it spans several
/// lines (pretty-printed) or holds objects or arrays.
fn is_document(text: &str, m: &serde_json::Map<String, Value>) -> bool {
    text.trim().lines().count() > 1 || m.values().any(|v| v.is_object() || v.is_array())
}

enum Nested {
    /// Every query has the same keys: measures (pytrec_eval).
    Measures,
    /// The outer keys are measures and the inner ones queries (ranx's `run.scores`).
    MeasuresOutside,
    /// Keys differ between queries: documents (a ranx run or qrels).
    Documents,
}

/// `{query: {key: number}}`: which kind, or `None` for another shape.
fn nested_kind(m: &serde_json::Map<String, Value>) -> Option<Nested> {
    if m.is_empty() {
        return None;
    }
    let mut keys: Option<Vec<&String>> = None;
    let mut same = true;
    for v in m.values() {
        let inner = v.as_object()?;
        if !inner.values().all(Value::is_number) {
            return None;
        }
        let k: Vec<&String> = inner.keys().collect();
        match &keys {
            None => keys = Some(k),
            Some(prev) => same &= *prev == k,
        }
    }
    if m.keys().all(|k| looks_like_measure(k)) && !keys.iter().flatten().all(|k| looks_like_measure(k)) {
        return Some(Nested::MeasuresOutside);
    }
    // A single query cannot tell measures from documents by repetition: known measure names do.
    let measures = keys.unwrap_or_default();
    let named = measures.iter().all(|k| looks_like_measure(k));
    if (same && m.len() > 1) || named {
        Some(Nested::Measures)
    } else {
        Some(Nested::Documents)
    }
}

/// Whether `k` looks like a trec_eval / ir_measures / ranx measure name.
fn looks_like_measure(k: &str) -> bool {
    if crate::trec::resolve(k).is_ok() {
        return true;
    }
    const NAMES: [&str; 24] = [
        "map",
        "ndcg",
        "recip_rank",
        "Rprec",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "num_q",
        "P",
        "recall",
        "success",
        "map_cut",
        "ndcg_cut",
        "iprec_at_recall",
        "rbp",
        "judged",
        "infAP",
        "gm_map",
        "set_F",
        "AP",
        "RR",
        "nDCG",
        "R",
    ];
    let base = k.split(['_', '@', '.']).next().unwrap_or(k);
    NAMES
        .iter()
        .any(|n| k == *n || base == *n || k.starts_with(&format!("{}_", n)))
}

/// Lines of three tab-separated fields with a numeric third: which of the two layouts.
fn detect_three_columns(text: &str) -> Option<ScoreFormat> {
    let mut col0 = std::collections::HashSet::new();
    let mut col1 = std::collections::HashSet::new();
    let (mut trec_marker, mut ir_marker) = (false, false);
    let mut at_sign = false;
    for (i, l) in crate::io::lines(text).filter(|(_, l)| !l.trim().is_empty()).enumerate() {
        let f: Vec<&str> = l.1.split('\t').collect();
        if f.len() != 3 {
            return None;
        }
        let (a, b, c) = (f[0].trim(), f[1].trim(), f[2].trim());
        if a == "runid" || b == "all" {
            trec_marker = true;
        } else if a == "relstring" || a.starts_with("relstring_") {
            // trec_eval's one string-valued measure (`-m all_trec` prints it).
            trec_marker = true;
            continue;
        } else if a == "all" {
            ir_marker = true;
        } else if !super::value::is_number(c) {
            // A header row (`query_id measure value`) is allowed only on the first line.
            if i == 0 && b.eq_ignore_ascii_case("measure") {
                continue;
            }
            return None;
        }
        at_sign |= b.contains('@');
        col0.insert(a.to_string());
        col1.insert(b.to_string());
        if i > 20_000 && trec_marker {
            break;
        }
    }
    if col0.is_empty() && !trec_marker {
        return None;
    }
    if ir_marker && !trec_marker {
        Some(ScoreFormat::IrMeasures)
    } else if trec_marker || (col0.len() < col1.len() && !at_sign) {
        Some(ScoreFormat::TrecEval)
    } else if at_sign || col1.len() < col0.len() {
        Some(ScoreFormat::IrMeasures)
    } else {
        Some(ScoreFormat::TrecEval)
    }
}

/// A Parquet or JSON table in the layout of a ranx run or qrels (`q_id`, `doc_id`, `score`):
/// refused as per-topic scores, with a message saying what it is.
pub(super) fn refuse_ranx_table(t: &Table) -> Result<()> {
    if t.column("q_id").is_some() && t.column("doc_id").is_some() && t.column("score").is_some() {
        return Err(Error::in_file(
            &t.path,
            "looks like a ranx run or qrels saved as Parquet (`q_id`, `doc_id`, `score`), not per-topic scores",
        )
        .with_hint("evaluate runs with --qrels QRELS --run RUN"));
    }
    Ok(())
}
