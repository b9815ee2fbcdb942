//! What a build attempt changed in the candidates of the attempt before it, against what the
//! registration lets an attempt change (`[build] attempt-may-change`).
//!
//! Questions are matched by id, passages by their place in a question (role, then as listed)
//! and compared by id and text. With `contaminated-distractors` (or `contaminated-decoys`), a
//! question of the new attempt must be a question of the previous one with the same fields and
//! the same passages in every role, except that passages of the allowed roles that the previous
//! attempt's contamination check flagged may be replaced, one passage for one (the number of
//! passages per role stays); a question of the previous attempt may be left out only when that
//! check flagged it. Everything else is a change outside what is allowed, listed one line per
//! question (the first few questions, then how many more).

use crate::components::read::{Corpus, Question};
use crate::error::Result;
use crate::protocol::{AttemptChange, PassageRole};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The passages the previous attempt's contamination check flagged: question id → the ids of
/// its flagged passages, per role.
pub type Flagged = BTreeMap<String, BTreeSet<(PassageRole, String)>>;

/// What an attempt changed against the attempt before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeCheck {
    /// Questions of the previous attempt left out (each flagged there).
    pub dropped: u64,
    /// Passages replaced (flagged in the previous attempt, in a role the registration allows).
    pub replaced: u64,
    /// Questions with at least one passage replaced so (the repaired questions).
    pub repaired: u64,
    /// What changed beyond what the registration allows, one line each (at most
    /// [`ChangeCheck::SHOWN`] questions named, then how many more); empty when nothing did.
    pub outside: Vec<String>,
}

impl ChangeCheck {
    /// How many questions the lines of [`ChangeCheck::outside`] name at most.
    pub const SHOWN: usize = 5;
}

/// Compares `now` with `prev` (the previous attempt's candidates, before any was left out)
/// under `allowed`, with `flagged` the previous attempt's flags.
///
/// Errors: a passage text that cannot be read back from a spill file (exit 2).
pub fn check(prev: &Corpus, flagged: &Flagged, now: &Corpus, allowed: &[AttemptChange]) -> Result<ChangeCheck> {
    let mut out = ChangeCheck::default();
    if allowed.contains(&AttemptChange::Anything) {
        return Ok(out);
    }
    let roles: Vec<PassageRole> = allowed
        .iter()
        .filter_map(|a| match a {
            AttemptChange::ContaminatedDistractors => Some(PassageRole::Distractors),
            AttemptChange::ContaminatedDecoys => Some(PassageRole::Decoys),
            AttemptChange::Anything => None,
        })
        .collect();
    let by_id: HashMap<&str, &Question> = prev.questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let none = BTreeSet::new();
    let mut problems: Vec<String> = Vec::new();
    for q in &now.questions {
        let Some(p) = by_id.get(q.id.as_str()) else {
            problems.push(format!(
                "question `{}` is new (not a candidate of the previous attempt)",
                q.id
            ));
            continue;
        };
        let flags = flagged.get(&q.id).unwrap_or(&none);
        let (replaced, what) = compare_question(prev, p, now, q, flags, &roles)?;
        out.replaced += replaced;
        out.repaired += u64::from(replaced > 0);
        if !what.is_empty() {
            problems.push(format!("question `{}`: {}", q.id, what.join("; ")));
        }
    }
    let kept: BTreeSet<&str> = now.questions.iter().map(|q| q.id.as_str()).collect();
    for p in &prev.questions {
        if kept.contains(p.id.as_str()) {
            continue;
        }
        if flagged.contains_key(&p.id) {
            out.dropped += 1;
        } else {
            problems.push(format!(
                "question `{}` was left out, and the previous attempt's contamination check did not flag it",
                p.id
            ));
        }
    }
    let more = problems.len().saturating_sub(ChangeCheck::SHOWN);
    problems.truncate(ChangeCheck::SHOWN);
    if more > 0 {
        problems.push(format!("and {} more question(s)", more));
    }
    out.outside = problems;
    Ok(out)
}

/// One question against its previous version: the passages replaced as allowed, and what else
/// changed (in words).
fn compare_question(
    prev: &Corpus,
    p: &Question,
    now: &Corpus,
    q: &Question,
    flags: &BTreeSet<(PassageRole, String)>,
    roles: &[PassageRole],
) -> Result<(u64, Vec<String>)> {
    let mut what = Vec::new();
    let mut replaced = 0;
    if p.fields != q.fields {
        let keys: BTreeSet<&String> = p.fields.keys().chain(q.fields.keys()).collect();
        let changed: Vec<&str> = keys
            .into_iter()
            .filter(|k| p.fields.get(*k) != q.fields.get(*k))
            .map(|k| k.as_str())
            .collect();
        what.push(format!("field(s) {} changed", changed.join(", ")));
    }
    for role in [PassageRole::Supporting, PassageRole::Distractors, PassageRole::Decoys] {
        let (a, b) = (p.role(role), q.role(role));
        if a.len() != b.len() {
            what.push(format!("{} {} instead of {}", b.len(), role, a.len()));
            continue;
        }
        for (&i, &j) in a.iter().zip(b) {
            let (pa, pb) = (&prev.passages[i], &now.passages[j]);
            if pa.id == pb.id && prev.texts.get(i)? == now.texts.get(j)? {
                continue;
            }
            if roles.contains(&role) && flags.contains(&(role, pa.id.clone())) {
                replaced += 1;
            } else if pa.id == pb.id {
                what.push(format!("the text of {} passage `{}` changed", role, pa.id));
            } else {
                let why = if roles.contains(&role) {
                    "not flagged by the previous attempt's contamination check"
                } else {
                    "the registration allows no change of this role"
                };
                what.push(format!(
                    "{} passage `{}` replaced by `{}` ({})",
                    role, pa.id, pb.id, why
                ));
            }
        }
    }
    Ok((replaced, what))
}
