//! Git object ids recomputed from content, so a ledger copy held outside git (an export) can be
//! authenticated: an id names exactly one object, and a reviewer who got the tip id from a
//! published repository can check that every entry's files hash up to it.
//!
//! Git's object format (git's `Documentation/gitformat-*` and `object-file.c`): an object's id
//! is the hash of `"<type> <size>\0"` followed by its content, where `<type>` is `blob`, `tree`
//! or `commit` and `<size>` the content length in decimal bytes. The hash is SHA-1 (20-byte ids,
//! 40 hex digits) in ordinary repositories and SHA-256 (32-byte ids, 64 hex digits) in
//! repositories made with `git init --object-format=sha256`. A tree's content is its entries,
//! each `"<mode in octal, no leading zero> <name>\0<raw id>"`, in git's order (names compared
//! as bytes, a subtree's name as if it ended with `/`). A commit's content is its header lines
//! (`tree`, `parent` per parent, `author`, `committer`, then optional ones such as `encoding`,
//! `mergetag` or the signature header `gpgsig`), an empty line, and the message; a header's
//! value runs over several lines by starting each continuation line with a space.
//!
//! libgit2 (and so the git2 crate, version 0.20) reads and writes SHA-1 repositories only; it
//! refuses to open a SHA-256 repository. These functions compute both formats, so an export of
//! a SHA-256 repository written by other means would still verify.

use sha1::Digest as _;
use std::fmt;

/// The hash function of a repository's object ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ObjectFormat {
    /// SHA-1, 20-byte ids: every repository unless made with `--object-format=sha256`.
    #[default]
    Sha1,
    /// SHA-256, 32-byte ids.
    Sha256,
}

impl ObjectFormat {
    /// Raw id length in bytes: 20 or 32.
    pub fn id_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 20,
            ObjectFormat::Sha256 => 32,
        }
    }

    /// The name git uses in `extensions.objectFormat`: `sha1` or `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            ObjectFormat::Sha1 => "sha1",
            ObjectFormat::Sha256 => "sha256",
        }
    }

    /// The format named by a repository's `extensions.objectFormat` value (case-insensitive;
    /// `None` when the setting is absent, which means SHA-1). Unknown names give `None`.
    pub fn from_config(value: Option<&str>) -> Option<ObjectFormat> {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            None => Some(ObjectFormat::Sha1),
            Some(v) if v == "sha1" => Some(ObjectFormat::Sha1),
            Some(v) if v == "sha256" => Some(ObjectFormat::Sha256),
            Some(_) => None,
        }
    }

    /// The format whose ids have `hex_len` hex digits (40 or 64).
    pub fn from_hex_len(hex_len: usize) -> Option<ObjectFormat> {
        match hex_len {
            40 => Some(ObjectFormat::Sha1),
            64 => Some(ObjectFormat::Sha256),
            _ => None,
        }
    }

    /// The header of signature lines in a commit of this format: `gpgsig` (SHA-1) or
    /// `gpgsig-sha256` (SHA-256), as git writes them.
    pub fn signature_header(self) -> &'static str {
        match self {
            ObjectFormat::Sha1 => "gpgsig",
            ObjectFormat::Sha256 => "gpgsig-sha256",
        }
    }

    /// Lowercase hex id of an object of type `kind` (`blob`, `tree`, `commit`, `tag`) with
    /// `content`: the hash of `"<kind> <len>\0" + content`.
    pub fn object_id(self, kind: ObjectKind, content: &[u8]) -> String {
        let header = format!("{} {}\0", kind.as_str(), content.len());
        match self {
            ObjectFormat::Sha1 => {
                let mut h = sha1::Sha1::new();
                h.update(header.as_bytes());
                h.update(content);
                hex::encode(h.finalize())
            }
            ObjectFormat::Sha256 => {
                let mut h = sha2::Sha256::new();
                h.update(header.as_bytes());
                h.update(content);
                hex::encode(h.finalize())
            }
        }
    }
}

/// The type of a git object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// File content.
    Blob,
    /// A directory listing.
    Tree,
    /// A commit.
    Commit,
    /// An annotated tag.
    Tag,
}

impl ObjectKind {
    /// The type name in the object header.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectKind::Blob => "blob",
            ObjectKind::Tree => "tree",
            ObjectKind::Commit => "commit",
            ObjectKind::Tag => "tag",
        }
    }
}

/// Why an object could not be built or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitObjError {
    /// A tree entry's name is empty, `.`, `..`, or contains `/` or NUL.
    #[error("tree entry name {0:?} is not a valid git path component")]
    BadName(String),
    /// Two tree entries share a name.
    #[error("tree has two entries named {0:?}")]
    DuplicateName(String),
    /// An id is not lowercase-or-uppercase hex of the format's length.
    #[error("{0:?} is not a {1} object id ({2} hex digits)")]
    BadId(String, &'static str, usize),
    /// A tree entry's mode is not one git writes (100644, 100755, 120000, 40000, 160000).
    #[error("tree entry {name:?} has mode {mode:o}, which git does not write")]
    BadMode {
        /// The entry.
        name: String,
        /// Its mode.
        mode: u32,
    },
    /// A commit object's text does not have git's shape.
    #[error("not a git commit object: {0}")]
    BadCommit(String),
}

/// One entry of a tree: mode, name and the id of the blob or subtree it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// Unix mode as git records it: `0o100644` (file), `0o100755` (executable), `0o120000`
    /// (symbolic link), `0o40000` (subtree), `0o160000` (submodule commit).
    pub mode: u32,
    /// The entry's name (one path component, UTF-8).
    pub name: String,
    /// The object id, hex.
    pub id: String,
}

impl TreeEntry {
    /// A regular, non-executable file (`100644`) named `name` with blob id `id`.
    pub fn file(name: &str, id: &str) -> Self {
        TreeEntry {
            mode: 0o100644,
            name: name.into(),
            id: id.into(),
        }
    }

    fn is_tree(&self) -> bool {
        self.mode == 0o40000
    }
}

impl fmt::Display for TreeEntry {
    /// As `git ls-tree` prints it, without the type: `100644 <id>\t<name>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:06o} {}\t{}", self.mode, self.id, self.name)
    }
}

/// Lowercase hex id of a blob holding `content` (`git hash-object`).
pub fn blob_id(format: ObjectFormat, content: &[u8]) -> String {
    format.object_id(ObjectKind::Blob, content)
}

fn raw_id(format: ObjectFormat, id: &str) -> Result<Vec<u8>, GitObjError> {
    let bad = || GitObjError::BadId(id.to_string(), format.name(), format.id_len() * 2);
    if id.len() != format.id_len() * 2 {
        return Err(bad());
    }
    hex::decode(id).map_err(|_| bad())
}

/// The content of a tree holding `entries` (in any order: they are sorted as git sorts them).
///
/// Errors: a name that is not one path component, a duplicate name, an id of the wrong length
/// or not hex, a mode git does not write.
pub fn tree_bytes(format: ObjectFormat, entries: &[TreeEntry]) -> Result<Vec<u8>, GitObjError> {
    let mut sorted: Vec<&TreeEntry> = entries.iter().collect();
    for e in &sorted {
        if e.name.is_empty() || e.name == "." || e.name == ".." || e.name.contains(['/', '\0']) {
            return Err(GitObjError::BadName(e.name.clone()));
        }
        if ![0o100644, 0o100755, 0o120000, 0o40000, 0o160000].contains(&e.mode) {
            return Err(GitObjError::BadMode {
                name: e.name.clone(),
                mode: e.mode,
            });
        }
    }
    // git's base_name_compare: bytes, with a tree's name compared as if followed by '/'.
    let key = |e: &TreeEntry| {
        let mut k = e.name.as_bytes().to_vec();
        if e.is_tree() {
            k.push(b'/');
        }
        k
    };
    sorted.sort_by_key(|e| key(e));
    for w in sorted.windows(2) {
        if w[0].name == w[1].name {
            return Err(GitObjError::DuplicateName(w[0].name.clone()));
        }
    }
    let mut out = Vec::new();
    for e in sorted {
        out.extend_from_slice(format!("{:o} {}\0", e.mode, e.name).as_bytes());
        out.extend_from_slice(&raw_id(format, &e.id)?);
    }
    Ok(out)
}

/// Lowercase hex id of the tree holding `entries` (see [`tree_bytes`] for order and errors).
pub fn tree_id(format: ObjectFormat, entries: &[TreeEntry]) -> Result<String, GitObjError> {
    Ok(format.object_id(ObjectKind::Tree, &tree_bytes(format, entries)?))
}

/// Lowercase hex id of the commit whose raw object text (as `git cat-file commit ID` prints it)
/// is `raw`. The bytes are hashed as given: nothing is parsed or normalized.
pub fn commit_id(format: ObjectFormat, raw: &[u8]) -> String {
    format.object_id(ObjectKind::Commit, raw)
}

/// A commit object split into its headers and message, as git reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// Header lines in order: name and value; a multi-line value (e.g. `gpgsig`) has its
    /// continuation lines joined with `\n`, without their leading space.
    pub headers: Vec<(String, String)>,
    /// Everything after the empty line that ends the headers (usually ends with `\n`).
    pub message: String,
}

impl Commit {
    /// Parses a raw commit object. Errors: not UTF-8, no `tree` header first, a header line
    /// without a space, a continuation line before any header.
    pub fn parse(raw: &[u8]) -> Result<Commit, GitObjError> {
        let text = std::str::from_utf8(raw).map_err(|_| GitObjError::BadCommit("not UTF-8".into()))?;
        let (head, message) = match text.find("\n\n") {
            Some(i) => (&text[..i + 1], &text[i + 2..]),
            None => (text, ""),
        };
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in head.split_terminator('\n') {
            if let Some(cont) = line.strip_prefix(' ') {
                let Some(last) = headers.last_mut() else {
                    return Err(GitObjError::BadCommit("continuation line before any header".into()));
                };
                last.1.push('\n');
                last.1.push_str(cont);
            } else {
                let (k, v) = line
                    .split_once(' ')
                    .ok_or_else(|| GitObjError::BadCommit(format!("header line {:?} has no value", line)))?;
                headers.push((k.to_string(), v.to_string()));
            }
        }
        if headers.first().map(|h| h.0.as_str()) != Some("tree") {
            return Err(GitObjError::BadCommit("the first header is not `tree`".into()));
        }
        Ok(Commit {
            headers,
            message: message.to_string(),
        })
    }

    /// The first value of header `name`, if any.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|h| h.0 == name).map(|h| h.1.as_str())
    }

    /// The `tree` id.
    pub fn tree(&self) -> Option<&str> {
        self.header("tree")
    }

    /// The `parent` ids, in order.
    pub fn parents(&self) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|h| h.0 == "parent")
            .map(|h| h.1.as_str())
            .collect()
    }

    /// The raw object text again: for a commit read by [`Commit::parse`], exactly its input.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        for (k, v) in &self.headers {
            out.push_str(k);
            out.push(' ');
            out.push_str(&v.replace('\n', "\n "));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.message);
        out.into_bytes()
    }
}

/// A commit's signature and the payload it signs, as git separates them to verify a commit
/// (git's `parse_signed_commit`; libgit2's `git_commit_extract_signature`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCommit {
    /// The signature text of the format's header (`gpgsig` in a SHA-1 repository), every line
    /// ending with `\n` (an SSH signature is PEM-armored `-----BEGIN SSH SIGNATURE-----`).
    pub signature: String,
    /// The commit object without any signature header (`gpgsig`, `gpgsig-sha256`) and their
    /// continuation lines: the bytes the signature is over.
    pub payload: Vec<u8>,
}

/// Splits `raw` (a commit object) into its `format` signature and signed payload; `None` when
/// the commit carries no signature of that format.
pub fn split_signature(format: ObjectFormat, raw: &[u8]) -> Option<SignedCommit> {
    let end = find(raw, b"\n\n").map(|i| i + 1).unwrap_or(raw.len());
    let (head, rest) = raw.split_at(end);
    let wanted = format.signature_header().as_bytes();
    let mut payload = Vec::with_capacity(raw.len());
    let mut signature: Vec<u8> = Vec::new();
    let mut found = false;
    // Which signature header the previous line belonged to: continuation lines follow it.
    let mut in_sig: Option<bool> = None;
    for line in head.split_inclusive(|b| *b == b'\n') {
        if let (Some(is_wanted), Some(cont)) = (in_sig, line.strip_prefix(b" ")) {
            if is_wanted {
                signature.extend_from_slice(cont);
            }
            continue;
        }
        in_sig = None;
        for name in [b"gpgsig".as_slice(), b"gpgsig-sha256".as_slice()] {
            if let Some(v) = line.strip_prefix(name).and_then(|l| l.strip_prefix(b" ")) {
                let is_wanted = name == wanted;
                if is_wanted {
                    found = true;
                    signature.extend_from_slice(v);
                }
                in_sig = Some(is_wanted);
            }
        }
        if in_sig.is_none() {
            payload.extend_from_slice(line);
        }
    }
    payload.extend_from_slice(rest);
    if !found {
        return None;
    }
    if signature.last() != Some(&b'\n') {
        signature.push(b'\n');
    }
    Some(SignedCommit {
        signature: String::from_utf8_lossy(&signature).into_owned(),
        payload,
    })
}

/// Inserts `signature` into the unsigned commit object `payload` as git does when it signs a
/// commit (git's `add_header_signature`): as the `format` signature header at the end of the
/// headers, each line of the signature after the first on a continuation line.
pub fn add_signature(format: ObjectFormat, payload: &[u8], signature: &str) -> Vec<u8> {
    let at = find(payload, b"\n\n").map(|i| i + 1).unwrap_or(payload.len());
    let mut header = Vec::new();
    header.extend_from_slice(format.signature_header().as_bytes());
    for line in signature.as_bytes().split_inclusive(|b| *b == b'\n') {
        header.push(b' ');
        header.extend_from_slice(line);
    }
    if header.last() != Some(&b'\n') {
        header.push(b'\n');
    }
    let mut out = Vec::with_capacity(payload.len() + header.len());
    out.extend_from_slice(&payload[..at]);
    out.extend_from_slice(&header);
    out.extend_from_slice(&payload[at..]);
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::{Oid, Repository, Signature, Time};

    fn git_available() -> bool {
        crate::test_tools::available("git", &["--version"])
    }

    fn git(dir: &std::path::Path, args: &[&str], input: Option<&[u8]>) -> Vec<u8> {
        use std::io::Write;
        let mut c = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(i) = input {
            c.stdin.take().unwrap().write_all(i).unwrap();
        }
        drop(c.stdin.take());
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "git {:?}", args);
        out.stdout
    }

    /// Hand-checked values: the empty blob and empty tree ids every git user meets.
    #[test]
    fn well_known_ids() {
        assert_eq!(
            blob_id(ObjectFormat::Sha1, b""),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            tree_id(ObjectFormat::Sha1, &[]).unwrap(),
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        );
        assert_eq!(
            blob_id(ObjectFormat::Sha256, b""),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        );
        assert_eq!(
            tree_id(ObjectFormat::Sha256, &[]).unwrap(),
            "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
        );
        assert_eq!(ObjectFormat::from_config(None), Some(ObjectFormat::Sha1));
        assert_eq!(ObjectFormat::from_config(Some("SHA256")), Some(ObjectFormat::Sha256));
        assert_eq!(ObjectFormat::from_config(Some("md5")), None);
    }

    /// A ledger-like commit written by git2 (entry.json, result.json, protocol.toml, a parent):
    /// every id recomputed from the content alone equals git2's.
    #[test]
    fn ids_match_git2_for_a_ledger_commit() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let files: [(&str, &[u8]); 3] = [
            ("result.json", b"{\n  \"x\": 1\n}"),
            ("entry.json", b"{\"seq\":1}\n"),
            ("protocol.toml", b"id = \"s\"\r\n"),
        ];
        let mut tb = repo.treebuilder(None).unwrap();
        let mut entries = Vec::new();
        for (name, content) in files {
            let oid = repo.blob(content).unwrap();
            assert_eq!(blob_id(ObjectFormat::Sha1, content), oid.to_string());
            tb.insert(name, oid, 0o100644).unwrap();
            entries.push(TreeEntry::file(name, &oid.to_string()));
        }
        let tree_oid = tb.write().unwrap();
        assert_eq!(tree_id(ObjectFormat::Sha1, &entries).unwrap(), tree_oid.to_string());
        let tree = repo.find_tree(tree_oid).unwrap();
        let sig = Signature::new("pledge", "pledge@localhost", &Time::new(1_796_040_000, 0)).unwrap();
        let first = repo
            .commit(
                None,
                &sig,
                &sig,
                "pledge: register #1 s\n\nentry_sha256 ab\n",
                &tree,
                &[],
            )
            .unwrap();
        let parent = repo.find_commit(first).unwrap();
        let second = repo
            .commit(None, &sig, &sig, "pledge: note #2 s\n", &tree, &[&parent])
            .unwrap();
        for oid in [first, second] {
            let raw = repo.odb().unwrap().read(oid).unwrap().data().to_vec();
            assert_eq!(commit_id(ObjectFormat::Sha1, &raw), oid.to_string());
            let c = Commit::parse(&raw).unwrap();
            assert_eq!(c.tree(), Some(tree_oid.to_string().as_str()));
            assert_eq!(c.to_bytes(), raw);
        }
        let raw2 = repo.odb().unwrap().read(second).unwrap().data().to_vec();
        assert_eq!(
            Commit::parse(&raw2).unwrap().parents(),
            vec![first.to_string().as_str()]
        );
        assert_eq!(
            Commit::parse(&raw2).unwrap().header("committer"),
            Some("pledge <pledge@localhost> 1796040000 +0000")
        );
    }

    /// git's tree order: `a.b` < `a/` (subtree `a`) < `a0`, since '.' < '/' < '0'; a file `a`
    /// would sort before `a.b`. Checked against git2's tree builder, with nested trees.
    #[test]
    fn tree_order_and_nested_trees_match_git2() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let blob = repo.blob(b"x").unwrap();
        let mut sub = repo.treebuilder(None).unwrap();
        sub.insert("inner", blob, 0o100755).unwrap();
        let sub_id = sub.write().unwrap();
        let mut tb = repo.treebuilder(None).unwrap();
        tb.insert("a0", blob, 0o100644).unwrap();
        tb.insert("a", sub_id, 0o040000).unwrap();
        tb.insert("a.b", blob, 0o120000).unwrap();
        let top = tb.write().unwrap();
        let b = blob.to_string();
        let entries = vec![
            TreeEntry::file("a0", &b),
            TreeEntry {
                mode: 0o40000,
                name: "a".into(),
                id: tree_id(
                    ObjectFormat::Sha1,
                    &[TreeEntry {
                        mode: 0o100755,
                        name: "inner".into(),
                        id: b.clone(),
                    }],
                )
                .unwrap(),
            },
            TreeEntry {
                mode: 0o120000,
                name: "a.b".into(),
                id: b.clone(),
            },
        ];
        assert_eq!(tree_id(ObjectFormat::Sha1, &entries).unwrap(), top.to_string());
        let tree = repo.find_tree(top).unwrap();
        let names: Vec<String> = tree.iter().map(|e| e.name().unwrap().to_string()).collect();
        assert_eq!(names, ["a.b", "a", "a0"]);
    }

    #[test]
    fn bad_trees_are_errors() {
        let id = blob_id(ObjectFormat::Sha1, b"");
        let f = |n: &str| TreeEntry::file(n, &id);
        for bad in ["", ".", "..", "a/b", "a\0b"] {
            assert!(matches!(
                tree_id(ObjectFormat::Sha1, &[f(bad)]),
                Err(GitObjError::BadName(_))
            ));
        }
        assert_eq!(
            tree_id(ObjectFormat::Sha1, &[f("x"), f("x")]),
            Err(GitObjError::DuplicateName("x".into()))
        );
        assert!(matches!(
            tree_id(ObjectFormat::Sha256, &[f("x")]),
            Err(GitObjError::BadId(_, "sha256", 64))
        ));
        let mut m = f("x");
        m.mode = 0o100664;
        assert!(matches!(
            tree_id(ObjectFormat::Sha1, &[m]),
            Err(GitObjError::BadMode { .. })
        ));
        assert!(Commit::parse(b"parent x\n\nmsg").is_err());
        assert!(Commit::parse(b" cont\n").is_err());
        assert!(Commit::parse(&[0xff, 0xfe]).is_err());
    }

    /// Signing as git does and splitting as git does are inverse, and agree with libgit2:
    /// `commit_signed` stores exactly [`add_signature`]'s bytes, and `extract_signature` returns
    /// exactly [`split_signature`]'s parts.
    #[test]
    fn signature_header_round_trip_matches_libgit2() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let tree = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let sig = Signature::new("A U Thor", "a@example.org", &Time::new(1_700_000_000, 120)).unwrap();
        let payload = repo
            .commit_create_buffer(&sig, &sig, "subject\n\nbody line\n", &tree, &[])
            .unwrap()
            .to_vec();
        let armor = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\nAAAA\n-----END SSH SIGNATURE-----\n";
        let signed = add_signature(ObjectFormat::Sha1, &payload, armor);
        let text = std::str::from_utf8(&payload).unwrap();
        let oid = repo
            .commit_signed(text, armor.trim_end_matches('\n'), Some("gpgsig"))
            .unwrap();
        let stored = repo.odb().unwrap().read(oid).unwrap().data().to_vec();
        assert_eq!(String::from_utf8_lossy(&stored), String::from_utf8_lossy(&signed));
        assert_eq!(commit_id(ObjectFormat::Sha1, &signed), oid.to_string());
        let split = split_signature(ObjectFormat::Sha1, &signed).unwrap();
        assert_eq!(split.signature, armor);
        assert_eq!(split.payload, payload);
        let (gs, gp) = repo.extract_signature(&oid, Some("gpgsig")).unwrap();
        assert_eq!(gs.as_str().unwrap().trim_end(), armor.trim_end());
        assert_eq!(gp.to_vec(), payload);
        assert!(split_signature(ObjectFormat::Sha1, &payload).is_none());
        // A SHA-256 signature header is removed from the payload but not taken as the SHA-1
        // signature, as git does.
        let both = add_signature(ObjectFormat::Sha256, &signed, "other\n");
        let s = split_signature(ObjectFormat::Sha1, &both).unwrap();
        assert_eq!(s.signature, armor);
        assert_eq!(s.payload, payload);
        assert_eq!(
            split_signature(ObjectFormat::Sha256, &both).unwrap().signature,
            "other\n"
        );
        let _ = Oid::zero();
    }

    /// SHA-256 repositories: git's own `hash-object`, `mktree` and `commit-tree` in a repository
    /// made with `--object-format=sha256` give the ids computed here. Skipped without git.
    #[test]
    fn sha256_ids_match_the_git_cli() {
        if !git_available() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q", "--object-format=sha256", "."], None);
        let content = b"{\"seq\":1}\n";
        let blob = String::from_utf8(git(d, &["hash-object", "-w", "--stdin"], Some(content))).unwrap();
        assert_eq!(blob.trim(), blob_id(ObjectFormat::Sha256, content));
        let listing = format!("100644 blob {}\tentry.json\n", blob.trim());
        let tree = String::from_utf8(git(d, &["mktree"], Some(listing.as_bytes()))).unwrap();
        let entries = [TreeEntry::file("entry.json", blob.trim())];
        assert_eq!(tree.trim(), tree_id(ObjectFormat::Sha256, &entries).unwrap());
        let commit = String::from_utf8(git(
            d,
            &[
                "-c",
                "user.name=pledge",
                "-c",
                "user.email=pledge@localhost",
                "commit-tree",
                tree.trim(),
                "-m",
                "pledge: register #1 s",
            ],
            None,
        ))
        .unwrap();
        let raw = git(d, &["cat-file", "commit", commit.trim()], None);
        assert_eq!(commit.trim(), commit_id(ObjectFormat::Sha256, &raw));
        assert_eq!(Commit::parse(&raw).unwrap().tree(), Some(tree.trim()));
        // libgit2 cannot open it (documented above); if a later git2 can, revisit the docs.
        assert!(Repository::open(d).is_err());
    }
}
