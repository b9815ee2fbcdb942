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

#[cfg(test)]
mod tests;
