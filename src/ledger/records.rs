//! The raw material verification works on: one [`Record`] per ledger commit (or export line),
//! read without trusting it, so that a malformed entry becomes a finding instead of an error.

use super::entry::Entry;
use super::store::Ledger;
use crate::error::{Error, Result};
use git2::{ObjectType, Oid};

/// One ledger entry as found, before any check.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// Where it was found, for messages: `commit 1a2b3c4` or `line 3`.
    pub at: String,
    /// The commit id (hex), where known.
    pub commit: Option<String>,
    /// Parent commit ids (hex) as stored.
    pub parents: Vec<String>,
    /// The parsed entry, or why it does not parse.
    pub entry: std::result::Result<Entry, String>,
    /// The exact bytes of `entry.json`, when the source keeps them (git does, an export does not).
    pub entry_bytes: Option<Vec<u8>>,
    /// Bytes of `result.json`, if present.
    pub result: Option<Vec<u8>>,
    /// Bytes of `protocol.toml`, if present.
    pub protocol: Option<Vec<u8>>,
    /// Names of other files in the commit's tree.
    pub other_files: Vec<String>,
    /// The `entry_sha256` the commit message names, where there is one.
    pub message_sha: Option<String>,
    /// (export) The raw commit object (header lines, empty line, message) the line carries, from
    /// which its commit id is recomputed.
    pub commit_raw: Option<Vec<u8>>,
}

impl Record {
    /// A record found at `at` holding `entry`, with nothing else known yet.
    pub fn new(at: String, entry: std::result::Result<Entry, String>) -> Record {
        Record {
            at,
            commit: None,
            parents: vec![],
            entry,
            entry_bytes: None,
            result: None,
            protocol: None,
            other_files: vec![],
            message_sha: None,
            commit_raw: None,
        }
    }

    /// The entry's sequence number, if the entry parsed.
    pub fn seq(&self) -> Option<u64> {
        self.entry.as_ref().ok().map(|e| e.seq)
    }
}

/// Reads the records of the chain ending at commit `tip`, first to last, following first
/// parents, each with its raw commit object. Errors (exit 70): the repository cannot be read,
/// or `tip` is not a commit.
///
/// The records of the last tip read are kept by the [`Ledger`] handle (a commit id covers its
/// whole history, and objects are read with their ids checked), so the checks of one command
/// (the chain, tokens and signatures, deviations) read the chain once.
pub(crate) fn git_records(ledger: &Ledger, tip: Oid) -> Result<std::sync::Arc<Vec<Record>>> {
    if let Some(hit) = ledger.memo_records(tip) {
        return Ok(hit);
    }
    let records = std::sync::Arc::new(read_records(ledger, tip)?);
    ledger.remember_records(tip, records.clone());
    Ok(records)
}

fn read_records(ledger: &Ledger, tip: Oid) -> Result<Vec<Record>> {
    let repo = ledger.repo();
    let odb = repo.odb().map_err(|e| Error::git("opening the object database", e))?;
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(oid) = next {
        let commit = match repo.find_commit(oid) {
            Ok(c) => c,
            Err(e) => match repo.find_object(oid, None).ok().and_then(|o| o.kind()) {
                // A ref (or parent) naming a blob or tree: a malformed ledger, reported as such.
                Some(kind) if kind != ObjectType::Commit => {
                    out.push(Record {
                        commit: Some(oid.to_string()),
                        ..Record::new(
                            format!("object {}", crate::text::short(&oid.to_string(), 7)),
                            Err(format!("the ledger names a {}, not a commit", kind)),
                        )
                    });
                    break;
                }
                _ => return Err(Error::git(format!("reading ledger commit {}", oid), e)),
            },
        };
        let raw = odb
            .read(oid)
            .map_err(|e| Error::git(format!("reading ledger commit {}", oid), e))?
            .data()
            .to_vec();
        let tree = commit
            .tree()
            .map_err(|e| Error::git(format!("reading the tree of ledger commit {}", oid), e))?;
        let mut rec = Record {
            at: format!("commit {}", crate::text::short(&oid.to_string(), 7)),
            commit: Some(oid.to_string()),
            parents: commit.parent_ids().map(|p| p.to_string()).collect(),
            entry: Err("the commit has no entry.json".into()),
            entry_bytes: None,
            result: None,
            protocol: None,
            other_files: vec![],
            message_sha: commit
                .message()
                .and_then(|m| m.lines().find_map(|l| l.strip_prefix("entry_sha256 ")))
                .map(|s| s.trim().to_string()),
            commit_raw: Some(raw),
        };
        for item in tree.iter() {
            let name = item.name().unwrap_or("?").to_string();
            let blob = match item.kind() {
                Some(ObjectType::Blob) => odb.read(item.id()).ok().map(|o| o.data().to_vec()),
                _ => None,
            };
            match (name.as_str(), blob) {
                ("entry.json", Some(b)) => {
                    rec.entry = serde_json::from_slice::<Entry>(&b).map_err(|e| e.to_string());
                    rec.entry_bytes = Some(b);
                }
                ("result.json", Some(b)) => rec.result = Some(b),
                ("protocol.toml", Some(b)) => rec.protocol = Some(b),
                _ => rec.other_files.push(name),
            }
        }
        next = commit.parent_id(0).ok();
        out.push(rec);
    }
    out.reverse();
    Ok(out)
}
