//! The analysis of per-topic scores: for each comparison the paired bootstrap over topics (and
//! within strata, and over whole components when an assignment is given), the paired t-test,
//! the standardized effect size d_z, the cluster-robust SE, the sign-flip randomization test,
//! adjusted p-values (or the randomized Tukey HSD test over all systems) and the achieved MDE.
//! Pure computation over loaded inputs; the registration checks live in `ops::analyze`.
//! Ties follow one rule ([`super::ties`]) with the analyzed scores' scale.

use super::bootstrap::Bootstrap;
use super::cluster::ClusterRobust;
use super::describe;
use super::effect::EffectSize;
use super::margin::HypothesisKind;
use super::mde::AchievedMde;
use super::prepare::{prepare, ComponentAccounting, ComponentSpec, Prepared, TopicAccounting};
use super::randomization::Randomization;
use super::settings::Settings;
use super::system::{resampled, system_interval, system_units, IntervalSpec};
use super::ties::Ties;
use super::ttest::TTest;
use super::tukey::TukeyHsd;
use super::units::Units;
use crate::assignment::AssignmentRow;
use crate::error::{Error, Result};
use crate::protocol::{Estimator, ResamplingUnit};
use crate::rng::RngInfo;
use crate::scores::ScoreTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Loaded inputs of an analysis.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// Per-topic scores.
    pub scores: ScoreTable,
    /// Component assignment rows, if given.
    pub assignment: Option<Vec<AssignmentRow>>,
    /// Restrict the assignment to this split.
    pub split: Option<String>,
    /// Topic → stratum, if stratified.
    pub strata: Option<BTreeMap<String, String>>,
    /// Pool-bias check of the runs, when the scores come from qrels + runs.
    pub pool_bias: Option<crate::trec::PoolBias>,
    /// Name of the strata field (for the output).
    pub strata_field: Option<String>,
    /// (system, topic) cells the reader already scored 0 because the system has no result for
    /// the topic (TREC runs evaluated as `trec_eval -c` does): counted with the cells filled
    /// under `missing-topics = "zero"`.
    pub prefilled: usize,
}

/// Per-system summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemSummary {
    /// System name.
    pub name: String,
    /// Mean over analyzed topics (question-weighted).
    pub mean: f64,
    /// Mean of component means, when components are known.
    pub component_mean: Option<f64>,
    /// Analyzed topics.
    pub topics: usize,
    /// Components, when known.
    pub components: Option<usize>,
    /// The system's estimate under the comparisons' estimator, with its SE and intervals (absent
    /// in records written before they were computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<super::system::SystemInterval>,
}

/// Adjusted p-value of one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjusted {
    /// statsmodels name of the method, or `tukey-hsd` (randomized Tukey HSD).
    pub method: String,
    /// Which p-value it is: `randomization` (the sign-flip p, adjusted over the comparisons), or
    /// for `tukey-hsd` the randomized range test in words (over topics or components, of how
    /// many systems).
    pub of: String,
    /// Number of comparisons in the family: the comparisons made, or for `tukey-hsd` all
    /// k·(k − 1)/2 pairs of the k systems (also when a baseline limits the comparisons shown).
    pub family: usize,
    /// The adjusted p-value.
    pub p: f64,
}

/// The answer to one registered hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HypothesisResult {
    /// The hypothesis' name.
    pub name: String,
    /// Primary (the multiplicity family) or secondary.
    pub primary: bool,
    /// The expected sign of `system − comparator` (which way is better for a margin kind);
    /// `None` for equivalence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<crate::protocol::Direction>,
    /// 1 (one-sided, in `direction`) or 2; 1 for the margin kinds.
    pub sides: u8,
    /// The p-value: the randomization test's for these sides and direction (superiority), or
    /// the margin test's ([`HypothesisResult::margin_test`]).
    pub p: f64,
    /// `p` adjusted over the family (`family` hypotheses) with the protocol's adjustment.
    pub p_adjusted: f64,
    /// `primary` or `secondary`.
    pub family: String,
    /// Number of hypotheses in the family.
    pub family_size: usize,
    /// The registered α.
    pub alpha: f64,
    /// Whether the difference has the expected sign.
    pub direction_holds: bool,
    /// Supported at α: adjusted p < α and the difference has the expected sign.
    pub supported: bool,
    /// Whether the achieved detectable difference reached the registered target (`None`: no
    /// target or undefined).
    pub powered: Option<bool>,
    /// What the hypothesis claims (absent: superiority).
    #[serde(default, skip_serializing_if = "is_superiority")]
    pub kind: HypothesisKind,
    /// The margin M of a margin kind, in the metric's unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// The shifted paired t-tests of a margin kind, with the intervals at 1 − 2α.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_test: Option<super::margin::MarginTest>,
    /// The verdict: supported, not supported or inconclusive, with the interval it was read from
    /// (see [`super::verdict`]); absent in records written before verdicts were three-valued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<super::verdict::Judgement>,
}

fn is_superiority(k: &HypothesisKind) -> bool {
    *k == HypothesisKind::Superiority
}

/// A hypothesis a comparison answers: a registered one (superiority), or the claim `compare
/// --kind` tests on every comparison.
#[derive(Debug, Clone)]
pub(crate) struct Claim {
    /// Its name.
    pub name: String,
    /// Primary (the multiplicity family) or secondary.
    pub primary: bool,
    /// The expected sign of `system − comparator`; `None` for equivalence.
    pub direction: Option<crate::protocol::Direction>,
    /// Sides of a superiority test; `None`: the settings' sides.
    pub sides: Option<u8>,
    /// What is claimed.
    pub kind: HypothesisKind,
    /// The margin of a margin kind.
    pub margin: Option<f64>,
}

/// One comparison: `difference = system − baseline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The system compared.
    pub system: String,
    /// What it is compared with.
    pub baseline: String,
    /// Observed difference under the primary unit's estimator.
    pub difference: f64,
    /// Primary resampling unit (`topic` or `component`).
    pub primary_unit: String,
    /// Paired bootstrap over topics (unstratified).
    pub paired: Bootstrap,
    /// Bootstrap within strata, when stratified.
    pub stratified: Option<Bootstrap>,
    /// Bootstrap over whole components, when an assignment is given.
    pub component: Option<Bootstrap>,
    /// Paired t-test on the primary unit-level differences.
    pub t_test: TTest,
    /// Standardized paired difference d_z (mean/SD of the same unit-level differences as the
    /// t-test) with its exact interval at the interval level.
    pub effect_size: EffectSize,
    /// Cluster-robust (CRV1) SE of the question-weighted difference, with components.
    pub cluster_robust: Option<ClusterRobust>,
    /// Sign-flip randomization test over the primary units.
    pub randomization: Randomization,
    /// Multiple-comparison adjusted p.
    pub p_adjusted: Adjusted,
    /// Achieved MDE at the realized number of primary units.
    pub mde: AchievedMde,
    /// Degenerate-data flags (all differences equal, n = 1, one component, zero difference).
    pub flags: Vec<String>,
    /// The estimator of `difference`, and so of every figure beside it (interval, reversal
    /// rate, t-test, effect size, detectable difference).
    #[serde(default)]
    pub estimator: String,
    /// The registered hypothesis this comparison answers, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypothesis: Option<HypothesisResult>,
    /// Topic-level detail: wins/ties/losses, correlation, paired and unpaired SE, McNemar for
    /// 0/1 scores (absent in records written before it was computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<super::agreement::PairDetail>,
}

/// The full analysis result (the records layer stores it as its own `AnalysisRecord`, made
/// from it field by field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisResult {
    /// Format identifier, `pledge.analysis/1`.
    pub schema: String,
    /// `analyze` (checked against a registration) or `compare` (no ledger).
    pub mode: String,
    /// Registration status in words.
    pub registration: String,
    /// Study id, for `analyze`.
    pub study_id: Option<String>,
    /// Settings used.
    pub settings: Settings,
    /// Random generator.
    pub generator: RngInfo,
    /// Topic accounting under the missing-topics policy.
    pub topics: TopicAccounting,
    /// Component accounting.
    pub components: Option<ComponentAccounting>,
    /// Strata field and sizes.
    pub strata: Option<StrataInfo>,
    /// Systems.
    pub systems: Vec<SystemSummary>,
    /// With three or more systems: each system's rank with its bootstrap rank interval and
    /// P(rank 1), from the systems' paired resampled estimates ([`super::rank`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<super::rank::Ranking>,
    /// Comparisons.
    pub comparisons: Vec<Comparison>,
    /// Notes from reading the inputs.
    pub notes: Vec<String>,
    /// The randomized Tukey HSD test over all pairs of systems, when `adjust = "tukey-hsd"`
    /// (every pair's p, also those a baseline leaves out of `comparisons`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tukey_hsd: Option<TukeyHsd>,
    /// What the registered topic filter dropped, with the unfiltered means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic_filter: Option<super::filter::FilterInfo>,
    /// Pool-bias check (qrels + runs only): judged@k, contributors, leave-one-run-out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_bias: Option<crate::trec::PoolBias>,
    /// Repeated samples per topic (epochs, seeds) with the `mean` aggregation: each system's and
    /// each comparison's variance split and two-level bootstrap ([`super::samples`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeated_samples: Option<super::samples::RepeatedSamples>,
    /// Input files and options of an `analyze` run (for `verify --rerun`); `None` for compare.
    pub options: Option<super::settings::RunOptions>,
    /// The family across metrics the comparisons were adjusted in, with the other metrics'
    /// systems and comparisons (`[family]`, or `compare` with several measures or columns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_family: Option<super::metric_family::MetricFamilyResult>,
}

/// Strata used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrataInfo {
    /// Field name.
    pub field: String,
    /// (stratum, topics).
    pub sizes: Vec<(String, usize)>,
}

/// Runs the analysis. `mode`/`registration`/`study_id` only label the result.
///
/// Errors (exit 2): see [`prepare`]; a baseline not among the systems; component resampling
/// without an assignment; trials = 0.
pub fn run(
    inputs: &Inputs,
    s: &Settings,
    mode: &str,
    registration: &str,
    study_id: Option<String>,
) -> Result<AnalysisResult> {
    check_settings(inputs, s)?;
    let (p, topic_filter) = prepared(inputs, s)?;
    let notes = input_notes(inputs, &p, s);
    let (pairs, claims) = asked(&p.systems, s)?;
    let ties = Ties::of_scores(s.tie_tolerance, &p.values);
    let (systems, ranking) = system_summaries(&p, s, ties);
    let (mut comparisons, draws): (Vec<Comparison>, Vec<Vec<f64>>) = pairs
        .iter()
        .map(|&(a, b)| pair::compare_pair(&p, a, b, s, ties))
        .unzip();
    // Hypotheses are adjusted per family; otherwise every comparison is one family.
    let tukey_hsd = match &claims {
        Some(h) => family::answer_hypotheses(&mut comparisons, h, &draws, &p, s, ties),
        None => family::adjust_all(&mut comparisons, &p, s, ties),
    };
    let repeated_samples = super::samples::summarize(&inputs.scores, &p.systems, &p.topics, &pairs, s);
    Ok(AnalysisResult {
        schema: "pledge.analysis/1".into(),
        mode: mode.into(),
        registration: registration.into(),
        study_id,
        settings: s.clone(),
        generator: RngInfo::chacha8(s.seed),
        topics: p.topics_info.clone(),
        components: p.components_info.clone(),
        strata: inputs
            .strata_field
            .clone()
            .filter(|_| p.stratum_of.is_some())
            .map(|field| StrataInfo {
                field,
                sizes: p.strata_sizes.clone(),
            }),
        systems,
        ranking,
        comparisons,
        notes,
        tukey_hsd,
        topic_filter,
        pool_bias: inputs.pool_bias.clone(),
        repeated_samples,
        options: None,
        metric_family: None,
    })
}

/// Settings the inputs cannot satisfy: no trials, component resampling without an assignment,
/// a margin hypothesis under the Tukey HSD adjustment.
fn check_settings(inputs: &Inputs, s: &Settings) -> Result<()> {
    if s.trials == 0 {
        return Err(Error::input("analysis.trials must be at least 1"));
    }
    let margin_kind = s.every_comparison.as_ref().is_some_and(|c| c.kind.has_margin())
        || s.hypotheses.iter().any(|h| h.kind.has_margin());
    if margin_kind && s.adjust == crate::protocol::Adjust::TukeyHsd {
        return Err(Error::input(
            "a hypothesis with a margin is tested with shifted t-tests; the Tukey HSD adjustment tests differences of 0 only",
        )
        .with_hint("adjust with holm, bonferroni, bh or none"));
    }
    if s.resampling_unit == ResamplingUnit::Component && inputs.assignment.is_none() {
        return Err(
            Error::input("the protocol resamples components, but no component assignment was given")
                .with_hint("pass --components FILE (written by `pledge components`)"),
        );
    }
    Ok(())
}

/// The analysis data: the inputs joined and cleaned ([`prepare`]), then the registered topic
/// filter applied.
///
/// Errors (exit 2): as [`prepare`]; a filter that drops every topic.
fn prepared(inputs: &Inputs, s: &Settings) -> Result<(Prepared, Option<super::filter::FilterInfo>)> {
    let spec = inputs.assignment.as_ref().map(|rows| ComponentSpec {
        rows,
        split: inputs.split.as_deref(),
        cap: s.max_per_component,
        keep: s.keep,
        seed: s.seed,
    });
    let mut p = prepare(&inputs.scores, s.missing_topics, spec.as_ref(), inputs.strata.as_ref())?;
    p.topics_info.filled_with_zero += inputs.prefilled;
    let topic_filter = s.topic_filter.map(|f| super::filter::apply(&mut p, f));
    if p.topics.is_empty() {
        return Err(Error::input(
            "the topic filter dropped every topic: no topic is left to analyze",
        ));
    }
    Ok((p, topic_filter))
}

/// The readers' notes, then what the inputs say that the figures do not: an assignment with
/// splits of which none was chosen, systems with identical scores.
fn input_notes(inputs: &Inputs, p: &Prepared, s: &Settings) -> Vec<String> {
    let mut notes = inputs.scores.notes.clone();
    if let (Some(rows), None) = (&inputs.assignment, &inputs.split) {
        let mut splits: Vec<&str> = rows.iter().filter_map(|r| r.split.as_deref()).collect();
        splits.sort_unstable();
        splits.dedup();
        if !splits.is_empty() {
            notes.push(format!(
                "the component assignment has splits ({}) but no split was chosen: questions of all splits are analyzed",
                splits.join(", ")
            ));
        }
    }
    notes.extend(scale_note(p, s.scale));
    for i in 0..p.systems.len() {
        for j in i + 1..p.systems.len() {
            if p.values[i] == p.values[j] {
                notes.push(format!(
                    "systems {} and {} have identical per-topic scores on the {} analyzed topics",
                    p.systems[i],
                    p.systems[j],
                    p.topics.len()
                ));
            }
        }
    }
    notes
}

/// A note when the scores do not fit the scale they are labelled with (a fraction above 1, a cost
/// of 200 called points): the scale names their unit everywhere in the output.
fn scale_note(p: &Prepared, scale: crate::protocol::Scale) -> Option<String> {
    let values = p.values.iter().flatten().copied();
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let bounded = scale != crate::protocol::Scale::Unbounded;
    (bounded && (lo < 0.0 || hi > scale.max())).then(|| {
        format!(
            "the scores range from {} to {}, outside the {} scale: they are not {}; give their scale (compare --scale points or unbounded, or the protocol's target.scale)",
            lo,
            hi,
            scale.describe(),
            if scale == crate::protocol::Scale::Points { "points" } else { "fractions" }
        )
    })
}

/// Each system's means over the analyzed topics (and over components, when known), and its
/// estimate under the comparisons' estimator with its SE and intervals; with three or more
/// systems, the ranking read from the same paired draws.
fn system_summaries(p: &Prepared, s: &Settings, ties: Ties) -> (Vec<SystemSummary>, Option<super::rank::Ranking>) {
    let spec = IntervalSpec {
        component_of: p.component_of.as_deref(),
        unit: s.resampling_unit,
        estimator: s.estimator,
        scale_max: s.scale.max(),
        bootstrap: pair::topic_spec(s, ties),
    };
    let mut all_draws = Vec::with_capacity(p.systems.len());
    let systems: Vec<SystemSummary> = p
        .systems
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (units, _) = system_units(&p.values[i], &spec);
            let draws = resampled(&units, &spec);
            let interval = system_interval(&p.values[i], &draws, &spec);
            all_draws.push(draws);
            SystemSummary {
                name: name.clone(),
                mean: describe::mean(&p.values[i]),
                component_mean: p
                    .component_of
                    .as_ref()
                    .map(|c| component_units(&p.values[i], c, Estimator::ComponentMean).estimate()),
                topics: p.topics.len(),
                components: p.components_info.as_ref().map(|c| c.components),
                interval: Some(interval),
            }
        })
        .collect();
    let estimates: Vec<f64> = systems
        .iter()
        .map(|sy| sy.interval.as_ref().map_or(sy.mean, |i| i.estimate))
        .collect();
    let ranking = super::rank::rank_systems_by(&p.systems, &estimates, &all_draws, s.interval_level, s.lower_is_better);
    (systems, ranking)
}

/// `(system, baseline)` index pairs and the hypotheses they answer, in the same order.
type Asked = (Vec<(usize, usize)>, Option<Vec<Claim>>);

/// The comparisons asked for and the hypotheses they answer (in the same order): the registered
/// hypotheses; or every system against the baseline (all pairs without one), each answering the
/// claim `compare --kind` made for every comparison, if any.
///
/// Errors (exit 2): a system named by a hypothesis or the baseline is not in the scores.
fn asked(systems: &[String], s: &Settings) -> Result<Asked> {
    if !s.hypotheses.is_empty() {
        let claims = s
            .hypotheses
            .iter()
            .map(|h| Claim {
                name: h.name.clone(),
                primary: h.primary,
                direction: h.direction,
                sides: h.sides,
                kind: h.kind,
                margin: h.margin,
            })
            .collect();
        return Ok((hypothesis_pairs(systems, &s.hypotheses)?, Some(claims)));
    }
    let pairs = pairs(systems, s.baseline.as_deref())?;
    let claims = s.every_comparison.as_ref().map(|e| {
        pairs
            .iter()
            .map(|&(a, b)| Claim {
                name: format!("{} − {}", systems[a], systems[b]),
                primary: true,
                direction: e.direction,
                sides: (!e.kind.has_margin()).then_some(s.sides),
                kind: e.kind,
                margin: e.margin,
            })
            .collect()
    });
    Ok((pairs, claims))
}

/// `(system, baseline)` index pairs: every system against the baseline, or all pairs i < j.
fn pairs(systems: &[String], baseline: Option<&str>) -> Result<Vec<(usize, usize)>> {
    match baseline {
        Some(b) => {
            let bi = systems.iter().position(|s| s == b).ok_or_else(|| {
                Error::input(format!(
                    "baseline system `{}` is not in the scores (systems: {})",
                    b,
                    systems.join(", ")
                ))
            })?;
            Ok((0..systems.len()).filter(|&i| i != bi).map(|i| (i, bi)).collect())
        }
        None => Ok((0..systems.len())
            .flat_map(|i| (i + 1..systems.len()).map(move |j| (i, j)))
            .collect()),
    }
}

/// `(system, comparator)` index pairs of the hypotheses, in protocol order.
///
/// Errors (exit 2): a hypothesis names a system that is not in the scores.
fn hypothesis_pairs(systems: &[String], hs: &[crate::protocol::Hypothesis]) -> Result<Vec<(usize, usize)>> {
    let find = |name: &str, h: &crate::protocol::Hypothesis| {
        systems.iter().position(|s| s == name).ok_or_else(|| {
            Error::input(format!(
                "hypothesis `{}` names system `{}`, which is not in the scores (systems: {})",
                h.name,
                name,
                systems.join(", ")
            ))
        })
    };
    hs.iter()
        .map(|h| Ok((find(&h.system, h)?, find(&h.comparator, h)?)))
        .collect()
}

/// Component units of per-topic values `d` (see [`Units`]).
pub(crate) fn component_units(d: &[f64], comp: &[usize], est: Estimator) -> Units {
    let g = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut sums = vec![0.0; g];
    let mut counts = vec![0.0; g];
    for (x, &c) in d.iter().zip(comp) {
        sums[c] += x;
        counts[c] += 1.0;
    }
    let (values, weights) = match est {
        Estimator::ComponentMean => (
            sums.iter()
                .zip(&counts)
                .map(|(s, c)| if *c > 0.0 { s / c } else { 0.0 })
                .collect(),
            vec![1.0; g],
        ),
        Estimator::QuestionWeighted => (sums, counts),
    };
    Units {
        values,
        weights,
        strata: vec![(0..g).collect()],
    }
}

/// The estimator in words: of the difference and of every figure beside it.
pub(crate) fn estimator_name(unit: &str, est: Estimator) -> &'static str {
    match (unit, est) {
        ("component", Estimator::ComponentMean) => "mean of component means (each component weighs 1)",
        ("component", Estimator::QuestionWeighted) => "question-weighted mean over components (cluster-robust SE)",
        _ => "mean over topics",
    }
}

mod family;
mod pair;

pub(crate) use family::readjust;

#[cfg(test)]
mod tests;
