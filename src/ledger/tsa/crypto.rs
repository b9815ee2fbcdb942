//! The RFC 3161 client and token checks (the `witness` feature): ASN.1, CMS, X.509 and the
//! signature algorithms through the RustCrypto crates, HTTP through `ureq` (see [`super`]).

use super::*;
use chrono::{NaiveDate, TimeZone};
use cms::content_info::ContentInfo;
use cms::signed_data::{EncapsulatedContentInfo, SignerIdentifier, SignerInfo};
use der::asn1::{Any, Int, ObjectIdentifier, OctetString};
use der::{Decode, Encode, Sequence, Tag, Tagged};
use sha2::Digest as _;
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use std::path::Path;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{BasicConstraints, ExtendedKeyUsage, SubjectKeyIdentifier};
use x509_cert::ext::Extensions;
use x509_cert::Certificate;
use x509_tsp::{Accuracy, MessageImprint, TimeStampReq, TimeStampResp, TspVersion};

const ID_SIGNED_DATA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.7.2");
const ID_CT_TST_INFO: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.1.4");
const ID_CONTENT_TYPE: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.3");
const ID_MESSAGE_DIGEST: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.4");
const ID_SIGNING_CERTIFICATE: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.12");
const ID_SIGNING_CERTIFICATE_V2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.47");
const ID_SHA1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.14.3.2.26");
const ID_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
const ID_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2");
const ID_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3");
const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const SHA256_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11");
const SHA384_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.12");
const SHA512_WITH_RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.13");
const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
const ECDSA_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.2");
const ECDSA_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.3");
const ECDSA_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.4.3.4");
const SECP256R1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");
const SECP384R1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.132.0.34");
const ID_KP_TIME_STAMPING: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.8");

/// Largest certificate chain followed from the signer to a trust anchor.
const MAX_CHAIN: usize = 8;

/// Whether the failed exchange `e` may succeed later: the TSA was not reached or not in time.
fn temporary(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Io(_)
            | ureq::Error::Timeout(_)
            | ureq::Error::HostNotFound
            | ureq::Error::ConnectionFailed
            | ureq::Error::ConnectProxyFailed(_)
            | ureq::Error::BodyStalled
    )
}

/// Certificates a verifier trusts as TSA certificates or as their issuers (a "trust file").
///
/// It also remembers which certificate signatures it has already verified (by the SHA-256 of
/// the certificate and of its issuer), so checking the thousands of tokens of one TSA in a long
/// ledger verifies the TSA's certificate chain once, not once per token.
#[derive(Debug, Default)]
pub struct TrustAnchors {
    certs: Vec<Certificate>,
    verified: std::sync::Mutex<std::collections::HashSet<([u8; 32], [u8; 32])>>,
}

impl Clone for TrustAnchors {
    fn clone(&self) -> Self {
        TrustAnchors {
            certs: self.certs.clone(),
            verified: std::sync::Mutex::new(self.verified.lock().map(|v| v.clone()).unwrap_or_default()),
        }
    }
}

impl TrustAnchors {
    /// Parses one or more PEM `CERTIFICATE` blocks. `what` names the source in errors.
    ///
    /// Errors (exit 2): no certificate, or a block that is not an X.509 certificate.
    pub fn from_pem(pem: &[u8], what: &str) -> crate::Result<TrustAnchors> {
        let certs = Certificate::load_pem_chain(pem).map_err(|e| {
            crate::Error::input(format!("{}: not PEM X.509 certificates", what))
                .caused_by(e)
                .with_hint("a trust file holds `-----BEGIN CERTIFICATE-----` blocks, e.g. the TSA's CA certificate")
        })?;
        if certs.is_empty() {
            return Err(crate::Error::input(format!("{}: holds no certificate", what)));
        }
        Ok(TrustAnchors {
            certs,
            verified: Default::default(),
        })
    }

    /// Reads a trust file of PEM certificates. Errors (exit 2): unreadable, over 1 MiB, or as
    /// [`TrustAnchors::from_pem`].
    pub fn load(path: &Path) -> crate::Result<TrustAnchors> {
        let meta = std::fs::metadata(path).map_err(|e| crate::Error::io("reading", path, e))?;
        if meta.len() > MAX_RESPONSE_BYTES {
            return Err(crate::Error::in_file(
                path,
                "is larger than 1 MiB; expected a few PEM certificates",
            ));
        }
        let bytes = crate::io::read_bytes(path)?;
        TrustAnchors::from_pem(&bytes, &path.display().to_string())
    }

    /// Number of certificates.
    pub fn len(&self) -> usize {
        self.certs.len()
    }

    /// True when there is no certificate (never, for one built by this module).
    pub fn is_empty(&self) -> bool {
        self.certs.is_empty()
    }
}

/// RFC 3161 `TSTInfo`, as `x509_tsp::TstInfo` but with `genTime` kept as raw `Any` so that
/// fractional seconds (allowed by RFC 3161 section 2.4.2) can be read.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct TstInfoLenient {
    version: TspVersion,
    policy: ObjectIdentifier,
    message_imprint: MessageImprint,
    serial_number: Int,
    gen_time: Any,
    #[asn1(optional = "true")]
    accuracy: Option<Accuracy>,
    #[asn1(default = "Default::default")]
    ordering: bool,
    #[asn1(optional = "true")]
    nonce: Option<Int>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    tsa: Option<GeneralName>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    extensions: Option<Extensions>,
}

/// RFC 5035 `ESSCertIDv2` (only the fields compared).
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct EssCertIdV2 {
    #[asn1(optional = "true")]
    hash_algorithm: Option<AlgorithmIdentifierOwned>,
    cert_hash: OctetString,
    #[asn1(optional = "true")]
    issuer_serial: Option<Any>,
}

/// RFC 5035 `SigningCertificateV2`.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct SigningCertificateV2 {
    certs: Vec<EssCertIdV2>,
    #[asn1(optional = "true")]
    policies: Option<Any>,
}

/// RFC 2634 `ESSCertID` (SHA-1 certificate hash).
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct EssCertId {
    cert_hash: OctetString,
    #[asn1(optional = "true")]
    issuer_serial: Option<Any>,
}

/// RFC 2634 `SigningCertificate`.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
struct SigningCertificate {
    certs: Vec<EssCertId>,
    #[asn1(optional = "true")]
    policies: Option<Any>,
}

fn malformed(what: impl std::fmt::Display) -> TokenProblem {
    TokenProblem::Malformed(what.to_string())
}

/// The DER INTEGER content of `n` as a non-negative value (minimal, with a leading zero byte
/// when the high bit is set).
fn nonce_int(n: u64) -> der::Result<Int> {
    let be = n.to_be_bytes();
    let start = be.iter().position(|b| *b != 0).unwrap_or(be.len() - 1);
    let mut bytes = Vec::with_capacity(9);
    if be[start] & 0x80 != 0 {
        bytes.push(0);
    }
    bytes.extend_from_slice(&be[start..]);
    Int::new(&bytes)
}

fn int_to_u64(i: &Int) -> Option<u64> {
    let b = i.as_bytes();
    if b.first().is_some_and(|x| x & 0x80 != 0) {
        return None; // negative
    }
    let b = b.strip_prefix(&[0]).unwrap_or(b);
    if b.len() > 8 {
        return None;
    }
    Some(b.iter().fold(0u64, |a, x| (a << 8) | u64::from(*x)))
}

/// The DER `TimeStampReq` for the SHA-256 `hash` with `nonce` and `certReq = true` (what
/// `openssl ts -query -digest HEX -sha256 -cert` writes, with the nonce given).
pub fn request_der(hash: &[u8; 32], nonce: u64) -> Vec<u8> {
    // Encoding fixed-size, well-formed values cannot fail.
    build_request(hash, nonce).unwrap_or_default()
}

fn build_request(hash: &[u8; 32], nonce: u64) -> der::Result<Vec<u8>> {
    TimeStampReq {
        version: TspVersion::V1,
        message_imprint: MessageImprint {
            hash_algorithm: spki::AlgorithmIdentifier {
                oid: ID_SHA256,
                parameters: Some(Any::null()),
            },
            hashed_message: OctetString::new(hash.to_vec())?,
        },
        req_policy: None,
        nonce: Some(nonce_int(nonce)?),
        cert_req: true,
        extensions: None,
    }
    .to_der()
}

/// Asks the TSA at `url` for a token over `hash` with `nonce` (the caller's random number:
/// library code takes randomness as a parameter) and checks the answer with
/// [`parse_response`]. Sends `POST url` with `Content-Type: application/timestamp-query`
/// (RFC 3161 section 3.4), reading at most [`MAX_RESPONSE_BYTES`].
///
/// Errors: a bad URL, an HTTP failure (including a non-2xx status and the timeout), and every
/// error of [`parse_response`].
pub fn request_token(client: &TsaClient, url: &str, hash: &[u8; 32], nonce: u64) -> Result<Obtained, TsaError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(TsaError::BadUrl(url.to_string()));
    }
    let http = |reason: String, temporary: bool| TsaError::Http {
        url: url.to_string(),
        reason,
        temporary,
    };
    let proxy = match &client.proxy {
        Some(p) => Some(ureq::Proxy::new(p).map_err(|e| http(format!("bad proxy `{}`: {}", p, e), false))?),
        None => None,
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(client.timeout))
        .proxy(proxy)
        .http_status_as_error(false)
        .build()
        .into();
    let mut resp = agent
        .post(url)
        .header("Content-Type", "application/timestamp-query")
        .header("Accept", "application/timestamp-reply")
        .send(&request_der(hash, nonce)[..])
        .map_err(|e| http(e.to_string(), temporary(&e)))?;
    let status = resp.status();
    if !status.is_success() {
        let again = status.is_server_error() || matches!(status.as_u16(), 408 | 429);
        return Err(http(format!("HTTP status {}", status), again));
    }
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES)
        .read_to_vec()
        .map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => TsaError::MalformedResponse(format!(
                "it is larger than {} bytes (1 MiB), the most pledge reads from a TSA (real responses are a few kilobytes)",
                MAX_RESPONSE_BYTES
            )),
            e => http(e.to_string(), temporary(&e)),
        })?;
    parse_response(&body, hash, Some(nonce))
}

/// Reads a DER `TimeStampResp` (RFC 3161 section 2.4.2) answering a request for `hash` with
/// `nonce` (`None`: the request had none): the status must be granted (0) or granted with
/// modifications (1), the token's nonce the request's, and the token must pass
/// [`verify_token`] without a trust file.
///
/// Errors: [`TsaError::MalformedResponse`], [`TsaError::Rejected`], [`TsaError::NonceMismatch`],
/// [`TsaError::Token`].
pub fn parse_response(der: &[u8], hash: &[u8; 32], nonce: Option<u64>) -> Result<Obtained, TsaError> {
    let resp = TimeStampResp::from_der(der).map_err(|e| TsaError::MalformedResponse(e.to_string()))?;
    let status = resp.status.status as u8;
    if status > 1 {
        let text = resp
            .status
            .status_string
            .as_ref()
            .map(|v| v.iter().map(|s| s.as_str().to_string()).collect::<Vec<_>>().join("; "));
        return Err(TsaError::Rejected { status, text });
    }
    let token = resp
        .time_stamp_token
        .ok_or_else(|| TsaError::MalformedResponse("granted, but no token".into()))?
        .to_der()
        .map_err(|e| TsaError::MalformedResponse(e.to_string()))?;
    let witness = verify_token(&token, hash, None)?;
    if nonce.is_some() && witness.nonce != nonce {
        return Err(TsaError::NonceMismatch);
    }
    Ok(Obtained { token, witness })
}

/// Verifies the DER time-stamp `token` (a CMS `ContentInfo`) over the SHA-256 `hash`, offline,
/// with every check listed in the module documentation; `trust` (a trust file) makes the
/// signer's certificate have to chain to one of its certificates.
///
/// Returns what the token witnesses, or the first reason it does not verify: never a panic,
/// whatever the bytes.
pub fn verify_token(token: &[u8], hash: &[u8; 32], trust: Option<&TrustAnchors>) -> Result<Witness, TokenProblem> {
    let parts = split_token(token)?;
    if parts.econtent_type != ID_CT_TST_INFO {
        return Err(malformed("the signed content is not a TSTInfo"));
    }
    let tst_der = parts.tst_der.as_slice();
    let tst = TstInfoLenient::from_der(tst_der).map_err(malformed)?;
    let (gen_time, gen_time_text) = read_gen_time(&tst)?;
    let [(si, signed_bytes)] = parts.signers.as_slice() else {
        return Err(malformed(format!(
            "{} signers; a time-stamp token has one",
            parts.signers.len()
        )));
    };
    let certs: Vec<&Certificate> = parts.certs.iter().collect();
    let anchors: Vec<&Certificate> = trust.map(|t| t.certs.iter().collect()).unwrap_or_default();
    let signer = certs
        .iter()
        .chain(anchors.iter())
        .copied()
        .find(|c| identifies(&si.sid, c))
        .ok_or(TokenProblem::SignerCertificateMissing)?;
    let signer_der = signer.to_der().map_err(malformed)?;
    let (digest_alg, ess) = check_signed_attributes(si, tst_der, &signer_der)?;
    // The signature is over the DER encoding of the attributes as a SET OF (RFC 5652 section
    // 5.4), i.e. the bytes as transmitted with the [0] tag replaced by SET.
    let signed_bytes = signed_bytes
        .as_deref()
        .ok_or_else(|| malformed("no signed attributes (RFC 3161 requires them)"))?;
    verify_signature(
        &signer.tbs_certificate.subject_public_key_info,
        &si.signature_algorithm,
        Some(digest_alg),
        signed_bytes,
        si.signature.as_bytes(),
    )?;
    if ess == Some(false) {
        return Err(TokenProblem::SigningCertificateMismatch);
    }
    let subject = check_tsa_certificate(signer, gen_time)?;
    check_imprint(&tst, hash)?;
    let trust = match trust {
        None => Trust::TokenCertificate,
        Some(t) => Trust::TrustFile(chain_to_anchor(signer, &certs, t, gen_time)?),
    };
    Ok(Witness {
        gen_time,
        gen_time_text,
        accuracy_micros: accuracy_micros(&tst),
        tsa_name: tsa_name(&tst, &subject),
        signer_subject: subject,
        signer_sha256: hex::encode(sha2::Sha256::digest(&signer_der)),
        serial: hex::encode(tst.serial_number.as_bytes()),
        policy: tst.policy.to_string(),
        nonce: tst.nonce.as_ref().and_then(int_to_u64),
        trust,
    })
}

/// The token's `genTime`, as an instant and as the text it holds.
///
/// Errors: not a GeneralizedTime, or not `YYYYMMDDhhmmss[.f]Z`.
fn read_gen_time(tst: &TstInfoLenient) -> Result<(DateTime<Utc>, String), TokenProblem> {
    let text = String::from_utf8_lossy(tst.gen_time.value()).into_owned();
    if tst.gen_time.tag() != Tag::GeneralizedTime {
        return Err(malformed("genTime is not a GeneralizedTime"));
    }
    let t = parse_generalized_time(&text)
        .ok_or_else(|| malformed(format!("genTime `{}` is not YYYYMMDDhhmmss[.f]Z", text)))?;
    Ok((t, text))
}

/// The signer's signed attributes: the content type must be id-ct-TSTInfo and the message
/// digest that of `tst_der` (under the signer's digest algorithm, which is returned). Also
/// returns whether the ESS signing-certificate attribute (v2, else v1) names the certificate
/// `signer_der` (`None`: no such attribute).
///
/// Errors: a missing or malformed attribute, an unknown digest algorithm, a digest mismatch.
fn check_signed_attributes(
    si: &SignerInfo,
    tst_der: &[u8],
    signer_der: &[u8],
) -> Result<(HashAlg, Option<bool>), TokenProblem> {
    let attrs = si
        .signed_attrs
        .as_ref()
        .ok_or_else(|| malformed("no signed attributes (RFC 3161 requires them)"))?;
    let digest_alg = hash_alg(&si.digest_alg.oid)?;
    let mut content_type_ok = false;
    let mut digest_ok = None;
    let mut ess: Option<bool> = None;
    for a in attrs.iter() {
        let first = a.values.iter().next();
        if a.oid == ID_CONTENT_TYPE {
            content_type_ok = first.and_then(|v| v.decode_as::<ObjectIdentifier>().ok()) == Some(ID_CT_TST_INFO);
        } else if a.oid == ID_MESSAGE_DIGEST {
            let v = first.ok_or_else(|| malformed("empty message-digest attribute"))?;
            let os: OctetString = v.decode_as().map_err(malformed)?;
            digest_ok = Some(os.as_bytes() == digest_alg.digest(tst_der).as_slice());
        } else if a.oid == ID_SIGNING_CERTIFICATE_V2 {
            let v = first.ok_or_else(|| malformed("empty signing-certificate-v2 attribute"))?;
            let sc: SigningCertificateV2 = v.decode_as().map_err(malformed)?;
            let id = sc
                .certs
                .first()
                .ok_or_else(|| malformed("empty signing-certificate-v2"))?;
            let alg = match &id.hash_algorithm {
                Some(a) => hash_alg(&a.oid)?,
                None => HashAlg::Sha256,
            };
            ess = Some(id.cert_hash.as_bytes() == alg.digest(signer_der).as_slice());
        } else if a.oid == ID_SIGNING_CERTIFICATE {
            let v = first.ok_or_else(|| malformed("empty signing-certificate attribute"))?;
            let sc: SigningCertificate = v.decode_as().map_err(malformed)?;
            let id = sc.certs.first().ok_or_else(|| malformed("empty signing-certificate"))?;
            if ess.is_none() {
                ess = Some(id.cert_hash.as_bytes() == sha1::Sha1::digest(signer_der).as_slice());
            }
        }
    }
    if !content_type_ok {
        return Err(malformed("the content-type attribute is missing or not id-ct-TSTInfo"));
    }
    match digest_ok {
        None => Err(malformed("no message-digest attribute")),
        Some(false) => Err(TokenProblem::DigestMismatch),
        Some(true) => Ok((digest_alg, ess)),
    }
}

/// The signer's certificate must be a time-stamping certificate (extended key usage critical
/// and id-kp-timeStamping only) valid at `gen_time`. Returns its subject.
fn check_tsa_certificate(signer: &Certificate, gen_time: DateTime<Utc>) -> Result<String, TokenProblem> {
    let subject = signer.tbs_certificate.subject.to_string();
    let eku = signer
        .tbs_certificate
        .get::<ExtendedKeyUsage>()
        .map_err(|_| TokenProblem::NotTimeStampingCertificate(subject.clone()))?;
    match eku {
        Some((true, ExtendedKeyUsage(purposes))) if purposes.as_slice() == [ID_KP_TIME_STAMPING] => {}
        _ => return Err(TokenProblem::NotTimeStampingCertificate(subject)),
    }
    valid_at(signer, gen_time)?;
    Ok(subject)
}

/// The token's message imprint must be the SHA-256 `hash`.
fn check_imprint(tst: &TstInfoLenient, hash: &[u8; 32]) -> Result<(), TokenProblem> {
    let mi = &tst.message_imprint;
    if mi.hash_algorithm.oid != ID_SHA256 || mi.hashed_message.as_bytes() != hash.as_slice() {
        return Err(TokenProblem::ImprintMismatch {
            expected: hex::encode(hash),
            found: format!(
                "{}:{}",
                mi.hash_algorithm.oid,
                hex::encode(mi.hashed_message.as_bytes())
            ),
        });
    }
    Ok(())
}

/// The TSA's name as the token gives it (`tsa` field), else the signer's `subject`.
fn tsa_name(tst: &TstInfoLenient, subject: &str) -> String {
    match &tst.tsa {
        Some(GeneralName::DirectoryName(n)) => n.to_string(),
        Some(GeneralName::DnsName(s)) => s.to_string(),
        Some(GeneralName::UniformResourceIdentifier(s)) => s.to_string(),
        Some(GeneralName::Rfc822Name(s)) => s.to_string(),
        _ => subject.to_string(),
    }
}

/// The token's stated accuracy, in microseconds (`None`: not stated).
fn accuracy_micros(tst: &TstInfoLenient) -> Option<u64> {
    tst.accuracy.as_ref().map(|a| {
        a.seconds.unwrap_or(0).saturating_mul(1_000_000)
            + a.millis.map(|m| m.max(0) as u64 * 1000).unwrap_or(0)
            + a.micros.map(|m| m.max(0) as u64).unwrap_or(0)
    })
}

/// Whether `sid` names `cert`.
fn identifies(sid: &SignerIdentifier, cert: &Certificate) -> bool {
    match sid {
        SignerIdentifier::IssuerAndSerialNumber(ias) => {
            ias.issuer == cert.tbs_certificate.issuer && ias.serial_number == cert.tbs_certificate.serial_number
        }
        SignerIdentifier::SubjectKeyIdentifier(ski) => {
            matches!(cert.tbs_certificate.get::<SubjectKeyIdentifier>(), Ok(Some((_, s))) if s == *ski)
        }
    }
}

/// The parts of a time-stamp token that verification reads.
struct TokenParts {
    econtent_type: ObjectIdentifier,
    /// The encapsulated content (the DER `TSTInfo`), the octets the message digest is over.
    tst_der: Vec<u8>,
    /// The certificates the token carries (other certificate formats are skipped).
    certs: Vec<Certificate>,
    /// Each signer, with its signed attributes exactly as encoded, re-tagged as SET OF.
    signers: Vec<(SignerInfo, Option<Vec<u8>>)>,
}

const CONTEXT_0: Tag = Tag::ContextSpecific {
    constructed: true,
    number: der::TagNumber::N0,
};

/// Elements of a constructed DER value, as `der::Any`s.
fn children(value: &[u8]) -> Result<Vec<Any>, TokenProblem> {
    let mut r = der::SliceReader::new(value).map_err(malformed)?;
    let mut out = Vec::new();
    while !der::Reader::is_finished(&r) {
        out.push(Any::decode(&mut r).map_err(malformed)?);
    }
    Ok(out)
}

/// Walks ContentInfo → SignedData (RFC 5652 section 5.1) element by element with `der::Any`,
/// decoding each part with the `cms`/`x509-cert` types. `SignedData` is not decoded whole: `der`
/// 0.7 refuses a certificate SET holding the same certificate twice, which `openssl ts` writes
/// when the signer certificate is also in its chain, and re-sorts SETs, which would lose the
/// signed attributes' encoding.
fn split_token(token: &[u8]) -> Result<TokenParts, TokenProblem> {
    let ci = ContentInfo::from_der(token).map_err(malformed)?;
    if ci.content_type != ID_SIGNED_DATA {
        return Err(malformed(format!(
            "content type {} is not signed-data",
            ci.content_type
        )));
    }
    if ci.content.tag() != Tag::Sequence {
        return Err(malformed("signed-data is not a SEQUENCE"));
    }
    let fields = children(ci.content.value())?;
    let mut it = fields.iter();
    let _version = it
        .next()
        .filter(|a| a.tag() == Tag::Integer)
        .ok_or_else(|| malformed("no version"))?;
    let _digests = it
        .next()
        .filter(|a| a.tag() == Tag::Set)
        .ok_or_else(|| malformed("no digest algorithms"))?;
    let encap = it.next().ok_or_else(|| malformed("no encapsulated content"))?;
    let encap: EncapsulatedContentInfo = encap.decode_as().map_err(malformed)?;
    let econtent = encap.econtent.ok_or_else(|| malformed("no encapsulated TSTInfo"))?;
    if econtent.tag() != Tag::OctetString {
        return Err(malformed("the encapsulated content is not an OCTET STRING"));
    }
    let mut certs = Vec::new();
    let mut signers = Vec::new();
    for f in it {
        if f.tag() == CONTEXT_0 {
            for c in children(f.value())? {
                if c.tag() == Tag::Sequence {
                    certs.push(c.decode_as::<Certificate>().map_err(malformed)?);
                }
            }
        } else if f.tag() == Tag::Set {
            for s in children(f.value())? {
                let info: SignerInfo = s.decode_as().map_err(malformed)?;
                let raw = children(s.value())?
                    .into_iter()
                    .find(|x| x.tag() == CONTEXT_0)
                    .map(|x| Any::new(Tag::Set, x.value()).and_then(|a| a.to_der()))
                    .transpose()
                    .map_err(malformed)?;
                signers.push((info, raw));
            }
        }
    }
    Ok(TokenParts {
        econtent_type: encap.econtent_type,
        tst_der: econtent.value().to_vec(),
        certs,
        signers,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HashAlg {
    Sha256,
    Sha384,
    Sha512,
}

impl HashAlg {
    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            HashAlg::Sha256 => sha2::Sha256::digest(data).to_vec(),
            HashAlg::Sha384 => sha2::Sha384::digest(data).to_vec(),
            HashAlg::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }
}

fn hash_alg(oid: &ObjectIdentifier) -> Result<HashAlg, TokenProblem> {
    match *oid {
        ID_SHA256 => Ok(HashAlg::Sha256),
        ID_SHA384 => Ok(HashAlg::Sha384),
        ID_SHA512 => Ok(HashAlg::Sha512),
        ID_SHA1 => Err(TokenProblem::UnsupportedAlgorithm(
            "SHA-1 (too weak to witness anything)".into(),
        )),
        other => Err(TokenProblem::UnsupportedAlgorithm(format!("digest {}", other))),
    }
}

/// Verifies `sig` over `data` under `spki` with `sig_alg` (a combined OID such as
/// sha256WithRSAEncryption or ecdsa-with-SHA384, or a bare rsaEncryption with `digest`).
fn verify_signature(
    spki: &SubjectPublicKeyInfoOwned,
    sig_alg: &AlgorithmIdentifierOwned,
    digest: Option<HashAlg>,
    data: &[u8],
    sig: &[u8],
) -> Result<(), TokenProblem> {
    let h = match sig_alg.oid {
        SHA256_WITH_RSA | ECDSA_SHA256 => HashAlg::Sha256,
        SHA384_WITH_RSA | ECDSA_SHA384 => HashAlg::Sha384,
        SHA512_WITH_RSA | ECDSA_SHA512 => HashAlg::Sha512,
        RSA_ENCRYPTION => {
            digest.ok_or_else(|| TokenProblem::UnsupportedAlgorithm("rsaEncryption without a digest".into()))?
        }
        other => return Err(TokenProblem::UnsupportedAlgorithm(format!("signature {}", other))),
    };
    let is_rsa_sig = matches!(
        sig_alg.oid,
        SHA256_WITH_RSA | SHA384_WITH_RSA | SHA512_WITH_RSA | RSA_ENCRYPTION
    );
    let hashed = h.digest(data);
    let key_bits = spki.subject_public_key.raw_bytes();
    match spki.algorithm.oid {
        RSA_ENCRYPTION if is_rsa_sig => {
            use rsa::pkcs1::DecodeRsaPublicKey;
            let key = rsa::RsaPublicKey::from_pkcs1_der(key_bits).map_err(malformed)?;
            let scheme = match h {
                HashAlg::Sha256 => rsa::Pkcs1v15Sign::new::<sha2::Sha256>(),
                HashAlg::Sha384 => rsa::Pkcs1v15Sign::new::<sha2::Sha384>(),
                HashAlg::Sha512 => rsa::Pkcs1v15Sign::new::<sha2::Sha512>(),
            };
            key.verify(scheme, &hashed, sig)
                .map_err(|_| TokenProblem::SignatureInvalid)
        }
        EC_PUBLIC_KEY if !is_rsa_sig => {
            use p256::ecdsa::signature::hazmat::PrehashVerifier;
            let curve = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(|p| p.decode_as::<ObjectIdentifier>().ok());
            match curve {
                Some(SECP256R1) => {
                    let key = p256::ecdsa::VerifyingKey::from_sec1_bytes(key_bits).map_err(malformed)?;
                    let s = p256::ecdsa::Signature::from_der(sig).map_err(|_| TokenProblem::SignatureInvalid)?;
                    key.verify_prehash(&hashed, &s)
                        .map_err(|_| TokenProblem::SignatureInvalid)
                }
                Some(SECP384R1) => {
                    let key = p384::ecdsa::VerifyingKey::from_sec1_bytes(key_bits).map_err(malformed)?;
                    let s = p384::ecdsa::Signature::from_der(sig).map_err(|_| TokenProblem::SignatureInvalid)?;
                    key.verify_prehash(&hashed, &s)
                        .map_err(|_| TokenProblem::SignatureInvalid)
                }
                other => Err(TokenProblem::UnsupportedAlgorithm(format!(
                    "elliptic curve {}",
                    other.map(|o| o.to_string()).unwrap_or_else(|| "(unnamed)".into())
                ))),
            }
        }
        other => Err(TokenProblem::UnsupportedAlgorithm(format!(
            "key {} with signature {}",
            other, sig_alg.oid
        ))),
    }
}

fn valid_at(cert: &Certificate, t: DateTime<Utc>) -> Result<(), TokenProblem> {
    let v = &cert.tbs_certificate.validity;
    let secs = t.timestamp();
    let nb = v.not_before.to_unix_duration().as_secs() as i64;
    let na = v.not_after.to_unix_duration().as_secs() as i64;
    if secs < nb || secs > na {
        return Err(TokenProblem::CertificateNotValidAtTime {
            subject: cert.tbs_certificate.subject.to_string(),
            time: t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        });
    }
    Ok(())
}

/// Follows issuers from `signer` to a trust anchor: an anchor equal to the current certificate,
/// or one that issued it (names match and its key verifies the certificate's signature).
/// Intermediates come from the token and must be CA certificates valid at `t`.
fn chain_to_anchor(
    signer: &Certificate,
    token_certs: &[&Certificate],
    trust: &TrustAnchors,
    t: DateTime<Utc>,
) -> Result<String, TokenProblem> {
    let untrusted = || TokenProblem::UntrustedCertificate(signer.tbs_certificate.subject.to_string());
    let anchors: Vec<&Certificate> = trust.certs.iter().collect();
    let mut current = signer;
    for _ in 0..MAX_CHAIN {
        if anchors.contains(&current) {
            return Ok(current.tbs_certificate.subject.to_string());
        }
        let issued_by = |c: &&&Certificate| {
            c.tbs_certificate.subject == current.tbs_certificate.issuer && signed_by(current, c, trust).is_ok()
        };
        if let Some(a) = anchors.iter().find(issued_by) {
            return Ok(a.tbs_certificate.subject.to_string());
        }
        let Some(next) = token_certs.iter().find(|c| **c != current && issued_by(c)) else {
            return Err(untrusted());
        };
        let is_ca = matches!(next.tbs_certificate.get::<BasicConstraints>(), Ok(Some((_, bc))) if bc.ca);
        if !is_ca {
            return Err(untrusted());
        }
        valid_at(next, t)?;
        current = next;
    }
    Err(untrusted())
}

/// Whether `issuer`'s key verifies `cert`'s signature, remembered in `trust` once verified.
fn signed_by(cert: &Certificate, issuer: &Certificate, trust: &TrustAnchors) -> Result<(), TokenProblem> {
    let key = |c: &Certificate| -> Result<[u8; 32], TokenProblem> {
        Ok(sha2::Sha256::digest(c.to_der().map_err(malformed)?).into())
    };
    let pair = (key(cert)?, key(issuer)?);
    if trust.verified.lock().is_ok_and(|v| v.contains(&pair)) {
        return Ok(());
    }
    let tbs = cert.tbs_certificate.to_der().map_err(malformed)?;
    verify_signature(
        &issuer.tbs_certificate.subject_public_key_info,
        &cert.signature_algorithm,
        None,
        &tbs,
        cert.signature.raw_bytes(),
    )?;
    if let Ok(mut v) = trust.verified.lock() {
        v.insert(pair);
    }
    Ok(())
}

/// `YYYYMMDDhhmmss[.f+]Z` (RFC 3161 section 2.4.2 / RFC 5280 GeneralizedTime in UTC).
fn parse_generalized_time(s: &str) -> Option<DateTime<Utc>> {
    let body = s.strip_suffix('Z')?;
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if main.len() != 14 || !main.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = |a: usize, b: usize| main.get(a..b)?.parse::<u32>().ok();
    let date = NaiveDate::from_ymd_opt(n(0, 4)? as i32, n(4, 6)?, n(6, 8)?)?;
    let nanos = match frac {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) && !f.ends_with('0') => {
            f.parse::<u32>().ok()? * 10u32.pow(9 - f.len() as u32)
        }
        Some(_) => return None,
    };
    let t = date.and_hms_nano_opt(n(8, 10)?, n(10, 12)?, n(12, 14)?, nanos)?;
    Some(Utc.from_utc_datetime(&t))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
