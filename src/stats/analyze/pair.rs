//! One comparison `system − baseline`: the bootstraps (over topics, within strata, over whole
//! components), the tests on the primary units, and the flags for degenerate data, each in a
//! named step.

use super::{component_units, estimator_name, Adjusted, Comparison};
use crate::protocol::{Estimator, ResamplingUnit};
use crate::stats::agreement::pair_detail;
use crate::stats::bootstrap::{bootstrap, sorted_draws, streams, summarize, Bootstrap, BootstrapSpec};
use crate::stats::cluster::{crv1, ClusterRobust};
use crate::stats::effect::{d_z, EffectSize};
use crate::stats::mde::{achieved_mde, AchievedMde};
use crate::stats::prepare::Prepared;
use crate::stats::randomization::sign_flip;
use crate::stats::settings::Settings;
use crate::stats::system::is_binary;
use crate::stats::ties::Ties;
use crate::stats::ttest::{paired_t, TTest};
use crate::stats::units::Units;

/// The bootstraps of one comparison and the component units they used.
pub(super) struct Bootstraps {
    /// Over topics, unstratified.
    pub paired: Bootstrap,
    /// Within strata, when stratified.
    pub stratified: Option<Bootstrap>,
    /// Over whole components, when an assignment is given.
    pub component: Option<Bootstrap>,
    /// The component units of the differences (under the protocol's estimator).
    pub component_units: Option<Units>,
    /// The sorted draws of the primary unit's bootstrap (for intervals at other levels).
    pub primary_draws: Vec<f64>,
}

/// The tests on the primary units of one comparison.
pub(super) struct Tests {
    /// The paired t-test (or the cluster-robust one for the question-weighted estimator).
    pub t_test: TTest,
    /// d_z with its interval.
    pub effect_size: EffectSize,
    /// The achieved detectable difference.
    pub mde: AchievedMde,
}

/// The settings of the bootstrap over topics (other bootstraps change the stream).
pub(super) fn topic_spec(s: &Settings, ties: Ties) -> BootstrapSpec {
    BootstrapSpec {
        seed: s.seed,
        stream_base: streams::TOPIC,
        trials: s.trials as usize,
        level: s.interval_level,
        percentile: s.percentile,
        tie_tolerance: ties.tolerance(),
    }
}

/// Runs the bootstraps of the per-topic differences `d`: over topics, within strata when the
/// topics have strata, over whole components when they have components.
pub(super) fn bootstraps(p: &Prepared, d: &[f64], s: &Settings, spec: &BootstrapSpec) -> Bootstraps {
    let topic_units = Units::topics(d.to_vec());
    let topic_draws = sorted_draws(&topic_units, spec);
    let paired = summarize(
        &topic_draws,
        topic_units.estimate(),
        topic_units.len(),
        1,
        spec,
        "topic",
    );
    let stratified = p.stratum_of.as_ref().map(|of| {
        let k = of.iter().copied().max().map_or(0, |m| m + 1);
        let mut strata = vec![Vec::new(); k];
        of.iter().enumerate().for_each(|(i, &st)| strata[st].push(i));
        let u = Units { strata, ..topic_units };
        bootstrap(&u, spec, "topic (stratified)")
    });
    let component_units = p.component_of.as_ref().map(|c| component_units(d, c, s.estimator));
    let component_spec = BootstrapSpec {
        stream_base: streams::COMPONENT,
        ..*spec
    };
    let component_draws = component_units.as_ref().map(|u| sorted_draws(u, &component_spec));
    let component = component_units
        .as_ref()
        .zip(component_draws.as_ref())
        .map(|(u, dr)| summarize(dr, u.estimate(), u.len(), u.strata.len(), &component_spec, "component"));
    let primary_draws = match (component_draws, s.resampling_unit) {
        (Some(dr), ResamplingUnit::Component) => dr,
        _ => topic_draws,
    };
    Bootstraps {
        paired,
        stratified,
        component,
        component_units,
        primary_draws,
    }
}

/// The primary units (components under `resampling-unit = "component"`, else topics) and the
/// unit's name.
pub(super) fn primary_units(d: &[f64], comp: Option<&Units>, s: &Settings) -> (Units, &'static str) {
    match (comp, s.resampling_unit) {
        (Some(u), ResamplingUnit::Component) => (u.clone(), "component"),
        _ => (Units::topics(d.to_vec()), "topic"),
    }
}

/// The t-test, d_z and achieved MDE on the unit-level differences of the primary units.
pub(super) fn unit_tests(unit_diffs: &[f64], unit: &str, s: &Settings) -> Tests {
    Tests {
        t_test: paired_t(unit_diffs, s.interval_level),
        effect_size: d_z(unit_diffs, unit, s.interval_level),
        mde: achieved_mde(unit_diffs, unit, s.alpha, s.power, s.sides, s.target_mde),
    }
}

/// Question-weighted over components: the difference is a ratio estimate over questions, so its
/// t-test, effect size and detectable difference come from its cluster-robust SE (G − 1 df), not
/// from the spread of component means (which belongs to the other estimator).
pub(super) fn cluster_robust_tests(tests: &mut Tests, cr: &ClusterRobust, difference: f64, s: &Settings) {
    tests.t_test = cr.test.clone();
    let g = cr.clusters;
    let (mde, effect_size) = (&mut tests.mde, &mut tests.effect_size);
    match cr.se.get() {
        Some(se) if se > 0.0 && g > 1 => {
            // The per-component SD that the CRV1 SE corresponds to: se = sd_eff/√G.
            let sd_eff = se * (g as f64).sqrt();
            *mde = crate::stats::mde::achieved_mde_sd(sd_eff, g, "component", s.alpha, s.power, s.sides, s.target_mde);
            mde.method = "normal approximation (z_{1-alpha/s} + z_{1-beta}) * cluster-robust SE".into();
            let t = difference / se;
            effect_size.estimate = Some(difference / sd_eff);
            effect_size.n = g;
            effect_size.ci = crate::stats::effect::nct_interval(t, (g - 1) as f64, s.interval_level)
                .map(|[lo, hi]| [lo / (g as f64).sqrt(), hi / (g as f64).sqrt()]);
            effect_size.method =
                "question-weighted difference / (cluster-robust SE · √G); interval by inverting the non-central t (df = G − 1)".into();
            effect_size.flag = None;
        }
        _ => {
            mde.achieved = None;
            mde.meets_target = None;
            mde.flag = Some("the cluster-robust SE is undefined: no detectable difference".into());
            effect_size.estimate = None;
            effect_size.ci = None;
            effect_size.flag = Some("the cluster-robust SE is undefined: no effect size".into());
        }
    }
}

/// Flags for degenerate data: one topic, equal differences, one component, identical systems,
/// a zero difference.
pub(super) fn flags(p: &Prepared, d: &[f64], tol: f64, paired: &Bootstrap) -> Vec<String> {
    let mut flags = Vec::new();
    if d.len() == 1 {
        flags.push("only one topic: no interval or test is meaningful".to_string());
    }
    if d.iter().all(|x| d.first().is_some_and(|f| (x - f).abs() <= tol)) {
        flags.push("all per-topic differences are equal: the bootstrap interval has zero width".to_string());
    }
    if p.components_info.as_ref().is_some_and(|c| c.components == 1) {
        flags.push("one component: component resampling cannot estimate sampling error".to_string());
    }
    if d.iter().all(|x| *x == 0.0) {
        flags.push("the two systems' per-topic scores are identical".to_string());
    }
    if paired.reversal_rate.is_none() {
        flags.push("observed difference is 0: no ordering to reverse".to_string());
    }
    flags
}

/// The topic-level detail of `a − b`; McNemar's test when both systems' scores are 0/1.
fn detail(p: &Prepared, a: usize, b: usize, s: &Settings, ties: Ties) -> crate::stats::agreement::PairDetail {
    let max = s.scale.max();
    let binary = is_binary(&p.values[a], max) && is_binary(&p.values[b], max);
    pair_detail(&p.values[a], &p.values[b], ties, binary.then_some(max))
}

/// Compares systems `a` and `b` (`difference = a − b`) under the settings: the bootstraps, then
/// the tests on the primary units, the randomization test and the flags. The adjusted p is
/// filled in later, over the family. Returns the primary bootstrap's sorted draws beside it.
pub(super) fn compare_pair(p: &Prepared, a: usize, b: usize, s: &Settings, ties: Ties) -> (Comparison, Vec<f64>) {
    let d: Vec<f64> = p.values[a].iter().zip(&p.values[b]).map(|(x, y)| x - y).collect();
    let spec = topic_spec(s, ties);
    let boots = bootstraps(p, &d, s, &spec);
    let cluster_robust = p.component_of.as_ref().map(|c| crv1(&d, c, s.interval_level));
    let (primary, unit_name) = primary_units(&d, boots.component_units.as_ref(), s);
    let difference = primary.estimate();
    let mut tests = unit_tests(&primary.unit_means(), unit_name, s);
    if unit_name == "component" && s.estimator == Estimator::QuestionWeighted {
        if let Some(cr) = &cluster_robust {
            cluster_robust_tests(&mut tests, cr, difference, s);
        }
    }
    let randomization = sign_flip(
        &primary.values,
        primary.weights.iter().sum(),
        s.randomization_trials as usize,
        s.seed,
        ties,
    );
    let flags = flags(p, &d, ties.tolerance(), &boots.paired);
    let c = Comparison {
        system: p.systems[a].clone(),
        baseline: p.systems[b].clone(),
        difference,
        primary_unit: unit_name.into(),
        paired: boots.paired,
        stratified: boots.stratified,
        component: boots.component,
        t_test: tests.t_test,
        effect_size: tests.effect_size,
        cluster_robust,
        randomization,
        p_adjusted: Adjusted {
            method: String::new(),
            of: String::new(),
            family: 0,
            p: 1.0,
        },
        mde: tests.mde,
        flags,
        estimator: estimator_name(unit_name, s.estimator).into(),
        hypothesis: None,
        detail: Some(detail(p, a, b, s, ties)),
    };
    (c, boots.primary_draws)
}
