//! The RFC 3161 functions in a build without the `witness` feature: nothing is asked of a TSA
//! and no token is checked. Asking fails ([`TsaError::Token`] with [`TokenProblem::NotBuilt`]),
//! and checking a token says it cannot be checked ([`TokenProblem::NotBuilt`]), so that
//! verification reports a token as not checkable instead of claiming it.

use super::*;

/// A trust file, which this build cannot read.
#[derive(Debug, Clone, Default)]
pub struct TrustAnchors {
    _none: (),
}

impl TrustAnchors {
    /// Errors (exit 2): this build cannot read certificates (`what` names the source).
    pub fn from_pem(_pem: &[u8], what: &str) -> crate::Result<TrustAnchors> {
        Err(witness_missing(&format!("reading the trust file {}", what)))
    }

    /// Errors (exit 2): this build cannot read certificates.
    pub fn load(path: &std::path::Path) -> crate::Result<TrustAnchors> {
        Err(witness_missing(&format!("reading the trust file {}", path.display())))
    }

    /// Number of certificates: none.
    pub fn len(&self) -> usize {
        0
    }

    /// Always true.
    pub fn is_empty(&self) -> bool {
        true
    }
}

/// Errors: always [`TokenProblem::NotBuilt`] (nothing is sent).
pub fn request_token(_client: &TsaClient, _url: &str, _hash: &[u8; 32], _nonce: u64) -> Result<Obtained, TsaError> {
    Err(TsaError::Token(TokenProblem::NotBuilt))
}

/// Errors: always [`TokenProblem::NotBuilt`].
pub fn parse_response(_der: &[u8], _hash: &[u8; 32], _nonce: Option<u64>) -> Result<Obtained, TsaError> {
    Err(TsaError::Token(TokenProblem::NotBuilt))
}

/// Errors: always [`TokenProblem::NotBuilt`]: the token is not checkable in this build.
pub fn verify_token(_token: &[u8], _hash: &[u8; 32], _trust: Option<&TrustAnchors>) -> Result<Witness, TokenProblem> {
    Err(TokenProblem::NotBuilt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_feature_nothing_is_asked_or_claimed() {
        let e = witness_missing("register --tsa");
        assert_eq!(e.exit_code(), 2);
        let text = format!("{:?}", e);
        assert!(text.contains("register --tsa needs the `witness` feature"), "{}", text);
        assert!(text.contains("rebuild with --features witness"), "{}", text);
        assert_eq!(verify_token(b"x", &[0; 32], None), Err(TokenProblem::NotBuilt));
        assert_eq!(TokenProblem::NotBuilt.code(), "witness-not-built");
        assert!(TrustAnchors::load(std::path::Path::new("t.pem")).is_err());
        let got = request_token(&TsaClient::default(), "http://127.0.0.1:1/", &[0; 32], 1);
        assert_eq!(got.unwrap_err(), TsaError::Token(TokenProblem::NotBuilt));
    }
}
