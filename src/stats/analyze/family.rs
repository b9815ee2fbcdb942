//! The multiplicity family: every comparison's p adjusted together, the registered hypotheses
//! answered per family (primary, secondary), or the randomized Tukey HSD test over all systems.

use super::{component_units, Adjusted, Comparison, HypothesisResult};
use crate::protocol::{Adjust, ResamplingUnit};
use crate::stats::multiple;
use crate::stats::prepare::Prepared;
use crate::stats::settings::Settings;
use crate::stats::ties::Ties;
use crate::stats::tukey::{randomized_tukey, TukeyHsd};
use crate::stats::units::Units;

/// Adjusts every comparison's randomization p as one family with the protocol's adjustment, or
/// gives each the randomized Tukey HSD p over all systems; returns the Tukey HSD result when that
/// is the adjustment.
pub(super) fn adjust_all(comparisons: &mut [Comparison], p: &Prepared, s: &Settings, ties: Ties) -> Option<TukeyHsd> {
    let ps: Vec<f64> = comparisons.iter().map(|c| c.randomization.p).collect();
    match multiple::adjust(&ps, s.adjust) {
        Some(adj) => {
            for (c, q) in comparisons.iter_mut().zip(adj) {
                c.p_adjusted = Adjusted {
                    method: multiple::method_name(s.adjust).into(),
                    of: "randomization".into(),
                    family: ps.len(),
                    p: q,
                };
            }
            None
        }
        None => {
            let t = tukey(p, s, ties);
            let of = format!(
                "randomized Tukey HSD: range of the {} system means over permutations of each {}'s scores across systems",
                t.systems.len(),
                t.unit
            );
            for c in comparisons.iter_mut() {
                c.p_adjusted = Adjusted {
                    method: multiple::method_name(Adjust::TukeyHsd).into(),
                    of: of.clone(),
                    family: t.family,
                    p: t.p_of(&c.system, &c.baseline).unwrap_or(1.0),
                };
            }
            Some(t)
        }
    }
}

/// Fills each comparison's hypothesis answer: the sided randomization p, adjusted over its
/// family (primary hypotheses together, secondary ones together) with the protocol's
/// adjustment, or the randomized Tukey HSD p over all registered systems; the verdict at α.
/// Returns the Tukey HSD result when that is the adjustment.
pub(super) fn answer_hypotheses(
    comparisons: &mut [Comparison],
    p: &Prepared,
    s: &Settings,
    ties: Ties,
) -> Option<TukeyHsd> {
    let sided: Vec<f64> = comparisons
        .iter()
        .zip(&s.hypotheses)
        .map(|(c, h)| {
            c.randomization
                .p_for(h.sides.unwrap_or(s.sides), h.direction)
                .unwrap_or(c.randomization.p)
        })
        .collect();
    let tukey_hsd = (s.adjust == Adjust::TukeyHsd).then(|| tukey(p, s, ties));
    for primary in [true, false] {
        let idx: Vec<usize> = (0..comparisons.len())
            .filter(|&i| s.hypotheses[i].primary == primary)
            .collect();
        let ps: Vec<f64> = idx.iter().map(|&i| sided[i]).collect();
        let adjusted: Vec<f64> = match (&tukey_hsd, multiple::adjust(&ps, s.adjust)) {
            (None, Some(a)) => a,
            (Some(t), _) => idx
                .iter()
                .map(|&i| t.p_of(&comparisons[i].system, &comparisons[i].baseline).unwrap_or(1.0))
                .collect(),
            (None, None) => ps.clone(),
        };
        let family = if primary { "primary" } else { "secondary" };
        for (k, &i) in idx.iter().enumerate() {
            let h = &s.hypotheses[i];
            let c = &mut comparisons[i];
            let direction_holds = match h.direction {
                crate::protocol::Direction::Greater => c.difference > 0.0,
                crate::protocol::Direction::Less => c.difference < 0.0,
            };
            c.p_adjusted = Adjusted {
                method: multiple::method_name(s.adjust).into(),
                of: match &tukey_hsd {
                    Some(t) => format!("randomized Tukey HSD over the {} systems", t.systems.len()),
                    None => format!(
                        "randomization ({}-sided), {} hypotheses",
                        h.sides.unwrap_or(s.sides),
                        family
                    ),
                },
                family: tukey_hsd.as_ref().map_or(idx.len(), |t| t.family),
                p: adjusted[k],
            };
            c.hypothesis = Some(HypothesisResult {
                name: h.name.clone(),
                primary,
                direction: h.direction,
                sides: h.sides.unwrap_or(s.sides),
                p: sided[i],
                p_adjusted: adjusted[k],
                family: family.into(),
                family_size: idx.len(),
                alpha: s.alpha,
                direction_holds,
                supported: direction_holds && adjusted[k] < s.alpha,
                powered: c.mde.meets_target,
            });
        }
    }
    tukey_hsd
}

/// The randomized Tukey HSD test over all systems: units are the topics, or whole components
/// (per-system component values under the protocol's estimator) when the resampling unit is
/// component.
fn tukey(p: &Prepared, s: &Settings, ties: Ties) -> TukeyHsd {
    let k = p.systems.len();
    let (rows, weight, unit) = match (&p.component_of, s.resampling_unit) {
        (Some(c), ResamplingUnit::Component) => {
            let per: Vec<Units> = p.values.iter().map(|v| component_units(v, c, s.estimator)).collect();
            let g = per.first().map_or(0, Units::len);
            let rows: Vec<Vec<f64>> = (0..g).map(|u| per.iter().map(|x| x.values[u]).collect()).collect();
            let w: f64 = per.first().map_or(0.0, |x| x.weights.iter().sum());
            (rows, w, "component")
        }
        _ => {
            let n = p.topics.len();
            let rows: Vec<Vec<f64>> = (0..n).map(|t| (0..k).map(|i| p.values[i][t]).collect()).collect();
            (rows, n as f64, "topic")
        }
    };
    randomized_tukey(
        &rows,
        &p.systems,
        weight,
        unit,
        s.randomization_trials as usize,
        s.seed,
        ties,
    )
}
