//! The multiplicity family: every comparison's p adjusted together, the registered hypotheses
//! answered per family (primary, secondary), or the randomized Tukey HSD test over all systems.

use super::{component_units, Adjusted, Claim, Comparison, HypothesisResult};
use crate::protocol::{Adjust, Direction, ResamplingUnit};
use crate::stats::bootstrap::interval_at;
use crate::stats::margin::{margin_test, null_bounds, HypothesisKind, MarginSpec, MarginTest};
use crate::stats::multiple;
use crate::stats::prepare::Prepared;
use crate::stats::settings::Settings;
use crate::stats::ties::Ties;
use crate::stats::tukey::{randomized_tukey, TukeyHsd};
use crate::stats::units::Units;
use crate::stats::verdict::{judge, Case, Judgement};

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

/// One hypothesis' p before the family adjustment, what it is, and its margin test.
struct Sided {
    p: f64,
    of: String,
    margin_test: Option<MarginTest>,
}

/// The p-value a hypothesis is answered with: the sign-flip test's for its sides and direction
/// (superiority), or the shifted paired t-tests' (a margin kind).
fn sided(c: &Comparison, h: &Claim, draws: &[f64], s: &Settings) -> Sided {
    let kind = h.kind;
    if kind.has_margin() {
        let spec = MarginSpec {
            kind,
            margin: h.margin.unwrap_or(0.0),
            direction: h.direction,
            alpha: s.alpha,
            percentile: s.percentile,
        };
        let mt = margin_test(&c.t_test, draws, &spec);
        let of = match kind {
            HypothesisKind::Equivalence => "two one-sided paired t-tests (TOST) against ±margin",
            _ => "one-sided paired t-test against the margin bound",
        };
        return Sided {
            p: mt.p.unwrap_or(1.0),
            of: of.into(),
            margin_test: Some(mt),
        };
    }
    let sides = h.sides.unwrap_or(s.sides);
    Sided {
        p: c.randomization
            .p_for(sides, h.direction.unwrap_or(Direction::Greater))
            .unwrap_or(c.randomization.p),
        of: format!("randomization ({}-sided)", sides),
        margin_test: None,
    }
}

/// Whether the estimate lies on the side the hypothesis claims: of 0 in its direction
/// (superiority), beyond the margin bound (non-inferiority, superiority by a margin), within
/// ±margin (equivalence).
fn on_claimed_side(difference: f64, h: &Claim) -> bool {
    let kind = h.kind;
    null_bounds(kind, h.margin.unwrap_or(0.0), h.direction)
        .iter()
        .all(|&(b, alt)| match alt {
            Direction::Greater => difference > b,
            Direction::Less => difference < b,
        })
}

/// The verdict of a hypothesis whose adjusted p is `adjusted` (see [`crate::stats::verdict`]).
fn judgement(c: &Comparison, h: &Claim, sided: &Sided, rejected: bool, draws: &[f64], s: &Settings) -> Judgement {
    let kind = h.kind;
    let sides = if kind.has_margin() {
        1
    } else {
        h.sides.unwrap_or(s.sides)
    };
    let (interval, level, method) = match &sided.margin_test {
        Some(mt) => match mt.t_interval {
            Some(iv) => (iv, mt.level, format!("t interval, df = {}", mt.df)),
            None => (
                mt.bootstrap_interval,
                mt.level,
                "bootstrap percentile interval".to_string(),
            ),
        },
        None => {
            let level = 1.0 - s.alpha * 2.0 / f64::from(sides);
            (
                interval_at(draws, level, s.percentile),
                level,
                format!("bootstrap percentile interval over {}s", c.primary_unit),
            )
        }
    };
    judge(&Case {
        kind,
        direction: h.direction,
        margin: h.margin,
        target: s.target_mde,
        // The true difference a margin verdict assumes: 0 (a registered one comes with protocol keys).
        expected: 0.0,
        rejected,
        interval,
        level,
        interval_method: method,
        alpha: s.alpha,
        power: s.power,
        sides,
        sd: Some(c.mde.sd),
        unit: c.primary_unit.clone(),
    })
}

/// Fills each comparison's hypothesis answer: its p (the sided randomization p, or the margin
/// kinds' shifted t-tests), adjusted over its family (primary hypotheses together, secondary
/// ones together) with the protocol's adjustment, or the randomized Tukey HSD p over all
/// registered systems; the verdict at α. `hyps` are the hypotheses in comparison order, `draws`
/// each comparison's sorted primary bootstrap draws. Returns the Tukey HSD result when that is
/// the adjustment.
pub(super) fn answer_hypotheses(
    comparisons: &mut [Comparison],
    hyps: &[Claim],
    draws: &[Vec<f64>],
    p: &Prepared,
    s: &Settings,
    ties: Ties,
) -> Option<TukeyHsd> {
    let sided: Vec<Sided> = (0..comparisons.len())
        .map(|i| sided(&comparisons[i], &hyps[i], &draws[i], s))
        .collect();
    let tukey_hsd = (s.adjust == Adjust::TukeyHsd).then(|| tukey(p, s, ties));
    for primary in [true, false] {
        let idx: Vec<usize> = (0..comparisons.len()).filter(|&i| hyps[i].primary == primary).collect();
        let ps: Vec<f64> = idx.iter().map(|&i| sided[i].p).collect();
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
            let (h, sd) = (&hyps[i], &sided[i]);
            let direction_holds = on_claimed_side(comparisons[i].difference, h);
            let rejected = direction_holds && adjusted[k] < s.alpha;
            // The three-valued verdict (registered hypotheses and `compare --kind`).
            let judgement = Some(judgement(&comparisons[i], h, sd, rejected, &draws[i], s));
            let c = &mut comparisons[i];
            c.p_adjusted = Adjusted {
                method: multiple::method_name(s.adjust).into(),
                of: match &tukey_hsd {
                    Some(t) => format!("randomized Tukey HSD over the {} systems", t.systems.len()),
                    None => format!("{}, {} hypotheses", sd.of, family),
                },
                family: tukey_hsd.as_ref().map_or(idx.len(), |t| t.family),
                p: adjusted[k],
            };
            c.hypothesis = Some(HypothesisResult {
                name: h.name.clone(),
                primary,
                direction: h.direction,
                sides: if sd.margin_test.is_some() {
                    1
                } else {
                    h.sides.unwrap_or(s.sides)
                },
                p: sd.p,
                p_adjusted: adjusted[k],
                family: family.into(),
                family_size: idx.len(),
                alpha: s.alpha,
                direction_holds,
                supported: rejected,
                powered: c.mde.meets_target,
                kind: h.kind,
                margin: h.margin,
                margin_test: sd.margin_test.clone(),
                judgement,
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

/// Puts comparison `c` in a family across `metrics` metrics of `size` p-values adjusted with
/// `adjust`: its adjusted p becomes `q`, and a hypothesis' verdict is read again at the settings'
/// α from `q` (the same interval and the same rule as [`answer_hypotheses`]).
pub(crate) fn readjust(c: &mut Comparison, q: f64, size: usize, metrics: usize, adjust: Adjust, s: &Settings) {
    let of = match &c.hypothesis {
        Some(h) => {
            let suffix = format!(", {} hypotheses", h.family);
            let test = c.p_adjusted.of.strip_suffix(&suffix).unwrap_or(&c.p_adjusted.of);
            format!("{}, {} hypotheses of {} metrics", test, h.family, metrics)
        }
        None => format!("randomization, every comparison of {} metrics", metrics),
    };
    c.p_adjusted = Adjusted {
        method: multiple::method_name(adjust).into(),
        of,
        family: size,
        p: q,
    };
    let (unit, sd) = (c.primary_unit.clone(), c.mde.sd);
    let Some(h) = c.hypothesis.as_mut() else { return };
    h.p_adjusted = q;
    h.family_size = size;
    h.alpha = s.alpha;
    h.supported = h.direction_holds && q < s.alpha;
    if let Some(j) = &h.judgement {
        h.judgement = Some(judge(&Case {
            kind: h.kind,
            direction: h.direction,
            margin: h.margin,
            target: s.target_mde,
            expected: 0.0,
            rejected: h.supported,
            interval: j.interval,
            level: j.level,
            interval_method: j.interval_method.clone(),
            alpha: s.alpha,
            power: s.power,
            sides: h.sides,
            sd: Some(sd),
            unit,
        }));
    }
}
