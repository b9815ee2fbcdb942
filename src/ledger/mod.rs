//! The append-only, hash-chained ledger, stored in the user's git repository on the ref
//! [`LEDGER_REF`], one commit per entry, never touching the user's branch, index or work tree.
//!
//! Each ledger commit's tree holds `entry.json` (see [`entry`] for the canonical form), and where
//! present `result.json` (the full result whose SHA-256 the entry records) and `protocol.toml`
//! (the registered protocol text, on register and amend). The commit's parent is the previous
//! entry's commit. Appends are atomic and safe against concurrent writers: the new commit is built
//! off the current tip and the ref is moved with a compare-and-swap under libgit2's ref lock
//! file (`refs/pledge/ledger.lock`); a writer that lost the race rebuilds on the new tip and tries
//! again. A process killed mid-append leaves at most unreferenced objects: the ref still names the
//! old, valid tip.

pub mod entry;
mod store;

pub use entry::{DataAccess, Draft, Entry, EntryKind, RngInfo, Tool, GENESIS};
pub use store::{Ledger, StoredEntry, LEDGER_REF};
