//! The stop rule: compare the counted components with the required ones.
//!
//! Required per split: `required-components = N`, or `"from-target"`, derived from `[target]` by
//! [`crate::power::required_by_protocol`]. The stop rule compares `counted` (components holding a
//! candidate, or all, per `stop-rule.count`) with the sum of the splits' requirements (splits
//! cannot share a component) or, with `required = "each-split"`, the largest one. A protocol
//! without splits gives the decision `count` (no gate).

use super::CountResult;
use crate::error::Result;
use crate::power::Requirement;
use crate::protocol::{Protocol, Required, StopCount, StopRequired};
use serde::{Deserialize, Serialize};

/// One split's requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitRequirement {
    /// Split name.
    pub name: String,
    /// Components required.
    pub required: u64,
    /// The power computation, when the requirement is derived from the target.
    pub power: Option<Requirement>,
    /// The split's share for `--assign`, when the protocol gives one.
    pub share: Option<f64>,
}

crate::named_enum! {
    /// What the stop rule decided.
    pub enum StopDecision {
        /// Enough components: the build may go on (a `go` ledger entry).
        Go = "go",
        /// Too few components: the build stops (a `stop` entry, exit 3).
        Stop = "stop",
        /// The protocol has no splits, so no requirement and no gate (a `count` entry).
        Count = "count",
    }
}

/// The stop-rule decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The decision.
    pub decision: StopDecision,
    /// Components counted by the rule.
    pub counted: usize,
    /// Which components are counted.
    pub count: StopCount,
    /// Components required (None without splits).
    pub required: Option<u64>,
    /// How the requirement combines the splits.
    pub required_rule: StopRequired,
    /// Per-split requirements, in protocol order.
    pub splits: Vec<SplitRequirement>,
}

/// Applies `protocol`'s stop rule to `result`.
///
/// Errors: those of [`crate::power::required_by_protocol`] (e.g. `target.sd` missing, exit 2).
pub fn decide(protocol: &Protocol, result: &CountResult) -> Result<Decision> {
    let mut splits = Vec::new();
    for s in &protocol.splits {
        let (required, power) = match &s.required_components {
            Required::Count(n) => (*n, None),
            Required::Derived(_) => {
                let r = crate::power::required_by_protocol(protocol)?;
                (r.components, Some(r))
            }
        };
        splits.push(SplitRequirement {
            name: s.name.clone(),
            required,
            power,
            share: s.share,
        });
    }
    let counted = match protocol.stop_rule.count {
        StopCount::WithCandidates => result.with_candidates,
        StopCount::All => result.components,
    };
    let required = if splits.is_empty() {
        None
    } else {
        Some(match protocol.stop_rule.required {
            StopRequired::SumOfSplits => splits.iter().map(|s| s.required).sum(),
            StopRequired::EachSplit => splits.iter().map(|s| s.required).max().unwrap_or(0),
        })
    };
    let decision = match required {
        None => StopDecision::Count,
        Some(r) if (counted as u64) < r => StopDecision::Stop,
        Some(_) => StopDecision::Go,
    };
    Ok(Decision {
        decision,
        counted,
        count: protocol.stop_rule.count,
        required,
        required_rule: protocol.stop_rule.required,
        splits,
    })
}
