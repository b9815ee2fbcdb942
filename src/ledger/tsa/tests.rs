//! Tests of the RFC 3161 client and verifier: fixed tokens made by `openssl ts` (see
//! tests/data/tsa/PROVENANCE.txt), and, when `openssl` is installed, a TSA on 127.0.0.1 that
//! answers with `openssl ts -reply` from a CA made at test time.

use super::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tsa").join(name)
}

fn fixed_hash() -> [u8; 32] {
    let h = hex::decode(std::fs::read_to_string(data("hash.hex")).unwrap().trim()).unwrap();
    h.try_into().unwrap()
}

fn token(name: &str) -> Vec<u8> {
    std::fs::read(data(&format!("token-{}.der", name))).unwrap()
}

fn anchors(name: &str) -> TrustAnchors {
    TrustAnchors::load(&data(&format!("ca-{}.pem", name))).unwrap()
}

/// The `Time stamp:` and `Nonce:` lines openssl printed for a fixed token.
fn openssl_text(name: &str) -> (String, u64) {
    let t = std::fs::read_to_string(data(&format!("token-{}.txt", name))).unwrap();
    let field = |k: &str| {
        t.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(|v| v.trim().to_string())
            .unwrap()
    };
    let nonce = u64::from_str_radix(field("Nonce:").trim_start_matches("0x"), 16).unwrap();
    (field("Time stamp:"), nonce)
}

#[test]
fn fixed_tokens_verify_with_what_openssl_printed() {
    for (name, subject) in [
        ("rsa", "CN=pledge test TSA rsa,O=pledge tests"),
        ("ec", "CN=pledge test TSA ec,O=pledge tests"),
    ] {
        let w = verify_token(&token(name), &fixed_hash(), None).unwrap();
        let (stamp, nonce) = openssl_text(name);
        // openssl prints e.g. "Dec  1 08:28:17 2026 GMT".
        assert_eq!(
            w.gen_time.format("%b %e %H:%M:%S %Y GMT").to_string(),
            stamp,
            "{}",
            name
        );
        assert_eq!(w.gen_time_text.len(), 15);
        assert_eq!(w.nonce, Some(nonce));
        assert_eq!(w.tsa_name, subject);
        assert_eq!(w.signer_subject, subject);
        assert_eq!(w.policy, "1.2.3.4.1");
        assert_eq!(w.accuracy_micros, Some(1_500_100));
        assert_eq!(w.trust, Trust::TokenCertificate);
        // Against the CA that issued the TSA certificate.
        let t = verify_token(&token(name), &fixed_hash(), Some(&anchors(name))).unwrap();
        assert_eq!(
            t.trust,
            Trust::TrustFile(format!("CN=pledge test CA {},O=pledge tests", name))
        );
    }
}

#[test]
fn fixed_responses_parse_and_check_the_nonce() {
    for name in ["rsa", "ec"] {
        let resp = std::fs::read(data(&format!("response-{}.tsr", name))).unwrap();
        let (_, nonce) = openssl_text(name);
        let got = parse_response(&resp, &fixed_hash(), Some(nonce)).unwrap();
        assert_eq!(got.token, token(name));
        assert_eq!(
            parse_response(&resp, &fixed_hash(), Some(nonce ^ 1)),
            Err(TsaError::NonceMismatch)
        );
        assert!(matches!(
            parse_response(&resp, &[0u8; 32], Some(nonce)),
            Err(TsaError::Token(TokenProblem::ImprintMismatch { .. }))
        ));
        assert!(matches!(
            parse_response(&resp[..40], &fixed_hash(), None),
            Err(TsaError::MalformedResponse(_))
        ));
    }
}

#[test]
fn a_wrong_imprint_is_caught() {
    let mut other = fixed_hash();
    other[31] ^= 1;
    let e = verify_token(&token("rsa"), &other, None).unwrap_err();
    assert_eq!(e.code(), "imprint-mismatch");
    assert!(e.to_string().contains(&hex::encode(other)));
}

#[test]
fn an_untrusted_certificate_is_caught_when_a_trust_file_is_given() {
    for name in ["rsa", "ec"] {
        let e = verify_token(&token(name), &fixed_hash(), Some(&anchors("other"))).unwrap_err();
        assert_eq!(
            e,
            TokenProblem::UntrustedCertificate(format!("CN=pledge test TSA {},O=pledge tests", name))
        );
        assert_eq!(e.code(), "untrusted-certificate");
    }
    // The EC CA does not vouch for the RSA TSA.
    assert_eq!(
        verify_token(&token("rsa"), &fixed_hash(), Some(&anchors("ec")))
            .unwrap_err()
            .code(),
        "untrusted-certificate"
    );
}

/// Byte offset of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

#[test]
fn tampered_tokens_are_caught() {
    for name in ["rsa", "ec"] {
        let good = token(name);
        let w = verify_token(&good, &fixed_hash(), None).unwrap();
        // Back-date genTime by one year inside the signed TSTInfo: the message digest breaks.
        let mut t = good.clone();
        let at = find(&t, w.gen_time_text.as_bytes()) + 3;
        t[at] = if t[at] == b'5' { b'4' } else { t[at] - 1 };
        assert_eq!(
            verify_token(&t, &fixed_hash(), None).unwrap_err(),
            TokenProblem::DigestMismatch
        );
        // The signature's last byte.
        let mut t = good.clone();
        let last = t.len() - 1;
        t[last] ^= 0x01;
        assert_eq!(
            verify_token(&t, &fixed_hash(), None).unwrap_err().code(),
            "signature-invalid"
        );
        // Truncated and empty: malformed.
        assert_eq!(
            verify_token(&good[..good.len() - 10], &fixed_hash(), None)
                .unwrap_err()
                .code(),
            "token-malformed"
        );
        assert_eq!(
            verify_token(&[], &fixed_hash(), None).unwrap_err().code(),
            "token-malformed"
        );
        assert_eq!(
            verify_token(b"not DER", &fixed_hash(), None).unwrap_err().code(),
            "token-malformed"
        );
    }
}

/// Every single-byte change of a token, at every position: never a panic, never a token that
/// verifies with a different genTime, serial, imprint or TSA, and every change inside what the
/// signature covers (the TSTInfo, the signed attributes) or the signature itself is caught.
/// (A change to an unused copy of a certificate, or to the unsigned digest-algorithm list, may
/// pass: nothing reads them.)
#[test]
fn every_single_byte_change_is_handled() {
    for name in ["rsa", "ec"] {
        let good = token(name);
        let w = verify_token(&good, &fixed_hash(), None).unwrap();
        let parts = split_token(&good).unwrap();
        let (si, attrs) = &parts.signers[0];
        let attrs = attrs.as_ref().unwrap();
        let covered: Vec<std::ops::Range<usize>> = [&parts.tst_der[..], &attrs[1..], si.signature.as_bytes()]
            .iter()
            .map(|part| {
                let at = find(&good, part);
                at..at + part.len()
            })
            .collect();
        let mut caught = 0;
        for i in 0..good.len() {
            let mut t = good.clone();
            t[i] ^= 0x20;
            match verify_token(&t, &fixed_hash(), None) {
                Err(_) => caught += 1,
                Ok(v) => {
                    assert!(
                        !covered.iter().any(|r| r.contains(&i)),
                        "{}: byte {} changed unnoticed",
                        name,
                        i
                    );
                    assert_eq!(
                        (v.gen_time, &v.serial, &v.tsa_name),
                        (w.gen_time, &w.serial, &w.tsa_name),
                        "byte {}",
                        i
                    );
                }
            }
        }
        assert!(caught * 2 > good.len(), "{}: {} of {} caught", name, caught, good.len());
    }
}

#[test]
fn request_der_is_an_rfc_3161_request() {
    let h = fixed_hash();
    let der = request_der(&h, 0xA33C_5E4A_E01E_53C2);
    let req = TimeStampReq::from_der(&der).unwrap();
    assert_eq!(req.version, TspVersion::V1);
    assert!(req.cert_req);
    assert_eq!(req.message_imprint.hash_algorithm.oid, ID_SHA256);
    assert_eq!(req.message_imprint.hashed_message.as_bytes(), h);
    // High bit set: a leading zero keeps the INTEGER positive.
    assert_eq!(
        req.nonce.as_ref().unwrap().as_bytes(),
        [0x00, 0xA3, 0x3C, 0x5E, 0x4A, 0xE0, 0x1E, 0x53, 0xC2]
    );
    assert_eq!(int_to_u64(req.nonce.as_ref().unwrap()), Some(0xA33C_5E4A_E01E_53C2));
    assert_eq!(int_to_u64(&nonce_int(0).unwrap()), Some(0));
    assert_eq!(int_to_u64(&nonce_int(0x7f).unwrap()), Some(0x7f));
    assert_eq!(int_to_u64(&nonce_int(0x80).unwrap()), Some(0x80));
    // openssl's request for the same data differs only in the nonce.
    let theirs = std::fs::read(data("request.tsq")).unwrap();
    let theirs = TimeStampReq::from_der(&theirs).unwrap();
    assert_eq!(theirs.message_imprint, req.message_imprint);
    assert_eq!(theirs.cert_req, req.cert_req);
}

#[test]
fn gen_time_forms() {
    let t = |s| parse_generalized_time(s);
    assert_eq!(
        t("20261201082817Z"),
        Some(Utc.with_ymd_and_hms(2026, 12, 1, 8, 28, 17).unwrap())
    );
    assert_eq!(t("20261201082817.25Z").unwrap().timestamp_subsec_millis(), 250);
    for bad in [
        "20261201082817",
        "20261201082817.Z",
        "20261201082817.50Z",
        "2026120108281Z",
        "20261301082817Z",
        "2026120108281xZ",
    ] {
        assert_eq!(t(bad), None, "{}", bad);
    }
}

#[test]
fn trust_files_are_checked() {
    assert_eq!(TrustAnchors::from_pem(b"hello", "t.pem").unwrap_err().exit_code(), 2);
    assert_eq!(
        TrustAnchors::load(Path::new("/nonexistent/ca.pem"))
            .unwrap_err()
            .exit_code(),
        2
    );
    assert_eq!(anchors("rsa").len(), 1);
}

// ---------------------------------------------------------------------------------------------
// A TSA on 127.0.0.1 backed by `openssl ts -reply`.

fn openssl_available() -> bool {
    crate::test_tools::available("openssl", &["version"])
}

fn run(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {:?}: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA and a TSA certificate issued by it, in `dir`, with an `openssl ts` config `NAME.cnf`.
/// `eku` false leaves the time-stamping usage out (openssl ts will not sign with it; `openssl
/// cms` will).
fn make_tsa(dir: &Path, name: &str, key: &[&str], eku: bool) {
    let ca = format!("{}-ca", name);
    let tsa = format!("{}-tsa", name);
    let mut a = vec!["req", "-x509", "-new", "-newkey"];
    a.extend_from_slice(key);
    let subj_ca = format!("/O=pledge tests/CN=loopback CA {}", name);
    let (ca_key, ca_pem) = (format!("{}.key", ca), format!("{}.pem", ca));
    a.extend_from_slice(&[
        "-nodes", "-keyout", &ca_key, "-out", &ca_pem, "-days", "30", "-subj", &subj_ca,
    ]);
    a.extend_from_slice(&[
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ]);
    run(dir, &a);
    let (tsa_key, tsa_csr, tsa_pem) = (format!("{}.key", tsa), format!("{}.csr", tsa), format!("{}.pem", tsa));
    let subj_tsa = format!("/O=pledge tests/CN=loopback TSA {}", name);
    let mut a = vec!["req", "-new", "-newkey"];
    a.extend_from_slice(key);
    a.extend_from_slice(&["-nodes", "-keyout", &tsa_key, "-out", &tsa_csr, "-subj", &subj_tsa]);
    run(dir, &a);
    let ext = format!("{}.ext", name);
    let usage = if eku {
        "extendedKeyUsage=critical,timeStamping\n"
    } else {
        "extendedKeyUsage=serverAuth\n"
    };
    std::fs::write(dir.join(&ext), usage).unwrap();
    run(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &tsa_csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            &ext,
            "-out",
            &tsa_pem,
        ],
    );
    std::fs::write(dir.join(format!("{}.serial", name)), "01\n").unwrap();
    let d = dir.display();
    let cnf = format!(
        "[ tsa ]\ndefault_tsa = c\n[ c ]\nserial = {d}/{name}.serial\ncrypto_device = builtin\nsigner_cert = {d}/{tsa_pem}\n\
         certs = {d}/{tsa_pem}\nsigner_key = {d}/{tsa_key}\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\n\
         digests = sha256, sha512\naccuracy = secs:1\ntsa_name = yes\ness_cert_id_alg = sha256\n"
    );
    std::fs::write(dir.join(format!("{}.cnf", name)), cnf).unwrap();
}

/// Serves `n` HTTP requests on 127.0.0.1, answering each POSTed query with `openssl ts -reply
/// -config NAME.cnf` (or with `status` and no body when it is not 200). Returns the URL.
fn serve(dir: &Path, name: &str, n: usize, status: u16) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tsr", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    let name = name.to_string();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for i in 0..n {
            let (stream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            let mut content_type = String::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let l = line.trim_end();
                if l.is_empty() {
                    break;
                }
                if let Some((k, v)) = l.split_once(':') {
                    match k.to_ascii_lowercase().as_str() {
                        "content-length" => len = v.trim().parse().unwrap(),
                        "content-type" => content_type = v.trim().to_string(),
                        _ => {}
                    }
                }
            }
            let mut body = vec![0u8; len];
            reader.read_exact(&mut body).unwrap();
            seen.push(content_type);
            let mut out = stream;
            if status != 200 {
                write!(
                    out,
                    "HTTP/1.1 {} Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    status
                )
                .unwrap();
                continue;
            }
            let q = dir.join(format!("q{}.tsq", i));
            let r = dir.join(format!("r{}.tsr", i));
            std::fs::write(&q, &body).unwrap();
            let cnf = dir.join(format!("{}.cnf", name));
            let ok = Command::new("openssl")
                .args(["ts", "-reply", "-queryfile"])
                .arg(&q)
                .arg("-config")
                .arg(&cnf)
                .arg("-out")
                .arg(&r)
                .output()
                .unwrap();
            assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
            let reply = std::fs::read(&r).unwrap();
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                reply.len()
            )
            .unwrap();
            out.write_all(&reply).unwrap();
        }
        seen
    });
    (url, handle)
}

fn client() -> TsaClient {
    TsaClient {
        timeout: Duration::from_secs(20),
        proxy: None,
    }
}

/// Request → token → offline verification through a loopback TSA, for an RSA and an ECDSA TSA;
/// then the token tampered, checked against another hash, and against another CA.
#[test]
fn loopback_tsa_round_trip() {
    if !openssl_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_tsa(dir.path(), "rsa", &["rsa:2048"], true);
    make_tsa(dir.path(), "ec", &["ec", "-pkeyopt", "ec_paramgen_curve:P-256"], true);
    make_tsa(
        dir.path(),
        "other",
        &["ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
        true,
    );
    let hash: [u8; 32] = sha2::Sha256::digest(b"{\"seq\":1}").into();
    for name in ["rsa", "ec"] {
        let (url, server) = serve(dir.path(), name, 1, 200);
        let before = Utc::now();
        let got = request_token(&client(), &url, &hash, 0x0123_4567_89ab_cdef).unwrap();
        let after = Utc::now();
        assert_eq!(server.join().unwrap(), vec!["application/timestamp-query".to_string()]);
        assert_eq!(got.witness.nonce, Some(0x0123_4567_89ab_cdef));
        assert!(
            got.witness.gen_time >= before - chrono::Duration::seconds(2)
                && got.witness.gen_time <= after + chrono::Duration::seconds(2)
        );
        assert_eq!(got.witness.tsa_name, format!("CN=loopback TSA {},O=pledge tests", name));
        // Offline, from the stored DER alone, against the CA that issued the TSA certificate.
        let trust = TrustAnchors::load(&dir.path().join(format!("{}-ca.pem", name))).unwrap();
        let w = verify_token(&got.token, &hash, Some(&trust)).unwrap();
        assert_eq!(w.gen_time, got.witness.gen_time);
        assert_eq!(
            w.trust,
            Trust::TrustFile(format!("CN=loopback CA {},O=pledge tests", name))
        );
        // Tampered: one byte of the signature.
        let mut t = got.token.clone();
        let last = t.len() - 1;
        t[last] ^= 0x40;
        assert_eq!(
            verify_token(&t, &hash, Some(&trust)).unwrap_err().code(),
            "signature-invalid"
        );
        // Wrong imprint.
        assert_eq!(
            verify_token(&got.token, &[7u8; 32], Some(&trust)).unwrap_err().code(),
            "imprint-mismatch"
        );
        // Another CA.
        let other = TrustAnchors::load(&dir.path().join("other-ca.pem")).unwrap();
        assert_eq!(
            verify_token(&got.token, &hash, Some(&other)).unwrap_err().code(),
            "untrusted-certificate"
        );
        // openssl agrees with the verdict on the genuine token.
        std::fs::write(dir.path().join("tok.der"), &got.token).unwrap();
        std::fs::write(dir.path().join("hash.hex"), hex::encode(hash)).unwrap();
        run(
            dir.path(),
            &[
                "ts",
                "-verify",
                "-digest",
                &hex::encode(hash),
                "-in",
                "tok.der",
                "-token_in",
                "-CAfile",
                &format!("{}-ca.pem", name),
            ],
        );
    }
}

/// A TSA that answers HTTP 500, a refused request (openssl's rejection for a digest it does not
/// accept), a URL that is not HTTP, and a port nobody listens on.
#[test]
fn tsa_failures_are_typed_errors() {
    assert!(matches!(
        request_token(&client(), "ftp://x", &[0; 32], 1),
        Err(TsaError::BadUrl(_))
    ));
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    // Nobody answers: temporary (exit 75 for the commands), unlike a bad URL.
    let unreachable = request_token(&client(), &url, &[0; 32], 1).unwrap_err();
    assert!(
        matches!(unreachable, TsaError::Http { temporary: true, .. }),
        "{:?}",
        unreachable
    );
    assert!(unreachable.is_temporary());
    assert!(!TsaError::BadUrl("ftp://x".into()).is_temporary());
    assert!(TsaError::Rejected { status: 3, text: None }.is_temporary());
    assert!(!TsaError::Rejected { status: 2, text: None }.is_temporary());
    if !openssl_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_tsa(dir.path(), "ec", &["ec", "-pkeyopt", "ec_paramgen_curve:P-256"], true);
    let (url, server) = serve(dir.path(), "ec", 1, 500);
    let e = request_token(&client(), &url, &[0; 32], 1).unwrap_err();
    server.join().unwrap();
    assert!(
        matches!(&e, TsaError::Http { reason, temporary: true, .. } if reason.contains("500")),
        "{:?}",
        e
    );
    // A SHA-384 query to a TSA configured for sha256 and sha512 only: status 2 (rejection).
    std::fs::write(dir.path().join("d.txt"), b"x").unwrap();
    run(
        dir.path(),
        &["ts", "-query", "-data", "d.txt", "-sha384", "-out", "q384.tsq"],
    );
    run(
        dir.path(),
        &[
            "ts",
            "-reply",
            "-queryfile",
            "q384.tsq",
            "-config",
            "ec.cnf",
            "-out",
            "r384.tsr",
        ],
    );
    let resp = std::fs::read(dir.path().join("r384.tsr")).unwrap();
    match parse_response(&resp, &[0; 32], None) {
        Err(TsaError::Rejected { status, text }) => {
            assert_eq!(status, 2);
            assert!(text.unwrap_or_default().to_lowercase().contains("algorithm"));
        }
        other => panic!("{:?}", other),
    }
}

/// Tokens made by a second CMS producer (`openssl cms -sign`, with other signed attributes:
/// signing time, S/MIME capabilities, no ESS attribute) over a TSTInfo from `openssl ts`: with
/// a proper TSA certificate it verifies; with a certificate that lacks the time-stamping usage
/// (which `openssl ts` refuses to sign with) it is refused; with a certificate issued after
/// the stamped time it is refused.
#[test]
fn cms_tokens_from_another_producer() {
    if !openssl_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    make_tsa(d, "web", &["ec", "-pkeyopt", "ec_paramgen_curve:P-256"], false);
    make_tsa(d, "good", &["rsa:2048"], true);
    // A fresh TSTInfo (genTime now) from openssl ts, and the fixed token's (genTime before the
    // certificates made above existed).
    std::fs::write(d.join("d.txt"), b"pledge test entry\n").unwrap();
    run(
        d,
        &["ts", "-query", "-data", "d.txt", "-sha256", "-cert", "-out", "q.tsq"],
    );
    run(
        d,
        &[
            "ts",
            "-reply",
            "-queryfile",
            "q.tsq",
            "-config",
            "good.cnf",
            "-token_out",
            "-out",
            "fresh.der",
        ],
    );
    let fresh = split_token(&std::fs::read(d.join("fresh.der")).unwrap())
        .unwrap()
        .tst_der;
    std::fs::write(d.join("fresh-tst.der"), fresh).unwrap();
    std::fs::write(d.join("old-tst.der"), split_token(&token("ec")).unwrap().tst_der).unwrap();
    for (tst, name, want) in [
        ("fresh-tst.der", "good", None),
        ("fresh-tst.der", "web", Some("not-a-tsa-certificate")),
        ("old-tst.der", "good", Some("certificate-not-valid-at-time")),
    ] {
        let out = format!("{}-{}", name, tst);
        run(
            d,
            &[
                "cms",
                "-sign",
                "-binary",
                "-nodetach",
                "-in",
                tst,
                "-econtent_type",
                "1.2.840.113549.1.9.16.1.4",
                "-signer",
                &format!("{}-tsa.pem", name),
                "-inkey",
                &format!("{}-tsa.key", name),
                "-md",
                "sha256",
                "-outform",
                "DER",
                "-out",
                &out,
            ],
        );
        let t = std::fs::read(d.join(&out)).unwrap();
        let r = verify_token(&t, &fixed_hash(), None);
        match want {
            Some(code) => assert_eq!(r.unwrap_err().code(), code, "{} {}", tst, name),
            None => {
                let w = r.unwrap();
                assert_eq!(w.signer_subject, "CN=loopback TSA good,O=pledge tests");
                let trust = TrustAnchors::load(&d.join("good-ca.pem")).unwrap();
                assert!(verify_token(&t, &fixed_hash(), Some(&trust)).is_ok());
            }
        }
    }
}

/// The trust file remembers verified certificate signatures: a second token of the same TSA
/// does not verify the chain again, and what it remembers never makes another CA trusted.
#[test]
fn verified_chains_are_remembered_per_trust_file() {
    let trust = anchors("rsa");
    assert_eq!(trust.verified.lock().unwrap().len(), 0);
    verify_token(&token("rsa"), &fixed_hash(), Some(&trust)).unwrap();
    assert_eq!(trust.verified.lock().unwrap().len(), 1);
    verify_token(&token("rsa"), &fixed_hash(), Some(&trust)).unwrap();
    assert_eq!(trust.verified.lock().unwrap().len(), 1);
    let copy = trust.clone();
    assert_eq!(copy.verified.lock().unwrap().len(), 1);
    assert_eq!(
        verify_token(&token("ec"), &fixed_hash(), Some(&trust))
            .unwrap_err()
            .code(),
        "untrusted-certificate"
    );
}

/// A TSA answering with more than 1 MiB (an endless or hostile server): reading stops at the
/// limit and the error says the response is too large, naming the limit.
#[test]
fn a_response_past_the_size_limit_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tsr", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        // The whole request is read (headers, then the body its Content-Length states) before
        // answering: a socket closed with request bytes unread is reset, and the reset can reach
        // the client before the answer it is reading (a "peer disconnected" error under load).
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim_end().is_empty() {
                break;
            }
            if let Some((k, v)) = line.trim_end().split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().unwrap();
                }
            }
        }
        let mut request = vec![0u8; len];
        reader.read_exact(&mut request).unwrap();
        let mut out = stream;
        let body = vec![0x30u8; (MAX_RESPONSE_BYTES + 4096) as usize];
        let _ = write!(
            out,
            "HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let _ = out.write_all(&body);
        // Close gracefully: no more writes, then wait for the client to close its side.
        let _ = out.shutdown(std::net::Shutdown::Write);
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let e = request_token(&client(), &url, &[0; 32], 1).unwrap_err();
    let _ = server.join();
    assert_eq!(
        e.to_string(),
        "the TSA's answer is not an RFC 3161 time-stamp response: it is larger than 1048576 bytes (1 MiB), the most pledge reads from a TSA (real responses are a few kilobytes)"
    );
}
