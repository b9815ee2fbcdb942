//! Ledger entries and their canonical form.
//!
//! Canonical form (what `entry_sha256` is computed over): the entry as a JSON object **without**
//! its `entry_sha256` key, in the form its `canonical` key names ([`CanonicalForm`]):
//!
//! - `"canonical": "jcs"` (every entry written by this version, unless it holds an integer that
//!   an IEEE 754 double cannot represent exactly, see [`jcs_exact`]): RFC 8785, the JSON
//!   Canonicalization Scheme ([`super::jcs`]), so any language's JCS library recomputes the
//!   hash and a JSON rewrite that keeps values (`0.0` written as `0`, keys reordered) keeps it;
//! - no `canonical` key (entries written before, and the exception above): object keys sorted
//!   by byte order at every level, no insignificant whitespace, UTF-8, numbers as serde_json
//!   writes them (shortest round-trip form), see [`canonical_json`].
//!
//! The same bytes are what `entry.json` holds in the ledger commit, with `entry_sha256` added
//! (in the same form) and a final newline.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::rng::RngInfo;

crate::named_enum! {
    /// The canonical form an entry's `entry_sha256` is computed over (see the module docs); an
    /// entry without the `canonical` key uses pledge's original sorted-keys form.
    pub enum CanonicalForm {
        /// RFC 8785, the JSON Canonicalization Scheme.
        Jcs = "jcs",
    }
}

/// Hash written as `prev_sha256` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

crate::named_enum! {
    /// What an entry records.
    pub enum EntryKind {
        /// A protocol registered for the first time.
        Register = "register",
        /// A new version of a registered protocol, with a mandatory reason.
        Amend = "amend",
        /// Components counted without a stop-rule decision (e.g. no splits).
        Count = "count",
        /// The stop rule said stop.
        Stop = "stop",
        /// The stop rule said go.
        Go = "go",
        /// Components assigned to splits (`components --assign`).
        Assign = "assign",
        /// An analysis was run.
        Analyze = "analyze",
        /// A deviation from the protocol, with a mandatory reason.
        Deviation = "deviation",
        /// A change of the declared data-access level, or a free note.
        Note = "note",
        /// An RFC 3161 time-stamp token over an earlier entry's hash (`pledge timestamp`,
        /// `--tsa`): a Time-Stamping Authority witnesses that the covered entry, and so the whole
        /// chain up to it, existed at the token's time.
        Timestamp = "timestamp",
        /// The repair-trace test on original and replacement passages (`pledge trace`).
        Trace = "trace",
    }
}

crate::named_enum! {
    /// Where an entry's `time` came from, when not from the system clock.
    pub enum ClockSource {
        /// The clock was fixed by the user (`PLEDGE_NOW`): the time is declared, not read.
        Fixed = "fixed",
        /// A clock correction (`pledge note --correct-clock`): the entry before was dated more
        /// than the allowed skew after the system clock, and this entry, dated by the system
        /// clock, is earlier than it on purpose; its reason says why. `verify` discloses it in a
        /// `clock-corrected` note instead of a `time-decreased` finding.
        Corrected = "corrected",
    }
}

crate::named_enum! {
    /// Declared foreknowledge of results, as pre-registration registries ask.
    #[derive(Default)]
    pub enum DataAccess {
        /// Nothing has been run on the data.
        #[default]
        NothingRun = "nothing-run",
        /// Only pilot data has been looked at.
        PilotOnly = "pilot-only",
        /// Results exist but nobody has seen them.
        ResultsUnseen = "results-unseen",
        /// Results have been seen.
        ResultsSeen = "results-seen",
    }
}

impl DataAccess {
    /// The level in force for `study_id` after `entries` (first to last): that of the latest
    /// entry of the same study or of a ledger-wide entry (empty study id), else `nothing-run`.
    /// For the whole ledger (`study_id` empty) it is the highest level in force for any study or
    /// the ledger ([`AccessLevels::in_force`]), so a ledger-wide entry that declares no level of
    /// its own inherits one that lowers no study.
    pub fn in_force<'a>(entries: impl DoubleEndedIterator<Item = &'a Entry>, study_id: &str) -> DataAccess {
        if study_id.is_empty() {
            let mut levels = AccessLevels::default();
            entries.for_each(|e| levels.push(e));
            return levels.in_force("");
        }
        entries
            .rev()
            .find(|e| e.study_id == study_id || e.study_id.is_empty())
            .map(|e| e.data_access)
            .unwrap_or_default()
    }
}

/// The data-access levels in force as a ledger is read entry by entry (first to last): the
/// latest level declared for each study and for the whole ledger.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessLevels {
    /// Per study id (empty for the ledger-wide entries): the position of its latest entry among
    /// those pushed and the level it declares.
    latest: std::collections::BTreeMap<String, (u64, DataAccess)>,
    pushed: u64,
}

impl AccessLevels {
    /// `entry` comes next.
    pub fn push(&mut self, entry: &Entry) {
        self.pushed += 1;
        self.latest
            .insert(entry.study_id.clone(), (self.pushed, entry.data_access));
    }

    /// The level in force for `study_id`: that of the later of its latest entry and the latest
    /// ledger-wide entry (`nothing-run` when there is neither). For the whole ledger
    /// (`study_id` empty): the highest level in force for any study, or for the ledger itself.
    pub fn in_force(&self, study_id: &str) -> DataAccess {
        let wide = self.latest.get("").copied();
        let of = |s: &str| match (self.latest.get(s).copied(), wide) {
            (Some(a), Some(w)) => {
                if a.0 > w.0 {
                    a.1
                } else {
                    w.1
                }
            }
            (Some(a), None) => a.1,
            (None, Some(w)) => w.1,
            (None, None) => DataAccess::default(),
        };
        if !study_id.is_empty() {
            return of(study_id);
        }
        self.latest.keys().map(|s| of(s)).max().unwrap_or_default()
    }
}

/// The `summary` of a `note` entry (kept with the entry format rather than in
/// [`crate::records`], as it names the data-access levels).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteSummary {
    /// The level declared before, when the note changed it.
    pub access_changed_from: Option<DataAccess>,
    /// The verification findings of the ledger the note was appended onto (`note
    /// --despite-findings`), one `code: message` each; absent when the ledger verified.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ledger_findings: Vec<String>,
}

impl crate::records::Stored for Entry {
    fn seq(&self) -> u64 {
        self.seq
    }
    fn kind_name(&self) -> &str {
        self.kind.as_str()
    }
    fn summary(&self) -> &serde_json::Value {
        &self.summary
    }
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

crate::named_enum! {
    /// What an input file was to the command that recorded it (the part of an input key before
    /// the colon).
    pub enum InputRole {
        /// The protocol file (its raw bytes' SHA-256).
        Protocol = "protocol",
        /// A per-topic score file.
        Scores = "scores",
        /// A qrels file.
        Qrels = "qrels",
        /// A TREC run file.
        Run = "run",
        /// A component assignment file written by `pledge components`.
        Assignment = "assignment",
        /// A strata file.
        Strata = "strata",
        /// A passages file.
        Passages = "passages",
        /// A candidate questions file.
        Questions = "questions",
        /// A pilot score file named by the protocol's `target.pilot`.
        Pilot = "pilot",
        /// A near-duplicate pairs file (`pledge components --pairs`).
        Pairs = "pairs",
        /// The original passages of a repair (`pledge trace --original`).
        Original = "original",
        /// The replacement passages of a repair (`pledge trace --replacement`).
        Replacement = "replacement",
    }
}

/// An input of an entry: its role and its path (relative to the repository root, `/`
/// separators; absolute when the file lies outside the repository). Serialized as the string
/// `ROLE:PATH`, e.g. `scores:data/correctness.csv`; ordered as those strings are.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InputKey {
    /// What the file was.
    pub role: InputRole,
    /// Where it was.
    pub path: String,
}

impl InputKey {
    /// The key for `role` and `path`.
    pub fn new(role: InputRole, path: impl Into<String>) -> Self {
        InputKey {
            role,
            path: path.into(),
        }
    }
}

impl std::fmt::Display for InputKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.role, self.path)
    }
}

impl PartialOrd for InputKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InputKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // No role name is a prefix of another, so this is the order of the `ROLE:PATH` strings.
        (self.role.as_str(), &self.path).cmp(&(other.role.as_str(), &other.path))
    }
}

impl std::str::FromStr for InputKey {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (role, path) = s
            .split_once(':')
            .ok_or_else(|| format!("input key `{}` is not ROLE:PATH", s))?;
        let role = role
            .parse::<InputRole>()
            .map_err(|e| format!("input key `{}`: {}", s, e))?;
        Ok(InputKey::new(role, path))
    }
}

impl Serialize for InputKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for InputKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Input files of an entry → SHA-256 (hex) of each file's raw bytes.
pub type Inputs = BTreeMap<InputKey, String>;

/// The SHA-256 hashes `inputs` records under `role`, in key (path) order.
pub fn hashes_of(inputs: &Inputs, role: InputRole) -> Vec<&str> {
    inputs
        .iter()
        .filter(|(k, _)| k.role == role)
        .map(|(_, h)| h.as_str())
        .collect()
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
    /// Input files → SHA-256 of the file's raw bytes.
    pub inputs: Inputs,
    /// Reason (required for amend and deviation).
    pub reason: Option<String>,
    /// Declared data-access level; `None` keeps the level in force for the study (see
    /// [`DataAccess::in_force`]).
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
    /// Input files → SHA-256 of the file's raw bytes.
    pub inputs: Inputs,
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
    /// The canonical form `entry_sha256` covers: `jcs`, or absent (and then not written) for
    /// pledge's original sorted-keys form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<CanonicalForm>,
    /// Where `time` came from when not simply from the system clock (`fixed` under
    /// `PLEDGE_NOW`, `corrected` for a clock correction); absent (and so absent from the canonical form, which keeps older entries' hashes) when
    /// the system clock was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSource>,
    /// SHA-256 of the canonical form.
    pub entry_sha256: String,
}

impl Entry {
    /// Canonical bytes: the entry without `entry_sha256`, in the form named by `canonical`.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let serde_json::Value::Object(m) = &mut v {
            m.remove("entry_sha256");
        }
        self.form_bytes(&v)
    }

    fn form_bytes(&self, v: &serde_json::Value) -> Vec<u8> {
        match self.canonical {
            // A `Value` holds no NaN or infinity, the only values JCS cannot write.
            Some(CanonicalForm::Jcs) => super::jcs::canonical_bytes(v).unwrap_or_default(),
            None => canonical_json(v),
        }
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

    /// Stored bytes of `entry.json`: the canonical form with `entry_sha256`, and a newline.
    pub fn stored_bytes(&self) -> Vec<u8> {
        let v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        let mut b = self.form_bytes(&v);
        b.push(b'\n');
        b
    }

    /// [`Entry::canonical_bytes`] and [`Entry::stored_bytes`] (in that order) from one
    /// serialization of the entry. Both forms are the entry's top-level members in key order,
    /// each written `"key":value` and joined by commas, the stored one with `entry_sha256` among
    /// them and a newline after; so each member's value is written once and the two forms are
    /// assembled from the same pieces. (Top-level keys are the entry's field names, ASCII, whose
    /// byte order is RFC 8785's UTF-16 order; any other key falls back to the two calls.)
    pub fn canonical_and_stored_bytes(&self) -> (Vec<u8>, Vec<u8>) {
        let v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        let plain = |k: &String| {
            !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        let serde_json::Value::Object(m) = &v else {
            return (self.canonical_bytes(), self.stored_bytes());
        };
        if !m.keys().all(plain) {
            return (self.canonical_bytes(), self.stored_bytes());
        }
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        let (mut hash, mut stored) = (vec![b'{'], vec![b'{']);
        let mut piece = Vec::new();
        for k in keys {
            piece.clear();
            piece.push(b'"');
            piece.extend_from_slice(k.as_bytes());
            piece.extend_from_slice(b"\":");
            piece.extend_from_slice(&self.form_bytes(&m[k.as_str()]));
            if k != "entry_sha256" {
                if hash.len() > 1 {
                    hash.push(b',');
                }
                hash.extend_from_slice(&piece);
            }
            if stored.len() > 1 {
                stored.push(b',');
            }
            stored.extend_from_slice(&piece);
        }
        hash.push(b'}');
        stored.extend_from_slice(b"}\n");
        (hash, stored)
    }

    /// Parses `entry.json` bytes; `what` names the source in errors.
    pub fn parse(bytes: &[u8], what: &str) -> Result<Entry> {
        serde_json::from_slice(bytes)
            .map_err(|e| Error::input(format!("{} does not parse as a pledge ledger entry", what)).caused_by(e))
    }
}

/// Whether RFC 8785 keeps every number of `v` exactly: JCS writes each number as the IEEE 754
/// double it denotes, so an integer beyond ±2^53 (e.g. a 64-bit seed) would be rounded and the
/// hash would not cover its exact value. Entries holding one keep pledge's original form.
pub fn jcs_exact(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    const LIMIT: u64 = 1 << 53;
    match v {
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u <= LIMIT,
            (None, Some(i)) => i.unsigned_abs() <= LIMIT,
            _ => true,
        },
        Value::Array(a) => a.iter().all(jcs_exact),
        Value::Object(m) => m.values().all(jcs_exact),
        _ => true,
    }
}

/// Compact JSON with object keys sorted by byte order at every level, written explicitly so the
/// canonical form does not depend on serde_json's `preserve_order` feature being off.
pub fn canonical_json(v: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            out.push(b'{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(&Value::String((*k).clone()), out);
                out.push(b':');
                if let Some(x) = m.get(k.as_str()) {
                    write_canonical(x, out);
                }
            }
            out.push(b'}');
        }
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(x, out);
            }
            out.push(b']');
        }
        scalar => out.extend(serde_json::to_vec(scalar).unwrap_or_default()),
    }
}

/// An entry with the git commit that holds it and its stored side files.
#[derive(Debug, Clone)]
pub struct StoredEntry {
    /// The parsed entry.
    pub entry: Entry,
    /// Raw bytes of `entry.json`.
    pub entry_bytes: Vec<u8>,
    /// The ledger commit id (hex).
    pub commit: String,
    /// Parent commit ids (hex) as stored.
    pub parents: Vec<String>,
    /// `result.json` bytes, if stored.
    pub result: Option<Vec<u8>>,
    /// `protocol.toml` text, if stored.
    pub protocol_text: Option<String>,
}

impl crate::records::Stored for StoredEntry {
    fn seq(&self) -> u64 {
        self.entry.seq
    }
    fn kind_name(&self) -> &str {
        self.entry.kind.as_str()
    }
    fn summary(&self) -> &serde_json::Value {
        &self.entry.summary
    }
    fn result_bytes(&self) -> Option<&[u8]> {
        self.result.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Entry {
        Entry {
            seq: 1,
            kind: EntryKind::Register,
            time: "2026-11-30T12:00:00Z".into(),
            prev_sha256: GENESIS.into(),
            study_id: "s".into(),
            protocol_sha256: Some("ab".into()),
            protocol_path: Some("p.toml".into()),
            amends: None,
            inputs: BTreeMap::new(),
            result_sha256: None,
            tool: Tool {
                name: "pledge".into(),
                version: "0.1.0".into(),
            },
            rng: None,
            reason: None,
            data_access: DataAccess::NothingRun,
            git_head: None,
            summary: serde_json::json!({"z": 1, "a": [{"y": 0.5, "b": "é"}]}),
            canonical: None,
            clock: None,
            entry_sha256: String::new(),
        }
    }

    #[test]
    fn canonical_form_sorts_keys_and_drops_the_hash() {
        let e = sample();
        let c = String::from_utf8(e.canonical_bytes()).unwrap();
        assert_eq!(
            c,
            concat!(
                r#"{"amends":null,"data_access":"nothing-run","git_head":null,"inputs":{},"kind":"register","#,
                r#""prev_sha256":"0000000000000000000000000000000000000000000000000000000000000000","#,
                r#""protocol_path":"p.toml","protocol_sha256":"ab","reason":null,"result_sha256":null,"rng":null,"#,
                r#""seq":1,"study_id":"s","summary":{"a":[{"b":"é","y":0.5}],"z":1},"#,
                r#""time":"2026-11-30T12:00:00Z","tool":{"name":"pledge","version":"0.1.0"}}"#
            )
        );
        // Hand check: sha256 of exactly these bytes.
        assert_eq!(e.compute_sha256(), crate::io::sha256_hex(c.as_bytes()));
    }

    #[test]
    fn both_forms_at_once_are_the_two_forms() {
        let mut e = sample();
        e.entry_sha256 = e.compute_sha256();
        assert_eq!(e.canonical_and_stored_bytes(), (e.canonical_bytes(), e.stored_bytes()));
        e.summary = serde_json::json!({"mean": 0.0, "delta": 5e-1, "é": {"z": [1, "\u{1F600}"], "a": null}, "ﬀ": 1});
        e.reason = Some("tab\there \"quoted\"".into());
        for canonical in [None, Some(CanonicalForm::Jcs)] {
            e.canonical = canonical;
            e.entry_sha256 = e.compute_sha256();
            let (hash, stored) = e.canonical_and_stored_bytes();
            assert_eq!(hash, e.canonical_bytes());
            assert_eq!(stored, e.stored_bytes());
            assert_eq!(crate::io::sha256_hex(&hash), e.entry_sha256);
        }
    }

    #[test]
    fn stored_bytes_round_trip() {
        let mut e = sample();
        e.entry_sha256 = e.compute_sha256();
        let b = e.stored_bytes();
        assert_eq!(b.last(), Some(&b'\n'));
        let back = Entry::parse(&b, "test").unwrap();
        assert_eq!(back, e);
        assert_eq!(back.stored_bytes(), b);
        assert!(Entry::parse(b"{}", "x").is_err());
    }

    /// A JCS entry: the hash is over RFC 8785 bytes (`0.0` written `0`), and a rewrite by a
    /// standard JSON tool that keeps the values (whitespace, key order, `\u` escapes, `0` as
    /// `0.0`, `0.5` as `5e-1`) parses back to an entry with the same hash.
    #[test]
    fn jcs_entries_keep_their_hash_through_value_preserving_rewrites() {
        let mut e = sample();
        e.summary = serde_json::json!({"mean": 0.0, "delta": 0.5, "name": "é"});
        e.canonical = Some(CanonicalForm::Jcs);
        e.entry_sha256 = e.compute_sha256();
        let c = String::from_utf8(e.canonical_bytes()).unwrap();
        assert!(c.contains(r#""canonical":"jcs""#), "{}", c);
        assert!(c.contains(r#""summary":{"delta":0.5,"mean":0,"name":"é"}"#), "{}", c);
        assert_eq!(e.entry_sha256, crate::io::sha256_hex(c.as_bytes()));
        assert_eq!(
            e.entry_sha256,
            crate::ledger::jcs::sha256_hex(&{
                let mut v = serde_json::to_value(&e).unwrap();
                v.as_object_mut().unwrap().remove("entry_sha256");
                v
            })
            .unwrap()
        );
        let stored = String::from_utf8(e.stored_bytes()).unwrap();
        let rewritten = serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&stored).unwrap())
            .unwrap()
            .replace(r#""mean": 0"#, r#""mean": 0.0"#)
            .replace(r#""delta": 0.5"#, r#""delta": 5e-1"#)
            .replace('é', "\\u00e9");
        assert!(
            rewritten.contains("0.0") && rewritten.contains("\\u00e9"),
            "{}",
            rewritten
        );
        let back = Entry::parse(rewritten.as_bytes(), "rewritten").unwrap();
        assert_eq!(back.compute_sha256(), e.entry_sha256);
        assert_eq!(back.stored_bytes(), e.stored_bytes());
        // An entry of the original form keeps its original hash (no `canonical` key written).
        let old = sample();
        assert!(!String::from_utf8(old.canonical_bytes()).unwrap().contains("canonical"));
        assert!(String::from_utf8(old.canonical_bytes()).unwrap().contains(r#""y":0.5"#));
    }

    #[test]
    fn integers_beyond_two_to_the_53_are_not_jcs_exact() {
        use serde_json::json;
        assert!(jcs_exact(&json!({"a": [1, 2.5, -3, 9007199254740992u64]})));
        assert!(!jcs_exact(&json!({"rng": {"seed": 9007199254740993u64}})));
        assert!(!jcs_exact(&json!([-9007199254740993i64])));
        assert!(jcs_exact(&json!(1e300)));
    }

    #[test]
    fn a_fixed_clock_is_recorded_and_an_absent_one_keeps_the_old_form() {
        let mut e = sample();
        let old = e.compute_sha256();
        e.clock = Some(ClockSource::Fixed);
        let c = String::from_utf8(e.canonical_bytes()).unwrap();
        assert!(
            c.starts_with(r#"{"amends":null,"clock":"fixed","data_access""#),
            "{}",
            c
        );
        assert_ne!(e.compute_sha256(), old);
        e.entry_sha256 = e.compute_sha256();
        assert_eq!(
            Entry::parse(&e.stored_bytes(), "t").unwrap().clock,
            Some(ClockSource::Fixed)
        );
    }
}
