//! A protocol file as loaded for registration or use: parsed, its text and its hashes.

use super::{Protocol, ProtocolHash};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// A protocol file as loaded: parsed, its text, and its hash.
#[derive(Debug, Clone)]
pub struct LoadedProtocol {
    /// Path as given (resolved against the working directory).
    pub path: PathBuf,
    /// The parsed, validated protocol.
    pub protocol: Protocol,
    /// Source text (BOM removed).
    pub text: String,
    /// Hashes of the raw file.
    pub hash: ProtocolHash,
}

/// Loads, validates and hashes the protocol at `path`.
///
/// Errors (exit 2): see [`super::load`].
pub fn load_protocol(path: &Path) -> Result<LoadedProtocol> {
    let (protocol, text, raw) = super::load::load_raw(path)?;
    Ok(LoadedProtocol {
        path: path.to_path_buf(),
        protocol,
        text,
        hash: super::protocol_hash(&raw),
    })
}
