//! The verdict on a hypothesis: supported, not supported, or inconclusive.
//!
//! A test that does not reject is not evidence that there is no effect (Altman & Bland,
//! "Absence of evidence is not evidence of absence", BMJ 311, 1995). The verdict therefore
//! reads the interval at the test's level (1 − α two-sided, 1 − 2α one-sided and for the margin
//! kinds) against the smallest effect that matters (Lakens, Scheel & Isager, "Equivalence
//! testing for psychological research", AMPPS 1(2), 2018: the four outcomes of a test and an
//! equivalence test together):
//! - **supported**: the test rejects its null at α (adjusted over the hypothesis' family);
//! - **not supported**: the interval rules the claim out: for superiority it lies below the
//!   registered target δ (no difference that matters); for non-inferiority it lies entirely
//!   below −M (worse by more than the margin); for superiority by a margin below M; for
//!   equivalence entirely outside (−M, M);
//! - **inconclusive**: neither, the interval holds both a relevant effect and none. The verdict
//!   then states how many primary units (components or topics) a study would need at the
//!   observed SD, by the normal approximation (the achieved MDE's formula, [`super::mde`]):
//!   n = ((z_{1−α/s} + z_{power})·σ/δ)² for superiority, with δ the target; δ = M + Δ₀ for
//!   non-inferiority and the target beyond the margin for superiority by a margin (s = 1); for
//!   equivalence n = ((z_{1−α} + z_{1−β/2})·σ/(M − |Δ₀|))² (Chow, Shao & Wang, *Sample Size
//!   Calculations in Clinical Research*, 2008, §3.2), Δ₀ the assumed true difference (0 unless
//!   registered). `pledge power` gives the exact t-based answer.
//!
//! Directions are for `greater`; for `less` every bound is mirrored.

use super::dist::{z_isf, z_quantile};
use super::margin::HypothesisKind;
use crate::protocol::Direction;
use serde::{Deserialize, Serialize};

crate::named_enum! {
    /// A hypothesis' verdict at α. The one place a verdict is named (the report's verdict card
    /// uses it as `report::card::Verdict`).
    pub enum Verdict {
        /// The test rejects its null at α (adjusted over the family).
        Supported = "supported",
        /// The interval rules the claim out.
        NotSupported = "not supported",
        /// The interval holds both an effect that matters and none.
        Inconclusive = "inconclusive",
    }
}

/// The verdict with what it was read from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// The interval read, at `level`.
    pub interval: [f64; 2],
    /// Its level (1 − α two-sided, 1 − 2α one-sided).
    pub level: f64,
    /// How the interval was computed.
    pub interval_method: String,
    /// The effect that matters the interval is read against (the target δ, or the margin bound
    /// in the metric's unit); `None` when no target was given (then only supported or not).
    pub relevant: Option<f64>,
    /// Why, in words.
    pub reason: String,
    /// Primary units needed at the observed SD, when inconclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needed: Option<Needed>,
}

/// What a study would need to decide an inconclusive hypothesis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Needed {
    /// Primary units needed (rounded up, at least 2).
    pub units: u64,
    /// `component` or `topic`.
    pub unit: String,
    /// The SD of the unit-level differences it assumes (the observed one).
    pub sd: f64,
    /// The target power.
    pub power: f64,
    /// The formula.
    pub method: String,
}

/// What a verdict is read from.
#[derive(Debug, Clone)]
pub struct Case {
    /// The hypothesis' kind.
    pub kind: HypothesisKind,
    /// Its direction (`None` for equivalence).
    pub direction: Option<Direction>,
    /// The margin M, for a margin kind.
    pub margin: Option<f64>,
    /// The target δ (superiority; beyond the margin for superiority by a margin).
    pub target: Option<f64>,
    /// The true difference assumed for non-inferiority and equivalence (0 unless registered).
    pub expected: f64,
    /// Whether the test rejected at α (adjusted) in the expected direction.
    pub rejected: bool,
    /// The interval at the test's level and how it was computed.
    pub interval: [f64; 2],
    /// Its level.
    pub level: f64,
    /// Its method.
    pub interval_method: String,
    /// α, power and sides of the test (sides 1 for the margin kinds).
    pub alpha: f64,
    /// Target power.
    pub power: f64,
    /// 1 or 2.
    pub sides: u8,
    /// SD of the unit-level differences, and the primary unit.
    pub sd: Option<f64>,
    /// `component` or `topic`.
    pub unit: String,
}

/// The verdict on `c` (see the module docs).
pub fn judge(c: &Case) -> Judgement {
    let s = if c.direction == Some(Direction::Less) {
        -1.0
    } else {
        1.0
    };
    // The upper end of the interval of s·Δ (Δ in the expected direction).
    let hi = if s > 0.0 { c.interval[1] } else { -c.interval[0] };
    let m = c.margin.unwrap_or(0.0);
    let (relevant, ruled_out, what) = match c.kind {
        HypothesisKind::Superiority => match c.target {
            Some(d) => (
                Some(s * d),
                hi < d,
                format!("a difference of {} in the expected direction", d),
            ),
            None => (None, hi < 0.0, "any difference in the expected direction".to_string()),
        },
        HypothesisKind::NonInferiority => (
            Some(-s * m),
            hi < -m,
            format!("a shortfall smaller than the margin {}", m),
        ),
        HypothesisKind::SuperiorityByMargin => (Some(s * m), hi < m, format!("an advantage beyond the margin {}", m)),
        HypothesisKind::Equivalence => (
            Some(m),
            c.interval[0] >= m || c.interval[1] <= -m,
            format!("a difference within ±{}", m),
        ),
    };
    let pct = format!("{:.0}%", 100.0 * c.level);
    let (verdict, reason) = if c.rejected {
        (
            Verdict::Supported,
            format!("the test rejects its null at α = {}", c.alpha),
        )
    } else if ruled_out {
        (
            Verdict::NotSupported,
            format!("the {} interval rules out {}", pct, what),
        )
    } else if relevant.is_none() {
        (
            Verdict::NotSupported,
            format!(
                "the test does not reject at α = {} (no target to read the interval against)",
                c.alpha
            ),
        )
    } else if on_claimed_side(c, s, m) {
        (
            Verdict::Inconclusive,
            format!(
                "the test does not reject at α = {}, yet the {} interval lies wholly on the claimed side: the test and the interval disagree (an undefined test, e.g. all differences equal, is one way)",
                c.alpha, pct
            ),
        )
    } else {
        (
            Verdict::Inconclusive,
            format!("the {} interval holds both {} and its absence", pct, what),
        )
    };
    Judgement {
        needed: (verdict == Verdict::Inconclusive).then(|| needed(c)).flatten(),
        verdict,
        interval: c.interval,
        level: c.level,
        interval_method: c.interval_method.clone(),
        relevant,
        reason,
    }
}

/// Whether the whole interval lies where the claim holds (beyond 0 for superiority, above −M for
/// non-inferiority, beyond M for superiority by a margin, inside (−M, M) for equivalence), `s`
/// the direction's sign and `m` the margin.
fn on_claimed_side(c: &Case, s: f64, m: f64) -> bool {
    let lo = if s > 0.0 { c.interval[0] } else { -c.interval[1] };
    match c.kind {
        HypothesisKind::Superiority => lo > 0.0,
        HypothesisKind::NonInferiority => lo > -m,
        HypothesisKind::SuperiorityByMargin => lo > m,
        HypothesisKind::Equivalence => c.interval[0] > -m && c.interval[1] < m,
    }
}

/// Primary units needed at the observed SD (normal approximation; see the module docs).
fn needed(c: &Case) -> Option<Needed> {
    let sd = c.sd.filter(|s| *s > 0.0 && s.is_finite())?;
    let m = c.margin.unwrap_or(0.0);
    let z_pow = z_quantile(c.power);
    let (k, delta, method) = match c.kind {
        HypothesisKind::Superiority => (
            z_isf(c.alpha / f64::from(c.sides.max(1))) + z_pow,
            c.target?,
            "normal approximation ((z_{1-alpha/s} + z_{power}) * sd / target)^2",
        ),
        HypothesisKind::NonInferiority => (
            z_isf(c.alpha) + z_pow,
            m + c.expected,
            "normal approximation ((z_{1-alpha} + z_{power}) * sd / (margin + expected difference))^2",
        ),
        HypothesisKind::SuperiorityByMargin => (
            z_isf(c.alpha) + z_pow,
            c.target?,
            "normal approximation ((z_{1-alpha} + z_{power}) * sd / target beyond the margin)^2",
        ),
        HypothesisKind::Equivalence => (
            z_isf(c.alpha) + z_quantile(1.0 - (1.0 - c.power) / 2.0),
            m - c.expected.abs(),
            "normal approximation ((z_{1-alpha} + z_{1-beta/2}) * sd / (margin - |expected difference|))^2",
        ),
    };
    if delta.is_nan() || delta <= 0.0 {
        return None;
    }
    let n = (k * sd / delta).powi(2);
    n.is_finite().then(|| Needed {
        units: (n.ceil() as u64).max(2),
        unit: c.unit.clone(),
        sd,
        power: c.power,
        method: method.into(),
    })
}

#[cfg(test)]
mod tests;
