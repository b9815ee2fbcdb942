//! σ and ρ from a pilot: per-topic scores of two systems (and optionally the question →
//! component assignment) give the SD of the component-level paired difference, the SD of the
//! per-question paired difference and the intra-component correlation ρ of the per-question
//! paired differences. This is how a team justifies the σ (and ρ) it registers.
//!
//! Estimators (all in the scores' own scale):
//! - d_q = score_A(q) − score_B(q) for every question scored by both systems;
//! - `sd_question`: sample SD (n − 1) of the d_q;
//! - component-level difference: the mean of d_q over the component's questions (the
//!   component-mean estimator); `sd_component`: sample SD (G − 1) of those means;
//! - ρ: the one-way ANOVA (method-of-moments) estimator of the intra-class correlation for
//!   unequal group sizes (Searle, Casella & McCulloch, *Variance Components*, 1992, §3.6; Donner,
//!   1986, Int. Stat. Review 54, 67–82): with N questions in G components of sizes n_g,
//!   MSB = Σ n_g (d̄_g − d̄)² / (G − 1), MSW = Σ_g Σ_q (d_q − d̄_g)² / (N − G),
//!   n₀ = (N − Σ n_g²/N) / (G − 1), ρ̂ = (MSB − MSW) / (MSB + (n₀ − 1)·MSW).
//!   ρ̂ can be negative (less variation between components than chance); the value used for a
//!   design effect is ρ̂ limited to [0, 1], and both are reported (with a note).

// `!(x > 0.0)` is deliberate: it also rejects NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use crate::assignment::AssignmentRow;
use crate::error::{Error, Result};
use crate::scores::ScoreTable;
use crate::stats::describe::{mean, sd};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The ANOVA estimate of the intra-component correlation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Icc {
    /// ρ̂ as estimated (may be negative).
    pub estimate: f64,
    /// ρ̂ limited to [0, 1] (noted when it was outside): the value a design effect uses.
    pub used: f64,
    /// Mean square between components.
    pub msb: f64,
    /// Mean square within components.
    pub msw: f64,
    /// n₀, the effective component size of the unequal-size ANOVA.
    pub n0: f64,
}

/// What a pilot says about the paired difference A − B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PilotEstimate {
    /// [A, B]: the difference is A − B.
    pub systems: Vec<String>,
    /// Questions scored by both systems (and counted, with an assignment).
    pub questions: usize,
    /// Topics left out because one of the two systems has no score.
    pub missing: usize,
    /// Questions left out because the assignment marks them not counted (per-component cap).
    pub not_counted: usize,
    /// Components G holding the questions (each question is its own without an assignment).
    pub components: usize,
    /// Largest number of questions in one component.
    pub max_per_component: usize,
    /// Mean paired difference over questions.
    pub mean_difference: f64,
    /// SD (n − 1) of the per-question paired difference.
    pub sd_question: f64,
    /// SD (G − 1) of the component-level paired difference (component means).
    pub sd_component: f64,
    /// Intra-component correlation; `None` without an assignment or when undefined (see notes).
    pub icc: Option<Icc>,
    /// Degenerate cases and choices worth knowing.
    pub notes: Vec<String>,
}

/// Picks the two systems: `names` if given, else the table's two systems.
fn pick(table: &ScoreTable, names: Option<(&str, &str)>) -> Result<(usize, usize)> {
    let find = |n: &str| {
        table.systems.iter().position(|s| s == n).ok_or_else(|| {
            Error::input(format!("system `{}` is not in the pilot scores", n))
                .with_hint(format!("systems found: {}", table.systems.join(", ")))
        })
    };
    match names {
        Some((a, b)) if a == b => Err(Error::input("the two pilot systems must differ")),
        Some((a, b)) => Ok((find(a)?, find(b)?)),
        None if table.systems.len() == 2 => Ok((0, 1)),
        None => Err(Error::input(format!(
            "the pilot scores hold {} systems; name the two to compare",
            table.systems.len()
        ))
        .with_hint(format!("--systems A,B with two of: {}", table.systems.join(", ")))),
    }
}

/// Estimates σ and ρ of the paired difference A − B from a pilot (see the module docs).
///
/// `systems` names A and B (default: the table's two systems). With `assignment`, questions are
/// grouped by component; rows marked `counted = 0` are left out; a scored question missing from
/// the assignment is an error.
///
/// Errors (exit 2): unknown or ambiguous systems, fewer than 2 paired questions or components, a
/// question without a component.
pub fn estimate(
    table: &ScoreTable,
    systems: Option<(&str, &str)>,
    assignment: Option<&[AssignmentRow]>,
) -> Result<PilotEstimate> {
    let (ia, ib) = pick(table, systems)?;
    let comp: Option<HashMap<&str, &AssignmentRow>> =
        assignment.map(|rows| rows.iter().map(|r| (r.question.as_str(), r)).collect());
    let (mut missing, mut not_counted) = (0, 0);
    let mut unassigned: Vec<&str> = Vec::new();
    // Component id → differences, in a deterministic order.
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut diffs = Vec::new();
    for (t, topic) in table.topics.iter().enumerate() {
        let (Some(a), Some(b)) = (
            table.values[ia].get(t).copied().flatten(),
            table.values[ib].get(t).copied().flatten(),
        ) else {
            missing += 1;
            continue;
        };
        let key = match &comp {
            None => topic.clone(),
            Some(map) => match map.get(topic.as_str()) {
                None => {
                    unassigned.push(topic);
                    continue;
                }
                Some(r) if r.counted == Some(false) => {
                    not_counted += 1;
                    continue;
                }
                Some(r) => r.component.clone(),
            },
        };
        diffs.push(a - b);
        groups.entry(key).or_default().push(a - b);
    }
    if !unassigned.is_empty() {
        let shown: Vec<&str> = unassigned.iter().take(5).copied().collect();
        return Err(Error::input(format!(
            "{} pilot question(s) have no component in the assignment: {}{}",
            unassigned.len(),
            shown.join(", "),
            if unassigned.len() > 5 { ", ..." } else { "" }
        ))
        .with_hint("use the assignment file `pledge components` wrote for the same questions"));
    }
    let sd_question = sd(&diffs).ok_or_else(|| {
        Error::input(format!(
            "the pilot has {} paired question(s); at least 2 are needed",
            diffs.len()
        ))
    })?;
    let means: Vec<f64> = groups.values().map(|g| mean(g)).collect();
    let sd_component = sd(&means).ok_or_else(|| {
        Error::input(format!(
            "the pilot questions fall in {} component(s); at least 2 are needed",
            means.len()
        ))
    })?;
    let mut notes = Vec::new();
    let icc = if assignment.is_some() {
        anova_icc(&groups, &mut notes)
    } else {
        None
    };
    if sd_question == 0.0 {
        notes.push("every paired difference is the same: the SD is 0 and no requirement follows".into());
    }
    Ok(PilotEstimate {
        systems: vec![table.systems[ia].clone(), table.systems[ib].clone()],
        questions: diffs.len(),
        missing,
        not_counted,
        components: groups.len(),
        max_per_component: groups.values().map(Vec::len).max().unwrap_or(0),
        mean_difference: mean(&diffs),
        sd_question,
        sd_component,
        icc,
        notes,
    })
}

/// One-way ANOVA estimator of ρ (module docs); `None` with a note when undefined.
fn anova_icc(groups: &BTreeMap<String, Vec<f64>>, notes: &mut Vec<String>) -> Option<Icc> {
    let g = groups.len() as f64;
    let n: f64 = groups.values().map(|v| v.len() as f64).sum();
    if n <= g {
        notes.push("every component holds one pilot question: ρ cannot be estimated".into());
        return None;
    }
    let all: Vec<f64> = groups.values().flatten().copied().collect();
    let grand = mean(&all);
    let (mut ssb, mut ssw, mut sum_n2) = (0.0, 0.0, 0.0);
    for v in groups.values() {
        let k = v.len() as f64;
        let m = mean(v);
        ssb += k * (m - grand) * (m - grand);
        ssw += v.iter().map(|x| (x - m) * (x - m)).sum::<f64>();
        sum_n2 += k * k;
    }
    let msb = ssb / (g - 1.0);
    let msw = ssw / (n - g);
    let n0 = (n - sum_n2 / n) / (g - 1.0);
    let denom = msb + (n0 - 1.0) * msw;
    if !(denom > 0.0) {
        notes.push("the paired differences do not vary: ρ is undefined".into());
        return None;
    }
    let estimate = (msb - msw) / denom;
    if estimate < 0.0 {
        notes.push(format!(
            "the ANOVA estimate of ρ is negative ({:.4}); a design effect uses 0",
            estimate
        ));
    }
    if estimate > 1.0 {
        notes.push(format!(
            "the ANOVA estimate of ρ exceeds 1 ({:.4}); a design effect uses 1",
            estimate
        ));
    }
    Some(Icc {
        estimate,
        used: estimate.clamp(0.0, 1.0),
        msb,
        msw,
        n0,
    })
}

#[cfg(test)]
mod tests;
