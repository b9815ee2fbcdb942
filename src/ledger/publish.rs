//! `pledge publish REMOTE` and `pledge verify --remote REMOTE`: the ledger ref pushed to, and
//! fetched back from, another git repository, so that a later rewrite or truncation of the local
//! ledger is caught against the published copy.
//!
//! git2 is built without network transports, so REMOTE is a local repository: a path, a
//! `file://` URL, or the name of a configured remote whose URL is one of those. Objects are
//! copied directly between the two object databases (oldest commit first, so an interrupted
//! copy never leaves a commit without its history) and the remote ref is moved with a
//! compare-and-swap; a push that is not a fast-forward is refused.

use super::finding::{Finding, FindingCode};
use super::store::Ledger;
use super::verify::{verify_ledger, RemoteCheck, VerifyReport};
use super::LEDGER_REF;
use crate::error::{Error, Result};
use crate::protocol::LoadedProtocol;
use git2::{ErrorCode, ObjectType, Odb, Oid, Repository};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A resolved remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    /// As the user gave it.
    pub given: String,
    /// Name used for the fetched ref: the configured remote's name, or `path-` and 12 hex digits
    /// of the SHA-256 of the path.
    pub name: String,
    /// The repository path.
    pub path: PathBuf,
}

impl Remote {
    /// The local ref a published ledger is fetched into: `refs/pledge/remotes/NAME/ledger`,
    /// with `%` in NAME written `%25` and `/` written `%2F`, so that every remote name maps to
    /// its own ref (`x` and `x/ledger` would otherwise collide: one ref's name would be the
    /// other's directory).
    pub fn fetched_ref(&self) -> String {
        format!(
            "refs/pledge/remotes/{}/ledger",
            self.name.replace('%', "%25").replace('/', "%2F")
        )
    }
}

/// What `publish` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublishReport {
    /// The remote as given.
    pub remote: String,
    /// The ref written on the remote (`refs/pledge/ledger`).
    pub remote_ref: String,
    /// Local ledger tip, now published.
    pub tip: String,
    /// The remote's ledger tip before, if it had one.
    pub previous_tip: Option<String>,
    /// Entries in the published ledger.
    pub entries: usize,
    /// False when the remote already had this tip.
    pub updated: bool,
}

/// Resolves REMOTE: a configured remote name, a `file://` URL or a path (relative to `cwd`).
///
/// Errors (exit 2): a network URL (not supported by this build: the hint shows the git command);
/// no git repository there.
pub fn resolve_remote(ledger: &Ledger, given: &str, cwd: &Path) -> Result<Remote> {
    let (name, url, base) = match ledger.repo().find_remote(given) {
        Ok(r) => (
            Some(given.to_string()),
            r.url().unwrap_or("").to_string(),
            ledger.root(),
        ),
        Err(_) => (None, given.to_string(), cwd.to_path_buf()),
    };
    let raw = url.strip_prefix("file://").unwrap_or(&url);
    let scp_like = !raw.starts_with('/') && raw.split('/').next().is_some_and(|h| h.contains(':') && h.len() > 2);
    if url.contains("://") && !url.starts_with("file://") || (scp_like && !base.join(raw).exists()) {
        return Err(Error::input(format!(
            "{}: only local repositories (a path or file:// URL) are supported; this build of pledge has no network transport",
            given
        ))
        .with_hint(format!(
            "push with git instead: git push {} {}:{}",
            given, LEDGER_REF, LEDGER_REF
        )));
    }
    let path = if Path::new(raw).is_absolute() {
        PathBuf::from(raw)
    } else {
        base.join(raw)
    };
    let name = name.unwrap_or_else(|| {
        let abs = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let h = crate::io::sha256_hex(abs.to_string_lossy().as_bytes());
        format!("path-{}", crate::text::short(&h, 12))
    });
    Ok(Remote {
        given: given.to_string(),
        name,
        path,
    })
}

fn open_remote(r: &Remote) -> Result<Repository> {
    Repository::open(&r.path).map_err(|e| {
        Error::input(format!("{}: no git repository at {}", r.given, r.path.display()))
            .caused_by(e.message())
            .with_hint(format!("create one with: git init --bare {}", r.path.display()))
    })
}

fn ref_tip(repo: &Repository, name: &str) -> Result<Option<Oid>> {
    match repo.refname_to_id(name) {
        Ok(o) => Ok(Some(o)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(Error::git(format!("reading {}", name), e)),
    }
}

/// Pushes the local ledger to REMOTE's `refs/pledge/ledger`.
///
/// Refused (exit 1): the remote's ledger is not an ancestor of the local one (a non-fast-forward
/// push: the local ledger was rewritten or truncated, or the remote holds other entries), or it
/// moved during the push. Errors: an empty local ledger, a bad remote (exit 2); git (exit 70).
pub fn publish(ledger: &Ledger, remote: &Remote) -> Result<PublishReport> {
    let repo = ledger.repo();
    let tip = ledger
        .tip()?
        .ok_or_else(|| Error::input("the ledger is empty: nothing to publish").with_hint("pledge register PROTOCOL"))?;
    let dst = open_remote(remote)?;
    let before = ref_tip(&dst, LEDGER_REF)?;
    let entries = ledger.entries_from(tip)?.len();
    let mut rep = PublishReport {
        remote: remote.given.clone(),
        remote_ref: LEDGER_REF.into(),
        tip: tip.to_string(),
        previous_tip: before.map(|o| o.to_string()),
        entries,
        updated: false,
    };
    if before == Some(tip) {
        return Ok(rep);
    }
    if let Some(b) = before {
        let ff = repo.odb().map(|o| o.exists(b)).unwrap_or(false) && repo.graph_descendant_of(tip, b).unwrap_or(false);
        if !ff {
            return Err(Error::refused(format!(
                "{}: the published ledger is not a prefix of the local one (not a fast-forward); refusing to overwrite it",
                remote.given
            ))
            .with_hint(format!("see where they differ: pledge verify --remote {}", remote.given)));
        }
    }
    copy_chain(repo, &dst, tip)?;
    let msg = format!("pledge publish {}", tip);
    let res = match before {
        Some(b) => dst.reference_matching(LEDGER_REF, tip, true, b, &msg).map(|_| ()),
        // A zero current id means "must not exist", checked under the ref lock (libgit2's
        // non-forced create checks existence before taking the lock, which races).
        None => dst
            .reference_matching(LEDGER_REF, tip, true, Oid::zero(), &msg)
            .map(|_| ()),
    };
    match res {
        Ok(()) => {}
        Err(e) if matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked) => {
            return Err(Error::refused(format!(
                "{}: the published ledger changed during the push; nothing was overwritten",
                remote.given
            ))
            .with_hint("run the command again"))
        }
        Err(e) => return Err(Error::git("moving the remote ledger ref", e)),
    }
    repo.reference(&remote.fetched_ref(), tip, true, &msg)
        .map_err(|e| Error::git("recording the published tip", e))?;
    rep.updated = true;
    Ok(rep)
}

/// Fetches REMOTE's `refs/pledge/ledger` into [`Remote::fetched_ref`]; returns its tip, or
/// `None` when the remote has no published ledger.
///
/// Errors: REMOTE is not a repository (exit 2); this repository cannot be written (exit 73);
/// git failures (exit 70).
pub fn fetch_published(ledger: &Ledger, remote: &Remote) -> Result<Option<Oid>> {
    let src = open_remote(remote)?;
    let Some(tip) = ref_tip(&src, LEDGER_REF)? else {
        return Ok(None);
    };
    record_fetched(ledger, &src, tip, remote)?;
    Ok(Some(tip))
}

/// Copies the published chain ending at `tip` from `src` into the ledger's repository and points
/// [`Remote::fetched_ref`] at it. Errors: as [`fetch_published`].
fn record_fetched(ledger: &Ledger, src: &Repository, tip: Oid, remote: &Remote) -> Result<()> {
    copy_chain(src, ledger.repo(), tip)?;
    ledger
        .repo()
        .reference(&remote.fetched_ref(), tip, true, "pledge verify --remote")
        .map_err(|e| Error::git("recording the fetched ledger", e))?;
    Ok(())
}

/// `verify --remote`: verifies the local ledger (and `protocol`), reads the published copy from
/// REMOTE's repository, verifies its chain, and checks that it is a prefix of the local ledger.
/// A truncated local ledger (`local-truncated`), a rewritten one (`ledger-rewritten`) or a
/// remote without a published ledger (`not-published`) are findings. The published copy is
/// also kept in [`Remote::fetched_ref`], so that a later rewrite of REMOTE can be compared with
/// it; verification only reads, so in a repository it cannot write to (read-only), that copy is
/// not kept and a note (`fetch-not-recorded`) says so.
///
/// Errors: REMOTE is not a repository (exit 2); a repository cannot be read (exit 74); git
/// failures (exit 70).
pub fn verify_remote(ledger: &Ledger, remote: &Remote, protocol: Option<&LoadedProtocol>) -> Result<VerifyReport> {
    let mut report = verify_ledger(ledger, protocol)?;
    let src = Ledger::from_repository(open_remote(remote)?);
    let fetched = ref_tip(src.repo(), LEDGER_REF)?;
    let mut rc = RemoteCheck {
        remote: remote.given.clone(),
        fetched_ref: remote.fetched_ref(),
        published_entries: 0,
        unpublished_entries: 0,
    };
    let Some(ptip) = fetched else {
        report.findings.push(Finding::new(
            FindingCode::NotPublished,
            None,
            format!(
                "{} has no published ledger ({}) to compare with",
                remote.given, LEDGER_REF
            ),
        ));
        report.remote = Some(rc);
        report.settle();
        return Ok(report);
    };
    if let Err(e) = record_fetched(ledger, src.repo(), ptip, remote) {
        if !matches!(e.kind, crate::error::ErrorKind::CantCreate) {
            return Err(e);
        }
        report.notes.push(Finding::new(
            FindingCode::FetchNotRecorded,
            None,
            format!(
                "the published copy was compared where it is, but not kept in {} ({}): this repository cannot be written",
                remote.fetched_ref(),
                e.causes().last().map(String::as_str).unwrap_or(e.message.as_str())
            ),
        ));
    }
    let published = src.records(ptip)?;
    let local = match ledger.tip()? {
        Some(t) => ledger.records(t)?,
        None => Default::default(),
    };
    rc.published_entries = published.len();
    let pcheck = super::chain::check_chain(&published);
    for f in pcheck.findings {
        report
            .findings
            .push(Finding::new(f.code, f.seq, format!("published copy: {}", f.message)));
    }
    let label = |r: &super::records::Record, i: usize| r.seq().unwrap_or(i as u64 + 1);
    let diverged = local
        .iter()
        .zip(published.iter())
        .position(|(l, p)| l.commit != p.commit);
    if let Some(i) = diverged {
        let p = &published[i];
        report.findings.push(Finding::new(
            FindingCode::LedgerRewritten,
            Some(label(p, i)),
            format!(
                "the local ledger was rewritten: from entry #{} on it differs from the copy published at {} (published commit {}, local commit {})",
                label(p, i),
                remote.given,
                short_commit(&p.commit),
                short_commit(&local[i].commit)
            ),
        ));
    } else if published.len() > local.len() {
        report.findings.push(Finding::new(
            FindingCode::LocalTruncated,
            Some(label(&published[local.len()], local.len())),
            format!(
                "the local ledger has {} entries but the copy published at {} has {}: entries #{}..#{} were removed locally",
                local.len(),
                remote.given,
                published.len(),
                local.len() + 1,
                published.len()
            ),
        ));
    } else if local.len() > published.len() {
        rc.unpublished_entries = local.len() - published.len();
        report.notes.push(Finding::new(
            FindingCode::Unpublished,
            None,
            format!(
                "{} local entries are not yet published to {}",
                rc.unpublished_entries, remote.given
            ),
        ));
    }
    report.remote = Some(rc);
    report.settle();
    Ok(report)
}

fn short_commit(c: &Option<String>) -> String {
    c.as_deref()
        .map(|s| crate::text::short(s, 7))
        .unwrap_or("?")
        .to_string()
}

/// Copies the commits reachable from `tip` that `dst` lacks, with their trees and blobs, oldest
/// first (a commit is written only after its history and tree).
fn copy_chain(src: &Repository, dst: &Repository, tip: Oid) -> Result<()> {
    let g = |e| Error::git("copying ledger objects", e);
    let (so, dodb) = (src.odb().map_err(g)?, dst.odb().map_err(g)?);
    let mut todo = Vec::new();
    let mut stack = vec![tip];
    let mut seen = std::collections::HashSet::new();
    while let Some(c) = stack.pop() {
        if dodb.exists(c) || !seen.insert(c) {
            continue;
        }
        let commit = src.find_commit(c).map_err(g)?;
        stack.extend(commit.parent_ids());
        todo.push((c, commit.tree_id()));
    }
    for (c, tree) in todo.into_iter().rev() {
        copy_tree(src, &so, &dodb, tree)?;
        copy_object(&so, &dodb, c)?;
    }
    Ok(())
}

fn copy_tree(src: &Repository, so: &Odb, dodb: &Odb, tree: Oid) -> Result<()> {
    if dodb.exists(tree) {
        return Ok(());
    }
    let t = src
        .find_tree(tree)
        .map_err(|e| Error::git("copying ledger objects", e))?;
    for item in t.iter() {
        match item.kind() {
            Some(ObjectType::Tree) => copy_tree(src, so, dodb, item.id())?,
            Some(ObjectType::Blob) => copy_object(so, dodb, item.id())?,
            _ => {}
        }
    }
    copy_object(so, dodb, tree)
}

fn copy_object(so: &Odb, dodb: &Odb, oid: Oid) -> Result<()> {
    if dodb.exists(oid) {
        return Ok(());
    }
    let g = |e| Error::git(format!("copying object {}", oid), e);
    let obj = so.read(oid).map_err(g)?;
    let written = dodb.write(obj.kind(), obj.data()).map_err(g)?;
    if written != oid {
        return Err(Error::internal(format!("copying object {} produced {}", oid, written)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_names_map_to_distinct_refs() {
        let r = |name: &str| Remote {
            given: name.into(),
            name: name.into(),
            path: PathBuf::from("/x"),
        };
        assert_eq!(r("origin").fetched_ref(), "refs/pledge/remotes/origin/ledger");
        assert_eq!(r("x/ledger").fetched_ref(), "refs/pledge/remotes/x%2Fledger/ledger");
        assert_eq!(r("x%2Fledger").fetched_ref(), "refs/pledge/remotes/x%252Fledger/ledger");
        let names = ["x", "x/ledger", "x%2Fledger", "x/ledger/ledger", "a/b", "a%b"];
        let refs: std::collections::BTreeSet<String> = names.iter().map(|n| r(n).fetched_ref()).collect();
        assert_eq!(refs.len(), names.len());
        for f in &refs {
            assert!(git2::Reference::is_valid_name(f), "{}", f);
        }
    }
}
