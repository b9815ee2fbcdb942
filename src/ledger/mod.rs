//! The append-only, hash-chained ledger, stored in the user's git repository on the ref
//! [`LEDGER_REF`], one commit per entry, never touching the user's branch, index or work tree.
//!
//! Each ledger commit's tree holds `entry.json` (see [`entry`] for the canonical form), and where
//! present `result.json` (the full result whose SHA-256 the entry records) and `protocol.toml`
//! (the registered protocol text, on register and amend). The commit's parent is the previous
//! entry's commit, and its message ends with `entry_sha256 HASH`. Appends are atomic and safe
//! against concurrent writers: the new commit is built off the current tip and the ref is moved
//! with a compare-and-swap under libgit2's ref lock file (`refs/pledge/ledger.lock`); a writer
//! that lost the race rebuilds on the new tip (re-running its checks) and tries again. A process
//! killed mid-append leaves at most unreferenced objects: the ref still names the old, valid tip.
//! Every append holds the OS advisory lock of [`lock`] for its whole duration, so a ref lock file
//! found under it was left by a killed process: it is removed, with a note
//! ([`Ledger::take_notes`]), instead of blocking every later append.
//!
//! Entries can be witnessed by a Time-Stamping Authority (`timestamp` entries holding RFC 3161
//! tokens, see [`tsa`]) and their commits signed with an SSH key ([`signer`], [`sshsig`]);
//! [`witness`] checks both at verification.
//!
//! Appends prepare their checks from a tip-keyed index of the ledger's state ([`Snapshot`],
//! [`Ledger::snapshot`]), so they cost the same at any ledger length.
//!
//! [`verify`] checks a ledger copy, [`export`] writes and verifies the portable JSON Lines form,
//! [`publish()`] pushes the ledger to (and fetches it back from) another local repository.
//!
//! **Object ids and libgit2's re-hash.** libgit2 re-hashes every object it reads against its id
//! (collision-detecting SHA-1); git itself does so only in `fsck`. What of `verify` rests on
//! that: each entry is bound by SHA-256 to the commit message that names its `entry_sha256`,
//! `result.json` and `protocol.toml` by the hashes in the entry, the entries to each other by
//! `prev_sha256`, and a commit signature covers the raw commit bytes as read. None of these needs
//! the SHA-1 check. But the commit objects themselves, and so the tip's message and the chain
//! from it, are bound to their ids only by that check: `verify --expect-tip ID` and `verify
//! --remote` compare ids and trust that an id covers its content, and the append index trusts
//! the same. So `verify`, appends and `publish` keep libgit2's check on. `log` (it shows entries
//! as stored, as `git log` does, and claims nothing) and `export` (the export carries every id
//! with the content, and `verify --ledger FILE` recomputes each commit and tree id from it, so an
//! object whose content does not match its id shows there as `commit-id-mismatch`) turn it and
//! libgit2's object cache off: the process-wide setting is made only by the CLI layer
//! (`cli/ledger.rs`, `UncheckedReads`), never by the library.

mod append;
mod chain;
pub mod clock;
pub mod entry;
pub mod export;
mod finding;
mod index;
pub mod log;
mod opening;
pub mod publish;
mod records;
pub mod review;
pub mod rules;
pub mod signer;
mod store;
pub mod verify;
pub mod witness;
// Witnessed time, signatures, portable hashes and the append lock (leaf modules).
pub mod gitobj;
pub mod jcs;
pub mod lock;
pub mod sshsig;
pub mod tsa;

pub use entry::{
    hashes_of, AccessLevels, ClockSource, DataAccess, Draft, Entry, EntryKind, InputKey, InputRole, Inputs,
    NoteSummary, RngInfo, StoredEntry, Tool, GENESIS,
};
pub use export::{export_jsonl, export_to, verify_export, ExportLine, ExportSummary, EXPORT_FORMAT, EXPORT_FORMAT_V1};
pub use finding::{Finding, FindingCode};
pub use index::Snapshot;
pub use log::{log, LogItem};
pub use publish::{fetch_published, publish, resolve_remote, verify_remote, PublishReport, Remote};
pub use signer::CommitSigner;
pub use store::{AppendStep, Ledger};
pub use verify::{verify_at, verify_ledger, verify_ref, CheckStatus, ProtocolCheck, RemoteCheck, VerifyReport};

/// The ref holding the ledger's tip commit.
pub const LEDGER_REF: &str = "refs/pledge/ledger";

/// The refspec that fetches every ref under `refs/pledge/` (the ledger) into the same names:
/// git fetches only branches and tags unless told.
pub const LEDGER_REFSPEC: &str = "refs/pledge/*:refs/pledge/*";
