//! SSH signatures in OpenSSH's SSHSIG format (OpenSSH `PROTOCOL.sshsig`), as `ssh-keygen -Y sign`
//! writes and `ssh-keygen -Y verify` checks them, and as git stores them in a commit's `gpgsig`
//! header when `gpg.format = ssh`.
//!
//! - Signing: [`sign`] with a private key read by [`read_private_key`] (an unencrypted OpenSSH
//!   key file), or [`sign_with_ssh_keygen`], which runs `ssh-keygen -Y sign -n NAMESPACE -f KEY`
//!   exactly as git does for `gpg.format = ssh` (git's `sign_buffer_ssh`): that path also serves
//!   keys held by `ssh-agent` (`-U`, when the key named is a public key), passphrase-protected
//!   keys and security keys, which the native path refuses. Both write the same bytes for an
//!   Ed25519 key (Ed25519 signatures are deterministic; SHA-512 message hash, as `ssh-keygen`).
//! - Verifying: [`verify`] checks the namespace, the signature over the message under the
//!   signature's own public key, then that key against an [`AllowedSigners`] file for the
//!   claimed principal, in `ssh-keygen -Y verify`'s order. [`verify_commit`] splits a git commit
//!   as git does (see [`super::gitobj::split_signature`]) and verifies its signature in the
//!   `git` namespace at the committer time, as `git verify-commit` does (git passes
//!   `-Overify-time=` with the commit's committer time to `ssh-keygen`).
//!
//! Key types: Ed25519, ECDSA P-256 and P-384, RSA (signatures `rsa-sha2-512`), and FIDO
//! `sk-ssh-ed25519@openssh.com` / `sk-ecdsa-sha2-nistp256@openssh.com` for verification, through
//! the RustCrypto `ssh-key` crate. Signatures by OpenSSH certificates (`cert-authority` lines)
//! are not supported: such a line never matches a plain key, as in `ssh-keygen`.
//!
//! Differences from `ssh-keygen`, deliberate: a malformed `allowed_signers` line is an error
//! naming the file and line (`ssh-keygen` logs it and skips the line); `valid-after` and
//! `valid-before` times without a `Z` are read as UTC (`ssh-keygen` reads them in the local time
//! zone, which would make verification depend on the machine).

use super::gitobj::{split_signature, ObjectFormat};
use crate::error::{Error, Result};
use chrono::{DateTime, TimeZone, Utc};

#[cfg(feature = "witness")]
mod crypto;
#[cfg(feature = "witness")]
pub use crypto::{carried_key, read_private_key, sign, sign_commit, verify, AllowedSigner, AllowedSigners};
#[cfg(not(feature = "witness"))]
mod off;
#[cfg(not(feature = "witness"))]
pub use off::{carried_key, verify, AllowedSigners};

/// The namespace git signs commits, tags and pushes in (`ssh-keygen -Y sign -n git`).
pub const GIT_NAMESPACE: &str = "git";

/// Largest `allowed_signers` file read (1 MiB): a few thousand keys.
pub const MAX_ALLOWED_SIGNERS_BYTES: u64 = 1 << 20;

/// Why a signature does not verify. Each has a stable kebab-case [`SigProblem::code`] for
/// verification findings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigProblem {
    /// Not an SSHSIG signature (bad armor, bad encoding, a PGP or X.509 signature).
    #[error("not an SSH signature: {0}")]
    Malformed(String),
    /// The signature was made for another namespace (e.g. `file` where `git` is expected).
    #[error("the signature is for namespace `{found}`, not `{expected}`")]
    NamespaceMismatch {
        /// The namespace verification asked for.
        expected: String,
        /// The namespace the signature carries.
        found: String,
    },
    /// The signature does not match the message under the key it names (the message or the
    /// signature was altered, or it was forged).
    #[error("the signature does not match the signed data (key {fingerprint})")]
    SignatureInvalid {
        /// SHA-256 fingerprint of the signature's key, `SHA256:...` as `ssh-keygen -l` prints it.
        fingerprint: String,
    },
    /// The key is in no line of the allowed-signers file (for the principal, when one is named).
    #[error("key {fingerprint} is not an allowed signer{}", principal.as_ref().map(|p| format!(" for `{}`", p)).unwrap_or_default())]
    UnknownSigner {
        /// SHA-256 fingerprint of the signature's key.
        fingerprint: String,
        /// The principal that was asked for, if any.
        principal: Option<String>,
    },
    /// The key is allowed, but its `namespaces=` option excludes the signature's namespace.
    #[error("key {fingerprint} is not permitted to sign in namespace `{namespace}` (allowed signers line {line})")]
    NamespaceNotAllowed {
        /// SHA-256 fingerprint of the key.
        fingerprint: String,
        /// The signature's namespace.
        namespace: String,
        /// The allowed-signers line (1-based).
        line: usize,
    },
    /// The key is allowed, but not at the signing time (`valid-after` / `valid-before`).
    #[error("key {fingerprint} is not valid at {time} (allowed signers line {line})")]
    NotValidAtTime {
        /// SHA-256 fingerprint of the key.
        fingerprint: String,
        /// The time checked, RFC 3339.
        time: String,
        /// The allowed-signers line (1-based).
        line: usize,
    },
    /// This build has no signature checks (built without the `witness` feature): the signature
    /// is not checkable, and nothing is claimed of it.
    #[error("this pledge was built without the `witness` feature: the signature cannot be checked (rebuild with --features witness)")]
    NotBuilt,
}

impl SigProblem {
    /// Stable code: `signature-malformed`, `namespace-mismatch`, `signature-invalid`,
    /// `unknown-signer`, `namespace-not-allowed`, `signer-not-valid-at-time`, `witness-not-built`.
    pub fn code(&self) -> &'static str {
        match self {
            SigProblem::Malformed(_) => "signature-malformed",
            SigProblem::NamespaceMismatch { .. } => "namespace-mismatch",
            SigProblem::SignatureInvalid { .. } => "signature-invalid",
            SigProblem::UnknownSigner { .. } => "unknown-signer",
            SigProblem::NamespaceNotAllowed { .. } => "namespace-not-allowed",
            SigProblem::NotValidAtTime { .. } => "signer-not-valid-at-time",
            SigProblem::NotBuilt => "witness-not-built",
        }
    }
}

/// A signature that verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The principals field of the matching allowed-signers line, or the principal asked for.
    pub principal: String,
    /// SHA-256 fingerprint of the signing key, `SHA256:...` as `ssh-keygen -l` prints it.
    pub fingerprint: String,
    /// Key algorithm, e.g. `ssh-ed25519`.
    pub algorithm: String,
    /// The signature's namespace.
    pub namespace: String,
    /// The allowed-signers line that matched (1-based).
    pub line: usize,
}

/// Signs `message` in `namespace` by running `program` (normally `ssh-keygen`, git's
/// `gpg.ssh.program`) as git does: `PROGRAM -Y sign -n NAMESPACE -f KEY FILE`, where FILE holds
/// the message in a private temporary directory, and reads the signature from `FILE.sig`. `key`
/// is what git's `user.signingkey` holds: a key file path (a private key, or a `.pub` file whose
/// private key `ssh-agent` holds), or a literal public key (`key::ssh-ed25519 AAAA...`, or any
/// value starting with `ssh-`), which is written to a temporary file and passed with `-U` (the
/// agent signs), as git does.
///
/// Errors (exit 2): the program cannot be started or fails (its error output is the cause).
pub fn sign_with_ssh_keygen(program: &str, key: &str, namespace: &str, message: &[u8]) -> Result<String> {
    let dir = tempfile::tempdir().map_err(|e| Error::internal("creating a temporary directory").caused_by(e))?;
    let msg_path = dir.path().join("payload");
    std::fs::write(&msg_path, message).map_err(|e| Error::internal("writing the payload to sign").caused_by(e))?;
    // git's is_literal_ssh_key: `key::` followed by a key, or a value starting with `ssh-`.
    let literal = key
        .strip_prefix("key::")
        .or_else(|| key.starts_with("ssh-").then_some(key));
    let key_path = match literal {
        Some(k) => {
            let p = dir.path().join("key.pub");
            std::fs::write(&p, format!("{}\n", k))
                .map_err(|e| Error::internal("writing the public key").caused_by(e))?;
            p
        }
        None => std::path::PathBuf::from(key),
    };
    let mut cmd = std::process::Command::new(program);
    cmd.args(["-Y", "sign", "-n", namespace, "-f"]).arg(&key_path);
    if literal.is_some() {
        cmd.arg("-U");
    }
    let out = cmd
        .arg(&msg_path)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::input(format!("cannot run `{}` to sign", program)).caused_by(e))?;
    if !out.status.success() {
        return Err(
            Error::input(format!("`{} -Y sign` failed with {}", program, out.status))
                .caused_by(String::from_utf8_lossy(&out.stderr).trim()),
        );
    }
    let sig_path = dir.path().join("payload.sig");
    std::fs::read_to_string(&sig_path)
        .map_err(|e| Error::input(format!("`{} -Y sign` wrote no signature", program)).caused_by(e))
}

/// What [`verify_commit`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitSignature {
    /// The commit has no signature header of its object format.
    Unsigned,
    /// The signature verified.
    Verified(Verified),
    /// The signature does not verify, and why.
    Bad(SigProblem),
}

/// Verifies the signature of the raw commit object `raw` (as `git cat-file commit` prints it) as
/// `git verify-commit` does for `gpg.format = ssh`: the `format` signature header (`gpgsig` for
/// SHA-1) over the commit without its signature headers, in the [`GIT_NAMESPACE`] namespace, by
/// any allowed signer (git asks `ssh-keygen -Y find-principals`, then verifies for what it
/// found), at the committer time (or `fallback_time` when the committer line has none).
pub fn verify_commit(
    allowed: &AllowedSigners,
    format: ObjectFormat,
    raw: &[u8],
    fallback_time: DateTime<Utc>,
) -> CommitSignature {
    let Some(signed) = split_signature(format, raw) else {
        return CommitSignature::Unsigned;
    };
    let at = committer_time(&signed.payload).unwrap_or(fallback_time);
    match verify(allowed, None, GIT_NAMESPACE, &signed.payload, &signed.signature, at) {
        Ok(v) => CommitSignature::Verified(v),
        Err(p) => CommitSignature::Bad(p),
    }
}

/// The committer time of a commit object: the epoch seconds on its `committer` line.
fn committer_time(raw: &[u8]) -> Option<DateTime<Utc>> {
    let text = std::str::from_utf8(raw).ok()?;
    let head = text.split("\n\n").next()?;
    let line = head.lines().find_map(|l| l.strip_prefix("committer "))?;
    let mut parts = line.rsplitn(3, ' ');
    let _tz = parts.next()?;
    let secs: i64 = parts.next()?.parse().ok()?;
    Utc.timestamp_opt(secs, 0).single()
}
