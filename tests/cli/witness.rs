//! Witnessed time (RFC 3161 tokens from a TSA on 127.0.0.1 backed by `openssl ts -reply`),
//! SSH-signed ledger commits, the fixed clock, and the reviewer summary of `pledge verify`.

use crate::common::{data, Env, Run};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn openssl_available() -> bool {
    crate::tools::available("openssl", &["version"])
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {:?}: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test CA `NAME-ca.pem` and a TSA certificate it issued, with an `openssl ts` config
/// `NAME.cnf` (as tests/data/tsa/make.sh, with P-256 keys).
fn make_tsa(dir: &Path, name: &str) {
    let ec = ["ec", "-pkeyopt", "ec_paramgen_curve:P-256"];
    let (ca_key, ca_pem) = (format!("{name}-ca.key"), format!("{name}-ca.pem"));
    let subj = format!("/O=pledge tests/CN=loopback CA {name}");
    let mut a = vec!["req", "-x509", "-new", "-newkey"];
    a.extend_from_slice(&ec);
    a.extend_from_slice(&[
        "-nodes", "-keyout", &ca_key, "-out", &ca_pem, "-days", "30", "-subj", &subj,
    ]);
    a.extend_from_slice(&[
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ]);
    openssl(dir, &a);
    let (key, csr, pem) = (
        format!("{name}-tsa.key"),
        format!("{name}-tsa.csr"),
        format!("{name}-tsa.pem"),
    );
    let subj = format!("/O=pledge tests/CN=loopback TSA {name}");
    let mut a = vec!["req", "-new", "-newkey"];
    a.extend_from_slice(&ec);
    a.extend_from_slice(&["-nodes", "-keyout", &key, "-out", &csr, "-subj", &subj]);
    openssl(dir, &a);
    std::fs::write(dir.join("ext.cnf"), "extendedKeyUsage=critical,timeStamping\n").unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            "ext.cnf",
            "-out",
            &pem,
        ],
    );
    std::fs::write(dir.join(format!("{name}.serial")), "01\n").unwrap();
    let d = dir.display();
    std::fs::write(
        dir.join(format!("{name}.cnf")),
        format!(
            "[ tsa ]\ndefault_tsa = c\n[ c ]\nserial = {d}/{name}.serial\ncrypto_device = builtin\nsigner_cert = {d}/{pem}\n\
             certs = {d}/{pem}\nsigner_key = {d}/{key}\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\n\
             digests = sha256\naccuracy = secs:1\ntsa_name = yes\ness_cert_id_alg = sha256\n"
        ),
    )
    .unwrap();
}

/// A TSA on 127.0.0.1 answering every POSTed query with `openssl ts -reply -config NAME.cnf`
/// until the test process ends. Returns its URL.
fn serve(dir: &Path, name: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tsr", listener.local_addr().unwrap());
    let (dir, name) = (dir.to_path_buf(), name.to_string());
    std::thread::spawn(move || {
        for (i, stream) in listener.incoming().enumerate() {
            let Ok(stream) = stream else { continue };
            stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim_end().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.trim_end().split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
            }
            let mut body = vec![0u8; len];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let (q, r) = (dir.join(format!("q{i}.tsq")), dir.join(format!("r{i}.tsr")));
            std::fs::write(&q, &body).unwrap();
            let ok = Command::new("openssl")
                .args(["ts", "-reply", "-queryfile"])
                .arg(&q)
                .arg("-config")
                .arg(dir.join(format!("{name}.cnf")))
                .arg("-out")
                .arg(&r)
                .output()
                .unwrap();
            let reply = if ok.status.success() {
                std::fs::read(&r).unwrap()
            } else {
                vec![]
            };
            let mut out = stream;
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                reply.len()
            );
            let _ = out.write_all(&reply);
        }
    });
    url
}

/// A loopback TSA `tsa` (and a second CA `other` nobody uses), or `None` without openssl.
struct Tsa {
    dir: tempfile::TempDir,
    url: String,
}

impl Tsa {
    fn start() -> Option<Tsa> {
        if !openssl_available() {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        make_tsa(dir.path(), "tsa");
        make_tsa(dir.path(), "other");
        let url = serve(dir.path(), "tsa");
        Some(Tsa { dir, url })
    }
    fn ca(&self, name: &str) -> String {
        self.dir.path().join(format!("{name}-ca.pem")).display().to_string()
    }
}

/// The system clock (an empty `PLEDGE_NOW`), as a real user runs pledge.
const SYSTEM_CLOCK: (&str, &str) = ("PLEDGE_NOW", "");

fn registered(e: &Env, extra: &[&str], env: &[(&str, &str)]) -> Run {
    e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    let mut args = vec!["register", "p.toml"];
    args.extend_from_slice(extra);
    e.run_env(&args, env)
}

fn codes(r: &Run, key: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {}", e, r.stdout));
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {}\n{}", e, r.stdout, r.stderr))
}

/// Rewrites the export `file`: `edit` gets each line's JSON (0-based index).
fn edit_export(file: &Path, mut edit: impl FnMut(usize, &mut serde_json::Value)) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        edit(i, &mut v);
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    std::fs::write(file, out).unwrap();
}

#[test]
fn loopback_tsa_round_trip_token_stored_verified_offline_and_tampering_caught() {
    let Some(tsa) = Tsa::start() else { return };
    let e = Env::init();
    let r = registered(&e, &["--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("entry #1 witnessed by CN=loopback TSA tsa,O=pledge tests at "),
        "{}",
        r.stderr
    );
    // The token is in the ledger, in a timestamp entry covering #1's hash.
    let log = json(&e.run(&["log", "--format", "json"]));
    let entries = log.as_array().unwrap();
    assert_eq!(entries.len(), 2);
    let (reg, ts) = (&entries[0], &entries[1]);
    assert_eq!(ts["kind"], "timestamp");
    assert_eq!(ts["summary"]["covers_seq"], 1);
    assert_eq!(ts["summary"]["covers_sha256"], reg["entry_sha256"]);
    assert_eq!(ts["summary"]["tsa_url"], tsa.url.as_str());
    assert!(
        ts["summary"]["token_der"].as_str().unwrap().starts_with("30"),
        "DER SEQUENCE"
    );
    // Written with the system clock: no clock field.
    assert!(reg.get("clock").is_none());

    // Offline verification under the token's own certificate: passes, with a note.
    let v = e.run(&["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert!(v.stdout.contains("tsa-not-anchored"), "{}", v.stdout);
    assert!(
        v.stdout
            .contains("witnessed by TSA CN=loopback TSA tsa,O=pledge tests at "),
        "{}",
        v.stdout
    );
    // Against the TSA's CA: trusted, no note.
    let v = e.run(&["verify", "--tsa-trust", &tsa.ca("tsa"), "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert!(!codes(&v, "notes").contains(&"tsa-not-anchored".to_string()));
    let st = &json(&v)["review"]["studies"][0];
    assert_eq!(st["witnessed"]["trusted"], true);
    assert_eq!(st["witnessed"]["timestamp_seq"], 2);
    assert_eq!(st["registered_seq"], 1);
    // Against another CA: a finding.
    let v = e.run(&["verify", "--tsa-trust", &tsa.ca("other"), "--format", "json"]);
    assert_eq!(v.code, 1);
    assert_eq!(codes(&v, "findings"), vec!["timestamp-invalid"]);
    assert!(v.stdout.contains("untrusted-certificate"), "{}", v.stdout);

    // `pledge timestamp` witnesses the last entry; a second one is refused.
    assert_eq!(
        e.run_env(&["note", "--reason", "pilot looked at"], &[SYSTEM_CLOCK])
            .code,
        0
    );
    let t = e.run_env(&["timestamp", "--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    assert!(
        t.stdout
            .starts_with("Witnessed entry #3 as #4: CN=loopback TSA tsa,O=pledge tests at "),
        "{}",
        t.stdout
    );
    let again = e.run_env(&["timestamp", "--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert!(again.stderr.contains("already a timestamp"), "{}", again.stderr);

    // Tampered token (one byte of the signature, at the end of the DER) in an export: caught.
    let file = e.join("ledger.jsonl");
    assert_eq!(e.run(&["export", file.to_str().unwrap()]).code, 0);
    let v = e.run(&["verify", "--ledger", "ledger.jsonl", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let clean = std::fs::read_to_string(&file).unwrap();
    edit_export(&file, |i, v| {
        if i == 1 {
            let t = v["entry"]["summary"]["token_der"].as_str().unwrap().to_string();
            let (head, last) = t.split_at(t.len() - 2);
            let flipped = u8::from_str_radix(last, 16).unwrap() ^ 0x40;
            v["entry"]["summary"]["token_der"] = format!("{}{:02x}", head, flipped).into();
        }
    });
    let v = e.run(&["verify", "--ledger", "ledger.jsonl", "--format", "json"]);
    assert_eq!(v.code, 1);
    let f = codes(&v, "findings");
    assert!(f.contains(&"timestamp-invalid".to_string()), "{:?}", f);
    assert!(v.stdout.contains("signature-invalid"), "{}", v.stdout);
    // Wrong imprint: #4's token (over #3) presented as covering #1.
    std::fs::write(&file, &clean).unwrap();
    let first_hash = reg["entry_sha256"].clone();
    edit_export(&file, |i, v| {
        if i == 3 {
            v["entry"]["summary"]["covers_seq"] = 1.into();
            v["entry"]["summary"]["covers_sha256"] = first_hash.clone();
        }
    });
    let v = e.run(&["verify", "--ledger", "ledger.jsonl", "--format", "json"]);
    assert_eq!(v.code, 1);
    assert!(
        codes(&v, "findings").contains(&"timestamp-imprint-mismatch".to_string()),
        "{}",
        v.stdout
    );
}

#[test]
fn back_dated_and_forward_dated_registrations_are_disclosed_by_the_witness() {
    let Some(tsa) = Tsa::start() else { return };
    // Back-dated: PLEDGE_NOW in 2020, witnessed now → a note naming the delay; the summary shows both.
    let e = Env::init();
    let r = registered(&e, &["--tsa", &tsa.url], &[("PLEDGE_NOW", "2020-01-01T00:00:00Z")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = e.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let notes = codes(&v, "notes");
    assert!(notes.contains(&"witness-delayed".to_string()), "{:?}", notes);
    assert!(notes.contains(&"clock-fixed".to_string()), "{:?}", notes);
    let st = &json(&v)["review"]["studies"][0];
    assert_eq!(st["registered_at"], "2020-01-01T00:00:00Z");
    assert_eq!(st["clock_fixed"], true);
    assert!(st["witnessed"]["at"].as_str().unwrap() > "2026-01-01", "{}", st);
    // Forward-dated: a clock that claims 2099 is refused before anything is written (the
    // `claimed-after-witnessed` check of such a ledger is in ledger::witness's unit tests).
    let e = Env::init();
    let r = registered(&e, &["--tsa", &tsa.url], &[("PLEDGE_NOW", "2099-01-01T00:00:00Z")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with("error: the clock says 2099-01-01T00:00:00Z, "),
        "{}",
        r.stderr
    );
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");
}

#[test]
fn tsa_failures_are_clear_errors() {
    let e = Env::init();
    // A port nobody listens on (bound, then released).
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dead = format!("http://127.0.0.1:{}/tsr", port);
    // The token is asked for before the ledger moves: a TSA nobody answers at leaves nothing
    // (exit 75, try again later).
    let r = registered(&e, &["--tsa", &dead], &[]);
    assert_eq!(r.code, 75, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "error: could not get a time-stamp token for entry #1 from {}\nCaused by: time-stamp request to {} failed: ",
            dead, dead
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "hint: the TSA could not be reached or is busy: try again later, or name another one with --tsa URL"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");
    let r = registered(&e, &[], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t = e.run(&["timestamp"]);
    assert_eq!(t.code, 2);
    assert!(t.stderr.contains("no TSA named"), "{}", t.stderr);
    let t = e.run(&["timestamp", "--tsa", "ftp://example.org/tsr"]);
    assert_eq!(t.code, 2);
    assert!(t.stderr.contains("is not an http:// or https:// URL"), "{}", t.stderr);
    let t = e.run(&["timestamp", "--entry", "9", "--tsa", &dead]);
    assert_eq!(t.code, 2);
    assert!(t.stderr.contains("the ledger has no entry #9"), "{}", t.stderr);
    let empty = Env::init();
    let t = empty.run(&["timestamp", "--tsa", &dead]);
    assert_eq!(t.code, 1);
    assert!(t.stderr.contains("the ledger is empty"), "{}", t.stderr);
}

#[test]
fn the_tsa_default_comes_from_git_config() {
    let Some(tsa) = Tsa::start() else { return };
    let e = Env::init();
    assert_eq!(e.git(&["config", "pledge.tsa", &tsa.url]).code, 0);
    let r = registered(&e, &[], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("witnessed by"), "{}", r.stderr);
    assert_eq!(json(&e.run(&["log", "--format", "json"])).as_array().unwrap().len(), 2);
}

/// A private copy of a test key (ssh-keygen refuses keys readable by others).
fn key(e: &Env, name: &str) -> PathBuf {
    let p = e.join(&format!("keys/{}", name));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::copy(data(&format!("sshsig/{}", name)), &p).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    p
}

fn signers() -> String {
    data("sshsig/allowed_signers").display().to_string()
}

#[test]
fn signed_entries_verify_and_unsigned_or_foreign_ones_are_findings() {
    let e = Env::init();
    let k = key(&e, "id_ed25519");
    // Signed with --sign-key, then with git's own settings.
    let r = registered(&e, &["--sign-key", k.to_str().unwrap()], &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for (key, value) in [
        ("gpg.format", "ssh"),
        ("user.signingkey", k.to_str().unwrap()),
        ("commit.gpgsign", "true"),
    ] {
        assert_eq!(e.git(&["config", key, value]).code, 0);
    }
    assert_eq!(e.run(&["note", "--reason", "signed by git config"]).code, 0);
    let v = e.run(&["verify", "--allowed-signers", &signers(), "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let st = &json(&v)["review"]["studies"][0];
    assert_eq!(st["signature"], "verified");
    assert_eq!(st["signed_by"], "alice@example.org");
    // The example protocol's registered-by is not alice: disclosed.
    assert!(codes(&v, "notes").contains(&"registered-by-unproven".to_string()));
    // Without a signers file the signatures are only noted.
    let v = e.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0);
    assert!(codes(&v, "notes").contains(&"signatures-unchecked".to_string()));
    // git agrees: its own verify-commit with the same allowed-signers file.
    assert_eq!(e.git(&["config", "gpg.ssh.allowedSignersFile", &signers()]).code, 0);
    let g = e.git(&["verify-commit", "refs/pledge/ledger"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    assert!(
        g.stderr.contains("Good \"git\" signature for alice@example.org"),
        "{}",
        g.stderr
    );

    // An unsigned entry: a finding with a signers file, a note without.
    assert_eq!(e.git(&["config", "commit.gpgsign", "false"]).code, 0);
    assert_eq!(e.run(&["note", "--reason", "unsigned"]).code, 0);
    let v = e.run(&["verify", "--allowed-signers", &signers(), "--format", "json"]);
    assert_eq!(v.code, 1);
    assert_eq!(codes(&v, "findings"), vec!["entry-unsigned"]);
    assert!(v.stdout.contains("entry #3 is not signed"), "{}", v.stdout);
    let v = e.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0);
    assert!(codes(&v, "notes").contains(&"entry-unsigned".to_string()));

    // A key the signers file does not admit.
    let other = key(&e, "id_ed25519_other");
    assert_eq!(
        e.run(&["--sign-key", other.to_str().unwrap(), "note", "--reason", "other"])
            .code,
        0
    );
    let v = e.run(&["verify", "--allowed-signers", &signers(), "--format", "json"]);
    assert_eq!(v.code, 1);
    assert!(
        codes(&v, "findings").contains(&"signer-not-allowed".to_string()),
        "{}",
        v.stdout
    );
}

#[test]
fn a_forged_signature_is_caught() {
    let e = Env::init();
    let k = key(&e, "id_ed25519");
    assert_eq!(registered(&e, &["--sign-key", k.to_str().unwrap()], &[]).code, 0);
    // Rewrite the signed commit's message (entry untouched), keeping alice's signature.
    let raw = e.git(&["cat-file", "commit", "refs/pledge/ledger"]).stdout;
    assert!(raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"), "{}", raw);
    let forged = raw.replacen("pledge: register #1", "pledge: register #1 (approved)", 1);
    e.write("forged.txt", forged);
    let id = e
        .git(&["hash-object", "-t", "commit", "-w", "forged.txt"])
        .stdout
        .trim()
        .to_string();
    assert_eq!(e.git(&["update-ref", "refs/pledge/ledger", &id]).code, 0);
    let v = e.run(&["verify", "--allowed-signers", &signers(), "--format", "json"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["signature-invalid"]);
    assert_eq!(json(&v)["review"]["studies"][0]["signature"], "invalid");
}

#[test]
fn the_clock_is_recorded_and_times_compared_as_instants() {
    let e = Env::init();
    // Under PLEDGE_NOW (the harness's fixed clock) the entry says so.
    let r = registered(&e, &["--format", "json"], &[]);
    assert_eq!(r.code, 0);
    assert_eq!(json(&r)["clock"], "fixed");
    // An entry dated before the one preceding it is refused at append time (exit 2), so the
    // ledger keeps verifying; a decreasing time written by other means is caught below, in an
    // export.
    let r = e.run_env(
        &["note", "--reason", "earlier"],
        &[("PLEDGE_NOW", "2026-11-30T11:00:00Z")],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let v = e.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert!(codes(&v, "notes").contains(&"clock-fixed".to_string()));
    let human = e.run(&["verify"]);
    assert!(
        human
            .stdout
            .contains("registered   at 2026-11-30T12:00:00Z (#1, clock fixed), time not witnessed"),
        "{}",
        human.stdout
    );

    // Times in an export: `yesterday` is malformed; +09:00 is compared in UTC.
    let e = Env::init();
    assert_eq!(registered(&e, &[], &[]).code, 0);
    assert_eq!(e.run(&["note", "--reason", "x"]).code, 0);
    let file = e.join("l.jsonl");
    assert_eq!(e.run(&["export", file.to_str().unwrap()]).code, 0);
    let clean = std::fs::read_to_string(&file).unwrap();
    edit_export(&file, |i, v| {
        if i == 1 {
            v["entry"]["time"] = "yesterday".into();
        }
    });
    let v = e.run(&["verify", "--ledger", "l.jsonl", "--format", "json"]);
    assert!(
        codes(&v, "findings").contains(&"time-malformed".to_string()),
        "{}",
        v.stdout
    );
    std::fs::write(&file, &clean).unwrap();
    // 20:00 at +09:00 is 11:00 UTC: earlier than #1 though its text sorts after it.
    edit_export(&file, |i, v| {
        if i == 1 {
            v["entry"]["time"] = "2026-11-30T20:00:00+09:00".into();
        }
    });
    let v = e.run(&["verify", "--ledger", "l.jsonl", "--format", "json"]);
    assert!(
        codes(&v, "findings").contains(&"time-decreased".to_string()),
        "{}",
        v.stdout
    );
    assert!(v.stdout.contains("compared in UTC"), "{}", v.stdout);
}

#[test]
fn verify_ends_with_a_reviewer_summary() {
    let e = Env::init();
    assert_eq!(registered(&e, &["--access", "pilot-only"], &[]).code, 0);
    let p = std::fs::read_to_string(e.join("p.toml")).unwrap();
    e.write("p.toml", p.replacen("registered-by", "# amended\nregistered-by", 1));
    assert_eq!(e.run(&["amend", "p.toml", "--reason", "clarified"]).code, 0);
    let v = e.run(&["verify"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let tail = v.stdout.split("reviewer summary:\n").nth(1).unwrap();
    let tip = e.git(&["rev-parse", "refs/pledge/ledger"]).stdout.trim().to_string();
    assert_eq!(
        tail,
        format!(
            "  study        hotpotqa-100-agents (Does GPT-4 answer HotpotQA distractor questions better than GPT-3.5-turbo?)\n\
             \x20 registered   at 2026-11-30T12:00:00Z (#1, clock fixed), time not witnessed\n\
             \x20 by           pledge example, not signed\n\
             \x20 data access  pilot-only at registration\n\
             \x20 since        1 amendment, 0 deviations, 0 analyses\n\
             \x20 cite tip     {}\n",
            tip
        )
    );
    let j = json(&e.run(&["verify", "--format", "json"]));
    assert_eq!(j["review"]["tip"], tip.as_str());
    assert_eq!(j["review"]["studies"][0]["amendments"], 1);
    assert_eq!(j["review"]["studies"][0]["data_access"], "pilot-only");
    assert_eq!(j["review"]["studies"][0]["signature"], "unsigned");
}

#[test]
fn the_report_states_who_witnessed_the_registration() {
    let Some(tsa) = Tsa::start() else { return };
    let env = Env::new();
    assert_eq!(env.run(&["demo", "demo"]).code, 0);
    let dir = env.join("demo");
    let dir = dir.to_str().unwrap();
    let json = |env: &Env| {
        let r = env.run(&["-C", dir, "report", "--format", "json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()["study"]["time_witness"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        json(&env),
        "time not witnessed; written under a fixed clock (PLEDGE_NOW), so the time is declared"
    );
    let t = env.run_env(&["-C", dir, "timestamp", "--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let w = json(&env);
    assert!(
        w.starts_with("witnessed by TSA CN=loopback TSA tsa,O=pledge tests at "),
        "{}",
        w
    );
    assert!(w.contains("(timestamp entry #4); written under a fixed clock"), "{}", w);
}

/// Runs `pledge ARGS` in `e` with `stdin` on standard input.
fn run_stdin(e: &Env, args: &[&str], stdin: &[u8]) -> Run {
    let mut cmd = crate::common::pledge_cmd();
    cmd.args(args)
        .current_dir(e.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let o = child.wait_with_output().unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// An export carries each commit's raw object, so its SSH signatures verify offline as in the
/// repository: signed entries verify (from a file or from standard input), an unsigned entry is
/// a finding with a signers file and a note without, a key the file does not admit is a finding.
#[test]
fn signatures_in_an_export_are_checked_offline() {
    let e = Env::init();
    let k = key(&e, "id_ed25519");
    assert_eq!(registered(&e, &["--sign-key", k.to_str().unwrap()], &[]).code, 0);
    assert_eq!(
        e.run(&["--sign-key", k.to_str().unwrap(), "note", "--reason", "signed"])
            .code,
        0
    );
    assert_eq!(e.run(&["export", "l.jsonl"]).code, 0);
    // Verified elsewhere, without the repository.
    let away = Env::new();
    let text = std::fs::read(e.join("l.jsonl")).unwrap();
    away.write("l.jsonl", &text);
    let v = away.run(&[
        "verify",
        "--ledger",
        "l.jsonl",
        "--allowed-signers",
        &signers(),
        "--format",
        "json",
    ]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), Vec::<String>::new());
    let notes = codes(&v, "notes");
    assert!(!notes.contains(&"signatures-unchecked".to_string()), "{:?}", notes);
    assert!(notes.contains(&"registered-by-unproven".to_string()), "{:?}", notes);
    let st = &json(&v)["review"]["studies"][0];
    assert_eq!(st["signature"], "verified");
    assert_eq!(st["signed_by"], "alice@example.org");
    // The same from standard input.
    let s = run_stdin(
        &away,
        &[
            "verify",
            "--ledger",
            "-",
            "--allowed-signers",
            &signers(),
            "--format",
            "json",
        ],
        &text,
    );
    assert_eq!(s.code, 0, "{}{}", s.stdout, s.stderr);
    assert_eq!(json(&s)["source"], "<stdin>");
    assert_eq!(json(&s)["review"], json(&v)["review"]);
    // Without a signers file: signed but unchecked, a note.
    let v = away.run(&["verify", "--ledger", "l.jsonl", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert!(codes(&v, "notes").contains(&"signatures-unchecked".to_string()));
    assert_eq!(json(&v)["review"]["studies"][0]["signature"], "unchecked");

    // An unsigned entry: a finding with the signers file, a note without.
    assert_eq!(e.run(&["note", "--reason", "unsigned"]).code, 0);
    assert_eq!(e.run(&["export", "l.jsonl"]).code, 0);
    let v = e.run(&[
        "verify",
        "--ledger",
        "l.jsonl",
        "--allowed-signers",
        &signers(),
        "--format",
        "json",
    ]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["entry-unsigned"]);
    assert!(v.stdout.contains("entry #3 is not signed"), "{}", v.stdout);
    let v = e.run(&["verify", "--ledger", "l.jsonl", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    assert!(codes(&v, "notes").contains(&"entry-unsigned".to_string()));

    // A key the signers file does not admit.
    let other = key(&e, "id_ed25519_other");
    assert_eq!(
        e.run(&["--sign-key", other.to_str().unwrap(), "note", "--reason", "other"])
            .code,
        0
    );
    assert_eq!(e.run(&["export", "l.jsonl"]).code, 0);
    let v = e.run(&[
        "verify",
        "--ledger",
        "l.jsonl",
        "--allowed-signers",
        &signers(),
        "--format",
        "json",
    ]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["signer-not-allowed", "entry-unsigned"]);

    // Lines of a format-1 export carry no raw commit: their signatures cannot be checked.
    let v1: String = std::fs::read_to_string(e.join("l.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("commit_raw");
            v["format"] = "pledge-ledger-export/1".into();
            format!("{}\n", v)
        })
        .collect();
    e.write("v1.jsonl", v1);
    let v = e.run(&[
        "verify",
        "--ledger",
        "v1.jsonl",
        "--allow-format",
        "1",
        "--allowed-signers",
        &signers(),
        "--format",
        "json",
    ]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let n = &json(&v)["notes"];
    let unchecked = n
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "signatures-unchecked")
        .unwrap();
    assert_eq!(
        unchecked["message"],
        "the signatures of entries #1–#4 were not checked: their export lines carry no raw commit (format `pledge-ledger-export/1`); verify the repository, a published copy, or a new export, with --allowed-signers"
    );
    assert_eq!(json(&v)["review"]["studies"][0]["signature"], serde_json::Value::Null);
}

/// A signed commit whose message was altered in an export, its commit id recomputed so that the
/// export stays consistent: only the signature check catches it.
#[test]
fn a_forged_signature_in_an_export_is_caught() {
    use pledge::ledger::gitobj::{commit_id, ObjectFormat};
    let e = Env::init();
    let k = key(&e, "id_ed25519");
    assert_eq!(registered(&e, &["--sign-key", k.to_str().unwrap()], &[]).code, 0);
    assert_eq!(e.run(&["export", "l.jsonl"]).code, 0);
    let file = e.join("l.jsonl");
    edit_export(&file, |_, v| {
        let raw = v["commit_raw"].as_str().unwrap();
        assert!(raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"), "{}", raw);
        let forged = raw.replacen("pledge: register #1", "pledge: register #1 (approved)", 1);
        assert_ne!(forged, raw);
        v["commit"] = commit_id(ObjectFormat::Sha1, forged.as_bytes()).into();
        v["commit_raw"] = forged.into();
    });
    // Every other check passes: the ids recompute, the chain holds.
    let v = e.run(&["verify", "--ledger", "l.jsonl", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let v = e.run(&[
        "verify",
        "--ledger",
        "l.jsonl",
        "--allowed-signers",
        &signers(),
        "--format",
        "json",
    ]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["signature-invalid"]);
    assert_eq!(json(&v)["review"]["studies"][0]["signature"], "invalid");
}

/// The protocol's `[witness] tsa` witnesses `register` and `amend` without a flag; `--tsa` wins
/// over it, and it wins over git config `pledge.tsa` (each loser names a TSA nobody answers at).
#[test]
fn the_tsa_default_comes_from_the_protocol_between_flag_and_git_config() {
    let Some(tsa) = Tsa::start() else { return };
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dead = format!("http://127.0.0.1:{}/tsr", port);
    let with = |url: &str, extra: &str| {
        let p = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols/hotpotqa.toml")).unwrap();
        format!("{}{}\n[witness]\ntsa = \"{}\"\n", p, extra, url)
    };
    let tsa_urls = |e: &Env| -> Vec<String> {
        json(&e.run(&["log", "--format", "json"]))
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["kind"] == "timestamp")
            .map(|x| x["summary"]["tsa_url"].as_str().unwrap().to_string())
            .collect()
    };
    // Protocol over git config.
    let e = Env::init();
    assert_eq!(e.git(&["config", "pledge.tsa", &dead]).code, 0);
    e.write("p.toml", with(&tsa.url, ""));
    let r = e.run_env(&["register", "p.toml"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("entry #1 witnessed by CN=loopback TSA tsa"),
        "{}",
        r.stderr
    );
    // amend too.
    e.write("p.toml", with(&tsa.url, "\n# clarified"));
    let r = e.run_env(&["amend", "p.toml", "--reason", "clarified"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(tsa_urls(&e), vec![tsa.url.clone(), tsa.url.clone()]);
    // The flag over the protocol.
    let e = Env::init();
    e.write("p.toml", with(&dead, ""));
    let r = e.run_env(&["register", "p.toml", "--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(tsa_urls(&e), vec![tsa.url.clone()]);
    // Without the flag the protocol's (dead) TSA is asked: nothing registered, exit 75.
    let e = Env::init();
    e.write("p.toml", with(&dead, ""));
    let r = e.run_env(&["register", "p.toml"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 75, "{}", r.stderr);
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");
    assert!(
        r.stderr.contains(&format!("time-stamp request to {} failed", dead)),
        "{}",
        r.stderr
    );
    assert_eq!(tsa_urls(&e), Vec::<String>::new());
}

/// `protocols/hotpotqa.toml` with a `[witness]` table holding `table` (e.g. `tsa = "URL"`).
fn protocol_witnessed(table: &str) -> String {
    let p = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols/hotpotqa.toml")).unwrap();
    format!("{}\n[witness]\n{}\n", p, table)
}

/// Rewrites the ledger as its owner could: the ref deleted and every entry but those of kind
/// `drop` appended again through the library (unsigned, dated `back` earlier, chained anew),
/// so that the chain verifies on its own.
fn rechain(e: &Env, drop: Option<pledge::ledger::EntryKind>, back: chrono::Duration) {
    rechain_at(e.path(), drop, back)
}

/// As [`rechain`] for the repository at `dir`.
fn rechain_at(dir: &Path, drop: Option<pledge::ledger::EntryKind>, back: chrono::Duration) {
    use pledge::ledger::{Draft, Ledger};
    let old = Ledger::open(dir).unwrap().entries().unwrap();
    Ledger::open(dir)
        .unwrap()
        .repo()
        .find_reference("refs/pledge/ledger")
        .unwrap()
        .delete()
        .unwrap();
    let l = Ledger::open(dir).unwrap();
    for s in old.iter().filter(|s| Some(s.entry.kind) != drop) {
        let x = &s.entry;
        let d = Draft {
            kind: Some(x.kind),
            study_id: x.study_id.clone(),
            protocol_sha256: x.protocol_sha256.clone(),
            protocol_path: x.protocol_path.clone(),
            amends: x.amends.clone(),
            inputs: x.inputs.clone(),
            reason: x.reason.clone(),
            data_access: Some(x.data_access),
            rng: x.rng.clone(),
            summary: x.summary.clone(),
            result: s.result.as_ref().map(|b| serde_json::from_slice(b).unwrap()),
            protocol_text: s.protocol_text.clone(),
        };
        let t = chrono::DateTime::parse_from_rfc3339(&x.time).unwrap().to_utc() - back;
        l.append(&d, t).unwrap();
    }
}

fn kinds(e: &Env) -> Vec<String> {
    json(&e.run(&["log", "--format", "json"]))
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap().to_string())
        .collect()
}

fn finding(v: &Run, code: &str) -> String {
    json(v)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {}: {}", code, v.stdout))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A protocol whose `[witness] tsa` names a TSA binds its registration: TSA down → nothing
/// appended (exit 75); TSA up → the entry and its token land together and verify; the token
/// dropped from a re-chained ledger → `witness-missing`; a chain back-dated 30 days and
/// stamped again → `witness-late`; a clock the TSA does not bear out → refused (exit 2).
#[test]
fn a_required_time_stamp_binds_the_registration() {
    let Some(tsa) = Tsa::start() else { return };
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dead = format!("http://127.0.0.1:{}/tsr", port);
    let e = Env::init();
    e.write("down.toml", protocol_witnessed(&format!("tsa = \"{}\"", dead)));
    let r = e.run_env(&["register", "down.toml"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 75, "{}", r.stderr);
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");

    e.write("p.toml", protocol_witnessed(&format!("tsa = \"{}\"", tsa.url)));
    // A claimed time 6 years before the witnessed one would fail verification: refused.
    let r = e.run_env(&["register", "p.toml"], &[("PLEDGE_NOW", "2020-01-01T00:00:00Z")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with("error: entry #1 would claim 2020-01-01T00:00:00Z, but CN=loopback TSA tsa,O=pledge tests witnessed it only at "),
        "{}",
        r.stderr
    );
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");

    let r = e.run_env(&["register", "p.toml"], &[SYSTEM_CLOCK]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("entry #1 witnessed by CN=loopback TSA tsa"),
        "{}",
        r.stderr
    );
    assert_eq!(kinds(&e), vec!["register", "timestamp"]);
    let trust = tsa.ca("tsa");
    let v = e.run(&["verify", "--tsa-trust", &trust, "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);

    // The owner drops the token and re-chains the ledger: a finding, not a note.
    rechain(&e, Some(pledge::ledger::EntryKind::Timestamp), chrono::Duration::zero());
    assert_eq!(kinds(&e), vec!["register"]);
    let v = e.run(&["verify", "--tsa-trust", &trust, "--format", "json"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["witness-missing"]);
    assert_eq!(
        finding(&v, "witness-missing"),
        "entry #1 registers study `hotpotqa-100-agents` under a protocol that requires a time-stamp ([witness] tsa), but no valid token covers it: the token was dropped, or never obtained"
    );

    // The owner back-dates the chain 30 days and has it stamped again: a finding.
    rechain(&e, None, chrono::Duration::days(30));
    let t = e.run_env(&["timestamp", "--entry", "1", "--tsa", &tsa.url], &[SYSTEM_CLOCK]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let v = e.run(&["verify", "--tsa-trust", &trust, "--format", "json"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["witness-late"]);
    let m = finding(&v, "witness-late");
    assert!(
        m.starts_with("entry #1 claims ") && m.contains(" by CN=loopback TSA tsa,O=pledge tests (timestamp #2), 30 days 0 h later; its protocol requires a time-stamp at registration ([witness] tsa), so the chain was stamped again later (back-dated?)"),
        "{}",
        m
    );
    // The reviewer summary shows the witnessed time beside the claimed one.
    let st = &json(&v)["review"]["studies"][0];
    assert!(
        st["witnessed"]["at"].as_str().unwrap() > st["registered_at"].as_str().unwrap(),
        "{}",
        st
    );
}

/// A TSA that takes the request and never answers: signals each connection on `tx`, then keeps
/// it open.
fn hanging_tsa() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/tsr", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().flatten() {
            open.push(stream);
            let _ = tx.send(());
        }
    });
    (url, rx)
}

/// `register` killed while it waits for the TSA's token (after its entry's commit is written,
/// before the ledger moves) leaves nothing: no entry, no lock; the next register lands.
#[test]
fn a_register_killed_before_its_token_arrives_leaves_nothing() {
    let (url, connected) = hanging_tsa();
    let e = Env::init();
    e.write("p.toml", protocol_witnessed(&format!("tsa = \"{}\"", url)));
    let mut child = crate::common::pledge_cmd()
        .args(["register", "p.toml"])
        .current_dir(e.path())
        .env("PLEDGE_NOW", "")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    connected
        .recv_timeout(Duration::from_secs(60))
        .expect("register never asked the TSA");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");
    assert_eq!(e.run(&["verify"]).code, 0);
    // No lock left behind: an append goes through at once.
    let start = std::time::Instant::now();
    e.copy_from_repo("protocols/hotpotqa.toml", "plain.toml");
    let r = e.run(&["register", "plain.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(start.elapsed() < Duration::from_secs(10));
}

/// A protocol whose `[witness]` requires signatures: registering without a signing key is
/// refused (exit 2, nothing written); with one it lands and verifies; re-chained unsigned, the
/// registration is a `witness-missing` finding even without an allowed-signers file.
#[test]
fn a_required_signature_binds_the_registration() {
    let e = Env::init();
    e.write("p.toml", protocol_witnessed("signed = true"));
    let r = e.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "p.toml requires signed registrations and amendments ([witness] signed = true), and no signing key is set\nhint: sign with --sign-key KEY"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(e.git(&["for-each-ref", "refs/pledge"]).stdout, "");
    let k = key(&e, "id_ed25519");
    let r = e.run(&["--sign-key", k.to_str().unwrap(), "register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = e.run(&["verify", "--allowed-signers", &signers(), "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    // An amendment must be signed too, even if the new version drops the requirement.
    e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    let r = e.run(&["amend", "p.toml", "--reason", "no more signatures"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the registered version (entry #1) requires signed registrations"),
        "{}",
        r.stderr
    );
    rechain(&e, None, chrono::Duration::zero());
    let v = e.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["witness-missing"]);
    assert_eq!(
        finding(&v, "witness-missing"),
        "entry #1 registers study `hotpotqa-100-agents` under a protocol that requires a signed commit ([witness] signed = true), but its commit is not signed"
    );
}

/// The report words the witness rule as `verify` does: the demo amended under a protocol that
/// requires signed commits (signed: nothing to say), then re-chained unsigned by its owner: the
/// amendment's `witness-missing` finding, as `verify` gives it, follows the signature line.
#[test]
fn the_report_words_the_witness_rule_as_verify_does() {
    let env = Env::new();
    assert_eq!(env.run(&["demo", "demo"]).code, 0);
    let dir = env.join("demo");
    let d = dir.to_str().unwrap();
    let p = dir.join("protocols/hotpotqa.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("{}\n[witness]\nsigned = true\n", text)).unwrap();
    let k = key(&env, "id_ed25519");
    let a = env.run(&[
        "-C",
        d,
        "--sign-key",
        k.to_str().unwrap(),
        "amend",
        "protocols/hotpotqa.toml",
        "--reason",
        "signed from now on",
    ]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let signature = |env: &Env| {
        let r = env.run(&["-C", d, "report", "--format", "json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()["card"]["signature"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let unsigned = "the registration commit is unsigned, so nothing proves who wrote it";
    assert_eq!(signature(&env), unsigned);
    assert_eq!(env.run(&["-C", d, "verify"]).code, 0);
    rechain_at(&dir, None, chrono::Duration::zero());
    let v = env.run(&["-C", d, "verify", "--format", "json"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert_eq!(codes(&v, "findings"), vec!["witness-missing"]);
    let m = finding(&v, "witness-missing");
    assert_eq!(
        m,
        "entry #4 amends study `hotpotqa-100-agents` under a protocol that requires a signed commit ([witness] signed = true), but its commit is not signed"
    );
    assert_eq!(
        signature(&env),
        format!("{}; verify finds: {} (witness-missing)", unsigned, m)
    );
}
