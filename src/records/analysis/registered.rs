//! The stored form of the registered analysis on the registered question set
//! ([`RegisteredSet`]): when a recount accepted with a deviation changed the questions analyzed,
//! an analysis also records the verdict on the questions the study's first `go` fixed, or why
//! the data do not allow it.

use super::{Comparison, ComponentAccounting, SystemSummary, TopicAccounting};
use crate::records::mirror::mirror;
use serde::{Deserialize, Serialize};

/// The registered analysis restricted to the registered question set: the question ids of the
/// count that fixed it (`records::CountRecord::question_ids` of the study's first `go`), analyzed
/// with the same settings, inputs and assignment as the analysis that carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisteredSet {
    /// The count that fixed the registered question set (its ledger entry number).
    pub registered_seq: u64,
    /// How many questions it holds (N).
    pub questions: usize,
    /// The analysis on them, or why there is none.
    pub outcome: RegisteredOutcome,
}

/// What became of the registered analysis on the registered question set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RegisteredOutcome {
    /// It ran on every registered question the analyzed split holds.
    Analyzed(RegisteredAnalysis),
    /// An input lacks registered questions: no verdict on a partial set.
    Lacking(Lacking),
    /// It could not run (the count's record holds no question ids, or the analysis failed on
    /// the restricted data): why, in words.
    Unavailable(String),
}

/// The registered questions an input lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lacking {
    /// The input: `scores` or `assignment`.
    pub input: String,
    /// How many registered questions it lacks (K).
    pub missing: usize,
    /// Up to 20 of their ids, sorted.
    pub examples: Vec<String>,
}

impl Lacking {
    /// The input lacks the questions `missing` (sorted) of the `of` registered ones.
    pub fn text(&self, of: usize) -> String {
        format!(
            "the {} lack{} {} of the {} registered questions: {}{}",
            self.input,
            if self.input == "scores" { "" } else { "s" },
            self.missing,
            of,
            self.examples.join(", "),
            if self.missing > self.examples.len() {
                ", …"
            } else {
                ""
            }
        )
    }
}

mirror! {
    /// The results of the registered analysis on the registered question set (its settings are
    /// those of the analysis that carries it).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RegisteredAnalysis from crate::stats::analyze::AnalysisResult {
        /// Topic accounting.
        pub topics: TopicAccounting,
        /// Component accounting.
        pub components: Option<ComponentAccounting>,
        /// Systems.
        pub systems: Vec<SystemSummary>,
        /// Comparisons.
        pub comparisons: Vec<Comparison>,
    }
}
