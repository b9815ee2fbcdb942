//! The build gate of a benchmark, before any component is counted: candidate questions whose
//! passages overlap data the team keeps sealed are flagged ([`contamination`], against a keyed
//! [`fingerprint`] of the sealed set, so the sealed text is never needed, nor revealed); a
//! repair's replacement passages are tested for a trace a classifier can find ([`trace`]).
//!
//! The method follows the components article kept with the project (a first build attempt
//! failed a passage-level contamination check against sealed validation data, one more attempt
//! replaced the contaminated distractors, and a classifier told the replaced passages apart).

pub mod attempt;
pub mod contamination;
pub mod fingerprint;
mod memo;
pub mod registered;
pub mod trace;
