//! Why a git repository could not be opened, said as such: git's ownership check ("dubious
//! ownership", with the `safe.directory` exception git itself suggests), a SHA-256 repository
//! (which the git library cannot open), a repository the operating system will not let this user
//! read, or no repository at all.

use crate::error::{Error, GitError};
use git2::ErrorCode;
use std::path::Path;

/// What was being opened, for the message of a missing repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opening {
    /// The repository enclosing a directory (`git rev-parse` style discovery).
    Discover,
    /// The repository named by `GIT_DIR`.
    GitDir,
    /// A repository discovered to create a ledger in (`pledge init`).
    Init,
}

/// The error for `e`, met opening the repository at (or enclosing) `dir`, or `None` when the
/// only thing wrong is that there is no repository there (the caller says that its own way).
///
/// - git's ownership check (libgit2's `GIT_EOWNER`): exit 74, `detected dubious ownership in
///   repository at 'PATH'`, with the `git config --global --add safe.directory PATH` hint;
/// - a SHA-256 repository: exit 2, [`sha256_refusal`];
/// - the operating system refusing to read it (permission denied, an I/O error): exit 74.
pub(crate) fn open_error(e: &git2::Error, dir: &Path, opening: Opening) -> Option<Error> {
    if e.code() == ErrorCode::Owner {
        return Some(dubious_ownership(e, dir));
    }
    if let Some(refusal) = sha256_refusal(e, dir, opening) {
        return Some(refusal);
    }
    if e.code() != ErrorCode::NotFound && matches!(e.class(), git2::ErrorClass::Os | git2::ErrorClass::Filesystem) {
        return Some(
            Error::io_error(format!("cannot read the git repository at {}", dir.display()))
                .caused_by(GitError(copy(e)))
                .with_hint(
                    "check that this user may read the repository's files (and its home directory's .gitconfig)",
                ),
        );
    }
    None
}

/// A copy of `e` (`git2::Error` is not `Clone`).
fn copy(e: &git2::Error) -> git2::Error {
    git2::Error::new(e.code(), e.class(), e.message())
}

/// The path libgit2 names in its ownership error (`repository path 'PATH' is not owned by
/// current user`), else `dir`.
fn owned_path(e: &git2::Error, dir: &Path) -> String {
    let m = e.message();
    m.split_once('\'')
        .and_then(|(_, rest)| rest.rsplit_once('\''))
        .map(|(p, _)| p.trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| dir.display().to_string())
}

/// git's "dubious ownership" refusal (exit 74): the repository belongs to another user, so git
/// (and libgit2) will not read it unless it is listed in `safe.directory`.
fn dubious_ownership(e: &git2::Error, dir: &Path) -> Error {
    let path = owned_path(e, dir);
    Error::io_error(format!(
        "detected dubious ownership in repository at '{}': it is owned by another user, so git will not read it",
        path
    ))
    .caused_by(GitError(copy(e)))
    .with_hint(format!(
        "if you trust this repository, add an exception for it (as git suggests): git config --global --add safe.directory {}",
        path
    ))
}

/// The clear refusal (exit 2) for a SHA-256 repository (`git init --object-format=sha256`),
/// when that is why opening `dir` failed. libgit2, the git library pledge is built on, opens
/// SHA-1 repositories only (its SHA-256 support is experimental and not offered by the `git2`
/// crate), so nothing of a ledger there can be read, verified, exported or appended to; the
/// message says so, and `pledge init` refuses to create a ledger there.
pub(crate) fn sha256_refusal(e: &git2::Error, dir: &Path, opening: Opening) -> Option<Error> {
    let m = e.message();
    if !(m.contains("sha256") && (m.contains("object format") || m.contains("objectformat"))) {
        return None;
    }
    let (maj, min, rev) = git2::Version::get().libgit2_version();
    let lead = match opening {
        Opening::Init => format!("cannot keep a ledger in {}", dir.display()),
        Opening::Discover | Opening::GitDir => format!("cannot open the ledger of {}", dir.display()),
    };
    let hint = match opening {
        Opening::Init => "keep the ledger in a SHA-1 repository: `git init --object-format=sha1 DIR`, then `pledge init` there",
        Opening::Discover | Opening::GitDir => {
            "verify the ledger where it was written (a SHA-1 repository), or from a `pledge export` of it: `pledge verify --ledger FILE`"
        }
    };
    Some(
        Error::input(format!(
            "{}: it is a SHA-256 git repository (extensions.objectformat = sha256), and libgit2 {}.{}.{}, the git library pledge is built on, opens SHA-1 repositories only, so pledge can neither read, verify, export nor append to a ledger in it",
            lead, maj, min, rev
        ))
        .caused_by(m.to_string())
        .with_hint(hint),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::ErrorClass;

    #[test]
    fn dubious_ownership_is_said_as_git_says_it_with_the_safe_directory_hint() {
        let e = git2::Error::new(
            ErrorCode::Owner,
            ErrorClass::Config,
            "repository path '/srv/repo/' is not owned by current user",
        );
        let err = open_error(&e, Path::new("/srv/repo/sub"), Opening::Discover).unwrap();
        assert_eq!(err.exit_code(), crate::error::exit::IO_ERROR);
        assert_eq!(
            err.render(),
            "error: detected dubious ownership in repository at '/srv/repo': it is owned by another user, so git will not read it\n\
             Caused by: repository path '/srv/repo/' is not owned by current user\n\
             hint: if you trust this repository, add an exception for it (as git suggests): git config --global --add safe.directory /srv/repo"
        );
    }

    #[test]
    fn an_unreadable_repository_is_exit_74_and_a_missing_one_is_left_to_the_caller() {
        let e = git2::Error::new(
            ErrorCode::GenericError,
            ErrorClass::Os,
            "failed to stat '/x/.git': Permission denied",
        );
        let err = open_error(&e, Path::new("/x"), Opening::Discover).unwrap();
        assert_eq!(err.exit_code(), crate::error::exit::IO_ERROR);
        assert!(err
            .render()
            .starts_with("error: cannot read the git repository at /x\nCaused by: failed to stat"));
        let none = git2::Error::new(ErrorCode::NotFound, ErrorClass::Repository, "could not find repository");
        assert!(open_error(&none, Path::new("/x"), Opening::Discover).is_none());
    }

    #[test]
    fn a_sha256_repository_is_refused_naming_what_cannot_be_done() {
        let e = git2::Error::new(
            ErrorCode::GenericError,
            ErrorClass::Repository,
            "unknown object format 'sha256'",
        );
        let init = open_error(&e, Path::new("/r"), Opening::Init).unwrap();
        assert_eq!(init.exit_code(), crate::error::exit::INPUT);
        assert!(
            init.message
                .starts_with("cannot keep a ledger in /r: it is a SHA-256 git repository"),
            "{}",
            init.message
        );
        assert!(init
            .message
            .ends_with("so pledge can neither read, verify, export nor append to a ledger in it"));
        let open = open_error(&e, Path::new("/r"), Opening::Discover).unwrap();
        assert!(open
            .message
            .starts_with("cannot open the ledger of /r: it is a SHA-256 git repository"));
        assert!(open.hint.unwrap().contains("pledge verify --ledger FILE"));
    }
}
