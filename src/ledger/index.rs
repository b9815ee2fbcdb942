//! The tip-keyed index of a ledger's state, so that preparing an append costs the same on a
//! ledger of 10 entries as on one of 10,000.
//!
//! Every check made before an append asks the same kind of question of the ledger: "the
//! latest entry of study S whose kind is one of K" (the registration in force, the last count
//! or stop decision, the last assignment) and "the data-access level in force for S" (the
//! level of the latest entry of S or of the whole ledger). Both are answered by knowing, for
//! each study and each entry kind, the latest such entry. The index records exactly that: for
//! every study id (the empty id for ledger-wide entries) and kind, the sequence number and
//! commit id of the latest entry, together with the tip commit it describes.
//!
//! **Trust.** The index is a cache inside the git directory (`pledge/index.json`, never
//! committed or pushed) and is used only for the exact tip it names. When the ledger ref
//! names another commit, the entries from the ref back to the indexed tip (first parents) are
//! read and applied; when the indexed tip is not in the ref's history (a rewritten or replaced
//! ledger), the index is rebuilt from the whole chain. Every entry the index points to is read
//! from its commit (whose id covers its content) and must have the study, kind and sequence
//! number the index says, or the index is rebuilt. Whether the chain itself verifies is a
//! separate, equally tip-keyed check ([`super::chain`], run by the append).
//!
//! The index also keeps the registration rules' state at its tip ([`super::rules::LedgerState`],
//! the fold of every entry up to it), advanced with each entry an append writes, so that the
//! rules judge a new entry on the state of the whole chain at the cost of one step. Unlike the
//! positions, that state is not re-read from the commits on each use: it is trusted for the
//! exact tip it names, as the verified tip is (`verified-tip`); an edited index can let an
//! append through that the rules refuse, and `verify`, which replays the rules over the chain
//! itself, then finds it.
//!
//! The layout is this module's own (field `version`); an index of another version, or one that
//! does not parse, is rebuilt. Failing to write it only costs a rebuild next time.

use super::entry::StoredEntry;
use super::entry::{DataAccess, Draft, Entry, EntryKind};
use super::rules::{Fact, LedgerState, Verdict};
use super::store::Ledger;
use crate::error::Result;
use git2::Oid;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The layout version written by this build.
const INDEX_VERSION: u32 = 2;

/// Where one entry is: its sequence number and commit id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pos {
    seq: u64,
    commit: String,
}

/// The latest entry of each (study, kind) of the chain ending at `tip`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LedgerIndex {
    version: u32,
    /// The commit id of the tip this index describes.
    tip: String,
    /// The tip entry's sequence number.
    tip_seq: u64,
    /// Study id (empty: ledger-wide entries) → kind → the latest such entry.
    studies: BTreeMap<String, BTreeMap<EntryKind, Pos>>,
    /// The registration rules' state after the tip entry.
    rules: LedgerState,
}

impl LedgerIndex {
    fn empty() -> LedgerIndex {
        LedgerIndex {
            version: INDEX_VERSION,
            tip: String::new(),
            tip_seq: 0,
            studies: BTreeMap::new(),
            rules: LedgerState::default(),
        }
    }

    /// Records `entry`, stored in commit `commit` with `protocol_text` (a `register` or
    /// `amend`'s), as the new tip, and folds it into the rules' state.
    pub(crate) fn push(&mut self, entry: &Entry, protocol_text: Option<&str>, commit: Oid) {
        let id = commit.to_string();
        self.rules.step(&Fact {
            entry,
            protocol_text,
            commit: Some(&id),
        });
        let pos = Pos {
            seq: entry.seq,
            commit: commit.to_string(),
        };
        self.studies
            .entry(entry.study_id.clone())
            .or_default()
            .insert(entry.kind, pos);
        self.tip = commit.to_string();
        self.tip_seq = entry.seq;
    }

    /// The positions to read for questions about `study`: the latest entry of each kind of
    /// `study` and of the ledger-wide entries, in ledger order.
    fn relevant(&self, study: &str) -> Vec<Pos> {
        let mut out: Vec<Pos> = [study, ""]
            .iter()
            .take(if study.is_empty() { 1 } else { 2 })
            .filter_map(|s| self.studies.get(*s))
            .flat_map(|kinds| kinds.values().cloned())
            .collect();
        out.sort_by_key(|p| p.seq);
        out
    }

    /// The latest entry of `study` or of the whole ledger, whose level is the one in force.
    fn access_pos(&self, study: &str) -> Option<Pos> {
        [study, ""]
            .iter()
            .filter_map(|s| self.studies.get(*s))
            .flat_map(|kinds| kinds.values())
            .max_by_key(|p| p.seq)
            .cloned()
    }
}

/// What the checks made before an append see of the ledger at the tip they run on: for the
/// study the command concerns, its latest entry of each kind and the latest ledger-wide entry
/// of each kind (ledger order), and the tip entry itself.
///
/// That is all the latest-entry questions need ("the latest entry of the study whose kind is
/// one of …", "the data-access level in force"): the answer over [`Snapshot::entries`] is the
/// answer over the whole chain. Questions about other studies, or about entries that are not
/// the latest of their kind, must go through [`Snapshot::by_seq`] or read the chain.
pub struct Snapshot<'a> {
    ledger: &'a Ledger,
    tip: Option<Oid>,
    index: LedgerIndex,
    study: String,
    relevant: Vec<StoredEntry>,
    last: Option<Entry>,
}

impl<'a> Snapshot<'a> {
    /// The latest entry of each kind of the study and of the ledger-wide entries, first to
    /// last (see the type's docs for what this answers).
    pub fn entries(&self) -> &[StoredEntry] {
        &self.relevant
    }

    /// The ledger's last entry, if any.
    pub fn last(&self) -> Option<&Entry> {
        self.last.as_ref()
    }

    /// The study id this snapshot was taken for.
    pub fn study(&self) -> &str {
        &self.study
    }

    /// The entry numbered `seq`, read by walking first parents back from the tip (as far as
    /// needed: the last entry is one read).
    ///
    /// Errors: a ledger commit that cannot be read or holds a malformed entry (exit 2/70).
    pub fn by_seq(&self, seq: u64) -> Result<Option<StoredEntry>> {
        if seq == 0 || seq > self.index.tip_seq {
            return Ok(None);
        }
        let mut next = self.tip;
        while let Some(oid) = next {
            let s = self.ledger.read_commit(oid)?;
            if s.entry.seq == seq {
                return Ok(Some(s));
            }
            if s.entry.seq < seq {
                return Ok(None);
            }
            next = self.ledger.first_parent(oid);
        }
        Ok(None)
    }

    /// The latest entry before `from` (an entry of this ledger) that `accept` takes, read by
    /// walking first parents back from `from`'s commit (as far as needed; for an entry that is
    /// not the latest of its kind, such as the version of a protocol an earlier count was made
    /// under, which is usually a few entries before that count, so the walk does not grow with
    /// the ledger).
    ///
    /// Errors: as [`Snapshot::by_seq`].
    pub fn latest_before(
        &self,
        from: &StoredEntry,
        accept: impl Fn(&StoredEntry) -> bool,
    ) -> Result<Option<StoredEntry>> {
        let mut next = match Oid::from_str(&from.commit) {
            Ok(oid) => self.ledger.first_parent(oid),
            // Not a commit id: from the tip, skipping what is not before `from`.
            Err(_) => self.tip,
        };
        while let Some(oid) = next {
            let s = self.ledger.read_commit(oid)?;
            if s.entry.seq < from.entry.seq && accept(&s) {
                return Ok(Some(s));
            }
            if s.entry.seq <= 1 {
                break;
            }
            next = self.ledger.first_parent(oid);
        }
        Ok(None)
    }

    /// The data-access level in force for `study` at this tip: that of the latest entry of
    /// `study` or of the whole ledger (see [`DataAccess::in_force`]).
    ///
    /// Errors: a ledger commit that cannot be read (exit 70).
    pub fn access_in_force(&self, study: &str) -> Result<DataAccess> {
        if study.is_empty() {
            // The highest level in force for any study or for the ledger itself.
            let mut level = DataAccess::in_force(self.relevant.iter().map(|s| &s.entry), "");
            for s in self.index.studies.keys().filter(|s| !s.is_empty()) {
                level = level.max(self.access_in_force(s)?);
            }
            return Ok(level);
        }
        if study == self.study {
            return Ok(DataAccess::in_force(self.relevant.iter().map(|s| &s.entry), study));
        }
        match self.index.access_pos(study) {
            Some(p) => Ok(self.ledger.read_entry(oid_of(&p)?)?.data_access),
            None => Ok(DataAccess::default()),
        }
    }

    /// The registration rules' state at this tip (the fold of the whole chain up to it).
    pub fn rules(&self) -> &LedgerState {
        &self.index.rules
    }

    /// What the rules say of `drafts` if appended now (in order, at `time`) on this tip: each
    /// one's violations and, for an analysis, its classification. The state is left as it is.
    pub fn preview(&self, drafts: &[Draft], time: &str) -> Vec<Verdict> {
        self.index.rules.preview(drafts, self.index.tip_seq + 1, time)
    }

    /// The findings of the rules on the entries an append wrote on this tip (`written`, from
    /// `drafts` in the same order): what `verify` would report of them on the extended chain.
    pub(crate) fn check_new(&self, written: &[(Entry, Oid)], drafts: &[Draft]) -> Vec<super::Finding> {
        let mut state = self.index.rules.clone();
        let mut out = Vec::new();
        for (i, (e, oid)) in written.iter().enumerate() {
            let text = drafts.get(i).and_then(|d| d.protocol_text.as_deref());
            let id = oid.to_string();
            let v = state.step(&Fact {
                entry: e,
                protocol_text: text,
                commit: Some(&id),
            });
            out.extend(
                v.findings()
                    .map(|x| super::Finding::new(x.code(), Some(e.seq), x.message(e))),
            );
        }
        out
    }

    /// The index, advanced by the entries an append wrote on this tip (`written`, from `drafts`
    /// in the same order; to be saved for the new tip once the ref moved).
    pub(crate) fn advanced(&self, written: &[(Entry, Oid)], drafts: &[Draft]) -> LedgerIndex {
        let mut ix = self.index.clone();
        for (i, (e, oid)) in written.iter().enumerate() {
            ix.push(e, drafts.get(i).and_then(|d| d.protocol_text.as_deref()), *oid);
        }
        ix
    }
}

fn oid_of(p: &Pos) -> Result<Oid> {
    Oid::from_str(&p.commit).map_err(|e| crate::error::Error::git("reading the ledger index", e))
}

impl Ledger {
    /// Where the index is kept (inside the git directory, so it is never committed or pushed).
    fn index_file(&self) -> std::path::PathBuf {
        self.repo().path().join("pledge").join("index.json")
    }

    /// The snapshot of the ledger at `tip` for questions about `study` (see [`Snapshot`]),
    /// through the tip-keyed index: reads the index, brings it to `tip` (applying the entries
    /// after the indexed tip, or rebuilding it from the chain when the indexed tip is not in
    /// `tip`'s history), then reads the few entries it points to. The index is saved when it
    /// had to change.
    ///
    /// Errors: a ledger commit that cannot be read or holds a malformed entry (exit 2/70).
    pub fn snapshot(&self, tip: Option<Oid>, study: &str) -> Result<Snapshot<'_>> {
        let Some(tip) = tip else {
            return Ok(Snapshot {
                ledger: self,
                tip: None,
                index: LedgerIndex::empty(),
                study: study.to_string(),
                relevant: vec![],
                last: None,
            });
        };
        let cached = std::fs::read(self.index_file())
            .ok()
            .and_then(|b| serde_json::from_slice::<LedgerIndex>(&b).ok())
            .filter(|ix| ix.version == INDEX_VERSION);
        let (index, changed) = self.bring_to(cached, tip)?;
        let snap = match self.read_relevant(&index, tip, study)? {
            Some(s) => {
                if changed {
                    self.save_index(&index);
                }
                s
            }
            None => {
                // The index pointed at an entry that is not what it said: rebuild it.
                let (fresh, _) = self.bring_to(None, tip)?;
                let s = self.read_relevant(&fresh, tip, study)?.ok_or_else(|| {
                    crate::error::Error::internal("a freshly built ledger index does not match its chain")
                })?;
                self.save_index(&fresh);
                s
            }
        };
        Ok(snap)
    }

    /// Saves `index` (a cache: a failure only costs a rebuild next time).
    pub(crate) fn save_index(&self, index: &LedgerIndex) {
        let f = self.index_file();
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(bytes) = serde_json::to_vec(index) {
            let _ = crate::io::write_cache(&f, &bytes);
        }
    }

    /// `cached` brought to `tip`, and whether it changed: the entries from `tip` back to the
    /// cached tip are applied in order; without a cached tip in `tip`'s first-parent history,
    /// the whole chain is read.
    fn bring_to(&self, cached: Option<LedgerIndex>, tip: Oid) -> Result<(LedgerIndex, bool)> {
        let tip_s = tip.to_string();
        if let Some(ix) = &cached {
            if ix.tip == tip_s {
                return Ok((ix.clone(), false));
            }
        }
        let stop = cached.as_ref().map(|ix| ix.tip.clone());
        let mut newer: Vec<(Entry, Oid, Option<String>)> = Vec::new();
        let mut next = Some(tip);
        let mut reached = false;
        while let Some(oid) = next {
            if stop.as_deref() == Some(oid.to_string().as_str()) {
                reached = true;
                break;
            }
            let (entry, parent) = self.read_entry_and_parent(oid)?;
            // The rules read the protocol text a registration stores.
            let text = match entry.kind {
                EntryKind::Register | EntryKind::Amend => self.read_commit(oid)?.protocol_text,
                _ => None,
            };
            newer.push((entry, oid, text));
            next = parent;
        }
        let mut ix = match (reached, cached) {
            (true, Some(ix)) => ix,
            _ => LedgerIndex::empty(),
        };
        for (e, oid, text) in newer.iter().rev() {
            ix.push(e, text.as_deref(), *oid);
        }
        Ok((ix, true))
    }

    /// Reads the entries `index` points to for `study`, and the tip entry; `None` when one of
    /// them is not the entry the index says it is.
    fn read_relevant(&self, index: &LedgerIndex, tip: Oid, study: &str) -> Result<Option<Snapshot<'_>>> {
        let mut relevant = Vec::new();
        for p in index.relevant(study) {
            let Ok(oid) = Oid::from_str(&p.commit) else {
                return Ok(None);
            };
            let Ok(s) = self.read_commit(oid) else { return Ok(None) };
            let indexed = index.studies.get(&s.entry.study_id).and_then(|k| k.get(&s.entry.kind));
            if s.entry.seq != p.seq || indexed != Some(&p) {
                return Ok(None);
            }
            relevant.push(s);
        }
        let last = match relevant.last() {
            Some(s) if s.commit == index.tip => s.entry.clone(),
            _ => self.read_entry(tip)?,
        };
        if last.seq != index.tip_seq || index.tip != tip.to_string() {
            return Ok(None);
        }
        Ok(Some(Snapshot {
            ledger: self,
            tip: Some(tip),
            index: index.clone(),
            study: study.to_string(),
            relevant,
            last: Some(last),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Draft, LEDGER_REF};
    use chrono::TimeZone;

    fn draft(kind: EntryKind, study: &str, access: Option<DataAccess>) -> Draft {
        Draft {
            kind: Some(kind),
            study_id: study.into(),
            data_access: access,
            ..Default::default()
        }
    }

    fn now() -> chrono::DateTime<chrono::Utc> {
        chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
    }

    /// The snapshot's entries answer the latest-entry questions exactly as the whole chain
    /// does, after every append, for every study.
    #[test]
    fn the_snapshot_answers_as_the_whole_chain() {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        let kinds = [
            EntryKind::Register,
            EntryKind::Count,
            EntryKind::Note,
            EntryKind::Analyze,
        ];
        let studies = ["a", "b", ""];
        for i in 0..40usize {
            let study = studies[i * 7 % 3];
            let kind = kinds[i * 5 % 4];
            let access = (i % 6 == 0).then_some(DataAccess::ResultsSeen);
            l.append(&draft(kind, study, access), now()).unwrap();
            let all = l.entries().unwrap();
            let tip = l.tip().unwrap();
            for s in studies {
                let snap = l.snapshot(tip, s).unwrap();
                assert_eq!(snap.last().map(|e| e.seq), Some(i as u64 + 1));
                for k in kinds {
                    let want = all
                        .iter()
                        .rev()
                        .find(|e| e.entry.study_id == s && e.entry.kind == k)
                        .map(|e| e.commit.clone());
                    let got = snap
                        .entries()
                        .iter()
                        .rev()
                        .find(|e| e.entry.study_id == s && e.entry.kind == k)
                        .map(|e| e.commit.clone());
                    assert_eq!(got, want, "study {:?} kind {} after {} entries", s, k, i + 1);
                }
                let want = DataAccess::in_force(all.iter().map(|e| &e.entry), s);
                assert_eq!(snap.access_in_force(s).unwrap(), want);
                if !s.is_empty() {
                    // The ledger-wide level is the highest of every study's: a question about
                    // other studies, answered by access_in_force, not by the entries alone.
                    assert_eq!(DataAccess::in_force(snap.entries().iter().map(|e| &e.entry), s), want);
                }
            }
        }
        let snap = l.snapshot(l.tip().unwrap(), "a").unwrap();
        assert_eq!(snap.by_seq(7).unwrap().map(|s| s.entry.seq), Some(7));
        assert_eq!(snap.by_seq(41).unwrap().map(|s| s.entry.seq), None);
        assert_eq!(snap.by_seq(0).unwrap().map(|s| s.entry.seq), None);
    }

    /// An index for another tip is brought forward; one whose tip is not in the chain (a
    /// replaced ledger) or that points at the wrong entries is rebuilt.
    #[test]
    fn a_stale_or_wrong_index_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        l.append(&draft(EntryKind::Register, "a", None), now()).unwrap();
        let first_tip = l.tip().unwrap();
        l.append(&draft(EntryKind::Count, "a", None), now()).unwrap();
        let tip = l.tip().unwrap();
        // An index left at the first tip: brought forward by one entry.
        let (old, _) = l.bring_to(None, first_tip.unwrap()).unwrap();
        l.save_index(&old);
        let snap = l.snapshot(tip, "a").unwrap();
        assert_eq!(snap.entries().len(), 2);
        let saved: LedgerIndex = serde_json::from_slice(&std::fs::read(l.index_file()).unwrap()).unwrap();
        assert_eq!(saved.tip, tip.unwrap().to_string());
        // An index claiming the registration is the count's commit: rebuilt, right answer.
        let mut wrong = saved.clone();
        let count_commit = wrong.studies["a"][&EntryKind::Count].commit.clone();
        wrong
            .studies
            .get_mut("a")
            .unwrap()
            .get_mut(&EntryKind::Register)
            .unwrap()
            .commit = count_commit;
        l.save_index(&wrong);
        let snap = l.snapshot(tip, "a").unwrap();
        let reg = snap
            .entries()
            .iter()
            .find(|e| e.entry.kind == EntryKind::Register)
            .unwrap();
        assert_eq!(reg.entry.seq, 1);
        // An index of a ledger that was replaced (its tip is not in the new chain): rebuilt.
        let mut foreign = saved.clone();
        foreign.tip = "1".repeat(40);
        foreign.studies.clear();
        l.save_index(&foreign);
        let snap = l.snapshot(tip, "a").unwrap();
        assert_eq!(snap.entries().len(), 2);
        // Garbage is rebuilt too.
        std::fs::write(l.index_file(), b"{not json").unwrap();
        assert_eq!(l.snapshot(tip, "a").unwrap().entries().len(), 2);
        assert!(l.repo().refname_to_id(LEDGER_REF).is_ok());
    }
}
