//! The protocol hash: SHA-256 over the file's bytes with a UTF-8 BOM removed and CRLF turned into
//! LF, so a checkout on another OS verifies; any other byte change is a change.

use serde::{Deserialize, Serialize};

/// Hashes of one protocol file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtocolHash {
    /// SHA-256 (hex) of the normalized bytes (BOM removed, CRLF → LF): the registered hash.
    pub sha256: String,
    /// SHA-256 (hex) of the raw bytes as read.
    pub raw_sha256: String,
    /// True when the raw bytes differ from the normalized ones (a BOM or CRLF line endings).
    pub line_endings_normalized: bool,
}

/// Computes [`ProtocolHash`] of the raw file bytes.
pub fn protocol_hash(raw: &[u8]) -> ProtocolHash {
    let body = crate::input::strip_bom(raw);
    let mut norm = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\r' && body.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        norm.push(body[i]);
        i += 1;
    }
    ProtocolHash {
        sha256: crate::io::sha256_hex(&norm),
        raw_sha256: crate::io::sha256_hex(raw),
        line_endings_normalized: norm.len() != raw.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_hash_like_lf() {
        let lf = protocol_hash(b"a = 1\nb = 2\n");
        let crlf = protocol_hash(b"\xEF\xBB\xBFa = 1\r\nb = 2\r\n");
        assert_eq!(lf.sha256, crlf.sha256);
        assert!(!lf.line_endings_normalized);
        assert!(crlf.line_endings_normalized);
        assert_ne!(lf.raw_sha256, crlf.raw_sha256);
        assert_ne!(protocol_hash(b"a = 1\nb = 3\n").sha256, lf.sha256);
        // A lone CR is not a line ending change: it is kept.
        assert_ne!(protocol_hash(b"a = 1\rb = 2\n").sha256, lf.sha256);
    }
}
