//! The raw material verification works on: one [`Record`] per ledger commit (or export line),
//! read without trusting it, so that a malformed entry becomes a finding instead of an error.
//!
//! Reading the whole chain (`verify`, `report`, `export`) goes through here; the records of the
//! last tip read are kept by the `Ledger` handle, so that one command walks the chain once. Each
//! commit, tree and file is read once, raw, from the object database, commit and tree parsed
//! here; anything those small parsers do not take as ordinary (not a commit, an unreadable
//! object, an odd header layout) goes through libgit2's parsed objects, whose errors and findings
//! stand. An object missing or damaged there (a shallow fetch, a deleted loose object) is kept in
//! the record (`Record::unreadable`): `verify` reports it as `ledger-unreadable`, and `log`,
//! `export` and appends refuse with exit 2 and a `git fetch` hint (`Ledger::unreadable_hint`).
//! Neither reader honours `git replace` refs; `verify` notes them (`replace-refs`).

use super::entry::Entry;
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
    /// (git) The objects of this record the repository cannot give: the commit itself, its
    /// tree, or a file of it (missing from a shallow clone, deleted, or damaged).
    pub unreadable: Vec<Unreadable>,
}

/// A ledger object that cannot be read from the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The object, for messages: `commit 1a2b3c4`, `the tree of commit 1a2b3c4`,
    /// `entry.json of commit 1a2b3c4`.
    pub what: String,
    /// Why: `it is not in this repository`, or libgit2's message (a damaged object).
    pub why: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cannot be read: {}", self.what, self.why)
    }
}

impl Unreadable {
    /// `what` cannot be read because of `e`, or `None` when `e` is not about the object itself
    /// (see [`object_unreadable`]).
    pub fn from_git(what: String, e: &git2::Error) -> Option<Unreadable> {
        object_unreadable(e).then(|| Unreadable {
            what,
            why: if e.code() == git2::ErrorCode::NotFound {
                NOT_HERE.to_string()
            } else {
                e.message().to_string()
            },
        })
    }
}

/// Why an object the repository lacks cannot be read.
const NOT_HERE: &str = "it is not in this repository";

/// Whether libgit2's error `e` from reading an object says the object is missing or damaged
/// (not found, a bad zlib stream, a header or content that does not parse, a content that does
/// not hash to its id) rather than that the repository as a whole failed.
pub(crate) fn object_unreadable(e: &git2::Error) -> bool {
    use git2::ErrorClass as C;
    e.code() == git2::ErrorCode::NotFound || matches!(e.class(), C::Odb | C::Zlib | C::Object)
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
            unreadable: vec![],
        }
    }

    /// The entry's sequence number, if the entry parsed.
    pub fn seq(&self) -> Option<u64> {
        self.entry.as_ref().ok().map(|e| e.seq)
    }
}

/// Reads the records of the chain ending at commit `tip` of `repo`, first to last, following
/// first parents, each with its raw commit object (the ledger handle keeps the last ones read:
/// `Ledger::records`). Errors (exit 70): the repository cannot be read, or `tip` is not a
/// commit.
pub(crate) fn read_records(repo: &git2::Repository, tip: Oid) -> Result<Vec<Record>> {
    let odb = repo.odb().map_err(|e| Error::git("opening the object database", e))?;
    let mut out: Vec<Record> = Vec::new();
    let mut next = Some(tip);
    while let Some(oid) = next {
        let (mut rec, parent) = match read_record_raw(&odb, oid) {
            Some(x) => x,
            None => read_record_parsed(repo, &odb, oid)?,
        };
        // A commit that cannot be read ends the walk: say which entry names it.
        if let (Some(u), None) = (rec.unreadable.first_mut(), rec.commit_raw.as_ref()) {
            if u.why == NOT_HERE && repo.is_shallow() {
                u.why = format!(
                    "{} (this repository is a shallow clone, its history cut here)",
                    NOT_HERE
                );
            }
            u.what = match out.last() {
                None => format!("{}, the tip {} names,", u.what, super::LEDGER_REF),
                Some(child) => format!(
                    "{}, the parent of {}{},",
                    u.what,
                    child.seq().map(|s| format!("entry #{} ", s)).unwrap_or_default(),
                    if child.seq().is_some() {
                        format!("({})", child.at)
                    } else {
                        child.at.clone()
                    }
                ),
            };
            rec.entry = Err(u.to_string());
        }
        out.push(rec);
        next = parent;
    }
    // libgit2 reports an object in a directory this user cannot read as missing: say what it is.
    if out.iter().any(|r| !r.unreadable.is_empty()) {
        objects_readable(repo)?;
    }
    out.reverse();
    Ok(out)
}

/// Checks that this user can read the repository's object directories (`objects/` and its
/// fan-out and pack directories): libgit2 takes an object it is not allowed to read for a
/// missing one, which is the environment, not a damaged ledger.
///
/// Errors (exit 74): a directory cannot be read (permission denied, an I/O error).
pub(crate) fn objects_readable(repo: &git2::Repository) -> Result<()> {
    let objects = repo.commondir().join("objects");
    let denied = |dir: &std::path::Path, e: std::io::Error| {
        Error::io_error(format!("cannot read the repository's objects in {}", dir.display()))
            .caused_by(e)
            .with_hint("check that this user may read the repository's .git directory (its owner and permissions)")
    };
    let top = match std::fs::read_dir(&objects) {
        Ok(d) => d,
        Err(e) if crate::error::is_environment(&e) => return Err(denied(&objects, e)),
        Err(_) => return Ok(()),
    };
    for d in top.flatten() {
        let path = d.path();
        if !path.is_dir() {
            continue;
        }
        if let Err(e) = std::fs::read_dir(&path) {
            if crate::error::is_environment(&e) {
                return Err(denied(&path, e));
            }
        }
    }
    Ok(())
}

/// A record with nothing but its commit's own fields filled in.
fn commit_record(oid: Oid, parents: Vec<String>, message: Option<&str>, raw: Vec<u8>) -> Record {
    Record {
        at: format!("commit {}", crate::text::short(&oid.to_string(), 7)),
        commit: Some(oid.to_string()),
        parents,
        message_sha: message
            .and_then(|m| m.lines().find_map(|l| l.strip_prefix("entry_sha256 ")))
            .map(|s| s.trim().to_string()),
        commit_raw: Some(raw),
        ..Record::new(String::new(), Err("the commit has no entry.json".into()))
    }
}

/// Files the tree entry `name` into `rec`: `blob` is `None` when the entry is not a blob, else
/// the blob's content or the error reading it (a file of the ledger's layout that cannot be
/// read is [`Record::unreadable`], its entry then unknown).
fn file_into(rec: &mut Record, name: String, id: Oid, blob: Option<std::result::Result<Vec<u8>, git2::Error>>) {
    const LAYOUT: [&str; 3] = ["entry.json", "result.json", "protocol.toml"];
    let blob = match blob {
        Some(Err(e)) if LAYOUT.contains(&name.as_str()) => {
            let what = format!(
                "{} (blob {}) of {}",
                name,
                crate::text::short(&id.to_string(), 7),
                rec.at
            );
            match Unreadable::from_git(what, &e) {
                Some(u) => {
                    if name == "entry.json" {
                        rec.entry = Err(u.to_string());
                    }
                    rec.unreadable.push(u);
                    return;
                }
                None => None,
            }
        }
        Some(b) => b.ok(),
        None => None,
    };
    match (name.as_str(), blob) {
        ("entry.json", Some(b)) => {
            rec.entry =
                serde_json::from_slice::<Entry>(&b).map_err(|e| format!("its entry.json does not parse: {}", e));
            rec.entry_bytes = Some(b);
        }
        ("result.json", Some(b)) => rec.result = Some(b),
        ("protocol.toml", Some(b)) => rec.protocol = Some(b),
        _ => rec.other_files.push(name),
    }
}

/// The record of commit `oid` and its first parent, each object read once, raw, from the object
/// database and parsed here (see [`RawCommit`], [`raw_tree`]). `None` for anything these
/// parsers do not take as ordinary (not a commit, an unreadable object, an unusual layout): the
/// caller then reads it through libgit2's parsed objects, whose errors and findings stand.
fn read_record_raw(odb: &git2::Odb<'_>, oid: Oid) -> Option<(Record, Option<Oid>)> {
    with_raw_commit(odb, oid, |raw, c, tree| {
        let items = raw_tree(tree)?;
        let parent = c.parents.first().copied();
        let mut rec = commit_record(
            oid,
            c.parents.iter().map(Oid::to_string).collect(),
            std::str::from_utf8(c.message).ok(),
            raw.to_vec(),
        );
        for item in items {
            let blob = match item.kind {
                ObjectType::Blob => Some(odb.read(item.id).map(|o| o.data().to_vec())),
                _ => None,
            };
            file_into(&mut rec, item.name_lossy(), item.id, blob);
        }
        Some((rec, parent))
    })
}

/// `f(commit bytes, the parsed commit, its tree's bytes)` for commit `oid`, both objects read
/// raw from the object database; `None` when either is unreadable or not of its kind, or the
/// commit is not ordinary for [`RawCommit::parse`] (the callers then read through libgit2).
pub(crate) fn with_raw_commit<T>(
    odb: &git2::Odb<'_>,
    oid: Oid,
    f: impl FnOnce(&[u8], &RawCommit<'_>, &[u8]) -> Option<T>,
) -> Option<T> {
    let obj = odb.read(oid).ok()?;
    if obj.kind() != ObjectType::Commit {
        return None;
    }
    let c = RawCommit::parse(obj.data())?;
    let tree = odb.read(c.tree).ok()?;
    if tree.kind() != ObjectType::Tree {
        return None;
    }
    f(obj.data(), &c, tree.data())
}

/// `read(bytes of entry.json)` of commit `oid`, and the commit's first parent, read raw as
/// [`read_record_raw`] reads them (the bytes are not copied); `None` where that returns `None`,
/// or the tree has no `entry.json` blob (the caller's libgit2 path then gives the error).
pub(crate) fn read_entry_raw<T>(
    odb: &git2::Odb<'_>,
    oid: Oid,
    read: impl FnOnce(&[u8]) -> T,
) -> Option<(T, Option<Oid>)> {
    with_raw_commit(odb, oid, |_, c, tree| {
        let item = raw_tree(tree)?
            .into_iter()
            .find(|i| i.name == b"entry.json" && i.kind == ObjectType::Blob)?;
        let blob = odb.read(item.id).ok()?;
        Some((read(blob.data()), c.parents.first().copied()))
    })
}

/// As [`read_record_raw`] through libgit2's parsed commit and tree. An object that is not a
/// commit (a ref or parent naming a blob or tree) is a record of a malformed ledger, with no
/// parent; a commit that is missing or damaged is a record of it ([`Record::unreadable`]), with
/// no parent; a tree that is, a record with the commit's parent.
///
/// Errors (exit 70): the repository fails otherwise.
fn read_record_parsed(repo: &git2::Repository, odb: &git2::Odb<'_>, oid: Oid) -> Result<(Record, Option<Oid>)> {
    let at = format!("commit {}", crate::text::short(&oid.to_string(), 7));
    let commit = match repo.find_commit(oid) {
        Ok(c) => c,
        Err(e) => match repo.find_object(oid, None).ok().and_then(|o| o.kind()) {
            Some(kind) if kind != ObjectType::Commit => {
                let rec = Record {
                    commit: Some(oid.to_string()),
                    ..Record::new(
                        format!("object {}", crate::text::short(&oid.to_string(), 7)),
                        Err(format!("the ledger names a {}, not a commit", kind)),
                    )
                };
                return Ok((rec, None));
            }
            _ => match Unreadable::from_git(at.clone(), &e) {
                Some(u) => {
                    let rec = Record {
                        commit: Some(oid.to_string()),
                        unreadable: vec![u.clone()],
                        ..Record::new(at, Err(u.to_string()))
                    };
                    return Ok((rec, None));
                }
                None => return Err(Error::git(format!("reading ledger commit {}", oid), e)),
            },
        },
    };
    let raw = odb
        .read(oid)
        .map_err(|e| Error::git(format!("reading ledger commit {}", oid), e))?
        .data()
        .to_vec();
    let mut rec = commit_record(
        oid,
        commit.parent_ids().map(|p| p.to_string()).collect(),
        commit.message(),
        raw,
    );
    let tree = match commit.tree() {
        Ok(t) => t,
        Err(e) => {
            let what = format!(
                "the tree {} of {}",
                crate::text::short(&commit.tree_id().to_string(), 7),
                at
            );
            let u = Unreadable::from_git(what, &e)
                .ok_or_else(|| Error::git(format!("reading the tree of ledger commit {}", oid), e))?;
            rec.entry = Err(u.to_string());
            rec.unreadable.push(u);
            return Ok((rec, commit.parent_id(0).ok()));
        }
    };
    for item in tree.iter() {
        let name = item.name().unwrap_or("?").to_string();
        let blob = match item.kind() {
            Some(ObjectType::Blob) => Some(odb.read(item.id()).map(|o| o.data().to_vec())),
            _ => None,
        };
        file_into(&mut rec, name, item.id(), blob);
    }
    Ok((rec, commit.parent_id(0).ok()))
}

/// The fields of a commit object the ledger reads, parsed from its raw bytes (git's commit
/// format, see [`super::gitobj`]): the `tree` header, then the `parent` headers, then `author`
/// and `committer`, as libgit2's commit parser requires them; the message after the first empty
/// line.
pub(crate) struct RawCommit<'a> {
    /// The `tree` id.
    pub tree: Oid,
    /// The `parent` ids, in order.
    pub parents: Vec<Oid>,
    /// The message bytes (empty when the commit has no empty line after its headers).
    pub message: &'a [u8],
}

impl<'a> RawCommit<'a> {
    /// `None` when `raw` does not start with `tree`, `parent`… , `author`, `committer` header
    /// lines with 40-hex-digit ids (libgit2's parser is then the judge).
    pub fn parse(raw: &'a [u8]) -> Option<RawCommit<'a>> {
        fn id_line(rest: &mut &[u8], name: &[u8]) -> Option<Oid> {
            let line = rest.strip_prefix(name)?;
            let (hex, after) = (line.get(..40)?, line.get(40..)?);
            let after = after.strip_prefix(b"\n")?;
            let id = Oid::from_str(std::str::from_utf8(hex).ok()?).ok()?;
            *rest = after;
            Some(id)
        }
        let mut rest = raw;
        let tree = id_line(&mut rest, b"tree ")?;
        let mut parents = Vec::with_capacity(1);
        while rest.starts_with(b"parent ") {
            parents.push(id_line(&mut rest, b"parent ")?);
        }
        let committer = rest.strip_prefix(b"author ")?;
        let committer = &committer[committer.iter().position(|b| *b == b'\n')? + 1..];
        if !committer.starts_with(b"committer ") {
            return None;
        }
        let message = match memchr::memmem::find(raw, b"\n\n") {
            Some(i) => &raw[i + 2..],
            None => &[],
        };
        Some(RawCommit { tree, parents, message })
    }
}

/// One entry of a raw tree object.
pub(crate) struct RawTreeItem<'a> {
    /// The object type its mode denotes, as libgit2's `git_tree_entry_type`: a commit for a
    /// submodule (`160000`), a tree for a directory (`40000`), else a blob.
    pub kind: ObjectType,
    /// The name's bytes.
    pub name: &'a [u8],
    /// The id of the object it names.
    pub id: Oid,
}

impl RawTreeItem<'_> {
    /// The name, or `?` when it is not UTF-8 (as the ledger's messages show such a name).
    pub fn name_lossy(&self) -> String {
        std::str::from_utf8(self.name).unwrap_or("?").to_string()
    }
}

/// The entries of a raw tree object (`"<octal mode> <name>\0<20-byte id>"` each, in stored
/// order); `None` when `data` is not in that shape (libgit2's parser is then the judge).
pub(crate) fn raw_tree(data: &[u8]) -> Option<Vec<RawTreeItem<'_>>> {
    let mut out = Vec::with_capacity(3);
    let mut rest = data;
    while !rest.is_empty() {
        let sp = rest.iter().position(|b| *b == b' ')?;
        let mode_text = &rest[..sp];
        if mode_text.is_empty() || mode_text.len() > 7 || !mode_text.iter().all(|b| (b'0'..=b'7').contains(b)) {
            return None;
        }
        let mode = mode_text.iter().fold(0u32, |m, b| m * 8 + u32::from(b - b'0'));
        let after = &rest[sp + 1..];
        let nul = after.iter().position(|b| *b == 0)?;
        let name = &after[..nul];
        let id = Oid::from_bytes(after.get(nul + 1..nul + 21)?).ok()?;
        if name.is_empty() {
            return None;
        }
        let kind = match mode & 0o170000 {
            0o160000 => ObjectType::Commit,
            0o040000 => ObjectType::Tree,
            _ => ObjectType::Blob,
        };
        out.push(RawTreeItem { kind, name, id });
        rest = &after[nul + 21..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::{Repository, Signature, Time};

    fn same(a: &Record, b: &Record) {
        assert_eq!(
            (&a.at, &a.commit, &a.parents, &a.entry_bytes, &a.result, &a.protocol),
            (&b.at, &b.commit, &b.parents, &b.entry_bytes, &b.result, &b.protocol)
        );
        assert_eq!(
            (&a.other_files, &a.message_sha, &a.commit_raw),
            (&b.other_files, &b.message_sha, &b.commit_raw)
        );
        assert_eq!(a.entry.as_ref().err(), b.entry.as_ref().err());
    }

    /// The raw reader gives libgit2's reading of the same commits: files, a subtree, a
    /// submodule entry, a non-UTF-8 name, a merge commit, a message with and without the hash
    /// line; and it leaves to libgit2 what it does not parse (a ref naming a blob).
    #[test]
    fn raw_records_are_libgit2_records() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let odb = repo.odb().unwrap();
        let sig = Signature::new("pledge", "pledge@localhost", &Time::new(1_796_040_000, 0)).unwrap();
        let entry = repo.blob(b"{\"seq\":1}\n").unwrap();
        let other = repo.blob(b"x").unwrap();
        let mut sub = repo.treebuilder(None).unwrap();
        sub.insert("inner", other, 0o100644).unwrap();
        let sub = sub.write().unwrap();
        let mut tb = repo.treebuilder(None).unwrap();
        tb.insert("entry.json", entry, 0o100644).unwrap();
        tb.insert("result.json", other, 0o100644).unwrap();
        tb.insert("protocol.toml", other, 0o100755).unwrap();
        tb.insert("dir", sub, 0o040000).unwrap();
        tb.insert(
            "module",
            Oid::from_str("1234567890123456789012345678901234567890").unwrap(),
            0o160000,
        )
        .unwrap();
        let tree = repo.find_tree(tb.write().unwrap()).unwrap();
        let first = repo
            .commit(None, &sig, &sig, "pledge: note #1\n\nentry_sha256 ab12\n", &tree, &[])
            .unwrap();
        let p1 = repo.find_commit(first).unwrap();
        let second = repo.commit(None, &sig, &sig, "no hash line", &tree, &[&p1]).unwrap();
        let p2 = repo.find_commit(second).unwrap();
        let merge = repo.commit(None, &sig, &sig, "merge\n", &tree, &[&p2, &p1]).unwrap();
        for oid in [first, second, merge] {
            let (raw, raw_parent) = read_record_raw(&odb, oid).unwrap();
            let (parsed, parsed_parent) = read_record_parsed(&repo, &odb, oid).unwrap();
            same(&raw, &parsed);
            assert_eq!(raw_parent, parsed_parent);
            assert_eq!(raw.other_files, ["dir", "module"]);
            let (bytes, parent) = read_entry_raw(&odb, oid, <[u8]>::to_vec).unwrap();
            assert_eq!((Some(bytes), parent), (raw.entry_bytes.clone(), raw_parent));
        }
        assert_eq!(
            read_record_raw(&odb, first).unwrap().0.message_sha.as_deref(),
            Some("ab12")
        );
        assert_eq!(read_record_raw(&odb, merge).unwrap().0.parents.len(), 2);
        // A blob is left to libgit2, which names it.
        assert!(read_record_raw(&odb, entry).is_none());
        let (rec, parent) = read_record_parsed(&repo, &odb, entry).unwrap();
        assert_eq!(rec.entry.unwrap_err(), "the ledger names a blob, not a commit");
        assert_eq!(parent, None);
        // Shapes the raw parsers refuse, for libgit2 to judge.
        assert!(RawCommit::parse(b"parent 1234567890123456789012345678901234567890\n").is_none());
        assert!(RawCommit::parse(b"tree 1234567890123456789012345678901234567890\ncommitter x\n").is_none());
        assert!(raw_tree(b"100644 entry.json\0short").is_none());
        assert!(raw_tree(b"10x644 a\x0012345678901234567890").is_none());
        let odd = raw_tree(b"100644 \xff\x0012345678901234567890").unwrap();
        assert_eq!((odd[0].name_lossy(), odd[0].kind), ("?".to_string(), ObjectType::Blob));
    }
}
