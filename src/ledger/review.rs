//! The reviewer summary `pledge verify` ends with ([`Review`]): per registered study, when and by
//! whom it was registered (the claimed time, the earliest TSA testimony, the signature) and what
//! followed. `ledger::witness` fills it in.

use super::entry::DataAccess;
use serde::Serialize;

crate::named_enum! {
    /// How a ledger commit's signature stands.
    pub enum SignatureState {
        /// Signed, and the signature verifies for an allowed signer.
        Verified = "verified",
        /// Signed, but not checked (no allowed-signers file).
        Unchecked = "unchecked",
        /// Not signed.
        Unsigned = "unsigned",
        /// Signed, and the signature does not verify or its signer is not allowed.
        Invalid = "invalid",
    }
}

/// A TSA's testimony about a study's registration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessedTime {
    /// The TSA's name (the token's `tsa` field, else its certificate's subject).
    pub tsa: String,
    /// The witnessed time (`genTime`), RFC 3339 UTC.
    pub at: String,
    /// The `timestamp` entry holding the token.
    pub timestamp_seq: u64,
    /// The entry the token stamps (the registration, or a later entry whose chain holds it).
    pub covers_seq: u64,
    /// Whether the TSA certificate chains to a `--tsa-trust` certificate (false: checked under
    /// the certificate the token carries).
    pub trusted: bool,
}

/// One study, as a reviewer cites it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudyReview {
    /// The study id.
    pub study_id: String,
    /// Its title at registration.
    pub title: Option<String>,
    /// The `register` entry.
    pub registered_seq: u64,
    /// Its claimed time, RFC 3339.
    pub registered_at: String,
    /// Whether that time came from a fixed clock (`PLEDGE_NOW`).
    pub clock_fixed: bool,
    /// The earliest TSA testimony covering the registration, if any.
    pub witnessed: Option<WitnessedTime>,
    /// `registered-by` as the protocol declares it.
    pub registered_by: Option<String>,
    /// How the registration commit's signature stands (`None` for a line of an export of format
    /// `/1`, which carries no raw commit).
    pub signature: Option<SignatureState>,
    /// The allowed signer (principals) whose key signed the registration, when verified.
    pub signed_by: Option<String>,
    /// The data-access level declared at registration.
    pub data_access: DataAccess,
    /// Number of `amend` entries.
    pub amendments: usize,
    /// Number of `deviation` entries.
    pub deviations: usize,
    /// Number of `analyze` entries.
    pub analyses: usize,
    /// Where its protocol or data overlap an earlier study of the ledger, one sentence each
    /// (the registration rules' overlaps): the same protocol under another id, the same inputs
    /// analyzed before. The declared data access does not stand alone when there is one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overlap: Vec<String>,
    /// The build attempts against the registered budget (`[build]`), in words, with any past
    /// it or changing more than allowed; absent without a budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<String>,
}

/// The reviewer summary `pledge verify` ends with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Review {
    /// The tip commit (or last export line's commit) to cite.
    pub tip: Option<String>,
    /// Every registered study, in registration order.
    pub studies: Vec<StudyReview>,
}
