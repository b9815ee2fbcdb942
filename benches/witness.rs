//! Per-operation cost of the ledger's witness building blocks, to size verification of a long
//! ledger: RFC 3161 token verification (RSA-2048 and ECDSA P-384 TSAs), SSH signature
//! verification (Ed25519, ECDSA P-256, RSA-2048) and Ed25519 signing, the RFC 8785 canonical form
//! against the legacy sorted-keys form, and git commit-id recomputation. Uses the fixed test
//! vectors in tests/data (no network, no openssl). `cargo bench --bench witness`.

use pledge::ledger::{entry, gitobj, jcs, sshsig, tsa};
use std::path::Path;
use std::time::Instant;

fn per_op_us(n: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm up
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

fn main() {
    let n: usize = std::env::var("PLEDGE_BENCH_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let read = |p: &str| std::fs::read(data.join(p)).expect("test vector");
    let hash: [u8; 32] = hex::decode(String::from_utf8(read("tsa/hash.hex")).expect("utf-8").trim())
        .expect("hex")
        .try_into()
        .expect("32 bytes");
    println!("witness bench, {} operations each (per-operation means):", n);
    for name in ["rsa", "ec"] {
        let token = read(&format!("tsa/token-{}.der", name));
        let trust = tsa::TrustAnchors::load(&data.join(format!("tsa/ca-{}.pem", name))).expect("trust");
        let us = per_op_us(n, || {
            tsa::verify_token(&token, &hash, Some(&trust)).expect("verifies");
        });
        println!("  RFC 3161 token verify ({:<3}, with trust file)  {:>9.1} us", name, us);
    }
    let allowed = sshsig::AllowedSigners::load(&data.join("sshsig/allowed_signers")).expect("signers");
    let msg = read("sshsig/message.txt");
    let at = chrono::DateTime::from_timestamp(1_796_040_000, 0).expect("time");
    for (sig, who) in [
        ("ed25519-git.sig", "alice@example.org"),
        ("ecdsa-git.sig", "bob@example.org"),
        ("rsa-git.sig", "carol@example.org"),
    ] {
        let s = String::from_utf8(read(&format!("sshsig/{}", sig))).expect("utf-8");
        let us = per_op_us(n, || {
            sshsig::verify(&allowed, Some(who), "git", &msg, &s, at).expect("verifies");
        });
        println!("  SSH signature verify ({:<15})         {:>9.1} us", sig, us);
    }
    let key = sshsig::read_private_key(&data.join("sshsig/id_ed25519")).expect("key");
    let us = per_op_us(n, || {
        sshsig::sign(&key, "git", &msg).expect("signs");
    });
    println!("  SSH signature sign (Ed25519)                    {:>9.1} us", us);
    let e = serde_json::json!({
        "seq": 1234, "kind": "analyze", "time": "2026-12-01T08:00:00Z", "study_id": "hotpotqa-main",
        "prev_sha256": "ab".repeat(32), "protocol_sha256": "cd".repeat(32), "protocol_path": "protocols/p.toml",
        "inputs": {"scores:runs/a.csv": "ef".repeat(32), "scores:runs/b.csv": "01".repeat(32)},
        "summary": {"mean_delta": 0.0123, "ci": [-0.004, 0.0291], "p_value": 0.137, "components": 412},
        "tool": {"name": "pledge", "version": "0.1.0"}, "data_access": "results-unseen", "git_head": null,
    });
    let us_jcs = per_op_us(n, || {
        jcs::canonical_bytes(&e).expect("jcs");
    });
    let us_legacy = per_op_us(n, || {
        entry::canonical_json(&e);
    });
    println!(
        "  canonical form of an entry: RFC 8785 {:>7.1} us, legacy sorted keys {:>7.1} us",
        us_jcs, us_legacy
    );
    let raw = read("sshsig/signed-commit.txt");
    let us = per_op_us(n, || {
        gitobj::commit_id(gitobj::ObjectFormat::Sha1, &raw);
    });
    println!(
        "  commit id recomputed (SHA-1, {} bytes)         {:>9.2} us",
        raw.len(),
        us
    );
}
