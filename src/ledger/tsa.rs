//! RFC 3161 time-stamping: a Time-Stamping Authority (TSA) witnesses that a hash existed at a
//! time, with a signed token anyone can check offline.
//!
//! - [`request_der`] builds a `TimeStampReq` (RFC 3161 section 2.4.1) for a 32-byte SHA-256
//!   hash: version 1, message imprint (SHA-256, the hash itself as `hashedMessage`, so the
//!   imprint of data whose SHA-256 is the hash, e.g. an entry's canonical form), a nonce,
//!   `certReq = true` (the TSA includes its certificate in the token).
//! - [`request_token`] sends it over HTTP (RFC 3161 section 3.4: `POST` with content type
//!   `application/timestamp-query`; `http://` and `https://` URLs), and [`parse_response`]
//!   reads the `TimeStampResp`: the status must be granted, the nonce and imprint those asked
//!   for, and the token must verify.
//! - [`verify_token`] checks a token (the DER `ContentInfo` of a CMS `SignedData`, RFC 5652)
//!   fully offline: one signer; the `content-type` attribute is `id-ct-TSTInfo`; the
//!   `message-digest` attribute equals the digest of the encapsulated `TSTInfo`; the signature
//!   over the DER `SET OF` signed attributes verifies under the signer's certificate (RSA
//!   PKCS #1 v1.5 or ECDSA P-256/P-384, SHA-256/384/512); an ESS `signing-certificate(-v2)`
//!   attribute (RFC 5035), when present, names that certificate; the certificate has the
//!   time-stamping extended key usage, alone and critical (RFC 3161 section 2.3), and was valid
//!   at `genTime`; the `TSTInfo`'s imprint is SHA-256 over the given hash. With a [`TrustAnchors`]
//!   (PEM certificates the caller names) the signer's certificate must also be one of them or
//!   chain to one of them (through CA certificates carried in the token) with valid signatures;
//!   without, the token's own certificate is used and the result says so ([`Trust`]).
//!
//! The ASN.1 types are the RustCrypto crates' (`x509-tsp`, `cms`, `x509-cert`, `der`); the only
//! one defined here is a `TSTInfo` that accepts fractional seconds in `genTime` (which RFC 3161
//! allows and `der` 0.7's `GeneralizedTime` refuses), and ESS `SigningCertificate(V2)`, which no
//! crate of this line provides.
//!
//! Public TSAs users can name (free, no account; tokens are self-authenticating, so plain HTTP
//! is their usual transport): DigiCert `http://timestamp.digicert.com`, FreeTSA
//! `https://freetsa.org/tsr` (its CA certificate is published at `https://freetsa.org/files/cacert.pem`).

use chrono::{DateTime, Utc};
use std::time::Duration;

#[cfg(feature = "witness")]
mod crypto;
#[cfg(feature = "witness")]
pub use crypto::{parse_response, request_der, request_token, verify_token, TrustAnchors};
#[cfg(not(feature = "witness"))]
mod off;
#[cfg(not(feature = "witness"))]
pub use off::{parse_response, request_token, verify_token, TrustAnchors};

/// Largest TSA response read (1 MiB, [`crate::input::TSA_RESPONSE_MAX_BYTES`]; real responses
/// are a few kilobytes).
pub const MAX_RESPONSE_BYTES: u64 = crate::input::TSA_RESPONSE_MAX_BYTES;

/// Why a token does not verify. Each has a stable kebab-case [`TokenProblem::code`] for
/// verification findings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenProblem {
    /// Not a DER time-stamp token of the expected shape.
    #[error("malformed time-stamp token: {0}")]
    Malformed(String),
    /// The token's `TSTInfo` stamps another hash (or not SHA-256).
    #[error("the token stamps {found}, not {expected}")]
    ImprintMismatch {
        /// The hash asked for, hex.
        expected: String,
        /// The token's imprint, `ALGORITHM-OID:hex`.
        found: String,
    },
    /// The `message-digest` attribute does not match the `TSTInfo` (it was edited).
    #[error("the signed message digest does not match the token's TSTInfo (the token was altered)")]
    DigestMismatch,
    /// The signature over the signed attributes does not verify under the signer's key.
    #[error("the TSA's signature does not verify (the token was altered or forged)")]
    SignatureInvalid,
    /// The signer's certificate is not in the token (and not in the trust file).
    #[error("the token does not carry its signer's certificate")]
    SignerCertificateMissing,
    /// The ESS signing-certificate attribute names another certificate.
    #[error("the token's signing-certificate attribute does not name the signer's certificate")]
    SigningCertificateMismatch,
    /// The signer's certificate lacks the critical, sole time-stamping extended key usage.
    #[error("the signer's certificate ({0}) is not a time-stamping certificate (RFC 3161 requires the extended key usage timeStamping, alone and critical)")]
    NotTimeStampingCertificate(String),
    /// The signer's certificate (or one on its chain) was not valid at `genTime`.
    #[error("certificate {subject} was not valid at the stamped time {time}")]
    CertificateNotValidAtTime {
        /// The certificate's subject.
        subject: String,
        /// `genTime`, RFC 3339.
        time: String,
    },
    /// A trust file was given and the signer's certificate does not chain to it.
    #[error("the TSA certificate {0} does not chain to a certificate of the trust file")]
    UntrustedCertificate(String),
    /// An algorithm this verifier does not implement (e.g. RSASSA-PSS, SHA-1 signatures).
    #[error("unsupported algorithm {0}")]
    UnsupportedAlgorithm(String),
    /// This build has no token checks (built without the `witness` feature): the token is not
    /// checkable, and nothing is claimed of it.
    #[error("this pledge was built without the `witness` feature: the token cannot be checked (rebuild with --features witness)")]
    NotBuilt,
}

impl TokenProblem {
    /// Stable code: `token-malformed`, `imprint-mismatch`, `digest-mismatch`,
    /// `signature-invalid`, `signer-certificate-missing`, `signing-certificate-mismatch`,
    /// `not-a-tsa-certificate`, `certificate-not-valid-at-time`, `untrusted-certificate`,
    /// `unsupported-algorithm`, `witness-not-built`.
    pub fn code(&self) -> &'static str {
        match self {
            TokenProblem::Malformed(_) => "token-malformed",
            TokenProblem::ImprintMismatch { .. } => "imprint-mismatch",
            TokenProblem::DigestMismatch => "digest-mismatch",
            TokenProblem::SignatureInvalid => "signature-invalid",
            TokenProblem::SignerCertificateMissing => "signer-certificate-missing",
            TokenProblem::SigningCertificateMismatch => "signing-certificate-mismatch",
            TokenProblem::NotTimeStampingCertificate(_) => "not-a-tsa-certificate",
            TokenProblem::CertificateNotValidAtTime { .. } => "certificate-not-valid-at-time",
            TokenProblem::UntrustedCertificate(_) => "untrusted-certificate",
            TokenProblem::UnsupportedAlgorithm(_) => "unsupported-algorithm",
            TokenProblem::NotBuilt => "witness-not-built",
        }
    }
}

/// Why a token could not be obtained from a TSA.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TsaError {
    /// The URL is not `http://` or `https://`.
    #[error("`{0}` is not an http:// or https:// URL")]
    BadUrl(String),
    /// The HTTP exchange failed (connection, timeout, status, size).
    #[error("time-stamp request to {url} failed: {reason}")]
    Http {
        /// The TSA URL.
        url: String,
        /// What failed.
        reason: String,
        /// Whether trying again later may succeed: the TSA could not be reached (no connection,
        /// no answer in time, a name that did not resolve) or answered with a server error
        /// (HTTP 5xx, 408, 429).
        temporary: bool,
    },
    /// The answer is not a `TimeStampResp`.
    #[error("the TSA's answer is not an RFC 3161 time-stamp response: {0}")]
    MalformedResponse(String),
    /// The TSA refused (status rejection, waiting, ...).
    #[error("the TSA refused the request: status {status}{}", text.as_ref().map(|t| format!(" ({})", t)).unwrap_or_default())]
    Rejected {
        /// The PKIStatus number (2 rejection, 3 waiting, ...).
        status: u8,
        /// The TSA's status text, if any.
        text: Option<String>,
    },
    /// The token's nonce is not the request's (a replayed or mixed-up answer).
    #[error("the TSA's token carries another nonce than the request's")]
    NonceMismatch,
    /// The token does not verify.
    #[error("the TSA's token does not verify: {0}")]
    Token(#[from] TokenProblem),
}

impl TsaError {
    /// Whether the TSA could not be reached, or asked to come back later (`Http` marked
    /// temporary, or PKIStatus 3, `waiting`): trying again later may succeed.
    pub fn is_temporary(&self) -> bool {
        match self {
            TsaError::Http { temporary, .. } => *temporary,
            TsaError::Rejected { status, .. } => *status == 3,
            _ => false,
        }
    }
}

/// On what the signer's certificate was accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// No trust file was given: the certificate the token carries was used as is.
    TokenCertificate,
    /// The certificate chains to (or is) the trust-file certificate with this subject.
    TrustFile(String),
}

/// What a verified token witnesses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The time the TSA stamped (`genTime`), UTC, with any fractional seconds.
    pub gen_time: DateTime<Utc>,
    /// `genTime` as the token writes it, e.g. `20261201083000Z`.
    pub gen_time_text: String,
    /// The TSA's accuracy (RFC 3161 `accuracy`), in microseconds, when stated.
    pub accuracy_micros: Option<u64>,
    /// The TSA's name: the `TSTInfo`'s `tsa` field when present, else the signer certificate's
    /// subject (RFC 4514 form, e.g. `CN=Test TSA,O=Example`).
    pub tsa_name: String,
    /// The signer certificate's subject.
    pub signer_subject: String,
    /// SHA-256 (hex) of the signer certificate's DER.
    pub signer_sha256: String,
    /// The token's serial number (hex, as in the `TSTInfo`).
    pub serial: String,
    /// The TSA policy OID, dotted.
    pub policy: String,
    /// The nonce, as a big-endian unsigned value, when it fits in 64 bits.
    pub nonce: Option<u64>,
    /// On what the signer's certificate was accepted.
    pub trust: Trust,
}

/// How to reach a TSA.
#[derive(Debug, Clone)]
pub struct TsaClient {
    /// Time allowed for the whole exchange.
    pub timeout: Duration,
    /// An HTTP proxy URL (`http://host:port`), or none for a direct connection. Library code
    /// reads no environment: a caller that honours `HTTPS_PROXY` passes it here.
    pub proxy: Option<String>,
}

impl Default for TsaClient {
    /// 30 s, no proxy.
    fn default() -> Self {
        TsaClient {
            timeout: Duration::from_secs(30),
            proxy: None,
        }
    }
}

/// A token obtained from a TSA and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obtained {
    /// The DER token (`ContentInfo`), what a ledger stores.
    pub token: Vec<u8>,
    /// What it witnesses (verified under the token's own certificate).
    pub witness: Witness,
}

/// The error of a command that needs the RFC 3161 and SSH-signature code this build left out
/// (the `witness` Cargo feature): `what` names what was asked for (exit 2).
pub fn witness_missing(what: &str) -> crate::Error {
    crate::Error::input(format!(
        "{} needs the `witness` feature, which this pledge was built without",
        what
    ))
    .with_hint("rebuild with --features witness (it is on by default)")
}
