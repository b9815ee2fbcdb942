//! Power and sample size for a paired design: components needed for a minimum detectable
//! difference, the difference a count can detect, design effect for clustered questions, the
//! variance of a paired binary difference, and σ and ρ estimated from a pilot.
//!
//! - [`dist`]: the distribution functions, re-exported from [`crate::stats::dist`] (their one
//!   home: normal, central and non-central t and F).
//! - [`paired`]: power, n and d of the paired t-test (statsmodels `TTestPower`) and the normal
//!   approximation.
//! - [`sample_size`]: requirements with design effect, detectable difference, discordant shares.
//! - [`pilot`]: σ of component-level paired differences and the intra-component correlation.
//! - [`margin`]: power and sample size of non-inferiority, superiority by a margin and
//!   equivalence (the exact paired TOST power).

pub mod anova;
pub mod inputs;
pub mod margin;
pub mod paired;
pub mod pilot;
pub mod sample_size;
pub mod samples;

pub use crate::stats::dist;

use crate::error::{Error, Result};
use crate::protocol::{Components, PowerMethod, Target};
use serde::{Deserialize, Serialize};

pub use inputs::Design;
pub use sample_size::{Clustering, Spec};

/// Components required for a minimum detectable difference (what `pledge power` prints and what
/// the stop rule stores in its `count` / `stop` / `go` ledger entry). Deterministic for the same
/// inputs. σ and δ are in the metric's scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    /// Components required: `unrounded` rounded up, at least 2.
    pub components: u64,
    /// Unrounded components needed: n_iid·DEFF/m (n_iid without clustering).
    pub unrounded: f64,
    /// `t` (exact paired t-test) or `normal`.
    pub method: PowerMethod,
    /// δ, the minimum detectable difference, in the metric's scale.
    pub mde: f64,
    /// σ of the paired difference of one independent unit: per component without clustering,
    /// per question when `icc` is given.
    pub sd: f64,
    /// α.
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// 1 or 2.
    pub sides: u8,
    /// Effect size d = δ/σ.
    pub effect_size: f64,
    /// Unrounded independent units n_iid the method asks for (questions when clustered).
    pub independent_n: f64,
    /// m, questions per component, when clustered.
    pub per_component: Option<u32>,
    /// ρ, intra-component correlation, when clustered.
    pub icc: Option<f64>,
    /// 1 + (m − 1)ρ; 1 without clustering.
    pub design_effect: f64,
    /// Independent units the rounded requirement is worth: components·m/DEFF.
    pub effective_n: f64,
    /// t method only: 2 pairs (the smallest with a t-test) already reach the power, so n_iid = 2
    /// is a floor rather than a root.
    pub at_minimum: bool,
    /// The registered primary hypothesis' kind when it has a margin: the requirement is then that
    /// of its one-sided shifted t-test or its TOST ([`margin::margin_power`]), and `mde` the
    /// distance of the assumed true difference from the null bound; absent for superiority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::protocol::HypothesisKind>,
    /// The margin M of `kind`, in the metric's scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// K samples per question, when the target registers them: `sd` is then σ_K =
    /// √(σ_topic² + σ_within²/K) ([`samples::effective_sd`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_per_topic: Option<u32>,
    /// σ_within, with `samples_per_topic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd_within: Option<f64>,
}

/// Components required by a protocol's `[target]` (used by the stop rule when a split says
/// `required-components = "from-target"`).
///
/// Computes, with `target.method` (t or normal), δ = `target.mde`, σ = `target.sd`, α, power and
/// sides from `target`: n_iid, the independent units needed. Without `target.icc` the
/// components needed are n_iid (σ is the SD of the per-component paired difference). With
/// `target.icc` = ρ, σ is read as the SD of the per-question paired difference, m =
/// `components.max_per_component`, DEFF = 1 + (m − 1)ρ, and the components needed are
/// n_iid·DEFF/m. See [`sample_size::requirement`].
///
/// Errors (exit 2): `target.sd` missing; any value out of range (α, power ∉ (0, 1), power ≤ α,
/// δ or σ ≤ 0 or above the scale's maximum, sides ∉ {1, 2}, m < 1, ρ ∉ [0, 1]); a requirement
/// beyond any feasible count.
pub fn required_components(target: &Target, components: &Components) -> Result<Requirement> {
    let sd = target
        .sd
        .ok_or_else(|| Error::input("target.sd is needed to derive required components"))?;
    let spec = Spec {
        sd: inputs::check_sd(sd, target.scale)?,
        mde: inputs::check_mde(target.mde, target.scale)?,
        design: Design::new(target.alpha, target.power, target.sides)?,
        clustering: target.icc.map(|icc| Clustering {
            per_component: components.max_per_component,
            icc,
        }),
    };
    sample_size::requirement(&spec, target.method)
}

/// What a protocol sizes: its `[target]` (σ at K samples per question when registered) and the
/// first primary hypothesis' kind and margin.
///
/// Superiority (or no hypotheses): [`required_components`] at σ_K. A margin kind: the exact
/// power of [`margin::margin_power`] (the one-sided paired t-test at the shifted effect,
/// statsmodels `TTestPower`, or the exact TOST power), one-sided at `target.alpha`, with the true
/// difference it assumes: Δ₀ = 0 for non-inferiority and equivalence, Δ₀ = M + `target.mde` for
/// superiority by a margin (the target is the advantage beyond the margin), as the verdict's
/// units needed ([`crate::stats::verdict`]) assume. `target.method` picks the exact or the
/// normal answer; with `target.icc`, components of m = `components.max-per-component`
/// questions, n_iid·DEFF/m.
///
/// Errors (exit 2): those of [`required_components`] and [`margin::margin_power`]; K = 0.
pub fn required_by_protocol(p: &crate::protocol::Protocol) -> Result<Requirement> {
    let t = &p.target;
    let mut target = t.clone();
    if let (Some(k), Some(w), Some(sd)) = (t.samples_per_topic, t.sd_within, t.sd) {
        if k == 0 {
            return Err(Error::input("target.samples-per-topic must be at least 1"));
        }
        target.sd = Some(samples::effective_sd(sd, w, f64::from(k)));
    }
    let hypothesis = p.primary_hypotheses().next().filter(|h| h.kind.has_margin());
    let mut r = match hypothesis {
        None => required_components(&target, &p.components)?,
        Some(h) => margin_requirement(&target, &p.components, h.kind, h.margin.unwrap_or(0.0))?,
    };
    if t.samples_per_topic.is_some() {
        r.samples_per_topic = t.samples_per_topic;
        r.sd_within = t.sd_within;
    }
    Ok(r)
}

/// [`required_by_protocol`] for a margin kind: `target` with σ already at K samples.
fn margin_requirement(
    target: &Target,
    components: &Components,
    kind: crate::protocol::HypothesisKind,
    margin: f64,
) -> Result<Requirement> {
    use crate::protocol::HypothesisKind;
    let sd = target
        .sd
        .ok_or_else(|| Error::input("target.sd is needed to derive required components"))?;
    let sd = inputs::check_sd(sd, target.scale)?;
    let margin = inputs::check_mde(margin, target.scale)?;
    Design::new(target.alpha, target.power, 1)?;
    let expected = match kind {
        HypothesisKind::SuperiorityByMargin => margin + target.mde,
        _ => 0.0,
    };
    let clustering = target.icc.map(|icc| Clustering {
        per_component: components.max_per_component,
        icc,
    });
    let spec = margin::MarginSpec {
        kind,
        margin,
        expected,
        sd,
        alpha: target.alpha,
        power: target.power,
        clustering,
    };
    let mp = margin::margin_power(&spec, None)?;
    let need = match target.method {
        PowerMethod::T => mp.t,
        PowerMethod::Normal => mp.normal,
    }
    .ok_or_else(|| Error::input("the margin requirement was not computed"))?;
    // The distance of Δ₀ from the null bound the test must cross.
    let distance = match kind {
        HypothesisKind::NonInferiority => margin + expected,
        HypothesisKind::SuperiorityByMargin => expected - margin,
        _ => margin - expected.abs(),
    };
    let m = clustering.map_or(1.0, |c| f64::from(c.per_component));
    Ok(Requirement {
        components: need.components,
        unrounded: need.unrounded,
        method: target.method,
        mde: distance,
        sd,
        alpha: target.alpha,
        power: target.power,
        sides: 1,
        effect_size: distance / sd,
        independent_n: need.independent_n,
        per_component: mp.per_component,
        icc: mp.icc,
        design_effect: mp.design_effect,
        effective_n: need.components as f64 * m / mp.design_effect,
        at_minimum: need.at_minimum,
        kind: Some(kind),
        margin: Some(margin),
        samples_per_topic: None,
        sd_within: None,
    })
}

#[cfg(test)]
mod tests;
