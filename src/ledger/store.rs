//! Git storage of the ledger through git2.

use super::clock::Clocks;
use super::entry::{ClockSource, Entry, EntryKind, StoredEntry};
use super::opening::{open_error, Opening};
use super::records::Unreadable;
use super::signer::CommitSigner;
use super::{LEDGER_REF, LEDGER_REFSPEC};
use crate::error::{Error, GitError, Result};
use chrono::{DateTime, Utc};
use git2::{ErrorCode, Oid, Repository};
use std::path::{Path, PathBuf};

/// A handle on the ledger of one git repository.
pub struct Ledger {
    pub(super) repo: Repository,
    /// Sentences about what appends did besides appending (a stale ref lock removed), taken
    /// by [`Ledger::take_notes`].
    pub(super) notes: std::cell::RefCell<Vec<String>>,
    /// How entries are dated (see [`Ledger::set_clock`], [`Ledger::set_system_clock`],
    /// [`Ledger::set_clock_correction`]).
    pub(super) clocks: Clocks,
    /// Signs every commit this handle writes (see [`Ledger::set_signer`]).
    pub(super) signer: Option<CommitSigner>,
    /// Append onto a ledger whose chain has findings (see [`Ledger::set_accept_findings`]).
    pub(super) accept_findings: bool,
    /// Told each step of every append (see [`Ledger::set_step_hook`]).
    pub(super) step_hook: Option<fn(AppendStep)>,
    /// The records of the last chain read, by tip (see [`Ledger::records`]).
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

    /// The records of the chain ending at commit `tip`, first to last (see
    /// `records::read_records`). Errors (exit 70): the repository cannot be read, or `tip` is not
    /// a commit.
    ///
    /// The records of the last tip read are kept by the handle (a commit id covers its whole
    /// history: libgit2 checks every object it reads against its id, unless the process turned
    /// that off, as only the `log` and `export` commands do), so the checks of one command (the
    /// chain, tokens and signatures, deviations) read the chain once.
    pub(crate) fn records(&self, tip: Oid) -> Result<std::sync::Arc<Vec<super::records::Record>>> {
        if let Some((t, r)) = &*self.records_memo.borrow() {
            if *t == tip {
                return Ok(r.clone());
            }
        }
        let records = std::sync::Arc::new(super::records::read_records(&self.repo, tip)?);
        *self.records_memo.borrow_mut() = Some((tip, records.clone()));
        Ok(records)
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
        let records = self.records(tip)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{DataAccess, Draft, GENESIS};
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
