//! Ledger entries and their canonical form.
//!
//! Canonical form (what `entry_sha256` is computed over): the entry as a JSON object **without**
//! its `entry_sha256` key, object keys sorted by byte order at every level, no insignificant
//! whitespace, UTF-8, numbers as serde_json writes them (shortest round-trip form). The same
//! bytes are what `entry.json` holds in the ledger commit, with `entry_sha256` added.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Hash written as `prev_sha256` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What an entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryKind {
    /// A protocol registered for the first time.
    Register,
    /// A new version of a registered protocol, with a mandatory reason.
    Amend,
    /// Components counted without a stop-rule decision (e.g. no splits).
    Count,
    /// The stop rule said stop.
    Stop,
    /// The stop rule said go.
    Go,
    /// Components assigned to splits (`components --assign`).
    Assign,
    /// An analysis was run.
    Analyze,
    /// A deviation from the protocol, with a mandatory reason.
    Deviation,
    /// A change of the declared data-access level, or a free note.
    Note,
}

impl EntryKind {
    /// The kebab-case name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Register => "register",
            EntryKind::Amend => "amend",
            EntryKind::Count => "count",
            EntryKind::Stop => "stop",
            EntryKind::Go => "go",
            EntryKind::Assign => "assign",
            EntryKind::Analyze => "analyze",
            EntryKind::Deviation => "deviation",
            EntryKind::Note => "note",
        }
    }
}

/// Declared foreknowledge of results, as pre-registration registries ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum DataAccess {
    /// Nothing has been run on the data.
    #[default]
    NothingRun,
    /// Only pilot data has been looked at.
    PilotOnly,
    /// Results exist but nobody has seen them.
    ResultsUnseen,
    /// Results have been seen.
    ResultsSeen,
}

/// Name and version of the tool that wrote an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `pledge`.
    pub name: String,
    /// The crate version.
    pub version: String,
}

impl Tool {
    /// This build of pledge.
    pub fn current() -> Self {
        Tool {
            name: "pledge".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// The random generator used by a computation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngInfo {
    /// Generator name, e.g. `ChaCha8Rng`.
    pub name: String,
    /// Crate and version, e.g. `rand_chacha 0.3.1`.
    pub version: String,
    /// The seed.
    pub seed: u64,
}

impl RngInfo {
    /// The generator pledge uses everywhere: `ChaCha8Rng` from `rand_chacha` 0.3.1 (pinned).
    pub fn chacha8(seed: u64) -> Self {
        RngInfo {
            name: "ChaCha8Rng".into(),
            version: "rand_chacha 0.3.1".into(),
            seed,
        }
    }
}

/// What a command asks to append; the ledger fills in sequence, time, hashes and tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Draft {
    /// Kind of the entry.
    pub kind: Option<EntryKind>,
    /// Study id the entry belongs to.
    pub study_id: String,
    /// Registered protocol hash (normalized SHA-256).
    pub protocol_sha256: Option<String>,
    /// Protocol path relative to the repository root, as given at registration.
    pub protocol_path: Option<String>,
    /// For `amend`: the protocol hash this one replaces.
    pub amends: Option<String>,
    /// Input files: role or path → SHA-256 of the file's raw bytes.
    pub inputs: BTreeMap<String, String>,
    /// Reason (required for amend and deviation).
    pub reason: Option<String>,
    /// Declared data-access level; `None` keeps the previous entry's level.
    pub data_access: Option<DataAccess>,
    /// Random generator and seed, where one is used.
    pub rng: Option<RngInfo>,
    /// Small key facts shown by `log` and used by the report (counts, decision, means).
    pub summary: serde_json::Value,
    /// Full result document stored beside the entry as `result.json`; its SHA-256 is recorded.
    pub result: Option<serde_json::Value>,
    /// Protocol source stored beside the entry as `protocol.toml` (register and amend).
    pub protocol_text: Option<String>,
}

/// One ledger entry, as stored in `entry.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// 1-based sequence number.
    pub seq: u64,
    /// Kind.
    pub kind: EntryKind,
    /// UTC time, RFC 3339 with seconds, e.g. `2026-11-30T12:00:00Z`.
    pub time: String,
    /// `entry_sha256` of the previous entry, or [`GENESIS`].
    pub prev_sha256: String,
    /// Study id.
    pub study_id: String,
    /// Protocol hash in force.
    pub protocol_sha256: Option<String>,
    /// Protocol path relative to the repository root.
    pub protocol_path: Option<String>,
    /// Replaced protocol hash (amend).
    pub amends: Option<String>,
    /// Input files → SHA-256.
    pub inputs: BTreeMap<String, String>,
    /// SHA-256 of `result.json`, if any.
    pub result_sha256: Option<String>,
    /// Tool that wrote it.
    pub tool: Tool,
    /// Random generator used, if any.
    pub rng: Option<RngInfo>,
    /// Reason, where required.
    pub reason: Option<String>,
    /// Declared data-access level at that moment.
    pub data_access: DataAccess,
    /// The user's `HEAD` commit when the entry was written (None on an unborn branch).
    pub git_head: Option<String>,
    /// Key facts.
    pub summary: serde_json::Value,
    /// SHA-256 of the canonical form.
    pub entry_sha256: String,
}

impl Entry {
    /// Canonical bytes: the entry without `entry_sha256`, keys sorted, compact JSON.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let serde_json::Value::Object(m) = &mut v {
            m.remove("entry_sha256");
        }
        serde_json::to_vec(&v).unwrap_or_default()
    }

    /// The declared data-access level in words, e.g. `nothing run yet`.
    pub fn data_access_label(&self) -> String {
        match self.data_access {
            DataAccess::NothingRun => "nothing run yet",
            DataAccess::PilotOnly => "pilot data only",
            DataAccess::ResultsUnseen => "results produced but not seen",
            DataAccess::ResultsSeen => "results seen",
        }
        .to_string()
    }

    /// SHA-256 (hex) of [`Entry::canonical_bytes`].
    pub fn compute_sha256(&self) -> String {
        crate::io::sha256_hex(&self.canonical_bytes())
    }

    /// Stored bytes of `entry.json`: canonical form with `entry_sha256` (keys sorted, compact).
    pub fn stored_bytes(&self) -> Vec<u8> {
        let v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        let mut b = serde_json::to_vec(&v).unwrap_or_default();
        b.push(b'\n');
        b
    }

    /// Parses `entry.json` bytes; `what` names the source in errors.
    pub fn parse(bytes: &[u8], what: &str) -> Result<Entry> {
        serde_json::from_slice(bytes)
            .map_err(|e| Error::input(format!("{}: not a pledge ledger entry", what)).caused_by(e))
    }
}
