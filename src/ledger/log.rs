//! `pledge log`: the ledger's entries with their commits, first to last.
//!
//! **The log cache.** Reading an entry costs three objects: the commit, its tree and the
//! (delta-compressed) `entry.json`; git's own `git log` reads the commit alone. So `log` keeps,
//! inside the git directory (`pledge/log-cache`, never committed or pushed), the tree and
//! `entry.json` bytes of each commit of the chain it last read, first to last, its tip the last
//! record; when the walk from the ledger ref reaches that tip, the rest of the chain is read
//! through the cache, which costs the commits alone. The cached records' bytes are hashed and
//! their entries parsed on a second thread while the walk reads the commits.
//!
//! **Trust.** Nothing in the cache is taken on its word: every cached entry is checked against
//! the commit actually read from the repository, as an object id covers its content. The
//! cached commit id must be the one the walk reached (the ref, then each commit's first
//! parent), the SHA-1 object id of the cached tree bytes must be the commit's `tree`, the id
//! of the cached `entry.json` bytes must be the one that tree names, and both objects must be
//! present in the repository. A cache that fails any check (tampered, foreign, of a rewritten
//! ledger, cut short, of another layout) is ignored as a whole, and the chain is read from its
//! objects as without a cache; so is a cache whose tip the walk never reaches. The entries the
//! walk read from objects are then saved: added at the end of the cache when the rest came from
//! it (the entries appended since), else as a new cache. `pledge verify` never reads the cache.
//!
//! What `log` shows is the same with or without the cache, byte for byte, on every ledger
//! whose objects are present; an object present but damaged (its bytes no longer inflate) is
//! not read through a valid cache, as `git log` does not read trees: `pledge verify` reports
//! it (`ledger-unreadable`). The ids are plain SHA-1, as git computes them (`log` turns off
//! libgit2's re-hash of the objects it reads, see the CLI's `UncheckedReads`).

use super::entry::Entry;
use super::records::{raw_tree, with_raw_commit, RawCommit};
use super::store::{parse_ledger_entry, Ledger};
use crate::error::{Error, Result};
use git2::{ObjectType, Odb, Oid};
use serde::Serialize;
use sha1::{Digest, Sha1};

/// One row of `pledge log`: the entry object with the commit that holds it. In JSON the entry's
/// keys are inlined next to `commit`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogItem {
    /// The ledger commit id (hex).
    pub commit: String,
    /// The entry.
    #[serde(flatten)]
    pub entry: Entry,
}

/// All entries of the ledger, first to last (read through the log cache where it holds, see
/// the module docs). Errors: a malformed entry (exit 2; `verify` lists such problems as
/// findings), a missing or damaged ledger object (exit 2, with a `git fetch` hint), git
/// failures (exit 70).
pub fn log(ledger: &Ledger) -> Result<Vec<LogItem>> {
    Ok(walk(ledger)?.items)
}

/// What one walk of the chain gave.
struct Walk {
    /// The entries, first to last.
    items: Vec<LogItem>,
    /// How many of them were read through the cache (what the tests check).
    #[cfg_attr(not(test), allow(dead_code))]
    from_cache: usize,
}

/// The walk behind [`log`]: through the cache where it holds, else from the objects alone.
fn walk(ledger: &Ledger) -> Result<Walk> {
    let Some(tip) = ledger.tip()? else {
        return Ok(Walk {
            items: vec![],
            from_cache: 0,
        });
    };
    let odb = ledger
        .repo()
        .odb()
        .map_err(|e| Error::git("opening the object database", e))?;
    let file = cache_file(ledger);
    let bytes = std::fs::read(&file).ok();
    if let Some(cache) = bytes.as_deref().and_then(LogCache::parse) {
        if let Some(w) = walk_with(ledger, &odb, tip, Some(&cache))? {
            return Ok(w);
        }
    }
    let w = walk_with(ledger, &odb, tip, None)?;
    Ok(w.unwrap_or(Walk {
        items: vec![],
        from_cache: 0,
    }))
}

/// Walks first parents back from `tip`, reading each entry from its objects until the walk
/// reaches the tip of `cache` and through the cache from there; saves the cache when the walk
/// read entries from objects. `None` when `cache` does not hold for this chain (never without
/// a cache).
///
/// Errors: as [`log`], for the first entry (from the tip) that cannot be read.
fn walk_with(ledger: &Ledger, odb: &Odb<'_>, tip: Oid, cache: Option<&LogCache<'_>>) -> Result<Option<Walk>> {
    // The cache's own work (hashing each record's bytes, parsing its entry) needs nothing from
    // the repository: a second thread does it while this one walks the commits.
    std::thread::scope(|scope| {
        let hashed = cache.map(|c| scope.spawn(move || c.records.iter().map(Cached::hash).collect::<Vec<_>>()));
        let walked = walk_commits(ledger, odb, tip, cache)?;
        let hashed = match hashed.map(|h| h.join()) {
            Some(Ok(h)) => Some(h),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => None,
        };
        Ok(walked.and_then(|w| w.finish(ledger, odb, cache, hashed)))
    })
}

/// The commits of the chain as [`walk_commits`] read them: the entries read from objects and
/// the commits read through the cache, to be checked against its records.
struct Commits {
    /// Entries read from objects, newest first.
    items: Vec<LogItem>,
    /// Their parts, newest first, while every one of them could be kept.
    fresh: Option<Vec<Parts>>,
    /// The commits read through the cache, newest first: the commit, its tree and the index of
    /// the record that must hold it.
    cached: Vec<(Oid, Oid, usize)>,
}

/// Walks first parents back from `tip`, reading each entry from its objects until the walk
/// reaches the tip of `cache`, and from there the commits alone. `None` when the chain does not
/// match the cache's records (commit ids, count, an unreadable commit).
fn walk_commits(ledger: &Ledger, odb: &Odb<'_>, tip: Oid, cache: Option<&LogCache<'_>>) -> Result<Option<Commits>> {
    let mut w = Commits {
        items: Vec::new(),
        fresh: Some(Vec::new()),
        cached: Vec::with_capacity(cache.map_or(0, |c| c.records.len())),
    };
    // Once the cache's tip is reached: how many cached records are left to match.
    let mut left: Option<usize> = None;
    let mut next = Some(tip);
    while let Some(oid) = next {
        if let Some(c) = cache {
            if left.is_none() && c.tip == oid.as_bytes() {
                left = Some(c.records.len());
            }
            if let Some(n) = left {
                let Some(i) = n.checked_sub(1).filter(|&i| c.records[i].commit == oid.as_bytes()) else {
                    return Ok(None);
                };
                let Some((tree, parent)) = read_commit(odb, oid) else {
                    return Ok(None);
                };
                left = Some(i);
                w.cached.push((oid, tree, i));
                next = parent;
                continue;
            }
        }
        let (entry, parent) = match read_parts(odb, oid) {
            Some((parts, parent)) => {
                let entry = parse_ledger_entry(oid, &parts.entry)?;
                if let Some(f) = w.fresh.as_mut() {
                    f.push(parts);
                }
                (entry, parent)
            }
            None => {
                w.fresh = None;
                ledger.read_entry_and_parent(oid)?
            }
        };
        w.items.push(LogItem {
            commit: oid.to_string(),
            entry,
        });
        next = parent;
    }
    // The chain ended before the cache's records did: it is not this chain's.
    if matches!(left, Some(n) if n > 0) {
        return Ok(None);
    }
    Ok(Some(w))
}

impl Commits {
    /// The walk, once every commit read through the cache is checked against its record's
    /// `hashed` bytes (see the module docs); saves the cache when entries were read from
    /// objects. `None` when a record does not hold.
    fn finish(
        mut self,
        ledger: &Ledger,
        odb: &Odb<'_>,
        cache: Option<&LogCache<'_>>,
        mut hashed: Option<Vec<Option<Hashed>>>,
    ) -> Option<Walk> {
        for &(oid, tree, i) in &self.cached {
            let h = hashed.as_mut()?.get_mut(i)?.take()?;
            if h.tree != tree.as_bytes() || !odb.exists(tree) || !odb.exists(h.blob) {
                return None;
            }
            self.items.push(LogItem {
                commit: oid.to_string(),
                entry: h.entry,
            });
        }
        let from_cache = match cache {
            Some(c) if !self.cached.is_empty() => c.records.len(),
            _ => 0,
        };
        if let Some(f) = self.fresh.filter(|f| !f.is_empty()) {
            save(ledger, from_cache > 0, &f);
        }
        self.items.reverse();
        Some(Walk {
            items: self.items,
            from_cache,
        })
    }
}

/// The tree and first parent of commit `oid`, read raw; `None` when it is not a readable commit.
fn read_commit(odb: &Odb<'_>, oid: Oid) -> Option<(Oid, Option<Oid>)> {
    let obj = odb.read(oid).ok()?;
    if obj.kind() != ObjectType::Commit {
        return None;
    }
    let c = RawCommit::parse(obj.data())?;
    Some((c.tree, c.parents.first().copied()))
}

/// Where the log cache is kept (inside the git directory, so it is never committed or pushed).
fn cache_file(ledger: &Ledger) -> std::path::PathBuf {
    ledger.repo().path().join("pledge").join("log-cache")
}

/// The first bytes of a log cache file: its name and layout version.
const MAGIC: &[u8] = b"pledge log cache 1\n";

/// Length of a SHA-1 object id, the only object format pledge's ledger is kept in.
const ID_LEN: usize = 20;

/// The tree and `entry.json` of one commit, as read from the object database.
struct Parts {
    commit: Oid,
    tree: Vec<u8>,
    entry: Vec<u8>,
}

/// The parts of commit `oid` and its first parent, read raw as `Ledger::read_entry_and_parent`
/// reads them first; `None` where that would fall back to libgit2's parsed objects.
fn read_parts(odb: &Odb<'_>, oid: Oid) -> Option<(Parts, Option<Oid>)> {
    with_raw_commit(odb, oid, |_, c, tree| {
        let blob = odb.read(entry_item(tree)?).ok()?;
        let parts = Parts {
            commit: oid,
            tree: tree.to_vec(),
            entry: blob.data().to_vec(),
        };
        Some((parts, c.parents.first().copied()))
    })
}

/// The id of the first `entry.json` blob a raw tree names (as `records::read_entry_raw` finds it).
fn entry_item(tree: &[u8]) -> Option<Oid> {
    raw_tree(tree)?
        .into_iter()
        .find(|i| i.name == b"entry.json" && i.kind == ObjectType::Blob)
        .map(|i| i.id)
}

/// The SHA-1 object id of a `kind` object holding `content` (git's object format: the header
/// `KIND LEN\0`, then the content).
fn object_id(kind: &str, content: &[u8]) -> [u8; ID_LEN] {
    use std::io::Write as _;
    let mut header = [0u8; 32];
    let mut w = &mut header[..];
    let _ = write!(w, "{} {}\0", kind, content.len());
    let n = 32 - w.len();
    let mut h = Sha1::new();
    h.update(&header[..n]);
    h.update(content);
    h.finalize().into()
}

/// A log cache file, parsed (borrowing its bytes). Layout: [`MAGIC`], then per commit of the
/// chain, first to last: its id (20 bytes), the tree's length (u32, little-endian) and bytes,
/// the `entry.json`'s length and bytes. The tip is the last record's commit, so the entries of
/// later appends are added at the end.
struct LogCache<'a> {
    tip: &'a [u8],
    records: Vec<Cached<'a>>,
}

/// One cached commit.
struct Cached<'a> {
    commit: &'a [u8],
    tree: &'a [u8],
    entry: &'a [u8],
}

impl<'a> LogCache<'a> {
    /// `None` when `bytes` is not a whole cache of this layout with at least one record.
    fn parse(bytes: &'a [u8]) -> Option<LogCache<'a>> {
        fn take<'b>(rest: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
            let (head, tail) = (rest.get(..n)?, rest.get(n..)?);
            *rest = tail;
            Some(head)
        }
        fn len(rest: &mut &[u8]) -> Option<usize> {
            let b: [u8; 4] = take(rest, 4)?.try_into().ok()?;
            usize::try_from(u32::from_le_bytes(b)).ok()
        }
        let mut rest = bytes.strip_prefix(MAGIC)?;
        let mut records = Vec::new();
        while !rest.is_empty() {
            let commit = take(&mut rest, ID_LEN)?;
            let l = len(&mut rest)?;
            let tree = take(&mut rest, l)?;
            let l = len(&mut rest)?;
            let entry = take(&mut rest, l)?;
            records.push(Cached { commit, tree, entry });
        }
        let tip = records.last()?.commit;
        Some(LogCache { tip, records })
    }
}

/// What a cached record's bytes give by themselves: the object id of its tree bytes, the
/// `entry.json` blob that tree names and the entry.
struct Hashed {
    tree: [u8; ID_LEN],
    blob: Oid,
    entry: Entry,
}

impl Cached<'_> {
    /// The record's ids and entry; `None` when the tree names no `entry.json`, the entry bytes
    /// are not the blob it names, or the entry does not parse (the read from objects then gives
    /// the error).
    fn hash(&self) -> Option<Hashed> {
        let blob = entry_item(self.tree)?;
        if object_id("blob", self.entry) != blob.as_bytes() {
            return None;
        }
        let entry = Entry::parse(self.entry, "a cached entry.json").ok()?;
        Some(Hashed {
            tree: object_id("tree", self.tree),
            blob,
            entry,
        })
    }
}

/// Writes `fresh` (newest first) as cache records, first to last, after `MAGIC` when `new`.
fn cache_bytes(new: bool, fresh: &[Parts]) -> Option<Vec<u8>> {
    let size: usize = fresh.iter().map(|p| ID_LEN + 8 + p.tree.len() + p.entry.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + size);
    if new {
        out.extend_from_slice(MAGIC);
    }
    for p in fresh.iter().rev() {
        let tl = u32::try_from(p.tree.len()).ok()?;
        let el = u32::try_from(p.entry.len()).ok()?;
        out.extend_from_slice(p.commit.as_bytes());
        out.extend_from_slice(&tl.to_le_bytes());
        out.extend_from_slice(&p.tree);
        out.extend_from_slice(&el.to_le_bytes());
        out.extend_from_slice(&p.entry);
    }
    Some(out)
}

/// Saves `fresh` (the entries read from objects, newest first): added at the end of the cache
/// when the rest of the chain came from it (`extend`), else as a new cache. A cache: failing
/// to write it only costs a walk of the objects next time, and a cache left half-written (two
/// processes adding the same entries, a crash) fails its checks and is replaced.
fn save(ledger: &Ledger, extend: bool, fresh: &[Parts]) {
    let Some(bytes) = cache_bytes(!extend, fresh) else {
        return;
    };
    let f = cache_file(ledger);
    if extend {
        use std::io::Write as _;
        if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(&f) {
            let _ = file.write_all(&bytes);
        }
        return;
    }
    if let Some(dir) = f.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::io::write_cache(&f, &bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Draft, EntryKind};
    use chrono::TimeZone;

    fn note(l: &Ledger, reason: &str) {
        let d = Draft {
            kind: Some(EntryKind::Note),
            reason: Some(reason.into()),
            ..Default::default()
        };
        l.append(&d, chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap())
            .unwrap();
    }

    /// The entries and commits the records reader (`verify`'s, which never uses the cache)
    /// finds, first to last.
    fn oracle(l: &Ledger) -> Vec<LogItem> {
        l.entries()
            .unwrap()
            .into_iter()
            .map(|s| LogItem {
                commit: s.commit,
                entry: s.entry,
            })
            .collect()
    }

    /// A ledger of `n` notes, `entry 1` … (the reasons prefixed by `prefix`).
    fn ledger(n: usize, prefix: &str) -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().unwrap();
        let (l, _) = Ledger::init(dir.path()).unwrap();
        for i in 0..n {
            note(&l, &format!("{}entry {}", prefix, i + 1));
        }
        (dir, l)
    }

    /// The first walk reads every entry from its objects and writes the cache; the next reads
    /// them all through it; after appends only the new entries are read from objects, and the
    /// cache grows by them. Each walk gives the records reader's entries.
    #[test]
    fn the_cache_serves_the_chain_it_was_written_for() {
        let (_d, l) = ledger(5, "");
        let w = walk(&l).unwrap();
        assert_eq!((w.items.clone(), w.from_cache), (oracle(&l), 0));
        let w = walk(&l).unwrap();
        assert_eq!((w.items.clone(), w.from_cache), (oracle(&l), 5));
        note(&l, "entry 6");
        note(&l, "entry 7");
        let w = walk(&l).unwrap();
        assert_eq!((w.items.clone(), w.from_cache), (oracle(&l), 5));
        let w = walk(&l).unwrap();
        assert_eq!((w.items.clone(), w.from_cache), (oracle(&l), 7));
        assert_eq!(w.items[6].entry.reason.as_deref(), Some("entry 7"));
        let bytes = std::fs::read(cache_file(&l)).unwrap();
        assert_eq!(LogCache::parse(&bytes).unwrap().records.len(), 7);
    }

    /// A cache that does not hold for the chain is not used for any entry, and is replaced by
    /// one that does: a cached entry edited, two records swapped, a record dropped, a cache of
    /// another ledger, a cut-short file, another layout version. With a valid cache, an object
    /// missing from the repository still stops `log` as it does without the cache.
    #[test]
    fn a_cache_that_does_not_hold_is_ignored() {
        let (_d, l) = ledger(4, "");
        walk(&l).unwrap();
        let good = std::fs::read(cache_file(&l)).unwrap();
        let records = |b: &[u8]| {
            LogCache::parse(b)
                .unwrap()
                .records
                .iter()
                .map(|r| (r.commit.to_vec(), r.tree.to_vec(), r.entry.to_vec()))
                .collect::<Vec<_>>()
        };
        let write = |recs: &[(Vec<u8>, Vec<u8>, Vec<u8>)]| {
            let mut out = MAGIC.to_vec();
            for (c, t, e) in recs {
                out.extend_from_slice(c);
                out.extend_from_slice(&(t.len() as u32).to_le_bytes());
                out.extend_from_slice(t);
                out.extend_from_slice(&(e.len() as u32).to_le_bytes());
                out.extend_from_slice(e);
            }
            out
        };
        let recs = records(&good);
        assert_eq!(write(&recs), good);
        let (_o, other) = ledger(4, "another ");
        walk(&other).unwrap();
        let mut edited = recs.clone();
        let text = String::from_utf8(edited[1].2.clone())
            .unwrap()
            .replace("entry 2", "entry 9");
        edited[1].2 = text.into_bytes();
        let mut swapped = recs.clone();
        let (t, e) = (swapped[1].1.clone(), swapped[1].2.clone());
        swapped[1].1 = swapped[2].1.clone();
        swapped[1].2 = swapped[2].2.clone();
        swapped[2].1 = t;
        swapped[2].2 = e;
        let mut dropped = recs.clone();
        dropped.remove(1);
        let mut version = good.clone();
        version[MAGIC.len() - 2] = b'2';
        let bad: [(&str, Vec<u8>); 6] = [
            ("edited", write(&edited)),
            ("swapped", write(&swapped)),
            ("dropped", write(&dropped)),
            ("foreign", std::fs::read(cache_file(&other)).unwrap()),
            ("cut short", good[..good.len() - 3].to_vec()),
            ("version", version),
        ];
        for (what, bytes) in bad {
            std::fs::write(cache_file(&l), &bytes).unwrap();
            let w = walk(&l).unwrap();
            assert_eq!((w.items, w.from_cache), (oracle(&l), 0), "{}", what);
            assert_eq!(std::fs::read(cache_file(&l)).unwrap(), good, "{}", what);
        }
        // An entry.json deleted from the object database: refused with and without the cache.
        let blob = recs[1].1[recs[1].1.len() - 20..].to_vec();
        let hex = hex::encode(&blob);
        let loose = l.repo().path().join("objects").join(&hex[..2]).join(&hex[2..]);
        std::fs::remove_file(loose).unwrap();
        let with = walk(&l).err().map(|e| e.to_string());
        std::fs::remove_file(cache_file(&l)).unwrap();
        let without = walk(&l).err().map(|e| e.to_string());
        assert!(with.is_some());
        assert_eq!(with, without);
    }
}
