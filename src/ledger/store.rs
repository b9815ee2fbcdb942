//! Git storage of the ledger through git2.

use super::clock::{Clocks, Dated};
use super::entry::{ClockSource, Draft, Entry, EntryKind, Tool, GENESIS};
use super::index::Snapshot;
use super::opening::{open_error, Opening};
use super::records::Unreadable;
use super::signer::CommitSigner;
use crate::error::{Error, GitError, Result};
use chrono::{DateTime, SecondsFormat, Utc};
use git2::{ErrorCode, Oid, Repository, Signature, Time};
use std::path::{Path, PathBuf};

/// The ref holding the ledger's tip commit.
pub const LEDGER_REF: &str = "refs/pledge/ledger";

/// The refspec that fetches every ref under `refs/pledge/` (the ledger) into the same names:
/// git fetches only branches and tags unless told.
pub const LEDGER_REFSPEC: &str = "refs/pledge/*:refs/pledge/*";

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

/// A handle on the ledger of one git repository.
pub struct Ledger {
    repo: Repository,
    /// Sentences about what appends did besides appending (a stale ref lock removed), taken
    /// by [`Ledger::take_notes`].
    notes: std::cell::RefCell<Vec<String>>,
    /// How entries are dated (see [`Ledger::set_clock`], [`Ledger::set_system_clock`],
    /// [`Ledger::set_clock_correction`]).
    clocks: Clocks,
    /// Signs every commit this handle writes (see [`Ledger::set_signer`]).
    signer: Option<CommitSigner>,
    /// Append onto a ledger whose chain has findings (see [`Ledger::set_accept_findings`]).
    accept_findings: bool,
    /// Told each step of every append (see [`Ledger::set_step_hook`]).
    step_hook: Option<fn(AppendStep)>,
    /// The records of the last chain read, by tip (see `records::git_records`).
    records_memo: std::cell::RefCell<Option<(Oid, std::sync::Arc<Vec<super::records::Record>>)>>,
}

/// A step of an append, as [`Ledger::set_step_hook`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendStep {
    /// The entries are drafted and checked, under the append lock; nothing is written yet.
    Drafted,
    /// Their commits (and blobs and trees) are written, the ledger ref not yet moved.
    Written,
    /// The ledger ref names the new tip; the caches (`.git/pledge/index.json`, the verified
    /// tip) are not yet updated.
    Moved,
}

/// How long an append waits for another pledge process's append lock before giving up.
const APPEND_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl Ledger {
    /// Opens the ledger of the git repository enclosing `dir`.
    ///
    /// Errors: `dir` is not inside a git repository (exit 2, hint: `pledge init`); the
    /// repository is a SHA-256 one (exit 2), belongs to another user (git's "dubious
    /// ownership", exit 74, with the `safe.directory` hint) or cannot be read (exit 74).
    pub fn open(dir: &Path) -> Result<Ledger> {
        let repo = Repository::discover(dir).map_err(|e| {
            open_error(&e, dir, Opening::Discover).unwrap_or_else(|| {
                Error::input(format!("{} is not inside a git repository", dir.display()))
                    .caused_by(e.message().to_string())
                    .with_hint("run `pledge init` to create one, or change to your project's directory")
            })
        })?;
        Ok(Ledger::wrap(repo))
    }

    /// Opens the ledger as git would from `dir` with `GIT_DIR` set to `git_dir` and
    /// `GIT_WORK_TREE` to `work_tree` (each `None` when unset; relative paths are resolved
    /// against `dir`): with a git dir, that repository is opened (no discovery), its work tree
    /// being `work_tree` when given; without one, as [`Ledger::open`].
    ///
    /// Errors (exit 2): `git_dir` is not a git repository; as [`Ledger::open`].
    pub fn open_env(dir: &Path, git_dir: Option<&Path>, work_tree: Option<&Path>) -> Result<Ledger> {
        let Some(gd) = git_dir else {
            return Ledger::open(dir);
        };
        let gd = dir.join(gd);
        let repo = Repository::open(&gd).map_err(|e| {
            open_error(&e, &gd, Opening::GitDir).unwrap_or_else(|| {
                Error::input(format!("GIT_DIR={} is not a git repository", gd.display()))
                    .caused_by(e.message().to_string())
                    .with_hint("unset GIT_DIR, or point it at a repository's .git directory")
            })
        })?;
        if let Some(wt) = work_tree {
            repo.set_workdir(&dir.join(wt), false)
                .map_err(|e| Error::git(format!("using GIT_WORK_TREE={}", wt.display()), e))?;
        }
        Ok(Ledger::wrap(repo))
    }

    /// Uses the git repository enclosing `dir`, or creates one at `dir`. Returns the ledger and
    /// whether a repository was created.
    ///
    /// Errors: a SHA-256 repository encloses `dir` (exit 2: the ledger cannot be kept there);
    /// it belongs to another user or cannot be read (exit 74, as [`Ledger::open`]); the new
    /// repository cannot be created (exit 73 when the file system refuses).
    pub fn init(dir: &Path) -> Result<(Ledger, bool)> {
        match Repository::discover(dir) {
            Ok(repo) => Ok((Ledger::wrap(repo), false)),
            Err(e) => {
                if let Some(err) = open_error(&e, dir, Opening::Init) {
                    return Err(err);
                }
                let repo = Repository::init(dir)
                    .map_err(|e| Error::git(format!("creating a git repository in {}", dir.display()), e))?;
                Ok((Ledger::wrap(repo), true))
            }
        }
    }

    /// A ledger handle on an opened repository (e.g. a published copy read in place).
    pub(crate) fn from_repository(repo: Repository) -> Ledger {
        Ledger::wrap(repo)
    }

    fn wrap(repo: Repository) -> Ledger {
        Ledger {
            repo,
            notes: Default::default(),
            clocks: Clocks::default(),
            signer: None,
            accept_findings: false,
            step_hook: None,
            records_memo: Default::default(),
        }
    }

    /// The records read last, if they are those of the chain ending at `tip`.
    pub(crate) fn memo_records(&self, tip: Oid) -> Option<std::sync::Arc<Vec<super::records::Record>>> {
        match &*self.records_memo.borrow() {
            Some((t, r)) if *t == tip => Some(r.clone()),
            _ => None,
        }
    }

    /// Keeps the records of the chain ending at `tip` for the next reader.
    pub(crate) fn remember_records(&self, tip: Oid, records: std::sync::Arc<Vec<super::records::Record>>) {
        *self.records_memo.borrow_mut() = Some((tip, records));
    }

    /// What appends through this handle did besides appending, one sentence each (e.g. a ref
    /// lock left by a killed process was removed), emptied by the call.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.borrow_mut())
    }

    /// The repository's work tree root (or git dir for a bare repository).
    pub fn root(&self) -> PathBuf {
        self.repo.workdir().unwrap_or_else(|| self.repo.path()).to_path_buf()
    }

    /// How an input path is recorded: relative to the repository root with `/` separators when
    /// the file lies inside it, else absolute.
    pub fn relative(&self, p: &Path) -> String {
        let root = self.root();
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        match abs.strip_prefix(&root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    }

    /// Records `clock` in every entry this handle writes from now on: `Some(ClockSource::Fixed)`
    /// when the time passed to the appends is the user's fixed clock (`PLEDGE_NOW`), so that
    /// `verify` and the report can disclose that the entry's time was declared, not read.
    pub fn set_clock(&mut self, clock: Option<ClockSource>) {
        self.clocks.fixed = clock == Some(ClockSource::Fixed);
    }

    /// Reads the system clock with `now` when dating entries: each append reads it after taking
    /// the append lock (so an append that waited for another is never dated before it), and an
    /// entry is never dated more than [`super::clock::MAX_CLOCK_SKEW_SECS`] after it (see
    /// [`super::clock`]). Only `main` passes one (`chrono::Utc::now`); without, the time passed to
    /// the appends is used as is.
    pub fn set_system_clock(&mut self, now: Option<fn() -> DateTime<Utc>>) {
        self.clocks.system = now;
    }

    /// Makes the appends of this handle record a clock correction (`"clock": "corrected"`, dated
    /// by the system clock): allowed only when the ledger's last entry is dated more than the
    /// allowed skew after the system clock, which otherwise blocks every append (see
    /// [`super::clock`]).
    pub fn set_clock_correction(&mut self, correct: bool) {
        self.clocks.correct = correct;
    }

    /// Signs every ledger commit this handle writes from now on with `signer` (an SSH signature
    /// in the commit's `gpgsig` header, as git writes it for `gpg.format = ssh`); `None` writes
    /// unsigned commits.
    pub fn set_signer(&mut self, signer: Option<CommitSigner>) {
        self.signer = signer;
    }

    /// Whether this handle signs the commits it writes ([`Ledger::set_signer`]).
    pub fn signs(&self) -> bool {
        self.signer.is_some()
    }

    /// The raw object of commit `id` (hex), as `git cat-file commit` prints it: what a commit
    /// signature covers (after its signature header is removed).
    ///
    /// Errors (exit 70): the object cannot be read or is not a commit.
    pub fn raw_commit(&self, id: &str) -> Result<Vec<u8>> {
        let g = |e| Error::git(format!("reading ledger commit {}", id), e);
        let oid = Oid::from_str(id).map_err(g)?;
        let odb = self.repo.odb().map_err(g)?;
        let obj = odb.read(oid).map_err(g)?;
        if obj.kind() != git2::ObjectType::Commit {
            return Err(Error::internal(format!("ledger object {} is not a commit", id)));
        }
        Ok(obj.data().to_vec())
    }

    /// The underlying repository (for publish and verification code).
    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    /// The ledger tip commit, if the ledger has any entry.
    ///
    /// Errors: the ref exists but names no object id (a damaged ref file; exit 2, with a hint);
    /// the repository cannot be read (exit 70).
    pub fn tip(&self) -> Result<Option<Oid>> {
        match self.repo.refname_to_id(LEDGER_REF) {
            Ok(oid) => Ok(Some(oid)),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) if e.class() == git2::ErrorClass::Reference => {
                Err(Error::input(format!("{} cannot be read", LEDGER_REF))
                    .caused_by(GitError(e))
                    .with_hint(self.broken_ref_hint()))
            }
            Err(e) => Err(Error::git("reading the ledger ref", e)),
        }
    }

    /// The remote a hint names: the only one when the repository has exactly one; `origin` when
    /// it is one of several, else the first; `URL` (to be filled in) when there is none.
    pub fn hint_remote(&self) -> String {
        let remotes: Vec<String> = self
            .repo
            .remotes()
            .map(|r| r.iter().flatten().map(str::to_string).collect())
            .unwrap_or_default();
        match remotes.as_slice() {
            // No remote to name: the place of a complete copy, for the user to fill in.
            [] => "URL".to_string(),
            [one] => one.clone(),
            many if many.iter().any(|r| r == "origin") => "origin".to_string(),
            [first, ..] => first.clone(),
        }
    }

    /// The hint for a ledger ref that names no object id. git refuses to update or delete such a
    /// ref (`reference broken`), so its loose file is removed by hand first; then the published
    /// ledger is fetched again, or the ref set to the tip.
    pub fn broken_ref_hint(&self) -> String {
        let file = self.repo.commondir().join(LEDGER_REF);
        let remove = if file.is_file() {
            format!("remove the damaged ref file ({}), then ", file.display())
        } else {
            String::new()
        };
        format!(
            "{}fetch the published ledger again with `git fetch {} '{}'`, or point the ref at the ledger's tip commit with `git update-ref {} COMMIT`; then run `pledge verify`",
            remove,
            self.hint_remote(),
            LEDGER_REFSPEC,
            LEDGER_REF
        )
    }

    /// The hint for a ledger whose objects (commits, trees, files) the repository cannot give:
    /// in a shallow repository, fetch the rest of the history; else fetch the ledger's objects
    /// again (`--refetch`: a plain fetch of an up-to-date ref fetches nothing) from a complete
    /// copy. Both end with `pledge verify`.
    pub fn unreadable_hint(&self) -> String {
        if self.repo.is_shallow() {
            format!(
                "this repository is shallow, so the ledger's history is cut: fetch the rest with `git fetch --unshallow {} '{}'`, then run `pledge verify`",
                self.hint_remote(),
                LEDGER_REFSPEC
            )
        } else {
            format!(
                "objects of the ledger are missing or damaged here (`git fsck` lists them): fetch them again from a complete copy with `git fetch --refetch {} '{}'`, then run `pledge verify`",
                self.hint_remote(),
                LEDGER_REFSPEC
            )
        }
    }

    /// The error (exit 2) for a ledger object that cannot be read: `WHAT cannot be read`, caused
    /// by why, with [`Ledger::unreadable_hint`].
    pub(crate) fn unreadable_error(&self, u: &Unreadable) -> Error {
        Error::input(format!("{} cannot be read", u.what))
            .caused_by(u.why.clone())
            .with_hint(self.unreadable_hint())
    }

    /// The error for `e`, met reading `what` (an object of ledger commit `oid`): a missing or
    /// damaged object is [`Ledger::unreadable_error`] (exit 2), a commit id naming another kind
    /// of object bad input too, anything else a git failure (exit 70).
    fn object_error(&self, oid: Oid, what: String, e: git2::Error) -> Error {
        if let Some(kind) = self.repo.find_object(oid, None).ok().and_then(|o| o.kind()) {
            if kind != git2::ObjectType::Commit {
                return Error::input(format!("ledger commit {} is a {}, not a commit", oid, kind))
                    .with_hint("run `pledge verify` to see every problem of the ledger");
            }
        }
        if let Err(denied) = super::records::objects_readable(&self.repo) {
            return denied;
        }
        match Unreadable::from_git(what.clone(), &e) {
            Some(u) => self.unreadable_error(&u),
            None => Error::git(format!("reading {}", what), e),
        }
    }

    /// All entries from the first to the tip, following first parents from the ref named
    /// `refname` (normally [`LEDGER_REF`]). Malformed entries are an error; verification code
    /// that wants to report them as findings walks commits itself.
    pub fn entries_at(&self, refname: &str) -> Result<Vec<StoredEntry>> {
        match self.repo.refname_to_id(refname) {
            Ok(oid) => self.entries_from(oid),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(vec![]),
            Err(e) => Err(Error::git("reading the ledger ref", e)),
        }
    }

    /// All entries from the first to the one in commit `tip`, following first parents.
    ///
    /// Errors: a commit without `entry.json`, or whose entry does not parse (exit 2); git
    /// failures (exit 70).
    pub fn entries_from(&self, tip: Oid) -> Result<Vec<StoredEntry>> {
        self.entries_where(tip, |_| true)
    }

    /// The entries of [`LEDGER_REF`] of `kind`, first to last (as [`Ledger::entries`] filtered,
    /// without copying the others). Errors: as [`Ledger::entries_from`].
    pub fn entries_of_kind(&self, kind: EntryKind) -> Result<Vec<StoredEntry>> {
        match self.tip()? {
            Some(tip) => self.entries_where(tip, |r| r.entry.as_ref().map_or(true, |e| e.kind == kind)),
            None => Ok(vec![]),
        }
    }

    /// [`Ledger::entries_from`] of the records `keep` takes (a record whose entry does not parse
    /// must be taken for its error to stand).
    fn entries_where(&self, tip: Oid, keep: impl Fn(&super::records::Record) -> bool) -> Result<Vec<StoredEntry>> {
        let records = super::records::git_records(self, tip)?;
        records
            .iter()
            .filter(|r| keep(r) || !r.unreadable.is_empty())
            .map(|r| {
                if let Some(u) = r.unreadable.first() {
                    return Err(self.unreadable_error(u));
                }
                let commit = r.commit.clone().unwrap_or_default();
                let entry = match (&r.entry, &r.entry_bytes) {
                    (Ok(e), Some(_)) => e.clone(),
                    (Err(why), None) => {
                        return Err(Error::input(format!("ledger {}: not a pledge ledger entry", r.at))
                            .caused_by(why.clone())
                            .with_hint("run `pledge verify` to see every problem of the ledger"))
                    }
                    _ => Entry::parse(
                        r.entry_bytes.as_deref().unwrap_or_default(),
                        &format!("entry.json of ledger commit {}", commit),
                    )
                    .map_err(|e| e.with_hint("run `pledge verify` to see every problem of the ledger"))?,
                };
                Ok(StoredEntry {
                    entry,
                    entry_bytes: r.entry_bytes.clone().unwrap_or_default(),
                    commit,
                    parents: r.parents.clone(),
                    result: r.result.clone(),
                    protocol_text: r.protocol.clone().and_then(|b| String::from_utf8(b).ok()),
                })
            })
            .collect()
    }

    /// All entries of [`LEDGER_REF`], first to last.
    pub fn entries(&self) -> Result<Vec<StoredEntry>> {
        self.entries_at(LEDGER_REF)
    }

    /// Reads the entry stored in ledger commit `oid`.
    ///
    /// Errors: the commit, its tree or one of its files is missing or damaged, it holds no
    /// `entry.json`, or that does not parse (exit 2, with a hint); git failures (exit 70).
    pub fn read_commit(&self, oid: Oid) -> Result<StoredEntry> {
        let (commit, tree) = self.commit_and_tree(oid)?;
        let blob = |name: &str| -> Result<Option<Vec<u8>>> { self.tree_blob(oid, &tree, name) };
        let entry_bytes = blob("entry.json")?.ok_or_else(|| no_entry_json(oid))?;
        let entry = Entry::parse(&entry_bytes, &format!("entry.json of ledger commit {}", oid))
            .map_err(|e| e.with_hint("run `pledge verify` to see every problem of the ledger"))?;
        Ok(StoredEntry {
            entry,
            entry_bytes,
            commit: oid.to_string(),
            parents: commit.parent_ids().map(|p| p.to_string()).collect(),
            result: blob("result.json")?,
            protocol_text: blob("protocol.toml")?.and_then(|b| String::from_utf8(b).ok()),
        })
    }

    /// Ledger commit `oid` and its tree, through libgit2. Errors: as [`Ledger::object_error`].
    fn commit_and_tree(&self, oid: Oid) -> Result<(git2::Commit<'_>, git2::Tree<'_>)> {
        let commit = self
            .repo
            .find_commit(oid)
            .map_err(|e| self.object_error(oid, format!("ledger commit {}", oid), e))?;
        let tree = commit.tree().map_err(|e| {
            self.object_error(
                oid,
                format!(
                    "the tree {} of ledger commit {}",
                    crate::text::short(&commit.tree_id().to_string(), 7),
                    oid
                ),
                e,
            )
        })?;
        Ok((commit, tree))
    }

    /// The content of file `name` of `tree` (of ledger commit `oid`), `None` when it has no such
    /// blob. Errors: the blob is missing or damaged (exit 2, as [`Ledger::object_error`]).
    fn tree_blob(&self, oid: Oid, tree: &git2::Tree<'_>, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(ent) = tree.get_name(name).filter(|t| t.kind() == Some(git2::ObjectType::Blob)) else {
            return Ok(None);
        };
        match self
            .repo
            .odb()
            .and_then(|odb| odb.read(ent.id()).map(|o| o.data().to_vec()))
        {
            Ok(b) => Ok(Some(b)),
            Err(e) => Err(self.object_error(
                oid,
                format!(
                    "{} (blob {}) of ledger commit {}",
                    name,
                    crate::text::short(&ent.id().to_string(), 7),
                    oid
                ),
                e,
            )),
        }
    }

    /// The user's HEAD commit id, if any.
    pub fn head_commit(&self) -> Option<String> {
        self.repo.head().ok().and_then(|h| h.target()).map(|o| o.to_string())
    }

    /// Appends an entry built from `draft` at time `now`, atomically, retrying if another
    /// process appended first. Returns the entry as stored.
    ///
    /// Errors: as [`Ledger::append_with`].
    pub fn append(&self, draft: &Draft, now: DateTime<Utc>) -> Result<Entry> {
        let study = draft.study_id.clone();
        self.append_with(now, &study, |_| Ok(draft.clone()))
    }

    /// Appends the entry that `build` drafts from the ledger as it is (a [`Snapshot`] for
    /// `study`: the latest entry of each kind of the study and of the ledger-wide entries, and
    /// the tip), atomically: `build` is called again on the new tip whenever another writer
    /// moved it first, so a check made in `build` (e.g. "this study is not registered yet")
    /// holds for the entry that lands. An error from `build` aborts without writing anything.
    /// Preparing the append costs the same however long the ledger is (the snapshot comes from
    /// the tip-keyed index of [`Ledger::snapshot`]).
    ///
    /// Errors: whatever `build` returns; the clock's refusals (exit 2: a time far ahead of the
    /// system clock, or behind the ledger's last entry by more than the allowed skew, see
    /// [`super::clock`]); a draft without kind (internal, exit 70); the repository cannot be
    /// written (exit 73) or read (exit 74); another process kept the append lock, or the ref kept
    /// moving, for longer than the retries last (exit 75, with a hint naming the lock file).
    pub fn append_with<F>(&self, now: DateTime<Utc>, study: &str, mut build: F) -> Result<Entry>
    where
        F: FnMut(&Snapshot) -> Result<Draft>,
    {
        let mut out = self.append_many_with(now, study, |snap| Ok(vec![build(snap)?]))?;
        out.pop().ok_or_else(|| Error::internal("an append wrote no entry"))
    }

    /// Appends the entries that `build` drafts (in order) as one atomic step: their commits are
    /// chained on the current tip and the ref moves once, by compare-and-swap, so either all of
    /// them land or none does (a command's deviation and analysis, or its count and assignment,
    /// are never separated). As [`Ledger::append_with`], `build` runs again on the new tip when
    /// another writer moved it first. An empty list writes nothing. A draft without a data-access
    /// level gets the one in force for its study (that of an earlier draft of the batch, else the
    /// ledger's).
    ///
    /// Errors: as [`Ledger::append_with`].
    pub fn append_many_with<F>(&self, now: DateTime<Utc>, study: &str, build: F) -> Result<Vec<Entry>>
    where
        F: FnMut(&Snapshot) -> Result<Vec<Draft>>,
    {
        self.append_many_then(now, study, build, |_| Ok(vec![]))
    }

    /// As [`Ledger::append_many_with`], and in the same compare-and-swap the entries that `then`
    /// drafts from the entries `build`'s drafts became (their final hashes, before the ref
    /// moves), written after them: a registration and the `timestamp` entry holding a TSA token
    /// over its hash land together or not at all. `then` runs again (on new hashes) whenever
    /// `build` does. A draft of `then` without a data-access level gets that of the last entry
    /// of its study just written.
    ///
    /// Errors: as [`Ledger::append_with`], and whatever `then` returns (nothing is written).
    pub fn append_many_then<F, T>(
        &self,
        now: DateTime<Utc>,
        study: &str,
        mut build: F,
        mut then: T,
    ) -> Result<Vec<Entry>>
    where
        F: FnMut(&Snapshot) -> Result<Vec<Draft>>,
        T: FnMut(&[Entry]) -> Result<Vec<Draft>>,
    {
        let with_access = |snap: &Snapshot| -> Result<Vec<Draft>> {
            let mut drafts = build(snap)?;
            for i in 0..drafts.len() {
                if drafts[i].data_access.is_some() {
                    continue;
                }
                // The level in force: that of an earlier draft of the same batch, else the ledger's.
                let id = drafts[i].study_id.clone();
                let earlier = drafts[..i]
                    .iter()
                    .rev()
                    .find(|d| d.study_id == id || d.study_id.is_empty())
                    .and_then(|d| d.data_access);
                drafts[i].data_access = Some(match earlier {
                    Some(a) => a,
                    None => snap.access_in_force(&id)?,
                });
            }
            Ok(drafts)
        };
        let then_with_access = |built: &[Entry]| -> Result<Vec<Draft>> {
            let mut drafts = then(built)?;
            for d in drafts.iter_mut().filter(|d| d.data_access.is_none()) {
                d.data_access = built
                    .iter()
                    .rev()
                    .find(|e| e.study_id == d.study_id || e.study_id.is_empty())
                    .map(|e| e.data_access);
            }
            Ok(drafts)
        };
        self.cas_loop(now, study, with_access, then_with_access)
    }

    /// The first parent of ledger commit `oid`, if any.
    pub(crate) fn first_parent(&self, oid: Oid) -> Option<Oid> {
        self.repo.find_commit(oid).ok().and_then(|c| c.parent_id(0).ok())
    }

    /// Reads only the entry (`entry.json`) of ledger commit `oid`.
    ///
    /// Errors: as [`Ledger::read_commit`].
    pub(crate) fn read_entry(&self, oid: Oid) -> Result<Entry> {
        Ok(self.read_entry_and_parent(oid)?.0)
    }

    /// Reads only the entry (`entry.json`) of ledger commit `oid`, and the commit's first parent.
    ///
    /// Errors: as [`Ledger::read_commit`].
    pub(crate) fn read_entry_and_parent(&self, oid: Oid) -> Result<(Entry, Option<Oid>)> {
        let odb = self
            .repo
            .odb()
            .map_err(|e| Error::git("opening the object database", e))?;
        let parse = |bytes: &[u8]| parse_ledger_entry(oid, bytes);
        if let Some((entry, parent)) = super::records::read_entry_raw(&odb, oid, parse) {
            return Ok((entry?, parent));
        }
        let (commit, tree) = self.commit_and_tree(oid)?;
        let bytes = self
            .tree_blob(oid, &tree, "entry.json")?
            .ok_or_else(|| no_entry_json(oid))?;
        Ok((parse(&bytes)?, commit.parent_id(0).ok()))
    }

    /// The compare-and-swap loop: under the append lock, `make` drafts the entries (with their
    /// data access set) from a snapshot of the tip; they are dated ([`Clocks::date`], the clock
    /// read now, after the lock), written as commits chained on that tip and checked against
    /// the registration rules; `then` drafts the entries that follow them from their final
    /// hashes (a TSA token over a registration), which are written on top; and the ref is moved
    /// to the last one only if it still names the tip, else everything runs again on the new
    /// tip. Nothing is on the ref until the one compare-and-swap: an error or a kill at any step
    /// before it leaves at most unreferenced objects.
    fn cas_loop<F, T>(&self, now: DateTime<Utc>, study: &str, mut make: F, mut then: T) -> Result<Vec<Entry>>
    where
        F: FnMut(&Snapshot) -> Result<Vec<Draft>>,
        T: FnMut(&[Entry]) -> Result<Vec<Draft>>,
    {
        // The OS advisory lock is held for the whole append (released when this returns, or
        // by the OS when the process dies).
        let _lock = self.lock_for_append(now)?;
        for attempt in 0..400u32 {
            let tip = self.tip()?;
            let clean = self.check_chain_at(tip)?;
            let snap = self.snapshot(tip, study)?;
            let mut drafts = make(&snap)?;
            if drafts.is_empty() {
                return Ok(vec![]);
            }
            let dated = self.clocks.date(now, snap.last())?;
            self.step(AppendStep::Drafted);
            let mut written = self.write_drafts(&drafts, tip, snap.last(), &dated)?;
            let mut clean = self.check_new_entries(&snap, &written, &drafts, 0)? && clean;
            let built: Vec<Entry> = written.iter().map(|(e, _)| e.clone()).collect();
            let more = then(&built)?;
            if !more.is_empty() {
                let (prev, parent) = written
                    .last()
                    .cloned()
                    .ok_or_else(|| Error::internal("an append wrote no entry"))?;
                let extra = self.write_drafts(&more, Some(parent), Some(&prev), &dated)?;
                let from = written.len();
                written.extend(extra);
                drafts.extend(more);
                clean = self.check_new_entries(&snap, &written, &drafts, from)? && clean;
            }
            self.step(AppendStep::Written);
            if self.move_ref(tip, &written)? {
                self.step(AppendStep::Moved);
                let new_tip = written.last().map(|(_, oid)| *oid);
                // What this append wrote on a verified tip is verified by construction.
                if let (true, Some(t)) = (clean, new_tip) {
                    self.remember_verified(t);
                }
                self.save_index(&snap.advanced(&written, &drafts));
                self.notes.borrow_mut().extend(dated.note);
                return Ok(written.into_iter().map(|(e, _)| e).collect());
            }
            // Lost the race: back off a little (jitter from the pid) and rebuild.
            std::thread::sleep(std::time::Duration::from_millis(
                2 + (attempt as u64 * 7 + std::process::id() as u64) % 23,
            ));
        }
        Err(
            Error::temp_fail("could not append to the ledger: the ledger ref stayed locked or kept moving").with_hint(
                format!(
                    "if no other pledge process is running, a killed one may have left {} behind; remove it",
                    self.repo.path().join(format!("{}.lock", LEDGER_REF)).display()
                ),
            ),
        )
    }

    /// Takes the append lock and makes sure an append can be right here
    /// ([`Ledger::check_appendable`]). Under the lock, a ref lock file is one a killed pledge
    /// process left behind (no live pledge writer can be between creating and removing it): it
    /// is removed, with a note.
    fn lock_for_append(&self, now: DateTime<Utc>) -> Result<super::lock::AppendLock> {
        let lock = super::lock::AppendLock::acquire(self.repo.commondir(), APPEND_LOCK_TIMEOUT)?;
        self.check_appendable()?;
        if let Some(stale) = lock.clear_stale_ref_lock(LEDGER_REF, std::time::Duration::ZERO, now.into())? {
            self.notes.borrow_mut().push(stale.note());
        }
        Ok(lock)
    }

    /// Writes the commits of `drafts`, chained on `parent` (whose entry is `prev`), dated as
    /// `dated` says; returns each entry with its commit, in order.
    fn write_drafts(
        &self,
        drafts: &[Draft],
        parent: Option<Oid>,
        prev: Option<&Entry>,
        dated: &Dated,
    ) -> Result<Vec<(Entry, Oid)>> {
        let head = self.head_commit();
        let (mut parent, mut prev) = (parent, prev.cloned());
        let mut written = Vec::with_capacity(drafts.len());
        for draft in drafts {
            let kind = draft
                .kind
                .ok_or_else(|| Error::internal("ledger draft without a kind"))?;
            let result_bytes = match &draft.result {
                Some(v) => Some(
                    serde_json::to_vec_pretty(v).map_err(|e| Error::internal("serializing a result").caused_by(e))?,
                ),
                None => None,
            };
            let mut entry = build_entry(
                kind,
                draft,
                prev.as_ref(),
                dated.time,
                result_bytes.as_deref(),
                head.clone(),
            )?;
            if dated.clock.is_some() {
                entry.clock = dated.clock;
                entry.entry_sha256 = entry.compute_sha256();
            }
            let oid = self.write_commit(&entry, parent, result_bytes.as_deref(), draft.protocol_text.as_deref())?;
            parent = Some(oid);
            prev = Some(entry.clone());
            written.push((entry, oid));
        }
        Ok(written)
    }

    /// Checks the registration rules for the entries of `written` from index `from` on (the
    /// earlier ones were checked already), stepping the rules from the snapshot's tip through
    /// every entry of `written` (made from `drafts`, in the same order): what an append writes on
    /// a verified tip must verify too (the rest holds by construction). Returns whether they pass.
    ///
    /// Errors (exit 1): they fail and [`Ledger::set_accept_findings`] was not set (the findings
    /// are listed); with it, they become a note.
    fn check_new_entries(
        &self,
        snap: &Snapshot,
        written: &[(Entry, Oid)],
        drafts: &[Draft],
        from: usize,
    ) -> Result<bool> {
        // The registration rules stepped from the tip's state through every entry written so
        // far; only the findings of the entries from `from` on are new.
        let first = written.get(from).map_or(u64::MAX, |(e, _)| e.seq);
        let broken: Vec<super::Finding> = snap
            .check_new(written, drafts)
            .into_iter()
            .filter(|f| f.seq.is_none_or(|s| s >= first))
            .collect();
        if broken.is_empty() {
            return Ok(true);
        }
        let listed: Vec<String> = broken
            .iter()
            .map(|f| format!("{}: {}", f.code.as_str(), f.message))
            .collect();
        if !self.accept_findings {
            let mut err =
                Error::refused("this append would leave the ledger failing verification, so nothing was written");
            for l in listed {
                err = err.caused_by(l);
            }
            return Err(err.with_hint("run `pledge verify`, and record changes of the protocol with `pledge amend`"));
        }
        self.notes
            .borrow_mut()
            .push(format!("the entries appended fail verification: {}", listed.join("; ")));
        Ok(false)
    }

    /// Moves the ledger ref from `tip` to the last of `written`, by compare-and-swap: `true` when
    /// it moved, `false` when another writer moved it first (or holds git's ref lock).
    ///
    /// Errors: any other git failure (exit 73 when the file system refuses, else 70).
    fn move_ref(&self, tip: Option<Oid>, written: &[(Entry, Oid)]) -> Result<bool> {
        let Some((last, new_tip)) = written.last() else {
            return Ok(true);
        };
        let msg = format!("pledge: {} #{} {}", last.kind.as_str(), last.seq, last.study_id);
        // A zero current id means "must not exist", checked under the ref lock (libgit2's
        // non-forced create checks existence before locking, which races).
        match self
            .repo
            .reference_matching(LEDGER_REF, *new_tip, true, tip.unwrap_or_else(Oid::zero), &msg)
        {
            Ok(_) => Ok(true),
            Err(e) if matches!(e.class(), git2::ErrorClass::Os | git2::ErrorClass::Filesystem) => {
                Err(Error::git("moving the ledger ref", e))
            }
            Err(e)
                if matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked)
                    || e.class() == git2::ErrorClass::Reference =>
            {
                Ok(false)
            }
            Err(e) => Err(Error::git("moving the ledger ref", e)),
        }
    }

    /// Calls `hook` at each step of every append of this handle ([`AppendStep`]), under the
    /// append lock: for fault-injection tests, which stop or kill the process there, and for
    /// tracing.
    pub fn set_step_hook(&mut self, hook: Option<fn(AppendStep)>) {
        self.step_hook = hook;
    }

    fn step(&self, s: AppendStep) {
        if let Some(h) = self.step_hook {
            h(s);
        }
    }

    /// Appends onto a ledger whose chain fails verification from now on, instead of refusing
    /// them (for a `note` that records the failure); the findings are then handed to
    /// [`Ledger::take_notes`].
    pub fn set_accept_findings(&mut self, accept: bool) {
        self.accept_findings = accept;
    }

    /// Where the id of the last tip whose chain verified is kept (inside the git directory, so
    /// it is never committed or pushed).
    fn verified_tip_file(&self) -> PathBuf {
        self.repo.path().join("pledge").join("verified-tip")
    }

    fn remember_verified(&self, tip: Oid) {
        let f = self.verified_tip_file();
        // A cache: failing to write it only costs a full check next time.
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = crate::io::write_cache(&f, format!("{}\n", tip).as_bytes());
    }

    /// Checks the chain ending at `tip` (entry hashes, links, sequence numbers, times, stored
    /// blobs, registration rules: [`super::chain`]) unless `tip` is the one recorded as
    /// verified, which is then trusted only because it is that exact commit id (a commit id
    /// covers its whole history). Returns whether the chain is clean.
    ///
    /// Errors (exit 1): the chain has findings and [`Ledger::set_accept_findings`] was not set;
    /// the error lists them, with a hint to run `pledge verify` or to record the failure. Exit 2:
    /// an object of the chain cannot be read ([`Ledger::unreadable_error`]).
    fn check_chain_at(&self, tip: Option<Oid>) -> Result<bool> {
        let Some(tip) = tip else { return Ok(true) };
        let cached = std::fs::read_to_string(self.verified_tip_file()).unwrap_or_default();
        if cached.trim() == tip.to_string() {
            return Ok(true);
        }
        let records = super::records::git_records(self, tip)?;
        // A chain that cannot be read whole cannot be checked, nor numbered on: refused even
        // with `--despite-findings`, as a shallow one is (`check_appendable`).
        if let Some(u) = records.iter().find_map(|r| r.unreadable.first()) {
            return Err(self.unreadable_error(u));
        }
        let check = super::chain::check_chain(&records);
        if check.findings.is_empty() {
            self.remember_verified(tip);
            return Ok(true);
        }
        let listed: Vec<String> = check
            .findings
            .iter()
            .map(|f| format!("{}: {}", f.code.as_str(), f.message))
            .collect();
        if self.accept_findings {
            self.notes.borrow_mut().push(format!(
                "appended onto a ledger that fails verification ({} {}): {}",
                listed.len(),
                if listed.len() == 1 { "finding" } else { "findings" },
                listed.join("; ")
            ));
            return Ok(false);
        }
        let mut err = Error::refused(format!(
            "the ledger fails verification ({} {}): appending would extend a broken chain",
            listed.len(),
            if listed.len() == 1 { "finding" } else { "findings" }
        ));
        for l in listed {
            err = err.caused_by(l);
        }
        Err(err.with_hint(
            "run `pledge verify` to see the findings; to record the failure in the ledger itself, `pledge note --reason \"...\" --despite-findings`",
        ))
    }

    /// Refuses states in which an append cannot be right: a symbolic ledger ref (the
    /// compare-and-swap would move another ref, or fail forever), and a shallow repository
    /// whose ledger history is cut (the new entry would be numbered and linked on a partial
    /// chain).
    ///
    /// Errors (exit 2), each with a hint saying how to repair the repository.
    fn check_appendable(&self) -> Result<()> {
        if let Ok(r) = self.repo.find_reference(LEDGER_REF) {
            if r.kind() == Some(git2::ReferenceType::Symbolic) {
                let target = r.symbolic_target().unwrap_or("?").to_string();
                return Err(Error::input(format!(
                    "{} is a symbolic ref (to {}): pledge appends only to a ledger ref that names its tip commit",
                    LEDGER_REF, target
                ))
                .with_hint(format!(
                    "make it a direct ref again: git update-ref --no-deref {} $(git rev-parse {})",
                    LEDGER_REF, LEDGER_REF
                )));
            }
        }
        if self.repo.is_shallow() {
            let shallow = std::fs::read_to_string(self.repo.commondir().join("shallow")).unwrap_or_default();
            for oid in shallow.lines().filter_map(|l| Oid::from_str(l.trim()).ok()) {
                let is_ledger = self
                    .repo
                    .find_commit(oid)
                    .ok()
                    .and_then(|c| c.tree().ok())
                    .is_some_and(|t| t.get_name("entry.json").is_some());
                if is_ledger {
                    return Err(Error::input(format!(
                        "the ledger's history is cut in this shallow repository (at commit {}): appending would build on a partial chain",
                        crate::text::short(&oid.to_string(), 12)
                    ))
                    .with_hint("fetch the whole ledger first: git fetch --unshallow (or git fetch --deepen), then append"));
                }
            }
        }
        Ok(())
    }

    fn write_commit(
        &self,
        entry: &Entry,
        parent: Option<Oid>,
        result: Option<&[u8]>,
        protocol: Option<&str>,
    ) -> Result<Oid> {
        let g = |e| Error::git("writing a ledger commit", e);
        let mut tb = self.repo.treebuilder(None).map_err(g)?;
        let eb = self.repo.blob(&entry.stored_bytes()).map_err(g)?;
        tb.insert("entry.json", eb, 0o100644).map_err(g)?;
        if let Some(r) = result {
            let rb = self.repo.blob(r).map_err(g)?;
            tb.insert("result.json", rb, 0o100644).map_err(g)?;
        }
        if let Some(p) = protocol {
            let pb = self.repo.blob(p.as_bytes()).map_err(g)?;
            tb.insert("protocol.toml", pb, 0o100644).map_err(g)?;
        }
        let tree_id = tb.write().map_err(g)?;
        let tree = self.repo.find_tree(tree_id).map_err(g)?;
        let secs = DateTime::parse_from_rfc3339(&entry.time)
            .map(|t| t.timestamp())
            .unwrap_or(0);
        let sig = Signature::new("pledge", "pledge@localhost", &Time::new(secs, 0)).map_err(g)?;
        let parents: Vec<git2::Commit> = match parent {
            Some(p) => vec![self.repo.find_commit(p).map_err(g)?],
            None => vec![],
        };
        let prefs: Vec<&git2::Commit> = parents.iter().collect();
        let msg = format!(
            "pledge: {} #{} {}\n\nentry_sha256 {}\n",
            entry.kind.as_str(),
            entry.seq,
            entry.study_id,
            entry.entry_sha256
        );
        match &self.signer {
            None => self.repo.commit(None, &sig, &sig, &msg, &tree, &prefs).map_err(g),
            Some(signer) => {
                let buf = self
                    .repo
                    .commit_create_buffer(&sig, &sig, &msg, &tree, &prefs)
                    .map_err(g)?;
                let payload = std::str::from_utf8(&buf)
                    .map_err(|e| Error::internal("a ledger commit is not UTF-8").caused_by(e))?;
                let signature = signer.sign(payload.as_bytes())?;
                self.repo.commit_signed(payload, &signature, Some("gpgsig")).map_err(g)
            }
        }
    }
}

/// The error (exit 2) for ledger commit `oid` holding no `entry.json` file.
/// The `entry.json` bytes of ledger commit `oid` parsed, as every reader of single entries
/// ([`Ledger::read_entry`], `pledge log`) parses them.
///
/// Errors (exit 2): the bytes are not a pledge ledger entry (naming the commit, with a hint to
/// run `pledge verify`).
pub(crate) fn parse_ledger_entry(oid: Oid, bytes: &[u8]) -> Result<Entry> {
    Entry::parse(bytes, &format!("entry.json of ledger commit {}", oid))
        .map_err(|e| e.with_hint("run `pledge verify` to see every problem of the ledger"))
}

fn no_entry_json(oid: Oid) -> Error {
    Error::input(format!(
        "ledger commit {} has no entry.json: it is not a pledge ledger entry",
        oid
    ))
    .with_hint("run `pledge verify` to see every problem of the ledger")
}

/// Builds the next entry after `prev` (None for the first), computing its hash.
pub(crate) fn build_entry(
    kind: EntryKind,
    d: &Draft,
    prev: Option<&Entry>,
    now: DateTime<Utc>,
    result: Option<&[u8]>,
    git_head: Option<String>,
) -> Result<Entry> {
    let seq = match prev {
        None => 1,
        Some(p) => p.seq.checked_add(1).ok_or_else(|| {
            Error::refused(format!(
                "the ledger's last entry carries sequence number {}, after which no number follows",
                p.seq
            ))
            .with_hint("the ledger was forged or damaged: run `pledge verify`")
        })?,
    };
    let mut e = Entry {
        seq,
        kind,
        time: now.to_rfc3339_opts(SecondsFormat::Secs, true),
        prev_sha256: prev
            .map(|p| p.entry_sha256.clone())
            .unwrap_or_else(|| GENESIS.to_string()),
        study_id: d.study_id.clone(),
        protocol_sha256: d.protocol_sha256.clone(),
        protocol_path: d.protocol_path.clone(),
        amends: d.amends.clone(),
        inputs: d.inputs.clone(),
        result_sha256: result.map(crate::io::sha256_hex),
        tool: Tool::current(),
        rng: d.rng.clone(),
        reason: d.reason.clone(),
        data_access: d.data_access.or(prev.map(|p| p.data_access)).unwrap_or_default(),
        git_head,
        summary: d.summary.clone(),
        canonical: None,
        clock: None,
        entry_sha256: String::new(),
    };
    let value = serde_json::to_value(&e).map_err(|x| Error::internal("serializing an entry").caused_by(x))?;
    if super::entry::jcs_exact(&value) {
        e.canonical = Some(super::entry::CanonicalForm::Jcs);
    }
    e.entry_sha256 = e.compute_sha256();
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::DataAccess;
    use chrono::TimeZone;

    #[test]
    fn append_and_read_back_chain() {
        let dir = tempfile::tempdir().unwrap();
        let (l, created) = Ledger::init(dir.path()).unwrap();
        assert!(created);
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let mut d = Draft {
            kind: Some(EntryKind::Register),
            study_id: "s".into(),
            ..Default::default()
        };
        d.result = Some(serde_json::json!({"x": 1}));
        let a = l.append(&d, now).unwrap();
        d.kind = Some(EntryKind::Note);
        d.result = None;
        let b = l.append(&d, now).unwrap();
        assert_eq!(a.seq, 1);
        assert_eq!(a.prev_sha256, GENESIS);
        assert_eq!(b.seq, 2);
        assert_eq!(b.prev_sha256, a.entry_sha256);
        assert_eq!(a.time, "2026-11-30T12:00:00Z");
        let all = l.entries().unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].entry, a);
        assert_eq!(all[0].entry.compute_sha256(), a.entry_sha256);
        assert!(all[0].result.is_some());
        assert!(all[1].result.is_none());
        // The user's branch is untouched: HEAD is still unborn.
        assert!(l.head_commit().is_none());
    }

    /// The remote named in hints: `URL` with none, the only one, `origin` among several, else
    /// the first of several.
    #[test]
    fn hint_remote_names_the_remote_a_user_would_fetch_from() {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        assert_eq!(l.hint_remote(), "URL");
        l.repo().remote("mirror", "https://example.org/m.git").unwrap();
        assert_eq!(l.hint_remote(), "mirror");
        l.repo().remote("backup", "https://example.org/b.git").unwrap();
        let first = l.repo().remotes().unwrap().get(0).unwrap().to_string();
        assert_eq!(l.hint_remote(), first);
        l.repo().remote("origin", "https://example.org/o.git").unwrap();
        assert_eq!(l.hint_remote(), "origin");
    }

    #[test]
    fn append_inherits_access_per_study_and_a_failed_build_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let d = |study: &str, access: Option<DataAccess>| Draft {
            kind: Some(EntryKind::Note),
            study_id: study.into(),
            data_access: access,
            ..Default::default()
        };
        l.append(&d("a", Some(DataAccess::ResultsSeen)), now).unwrap();
        assert_eq!(
            l.append(&d("b", None), now).unwrap().data_access,
            DataAccess::NothingRun
        );
        assert_eq!(
            l.append(&d("a", None), now).unwrap().data_access,
            DataAccess::ResultsSeen
        );
        l.append(&d("", Some(DataAccess::PilotOnly)), now).unwrap();
        assert_eq!(l.append(&d("b", None), now).unwrap().data_access, DataAccess::PilotOnly);
        let tip = l.tip().unwrap();
        let err = l.append_with(now, "a", |_| Err(Error::refused("no"))).unwrap_err();
        assert_eq!(err.exit_code(), 1);
        assert_eq!(l.tip().unwrap(), tip);
        assert_eq!(l.entries().unwrap().len(), 5);
    }

    /// An append whose entries would fail the registration rules (here an analysis on another
    /// protocol than the registered one, without a deviation) is refused before the ref moves,
    /// so a ledger that verifies never starts failing through pledge itself.
    #[test]
    fn an_append_that_would_break_the_registration_rules_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap();
        let d = |kind, hash: &str| Draft {
            kind: Some(kind),
            study_id: "s".into(),
            protocol_sha256: Some(hash.into()),
            reason: Some("r".into()),
            ..Default::default()
        };
        l.append(&d(EntryKind::Register, "a"), now).unwrap();
        let tip = l.tip().unwrap();
        let err = l.append(&d(EntryKind::Analyze, "b"), now).unwrap_err();
        assert_eq!(err.exit_code(), 1);
        assert!(err.render().contains("unregistered-protocol"), "{}", err.render());
        assert_eq!(l.tip().unwrap(), tip);
        // With the deviation that discloses it, in the same batch, the same analysis lands.
        let both = l
            .append_many_with(now, "s", |_| {
                Ok(vec![d(EntryKind::Deviation, "b"), d(EntryKind::Analyze, "b")])
            })
            .unwrap();
        assert_eq!(both.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 3]);
        // (The drafts carry no protocol text, which is all verification finds.)
        let codes: Vec<_> = crate::ledger::verify_ledger(&l, None)
            .unwrap()
            .findings
            .iter()
            .map(|f| f.code.as_str())
            .collect();
        assert_eq!(codes, ["protocol-text-missing"]);
    }

    #[test]
    fn creating_the_ref_with_a_zero_current_id_fails_when_it_exists() {
        // The creation path of the CAS relies on this libgit2 behaviour, checked under the lock.
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let d = Draft {
            kind: Some(EntryKind::Note),
            ..Default::default()
        };
        let first = l.append(&d, now).unwrap();
        let tip = l.tip().unwrap().unwrap();
        let err = l
            .repo()
            .reference_matching(LEDGER_REF, tip, true, Oid::zero(), "x")
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Modified);
        assert_eq!(l.entries().unwrap()[0].entry, first);
    }
}
