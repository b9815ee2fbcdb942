//! The per-component cap: which questions of a component are analyzed.

use super::bootstrap::streams;
use super::prepare::ComponentSpec;
use crate::assignment::AssignmentRow;
use crate::protocol::Keep;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The assignment rows kept for analysis and a description of the cap: the file's `counted`
/// column when any row has a value (rows with `counted = 0` are left out), else the cap m applied
/// here with the keep rule (`first-by-id`: smallest question ids in byte order; `seeded-sample`:
/// a ChaCha8 sample seeded with the analysis seed, components in id order).
pub(crate) fn kept_questions<'a>(c: &ComponentSpec<'a>) -> (Vec<&'a AssignmentRow>, String) {
    let rows: Vec<&AssignmentRow> = c
        .rows
        .iter()
        .filter(|r| c.split.is_none_or(|s| r.split.as_deref() == Some(s)))
        .collect();
    if rows.iter().any(|r| r.counted.is_some()) {
        let kept = rows.into_iter().filter(|r| r.counted != Some(false)).collect();
        return (kept, "from the assignment's counted column".into());
    }
    let mut by: BTreeMap<&str, Vec<&AssignmentRow>> = BTreeMap::new();
    for r in rows {
        by.entry(r.component.as_str()).or_default().push(r);
    }
    let m = c.cap.max(1) as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
    rng.set_stream(streams::KEEP);
    let mut kept = Vec::new();
    for (_, mut qs) in by {
        qs.sort_by(|a, b| a.question.as_bytes().cmp(b.question.as_bytes()));
        if qs.len() > m {
            match c.keep {
                Keep::FirstById => qs.truncate(m),
                Keep::SeededSample => {
                    qs.shuffle(&mut rng);
                    qs.truncate(m);
                }
            }
        }
        kept.extend(qs);
    }
    let rule = match c.keep {
        Keep::FirstById => "first-by-id",
        Keep::SeededSample => "seeded-sample",
    };
    (kept, format!("applied here: at most {} per component, {}", m, rule))
}
