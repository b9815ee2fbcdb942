//! `pledge compare --estimator ratio | corpus-bleu | quantile`: a corpus-level ratio, corpus
//! BLEU or a quantile of every system with its bootstrap percentile interval, and the paired
//! differences, on score files without a ledger ([`crate::stats::estimator`]).

use super::Note;
use crate::error::{Error, Result};
use crate::protocol::Scale;
use crate::rng::RngInfo;
use crate::scores::{ReadOptions, ScoreTable};
use crate::stats::estimator::{self, Data, Estimate, Spec, Statistic};
use crate::stats::settings::RunOptions;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// What `compare` with another estimator is asked to do.
#[derive(Debug, Clone)]
pub struct EstimateRequest {
    /// The directory input paths are relative to.
    pub root: std::path::PathBuf,
    /// The statistic.
    pub statistic: Statistic,
    /// Its name (`ratio`, `corpus-bleu`, `quantile`).
    pub kind: estimator::EstimatorKind,
    /// Bootstrap settings.
    pub spec: Spec,
    /// The unit of the estimates.
    pub scale: Scale,
    /// Inputs and reader options (score files, assignment, split, baseline).
    pub options: RunOptions,
}

/// The result `compare` prints: the settings and every system's and pair's estimate.
#[derive(Debug, Clone, Serialize)]
pub struct EstimateOutcome {
    /// `compare`.
    pub command: String,
    /// The estimator's name (`ratio`, `corpus-bleu`, `quantile`).
    pub estimator_kind: String,
    /// The unit of the estimates and differences.
    pub scale: Scale,
    /// The random generator and seed.
    pub rng: RngInfo,
    /// numpy name of the interval's percentile definition.
    pub percentile: String,
    /// The estimates.
    #[serde(flatten)]
    pub result: Estimate,
    /// Notes for people.
    #[serde(skip)]
    pub notes: Vec<Note>,
}

/// Runs the estimator on the score files of `req`.
///
/// Errors (exit 2): an unreadable file or a missing column (file and column named), a topic
/// missing for some system, a topic absent from the assignment, a statistic undefined on all
/// topics, an unknown baseline, fewer than one system, a level or quantile out of range.
pub fn compare(req: &EstimateRequest) -> Result<EstimateOutcome> {
    if !(req.spec.level > 0.0 && req.spec.level < 1.0) {
        return Err(Error::input("--level must be in (0, 1)"));
    }
    if let Statistic::Quantile { q, .. } = req.statistic {
        if !(q > 0.0 && q < 1.0) {
            return Err(Error::input(format!("--quantile must be in (0, 1), got {}", q)));
        }
    }
    if req.options.strata.is_some() {
        return Err(
            Error::input("--strata does not apply to --estimator ratio, corpus-bleu or quantile")
                .with_hint("these estimators resample topics or whole components (--components), not strata"),
        );
    }
    let columns = req.statistic.columns();
    let tables = read_columns(req, &columns)?;
    let mut data = paired(&tables, &columns)?;
    if let Some(c) = &req.options.components {
        group_by_component(req, c, &mut data)?;
    }
    let pairs = pairs(&data.systems, req.options.baseline.as_deref())?;
    let result = estimator::run(&req.statistic, &data, &req.spec, &pairs).map_err(Error::input)?;
    Ok(EstimateOutcome {
        command: "compare".into(),
        estimator_kind: req.kind.to_string(),
        scale: req.scale,
        rng: RngInfo::chacha8(req.spec.seed),
        percentile: crate::stats::percentile::method_name(req.spec.percentile).into(),
        result,
        notes: vec![Note::info(
            "pledge compare does not check a registration and writes no ledger entry",
        )],
    })
}

/// One score table per column: each column read as `--column` reads it (one system per file);
/// a quantile reads the scores as given.
fn read_columns(req: &EstimateRequest, columns: &[String]) -> Result<Vec<ScoreTable>> {
    let paths: Vec<std::path::PathBuf> = req.options.scores.iter().map(|p| req.root.join(p)).collect();
    let refs: Vec<&Path> = paths.iter().map(std::path::PathBuf::as_path).collect();
    let read = |opts: &ReadOptions| {
        crate::scores::read_many(&refs, opts).map_err(|mut e| {
            for (p, rel) in paths.iter().zip(&req.options.scores) {
                e.message = e.message.replace(&p.display().to_string(), rel);
            }
            e
        })
    };
    if let Statistic::Quantile { .. } = req.statistic {
        return Ok(vec![read(&req.options.read)?]);
    }
    if req.options.read.column.is_some() {
        return Err(Error::input("--column does not apply to --estimator ratio or corpus-bleu")
            .with_hint("the columns come from --numerator and --denominator (ratio) or are sacrebleu's statistics (corpus-bleu)"));
    }
    columns
        .iter()
        .map(|c| {
            read(&ReadOptions {
                column: Some(c.clone()),
                ..req.options.read.clone()
            })
        })
        .collect()
}

/// The tables joined: every system must have every topic in every column (the estimators are
/// paired), in the first table's system and topic order.
fn paired(tables: &[ScoreTable], columns: &[String]) -> Result<Data> {
    let first = &tables[0];
    let mut values = vec![vec![vec![0.0; columns.len()]; first.topics.len()]; first.systems.len()];
    for (c, t) in tables.iter().enumerate() {
        let topic_at: BTreeMap<&str, usize> = t.topics.iter().enumerate().map(|(i, x)| (x.as_str(), i)).collect();
        for (s, name) in first.systems.iter().enumerate() {
            let ts = t.systems.iter().position(|x| x == name).unwrap_or(s);
            for (i, topic) in first.topics.iter().enumerate() {
                let cell = topic_at.get(topic.as_str()).and_then(|&j| t.values[ts][j]);
                values[s][i][c] = cell.ok_or_else(|| {
                    Error::input(format!(
                        "system `{}` has no value for topic `{}` (column `{}`): the estimators are paired, every system needs every topic",
                        name, topic, columns[c]
                    ))
                })?;
            }
        }
    }
    Ok(Data {
        systems: first.systems.clone(),
        topics: first.topics.clone(),
        columns: columns.to_vec(),
        values,
        units: (0..first.topics.len()).map(|i| vec![i]).collect(),
        unit: "topic".into(),
    })
}

/// Makes the resampling units whole components of the assignment `file` (restricted to
/// `--split`, whose other topics are left out).
fn group_by_component(req: &EstimateRequest, file: &str, data: &mut Data) -> Result<()> {
    let rows = crate::assignment::read(&req.root.join(file))?;
    let split = req.options.split.as_deref();
    let mut component_of: BTreeMap<&str, &str> = BTreeMap::new();
    for r in &rows {
        if split.is_none() || r.split.as_deref() == split {
            component_of.insert(r.question.as_str(), r.component.as_str());
        }
    }
    if component_of.is_empty() {
        return Err(Error::input(format!(
            "{}: no question is assigned to split `{}`",
            file,
            split.unwrap_or("")
        )));
    }
    let mut units: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, t) in data.topics.iter().enumerate() {
        match component_of.get(t.as_str()) {
            Some(c) => units.entry(c).or_default().push(i),
            None if split.is_some() => {}
            None => {
                return Err(Error::input(format!(
                    "{}: topic `{}` of the scores is not in the assignment",
                    file, t
                )))
            }
        }
    }
    data.units = units.into_values().collect();
    data.unit = "component".into();
    Ok(())
}

/// The pairs `(system, baseline)`: every system against the baseline, else every pair `(a, b)`
/// with `a` before `b`.
fn pairs(systems: &[String], baseline: Option<&str>) -> Result<Vec<(usize, usize)>> {
    match baseline {
        Some(b) => {
            let at = systems.iter().position(|s| s == b).ok_or_else(|| {
                Error::input(format!(
                    "--baseline `{}` is not among the systems ({})",
                    b,
                    systems.join(", ")
                ))
            })?;
            Ok((0..systems.len()).filter(|&s| s != at).map(|s| (s, at)).collect())
        }
        None => Ok((0..systems.len())
            .flat_map(|a| (a + 1..systems.len()).map(move |b| (a, b)))
            .collect()),
    }
}
