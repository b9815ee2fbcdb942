//! SSH signatures in a build without the `witness` feature: no `allowed_signers` file is read
//! and no signature is checked; a signed commit's signature is reported as not checkable
//! ([`SigProblem::NotBuilt`]), never as verified.

use super::*;

/// An `allowed_signers` file, which this build cannot read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AllowedSigners {
    _none: (),
}

impl AllowedSigners {
    /// Errors (exit 2): this build cannot check SSH signatures.
    pub fn load(path: &std::path::Path) -> Result<AllowedSigners> {
        Err(crate::ledger::tsa::witness_missing(&format!(
            "reading the allowed-signers file {}",
            path.display()
        )))
    }
}

/// Always [`SigProblem::NotBuilt`]: the signature is not checkable in this build.
pub fn verify(
    _allowed: &AllowedSigners,
    _principal: Option<&str>,
    _namespace: &str,
    _message: &[u8],
    _signature: &str,
    _at: DateTime<Utc>,
) -> std::result::Result<Verified, SigProblem> {
    Err(SigProblem::NotBuilt)
}

/// `None` for an unsigned commit, else [`SigProblem::NotBuilt`]: the key it carries is not read.
pub fn carried_key(format: ObjectFormat, raw: &[u8]) -> Option<std::result::Result<(String, String), SigProblem>> {
    split_signature(format, raw).map(|_| Err(SigProblem::NotBuilt))
}
