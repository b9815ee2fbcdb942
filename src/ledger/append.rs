//! Appends: the compare-and-swap loop that writes a command's entries onto the ledger's tip.
//!
//! Every check that decides whether an entry may be written (is the protocol registered and
//! unchanged, did the stop rule say stop, is the assignment the recorded one) runs inside
//! [`Ledger::append_many_with`], on a [`Snapshot`] of the tip: if another process moved the
//! ledger first, the checks run again on the new tip, and all entries of one command land in one
//! compare-and-swap of `refs/pledge/ledger`, or none do. The loop takes the append lock, reads
//! the clock (`ledger::clock`), drafts, writes the commits, checks them against the registration
//! rules, lets a second step draft entries over their final hashes
//! ([`Ledger::append_many_then`]: the TSA token of a registration) and only then moves the ref;
//! a test hook ([`super::AppendStep`]) stops an append between these steps.

use super::clock::Dated;
use super::entry::{Draft, Entry, EntryKind, Tool, GENESIS};
use super::index::Snapshot;
use super::store::{AppendStep, Ledger};
use super::LEDGER_REF;
use crate::error::{Error, Result};
use chrono::{DateTime, SecondsFormat, Utc};
use git2::{ErrorCode, Oid, Signature, Time};
use std::path::PathBuf;

/// How long an append waits for another pledge process's append lock before giving up.
const APPEND_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl Ledger {
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
        let records = self.records(tip)?;
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
