//! Component counting under link rules (seed article "10,702 Questions, Only 5 Components"):
//! questions that rely on the same passage, on near-identical passages, or on each other's decoy
//! documents are one component, and statistics count components, not questions.

pub mod assignment;
