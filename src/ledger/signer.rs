//! Who signs ledger commits: an SSH key, used as git uses it for `gpg.format = ssh` (see
//! [`super::sshsig`] for the format). A signed ledger commit carries its SSHSIG signature in the
//! `gpgsig` header, so `git verify-commit` with `gpg.ssh.allowedSignersFile` checks it too.

use super::sshsig::{self, GIT_NAMESPACE};
use crate::error::{Error, Result};
#[cfg(feature = "witness")]
use ssh_key::PrivateKey;
use std::path::Path;

/// How ledger commits are signed.
pub enum CommitSigner {
    /// An unencrypted OpenSSH private key pledge signs with itself (Ed25519 or ECDSA; with the
    /// `witness` feature).
    #[cfg(feature = "witness")]
    Key(Box<PrivateKey>),
    /// Through `program -Y sign` (normally `ssh-keygen`), as git does: for passphrase-protected
    /// keys, keys held by `ssh-agent` and RSA keys (see [`sshsig::sign_with_ssh_keygen`]).
    Program {
        /// The signing program (git's `gpg.ssh.program`, default `ssh-keygen`).
        program: String,
        /// What git's `user.signingkey` holds: a key file, or a literal `key::ssh-...` key.
        key: String,
    },
}

impl std::fmt::Debug for CommitSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            #[cfg(feature = "witness")]
            CommitSigner::Key(k) => write!(f, "Key({})", k.public_key().fingerprint(ssh_key::HashAlg::Sha256)),
            CommitSigner::Program { program, key } => write!(f, "Program({} {})", program, key),
        }
    }
}

impl CommitSigner {
    /// The signer for the key file `key` (`--sign-key`): an unencrypted Ed25519 or ECDSA private
    /// key is used directly; any other key (passphrase-protected, RSA, a `.pub` file whose key
    /// `ssh-agent` holds) goes through `program` (`ssh-keygen`). Without the `witness` feature
    /// every key goes through `program`.
    ///
    /// Errors (exit 2): the file cannot be read.
    pub fn from_key_file(key: &Path, program: &str) -> Result<CommitSigner> {
        if !key.is_file() {
            return Err(
                Error::input(format!("signing key {} is not a readable file", key.display()))
                    .with_hint("name an OpenSSH private key, e.g. ~/.ssh/id_ed25519"),
            );
        }
        #[cfg(feature = "witness")]
        if let Ok(k) = sshsig::read_private_key(key) {
            if !k.algorithm().is_rsa() {
                return Ok(CommitSigner::Key(Box::new(k)));
            }
        }
        Ok(CommitSigner::Program {
            program: program.to_string(),
            key: key.display().to_string(),
        })
    }

    /// The signer git itself would use for commits of `repo`: `commit.gpgsign = true`,
    /// `gpg.format = ssh` and `user.signingkey` set (a key file, relative paths read from
    /// `base`, or a literal `key::` public key for `ssh-agent`); `gpg.ssh.program` names the
    /// program. `None` when git would not sign with SSH.
    ///
    /// Errors (exit 2): the configured key file cannot be read.
    pub fn from_git_config(repo: &git2::Repository, base: &Path) -> Result<Option<CommitSigner>> {
        let Ok(cfg) = repo.config().and_then(|mut c| c.snapshot()) else {
            return Ok(None);
        };
        let sign = cfg.get_bool("commit.gpgsign").unwrap_or(false);
        let format = cfg.get_string("gpg.format").unwrap_or_default();
        let Ok(key) = cfg.get_string("user.signingkey") else {
            return Ok(None);
        };
        if !sign || format != "ssh" {
            return Ok(None);
        }
        let program = cfg
            .get_string("gpg.ssh.program")
            .unwrap_or_else(|_| "ssh-keygen".into());
        if key.starts_with("key::") || key.starts_with("ssh-") {
            return Ok(Some(CommitSigner::Program { program, key }));
        }
        let path = base.join(&key);
        Ok(Some(CommitSigner::from_key_file(&path, &program)?))
    }

    /// The PEM-armored SSH signature of the commit object `payload` in the `git` namespace.
    ///
    /// Errors (exit 2): the key cannot sign, or the signing program fails.
    pub fn sign(&self, payload: &[u8]) -> Result<String> {
        match self {
            #[cfg(feature = "witness")]
            CommitSigner::Key(k) => sshsig::sign(k, GIT_NAMESPACE, payload),
            CommitSigner::Program { program, key } => {
                sshsig::sign_with_ssh_keygen(program, key, GIT_NAMESPACE, payload)
            }
        }
    }
}
