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
//!   observed SD σ, by the exact method `pledge power` uses ([`super::sizing`], the same numbers
//!   as the protocol-driven requirement of [`crate::power`]): the paired t-test (statsmodels
//!   `TTestPower`) at d = δ/σ for superiority, δ the target, with the test's sides; the
//!   one-sided paired t-test at the shifted effect d = (M + Δ₀)/σ for non-inferiority and d =
//!   (target beyond the margin)/σ for superiority by a margin; the exact paired TOST power for
//!   equivalence (margin M, true difference Δ₀); Δ₀ the assumed true difference (0 unless
//!   registered).
//!
//! Directions are for `greater`; for `less` every bound is mirrored.

use super::margin::HypothesisKind;
use super::sizing;
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

/// Primary units needed at the observed SD, by the exact method `pledge power` uses (see the
/// module docs): the real n at which the power reaches its target, rounded up, at least 2;
/// `None` without an SD, a target (superiority, superiority by a margin) or a positive distance
/// to the null, or when no n ≤ [`MAX_N`](super::sizing::MAX_N) reaches the power.
fn needed(c: &Case) -> Option<Needed> {
    let sd = c.sd.filter(|s| *s > 0.0 && s.is_finite())?;
    let m = c.margin.unwrap_or(0.0);
    let (alpha, power) = (c.alpha, c.power);
    let (n, method) = match c.kind {
        HypothesisKind::Superiority => {
            let d = positive(c.target? / sd)?;
            (
                sizing::t_n(d, alpha, power, c.sides.max(1))?,
                "exact paired t-test power (statsmodels TTestPower) at target / sd",
            )
        }
        HypothesisKind::NonInferiority | HypothesisKind::SuperiorityByMargin => {
            // The effect the shifted one-sided test detects: (Δ₀ + M)/σ, or the target beyond
            // the margin over σ.
            let delta = match c.kind {
                HypothesisKind::NonInferiority => m + c.expected,
                _ => c.target?,
            };
            let d = positive(delta / sd)?;
            (
                sizing::solve_n(|n| sizing::t_power(d, n, alpha, 1), power)?,
                "exact one-sided paired t-test power (statsmodels TTestPower) at the shifted effect",
            )
        }
        HypothesisKind::Equivalence => {
            positive(m - c.expected.abs())?;
            (
                sizing::solve_n(|n| sizing::tost_power(m, c.expected, sd, n, alpha), power)?,
                "exact paired TOST power (integral over the sample SD)",
            )
        }
    };
    Some(Needed {
        units: (n.ceil() as u64).max(2),
        unit: c.unit.clone(),
        sd,
        power,
        method: method.into(),
    })
}

/// `x` when it is a finite positive number.
fn positive(x: f64) -> Option<f64> {
    (x.is_finite() && x > 0.0).then_some(x)
}

#[cfg(test)]
mod tests;
