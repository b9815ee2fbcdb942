//! Per-topic score inputs: long CSV/TSV (`topic,system,score`), wide CSV/TSV (a topic column and
//! one column per system), JSON Lines, and `trec_eval -q` output. Topics are joined by id, never
//! by position; topic ids are strings.
//!
//! # Layout detection ([`read`] / [`read_with`])
//! The file is read with [`crate::io::read_text`] (gzip and a UTF-8 BOM are transparent; CRLF is
//! fine). Then, in this order:
//! 1. **JSON Lines** when the name ends in `.jsonl`/`.ndjson` (before `.gz`) or the first
//!    non-blank character is `{`: one object per line with `topic` (string or integer), `system`
//!    (string) and `score` (number, or a boolean label as a string). Blank lines are skipped.
//! 2. **`trec_eval -q` output** when the first non-blank line has exactly three tab-separated
//!    fields, the third one numeric (or the first one `runid`): `measure<TAB>topic<TAB>value`. The system is named by the
//!    `runid all NAME` row, else by the file name. One measure is used: [`ReadOptions::measure`],
//!    else the only measure present (several measures without a choice is an error listing them;
//!    `P.10` and `P_10` are the same name). The `all` row of the measure is checked against the
//!    mean of the per-topic values (to 4 decimals, as `trec_eval` prints) and a disagreement is
//!    reported in [`ScoreTable::notes`] (`trec_eval` without `-c` averages only topics in the run).
//! 3. **Delimited with a header row**, tab-separated when the first line holds a tab, else
//!    comma-separated:
//!    - **long** when the header (case-insensitive) has the columns `topic`, `system`, `score`
//!      (other columns are ignored);
//!    - **one system per file** when [`ReadOptions::column`] is set (e.g. `f1` for the 2WikiMQA
//!      result files): the topic column is the first column named like an id (`topic`, `topic_id`,
//!      `qid`, `query_id`, `question_id`, `id`, `_id`, `index`), else the first column; the system
//!      is the file name without extensions; a row with an empty topic id is a summary row (the
//!      column mean): it is checked against the mean and a disagreement goes to the notes;
//!    - **wide** otherwise: the first column holds topic ids and every other column is a system.
//!      When the first header is not an id-like name and the first data row is all numbers (the
//!      `trec-topic-by-system` files: runs as columns, topics as rows, no id column), topics are
//!      named by their 1-based row number and a note says so. An empty cell is a missing score.
//!
//! Values are numbers (finite; `NaN`/`inf` are errors) or labels, case-insensitive:
//! `CORRECT`/`INCORRECT`, `true`/`false`, `yes`/`no` → 1/0. Any other label (e.g. `HALTED`) is
//! an error naming file and line unless mapped with [`ReadOptions::labels`] (`--label HALTED=0`).
//!
//! Several files ([`read_many`]) are merged by topic id; a (topic, system) pair given twice is an
//! error naming the second file and line.

mod delimited;
mod detect;
mod from_trec;
mod helm;
mod inspect;
mod inspect_samples;
mod jsonl;
mod lm_eval;
mod measure_long;
mod merge;
mod promptfoo;
mod pytrec;
mod samples;
mod trec_eval;
mod unknown;
mod value;

use crate::error::{Error, Result};
use crate::input::{Input, Limits};
use crate::protocol::SampleAggregation;
use serde::Serialize;
use std::path::Path;

pub use detect::{detect, ScoreFormat};
pub use from_trec::score_table;
pub use merge::merge;
pub use samples::{aggregate, Sample, Samples};
pub use value::parse_value;

/// Per-topic scores of several systems, joined by topic id.
///
/// `values[s][t]` is the score of `systems[s]` on `topics[t]`, `None` when that system has no
/// score for that topic. Topics keep first-seen order; systems keep first-seen order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreTable {
    /// System (run) names.
    pub systems: Vec<String>,
    /// Topic ids.
    pub topics: Vec<String>,
    /// Scores, `[system][topic]`, in the metric's own scale.
    pub values: Vec<Vec<Option<f64>>>,
    /// Notes found while reading (e.g. a `trec_eval` `all` row that disagrees with the mean).
    pub notes: Vec<String>,
    /// The repeated samples each value was reduced from (inspect_ai epochs, a long table's
    /// sample column), `None` when the inputs hold one value per topic and system.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<Samples>,
}

/// Options of the score readers; the default reads any layout with the built-in labels.
///
/// The fields added after the first release (`format`, `filter`, `system`, `limits`) are left out
/// of the serialized form while unset, so recorded options of earlier analyses read back equal.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct ReadOptions {
    /// The measure or metric to use when the file holds several: a `trec_eval` / ir_measures /
    /// pytrec_eval measure (`map`, `P.10` = `P_10`, `nDCG@10`), an lm-evaluation-harness metric
    /// field (`acc`, `exact_match`), an inspect_ai scorer, a HELM stat name.
    pub measure: Option<String>,
    /// Read one system per file from this column (e.g. `f1`); the system is named by the file.
    pub column: Option<String>,
    /// Extra value labels (matched case-insensitively) and the score they stand for, e.g.
    /// `("HALTED", 0.0)`. They take precedence over the built-in labels.
    pub labels: Vec<(String, f64)>,
    /// The input format, when detection must be overridden (`--input-format NAME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ScoreFormat>,
    /// The lm-evaluation-harness filter (`strict-match`, `flexible-extract`, `none`) or the HELM
    /// split to use when the file holds several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The system name of a one-system input (default: from the file, see [`crate::input::system_name_from_path`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Size limits of each input.
    #[serde(default, skip_serializing_if = "Limits::is_default")]
    pub limits: Limits,
    /// The topic-id column of a delimited or table input, where it is not detected (a
    /// protocol's `[scores] topic-column`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_column: Option<String>,
    /// The system name of each file given to [`read_many`], in order (`--scores FILE=NAME`, or
    /// `--system-name` once per file): `None` keeps the name the file gives. A name replaces
    /// the one system its file holds; a file with several systems cannot take one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_systems: Vec<Option<String>>,
    /// The column naming each row's sample (epoch, seed, repeat) of a long table with several
    /// rows per topic and system (`--sample-column`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_column: Option<String>,
    /// How a topic's repeated samples become its value (`--sample-aggregation`); `None` is
    /// `mean` (see [`ReadOptions::aggregation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_aggregation: Option<SampleAggregation>,
    /// What one score file of a system is when a system has several (`--sample-files seed`):
    /// the files of one system are its repeated samples (one per seed or repeat), the i-th file
    /// of each system its sample `i` (so the same position pairs two systems' seeds); `None`:
    /// two files of one system are an error where they score the same topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_files: Option<String>,
    /// Standard input, already read by the caller: [`read_many`] uses it for a path named `-`.
    /// Never serialized (the recorded options name the path `-`).
    #[serde(skip)]
    pub stdin: Option<std::sync::Arc<Input>>,
}

impl ReadOptions {
    /// The aggregation of repeated samples: [`ReadOptions::sample_aggregation`], else `mean`.
    pub fn aggregation(&self) -> SampleAggregation {
        self.sample_aggregation.unwrap_or_default()
    }

    /// The system a one-system file stands for: [`ReadOptions::system`], else the file name
    /// without extensions ([`crate::input::system_name_from_path`]).
    pub fn system_name(&self, path: &Path) -> String {
        self.system
            .clone()
            .unwrap_or_else(|| crate::input::system_name_from_path(path))
    }
}

/// Reads a score file with default options, detecting its layout (see the module docs).
///
/// Errors (exit 2): missing or empty file, duplicate (topic, system), NaN or non-numeric score;
/// each names the file and line.
pub fn read(path: &Path) -> Result<ScoreTable> {
    read_with(path, &ReadOptions::default())
}

/// Reads a score file with `opts` (see the module docs for the detection rules).
///
/// Errors (exit 2): as [`read`], plus a `trec_eval` file with several measures and none chosen,
/// a measure or column that is not in the file, a file over [`ReadOptions::limits`].
pub fn read_with(path: &Path, opts: &ReadOptions) -> Result<ScoreTable> {
    read_input(&Input::from_path(path, opts.limits)?, opts)
}

/// Reads scores from an input already read (a file, standard input, bytes): the layout is
/// [`ReadOptions::format`] when given, else detected from the content ([`detect`]).
///
/// Errors (exit 2): as [`read_with`]; a message names the format detected and what it expected.
pub fn read_input(input: &Input, opts: &ReadOptions) -> Result<ScoreTable> {
    let (format, how) = match opts.format {
        Some(f) => (f, "as --input-format asked"),
        None => (
            detect(input)?,
            "detected from the content; --input-format NAME reads it as another",
        ),
    };
    read_as(input, format, opts).map_err(|e| e.caused_by(format!("read as `{}` ({})", format.name(), how)))
}

/// The reader options that only some formats take, whether `opts` sets each, and those formats.
fn format_options(opts: &ReadOptions) -> [(&'static str, bool, &'static [ScoreFormat]); 5] {
    use ScoreFormat as F;
    const TABLES: &[ScoreFormat] = &[F::Delimited, F::JsonTable, F::Parquet];
    const SAMPLES: &[ScoreFormat] = &[F::InspectEval, F::InspectJson, F::Delimited, F::JsonTable, F::Parquet];
    [
        ("--filter", opts.filter.is_some(), &[F::LmEval, F::Helm]),
        ("--column", opts.column.is_some(), TABLES),
        ("--topic-column", opts.topic_column.is_some(), TABLES),
        ("--sample-column", opts.sample_column.is_some(), TABLES),
        ("--sample-aggregation", !opts.aggregation().is_default(), SAMPLES),
    ]
}

/// Refuses a reader option that `format` does not take (it would be ignored).
///
/// Errors (exit 2): the option, the file, the format it is read as and the formats that take it.
fn check_options(path: &Path, format: ScoreFormat, opts: &ReadOptions) -> Result<()> {
    for (flag, set, takes) in format_options(opts) {
        if !set || takes.contains(&format) {
            continue;
        }
        let names: Vec<&str> = takes.iter().map(|f| f.name()).collect();
        let e = Error::in_file(
            path,
            format!(
                "{} does not apply to this file, read as `{}`: only {} inputs take it",
                flag,
                format.name(),
                names.join(", ")
            ),
        );
        let hint = match (flag, format) {
            ("--filter", ScoreFormat::InspectEval | ScoreFormat::InspectJson) => {
                "inspect_ai logs have no filters; for one epoch per sample use --sample-aggregation first (the lowest epoch)"
            }
            _ => "drop the option for this file (or the protocol's [scores] key that sets it), or compare such files in a run of their own",
        };
        return Err(e.with_hint(hint));
    }
    Ok(())
}

/// Refuses a non-default [`ReadOptions::sample_aggregation`] on a table read without repeated
/// samples (it would change nothing).
fn check_aggregation(path: &Path, table: &ScoreTable, opts: &ReadOptions) -> Result<()> {
    if opts.aggregation().is_default() || table.samples.is_some() {
        return Ok(());
    }
    Err(Error::in_file(
        path,
        format!(
            "--sample-aggregation {} applies to repeated samples, but this file holds one value per topic and system",
            opts.aggregation()
        ),
    )
    .with_hint("for a long table with a row per sample, name its sample column with --sample-column NAME"))
}

fn read_as(input: &Input, format: ScoreFormat, opts: &ReadOptions) -> Result<ScoreTable> {
    let path = input.path();
    check_options(path, format, opts)?;
    let table = match format {
        ScoreFormat::InspectEval => inspect::read_eval(input, opts)?,
        ScoreFormat::Parquet => {
            let t = match input.kind() {
                crate::input::Kind::Arrow => crate::tabular::arrow_table(input)?,
                _ => crate::tabular::parquet_table(input)?,
            };
            detect::refuse_ranx_table(&t)?;
            delimited::read_table(&t, opts)?
        }
        _ => {
            let text = input.text()?;
            if text.trim().is_empty() {
                return Err(Error::in_file(path, "file is empty (expected per-topic scores)"));
            }
            match format {
                ScoreFormat::TrecEval => trec_eval::read(path, text, opts)?,
                ScoreFormat::IrMeasures => measure_long::read_ir_measures(path, text, opts)?,
                ScoreFormat::PytrecEval => pytrec::read(path, text, opts)?,
                ScoreFormat::RanxScores => pytrec::read_ranx_scores(path, text, opts)?,
                ScoreFormat::Promptfoo if !text.trim_start().starts_with('{') => {
                    delimited::read_table(&crate::tabular::Table::parse(path, text, None)?, opts)?
                }
                ScoreFormat::Promptfoo => promptfoo::read_json(path, text, opts)?,
                ScoreFormat::LmEval => lm_eval::read(path, text, opts)?,
                ScoreFormat::InspectJson => inspect::read_json(path, text, opts)?,
                ScoreFormat::Helm => helm::read(path, text, opts)?,
                ScoreFormat::Jsonl => jsonl::read(path, text, opts)?,
                ScoreFormat::Delimited => delimited::read(path, text, opts)?,
                ScoreFormat::JsonTable => {
                    let t = jsonl::objects_table(path, text)?;
                    delimited::read_table(&t, opts)?
                }
                ScoreFormat::InspectEval | ScoreFormat::Parquet => unreachable_format(path)?,
            }
        }
    };
    check_aggregation(path, &table, opts)?;
    Ok(table)
}

fn unreachable_format(path: &Path) -> Result<ScoreTable> {
    Err(Error::internal(format!("{}: format dispatch", path.display())))
}

/// Reads several score files and merges them by topic id (see [`merge`]). A path whose file
/// name is `-` is [`ReadOptions::stdin`] when the caller read standard input into it. The file
/// at position `i` is named [`ReadOptions::file_systems`]`[i]` when that is given.
///
/// Errors (exit 2): as [`read_with`] for each file; a (topic, system) pair present in two files
/// (the message names both files and the hint the flags that name them apart); a per-file name
/// for a file that holds several systems.
pub fn read_many(paths: &[&Path], opts: &ReadOptions) -> Result<ScoreTable> {
    let mut tables = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let name = opts.file_systems.get(i).cloned().flatten();
        let named;
        let file_opts = match &name {
            Some(n) => {
                named = ReadOptions {
                    system: Some(n.clone()),
                    ..opts.clone()
                };
                &named
            }
            None => opts,
        };
        let mut table = match (&opts.stdin, p.file_name()) {
            (Some(input), Some(n)) if n == crate::input::STDIN_ARG => read_input(input, file_opts)?,
            _ => read_with(p, file_opts)?,
        };
        if let Some(n) = name {
            rename_system(p, &mut table, n)?;
        }
        tables.push((p.to_path_buf(), table));
    }
    let table = match &opts.sample_files {
        Some(unit) => samples::from_files(tables, unit, opts.aggregation())?,
        None => merge(tables)?,
    };
    check_magnitudes(&table, paths)?;
    Ok(table)
}

/// The largest score magnitude pledge accepts. Sums of squares of up to 10⁸ differences of
/// such scores stay finite (10⁸ · (2·10¹⁰⁰)² ≈ 4·10²⁰⁸ < 1.8·10³⁰⁸, the largest f64), so no
/// mean, variance or test statistic overflows to infinity.
pub const MAX_SCORE_MAGNITUDE: f64 = 1e100;

/// Refuses a score larger in magnitude than [`MAX_SCORE_MAGNITUDE`] (or not finite), naming the
/// system, the topic and the files read.
///
/// Errors (exit 2): such a score.
fn check_magnitudes(table: &ScoreTable, paths: &[&Path]) -> Result<()> {
    for (s, row) in table.values.iter().enumerate() {
        for (t, v) in row.iter().enumerate() {
            let Some(v) = v else { continue };
            if v.is_finite() && v.abs() <= MAX_SCORE_MAGNITUDE {
                continue;
            }
            let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(Error::input(format!(
                "{}: system `{}`, topic `{}`: score {:e} is outside ±1e100",
                files.join(", "),
                table.systems[s],
                table.topics[t],
                v
            ))
            .with_hint(
                "pledge sums squares of scores: rescale the values (e.g. to thousands) so every score is within ±1e100",
            ));
        }
    }
    Ok(())
}

/// Names the one system of `table` (read from `path`) `name`.
///
/// Errors (exit 2): the file holds several systems.
fn rename_system(path: &Path, table: &mut ScoreTable, name: String) -> Result<()> {
    match table.systems.len() {
        1 => {
            table.systems[0] = name;
            Ok(())
        }
        n => Err(Error::in_file(
            path,
            format!(
                "holds {} systems ({}), so it cannot take one system name (`{}`)",
                n,
                table.systems.join(", "),
                name
            ),
        )
        .with_hint("give a name only to a file of one system (`--scores FILE=NAME`)")),
    }
}

/// Accumulates `(topic, system, score)` triples into a [`ScoreTable`], keeping first-seen order
/// and rejecting a pair given twice.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    table: ScoreTableInner,
}

#[derive(Debug, Default)]
struct ScoreTableInner {
    systems: Vec<String>,
    topics: Vec<String>,
    sys_idx: std::collections::HashMap<String, usize>,
    topic_idx: std::collections::HashMap<String, usize>,
    values: Vec<Vec<Option<f64>>>,
    notes: Vec<String>,
    /// What one sample is, once a sample was added.
    sample_unit: Option<String>,
    /// The samples of each (system, topic) cell, by index.
    cells: std::collections::HashMap<(usize, usize), Vec<Sample>>,
    aggregation: SampleAggregation,
}

impl Builder {
    /// Registers a system (so a system with no scores at all still appears).
    pub(crate) fn system(&mut self, s: &str) -> usize {
        let t = &mut self.table;
        if let Some(&i) = t.sys_idx.get(s) {
            return i;
        }
        t.sys_idx.insert(s.to_string(), t.systems.len());
        t.systems.push(s.to_string());
        t.values.push(vec![None; t.topics.len()]);
        t.systems.len() - 1
    }

    /// Registers a topic.
    pub(crate) fn topic(&mut self, id: &str) -> usize {
        let t = &mut self.table;
        if let Some(&i) = t.topic_idx.get(id) {
            return i;
        }
        t.topic_idx.insert(id.to_string(), t.topics.len());
        t.topics.push(id.to_string());
        for v in &mut t.values {
            v.push(None);
        }
        t.topics.len() - 1
    }

    /// Sets one score; `Err(())` when the pair already has one.
    pub(crate) fn set(&mut self, topic: &str, system: &str, score: f64) -> std::result::Result<(), ()> {
        let s = self.system(system);
        let ti = self.topic(topic);
        let cell = &mut self.table.values[s][ti];
        if cell.is_some() {
            return Err(());
        }
        *cell = Some(score);
        Ok(())
    }

    /// Adds one sample (key `key`, e.g. the epoch) of `system` on `topic`; `Err(())` when the
    /// cell already has a sample with that key.
    pub(crate) fn sample(
        &mut self,
        unit: &str,
        topic: &str,
        system: &str,
        key: &str,
        value: f64,
    ) -> std::result::Result<(), ()> {
        let s = self.system(system);
        let ti = self.topic(topic);
        let t = &mut self.table;
        t.sample_unit.get_or_insert_with(|| unit.to_string());
        let cell = t.cells.entry((s, ti)).or_default();
        if cell.iter().any(|x| x.key == key) {
            return Err(());
        }
        cell.push(Sample {
            key: key.to_string(),
            value,
        });
        Ok(())
    }

    /// Sets the value of every cell that has samples and no value yet to its samples reduced
    /// with `agg` ([`aggregate`]).
    ///
    /// Errors: a message naming the system and topic a cell cannot be reduced for.
    pub(crate) fn aggregate(&mut self, agg: SampleAggregation) -> std::result::Result<(), String> {
        let t = &mut self.table;
        t.aggregation = agg;
        let mut keys: Vec<(usize, usize)> = t.cells.keys().copied().collect();
        keys.sort_unstable();
        for (s, ti) in keys {
            if t.values[s][ti].is_some() {
                continue;
            }
            let x = aggregate(&t.cells[&(s, ti)], agg)
                .map_err(|m| format!("system `{}`, topic `{}`: {}", t.systems[s], t.topics[ti], m))?;
            t.values[s][ti] = Some(x);
        }
        Ok(())
    }

    /// Adds a note.
    pub(crate) fn note(&mut self, n: String) {
        self.table.notes.push(n);
    }

    /// Whether no sample was added.
    pub(crate) fn is_empty_of_samples(&self) -> bool {
        self.table.cells.values().all(Vec::is_empty)
    }

    /// Whether no score was set.
    pub(crate) fn is_empty(&self) -> bool {
        self.table.values.iter().all(|v| v.iter().all(Option::is_none))
    }

    /// The finished table.
    pub(crate) fn finish(self) -> ScoreTable {
        let mut t = self.table;
        let samples = t.sample_unit.take().map(|unit| {
            let mut cells = vec![vec![Vec::new(); t.topics.len()]; t.systems.len()];
            for ((s, ti), xs) in t.cells.drain() {
                cells[s][ti] = xs;
            }
            Samples {
                unit,
                cells,
                aggregation: t.aggregation,
            }
        });
        ScoreTable {
            systems: t.systems,
            topics: t.topics,
            values: t.values,
            notes: t.notes,
            samples,
        }
    }
}

/// The error for a pair given twice, at a table's position.
pub(crate) fn duplicate_in(table: &crate::tabular::Table, line: usize, topic: &str, system: &str) -> Error {
    table.err_at(
        line,
        format!("duplicate score for topic `{}` and system `{}`", topic, system),
    )
}

/// The error for a pair given twice.
pub(crate) fn duplicate(path: &Path, line: usize, topic: &str, system: &str) -> Error {
    Error::at(
        path,
        line,
        format!("duplicate score for topic `{}` and system `{}`", topic, system),
    )
}

/// Checks a summary row (`all` or an empty-id row) against the mean of the per-topic values;
/// returns a note when they differ by more than half a unit of the summary's last printed digit.
pub(crate) fn check_summary(path: &Path, what: &str, printed: &str, values: &[f64]) -> Option<String> {
    let stated: f64 = printed.trim().parse().ok()?;
    if values.is_empty() {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let decimals = printed.trim().split('.').nth(1).map(|d| d.len()).unwrap_or(0).min(12);
    let tol = 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9;
    if (stated - mean).abs() > tol {
        Some(format!(
            "{}: {} states {} but the mean of the {} per-topic values is {:.6}",
            path.display(),
            what,
            printed.trim(),
            values.len(),
            mean
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests;

/// `P.10`, `P_10` name the same trec_eval measure; other names compare exactly (trimmed).
pub(crate) fn same_measure(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    a == b || a.replace('.', "_") == b.replace('.', "_")
}

/// One spelling per measure, the same for each of its names in trec_eval, ir_measures, ranx,
/// pytrec_eval and MTEB ([`crate::trec::resolve`]): `P.10`, `P_10`, `P@10` and `precision@10`
/// give `P_10`, `nDCG@10` and `ndcg@10` give `ndcg_cut_10`, `AP` and `map` give `map`. A name
/// that is no measure pledge knows keeps its spelling, with `.` as `_`.
pub(crate) fn measure_key(m: &str) -> String {
    match crate::trec::resolve(m.trim()) {
        Ok(x) => x.canonical_name(),
        Err(_) => m.trim().replace('.', "_"),
    }
}

/// The name in `found` that stands for `want`: the same spelling, else (for measures) the same
/// measure under another tool's name ([`measure_key`]).
fn find_name(what: &str, found: &[String], want: &str) -> Option<String> {
    if let Some(m) = found.iter().find(|m| same_measure(m, want)) {
        return Some(m.clone());
    }
    if what != "measure" {
        return None;
    }
    let key = measure_key(want);
    found.iter().find(|m| measure_key(m) == key).cloned()
}

/// The error for a name the file does not hold, with the closest name it does hold as a hint.
pub(crate) fn not_in_file(path: &Path, what: &str, want: &str, found: &[String]) -> Error {
    let e = Error::in_file(
        path,
        format!("{} `{}` is not in the file (it has: {})", what, want, found.join(", ")),
    );
    match closest_name(want, found) {
        Some(n) => e.with_hint(format!("did you mean `{}`?", n)),
        None => e,
    }
}

/// The name of `found` closest to `want`, ignoring case, by Jaro–Winkler similarity (see
/// [`crate::named::closest`]).
fn closest_name<'a>(want: &str, found: &'a [String]) -> Option<&'a str> {
    let lower: Vec<String> = found.iter().map(|f| f.to_lowercase()).collect();
    let best = crate::named::closest(&want.to_lowercase(), &lower)?;
    lower.iter().position(|l| l == best).map(|i| found[i].as_str())
}

/// Picks the measure to read among those a file holds: `want` if given (and present, under its
/// own name or, for measures, another tool's name of the same measure, see [`measure_key`]),
/// else the only one. `what` names them in messages (`measure`, `metric`, `scorer`), `flag` the
/// option.
pub(crate) fn choose(path: &Path, what: &str, found: &[String], want: Option<&str>, flag: &str) -> Result<String> {
    match want {
        Some(w) => find_name(what, found, w).ok_or_else(|| not_in_file(path, what, w, found)),
        None if found.len() == 1 => Ok(found[0].clone()),
        None if found.is_empty() => Err(Error::in_file(path, format!("no {} found", what))),
        None => Err(Error::in_file(
            path,
            format!("the file holds several {}s ({}); choose one", what, found.join(", ")),
        )
        .with_hint(format!("pass {} NAME", flag))),
    }
}

/// Adds `name` to `list` unless present (first-seen order).
pub(crate) fn push_unique(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|x| x == name) {
        list.push(name.to_string());
    }
}
