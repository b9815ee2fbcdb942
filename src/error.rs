//! The error type every library function returns, its cause chain, and the exit codes the CLI
//! maps it to.
//!
//! [`Error`] is a diagnostic: a kind (which decides the exit code), a one-line message, a chain
//! of causes (real [`std::error::Error::source`] links, so a typed cause such as an
//! [`std::io::Error`], a [`git2::Error`] or a [`Refusal`] stays inspectable) and an optional hint.
//! Library areas raise typed errors of their own ([`Refusal`] for the registration's refusals,
//! [`GitError`] for the repository) that convert into it. Rendering follows cargo/uv: an
//! `error:` line, one `Caused by:` line per link of the chain, then an optional `hint:` line
//! ([`Error::render`]); only the CLI prints it.

use std::error::Error as StdError;
use std::fmt;
use std::path::Path;

/// Process exit codes, the one place they are defined: documented in the book's exit-code
/// reference (`docs/reference/exit-codes.md`, generated from these doc comments) and in `--help`
/// (from [`EXIT_CODE_SUMMARIES`]).
pub mod exit {
    /// Success; for `verify`, the ledger and protocol check out.
    pub const OK: u8 = 0;
    /// A verification or audit found a problem (a result, not a crash), or a command refused
    /// because the registration does not allow it (unregistered or changed protocol, stop rule).
    pub const FINDINGS: u8 = 1;
    /// Bad usage or bad input (file, line and what was expected are named).
    pub const INPUT: u8 = 2;
    /// The stop rule said stop: too few components.
    pub const STOP: u8 = 3;
    /// An internal error: a bug in pledge, as sysexits' EX_SOFTWARE. Never the environment
    /// (a file, the repository, the network), which has the codes below.
    pub const INTERNAL: u8 = 70;
    /// A file or the repository cannot be written or created (permission denied, a read-only
    /// file system, a full disk), as sysexits' EX_CANTCREAT.
    pub const CANT_CREATE: u8 = 73;
    /// A file or the repository cannot be read (permission denied, an I/O error, or git's
    /// safety check refusing a repository owned by another user), as sysexits' EX_IOERR.
    pub const IO_ERROR: u8 = 74;
    /// A temporary failure: a service that could not be reached (a Time-Stamping Authority),
    /// or a lock another process held too long; trying again later may succeed. As sysexits'
    /// EX_TEMPFAIL.
    pub const TEMP_FAIL: u8 = 75;
}

/// Every exit code of [`exit`] with one line saying what it means, in order (for `--help`).
pub const EXIT_CODE_SUMMARIES: &[(u8, &str)] = &[
    (
        exit::OK,
        "ok (for verify: the ledger and protocol check out; for components: the stop rule said go)",
    ),
    (
        exit::FINDINGS,
        "verification found a problem, or the registration refuses the action (every finding listed)",
    ),
    (
        exit::INPUT,
        "bad usage or bad input (file, line and what was expected are named)",
    ),
    (exit::STOP, "the stop rule said stop (too few components)"),
    (exit::INTERNAL, "internal error (a bug in pledge)"),
    (
        exit::CANT_CREATE,
        "a file or the repository cannot be written (permission, read-only file system, full disk)",
    ),
    (
        exit::IO_ERROR,
        "a file or the repository cannot be read (permission, I/O error, a repository owned by another user)",
    ),
    (
        exit::TEMP_FAIL,
        "temporary failure: the Time-Stamping Authority could not be reached, or the ledger stayed locked; try again",
    ),
];

/// Panics that library code catches on purpose: a third-party decoder that panics on a corrupt
/// file (the `parquet` crate does) is run inside [`caught::catch_quietly`], which turns the panic into an
/// `Err` the caller reports as bad input. The process's panic hook (installed by `main`, the only
/// place that may) stays silent for such a panic ([`caught::is_caught`]), so the decoder's own panic text
/// never reaches stderr before pledge's clear error; any other panic is printed as usual.
pub mod caught {
    use std::cell::Cell;

    thread_local! {
        static DEPTH: Cell<u32> = const { Cell::new(0) };
    }

    /// Runs `f`, catching a panic in it (as [`std::panic::catch_unwind`]); while it runs,
    /// [`is_caught`] is true on this thread. Panics on other threads (e.g. a worker pool the
    /// closure uses) are not covered.
    pub fn catch_quietly<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
        struct Guard;
        impl Drop for Guard {
            fn drop(&mut self) {
                DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
            }
        }
        DEPTH.with(|d| d.set(d.get() + 1));
        let _guard = Guard;
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    }

    /// Whether a panic on the current thread is inside [`catch_quietly`] (and so will be caught
    /// and reported as an error): the panic hook prints nothing then.
    pub fn is_caught() -> bool {
        DEPTH.with(|d| d.get() > 0)
    }
}

/// What went wrong, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input file or value, or bad usage: exit 2.
    Input,
    /// The registration refuses the action (unregistered / changed protocol, stop said stop,
    /// different component assignment): exit 1.
    Refused,
    /// Internal failure (a bug): exit 70.
    Internal,
    /// A file or the repository cannot be written: exit 73.
    CantCreate,
    /// A file or the repository cannot be read: exit 74.
    IoError,
    /// A temporary failure (an unreachable service, a lock held too long): exit 75.
    TempFail,
}

/// A cause in an error chain: any error type, or a message.
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// One link of an [`Error`]'s cause chain: the cause, then the next link.
#[derive(Debug)]
struct Link {
    cause: BoxError,
    next: Option<Box<Link>>,
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.cause.fmt(f)
    }
}

impl StdError for Link {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.next {
            Some(n) => Some(n.as_ref()),
            None => self.cause.source(),
        }
    }
}

/// An error with its kind, message, cause chain and an optional hint.
#[derive(Debug)]
pub struct Error {
    /// Kind, which decides the exit code.
    pub kind: ErrorKind,
    /// The one-line message shown after `error:`.
    pub message: String,
    /// A suggestion shown as a `hint:` line.
    pub hint: Option<String>,
    chain: Option<Box<Link>>,
}

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            hint: None,
            chain: None,
        }
    }

    /// A bad-input error with no location.
    pub fn input(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Input, message)
    }

    /// A bad-input error at `path:line` (1-based line), e.g. `scores.csv:12: score is not a number`.
    pub fn at(path: &Path, line: usize, message: impl fmt::Display) -> Self {
        Error::input(format!("{}:{}: {}", path.display(), line, message))
    }

    /// A bad-input error at `path:line:column` (1-based).
    pub fn at_col(path: &Path, line: usize, column: usize, message: impl fmt::Display) -> Self {
        Error::input(format!("{}:{}:{}: {}", path.display(), line, column, message))
    }

    /// A bad-input error about a whole file, e.g. `run.txt: file is empty`.
    pub fn in_file(path: &Path, message: impl fmt::Display) -> Self {
        Error::input(format!("{}: {}", path.display(), message))
    }

    /// The registration refuses the action (exit 1).
    pub fn refused(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Refused, message)
    }

    /// An internal error (exit 70).
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Internal, message)
    }

    /// An I/O error on `path` while doing `what` (e.g. "reading"). A missing file is bad input
    /// (exit 2), said once, in the message (`PATH: no such file or directory`), with no
    /// `Caused by:` line repeating the operating system's words. The environment failing
    /// (permission denied, a read-only file system, a full disk, a device error) is exit 73 when
    /// `what` writes and 74 when it reads ([`io_kind`]); anything else (a directory where a file
    /// was expected, bytes that are not text) concerns the path the user named: bad input. Both
    /// are `WHAT PATH` caused by the error.
    pub fn io(what: &str, path: &Path, err: std::io::Error) -> Self {
        match err.kind() {
            std::io::ErrorKind::NotFound => Error::input(format!("{}: no such file or directory", path.display())),
            _ => Error::new(io_kind(what, &err), format!("{} {}", what, path.display())).caused_by(err),
        }
    }

    /// A git error while doing `what` (a phrase starting with its verb, e.g. "writing a ledger
    /// commit"), the [`git2::Error`] kept as the cause: exit 73 or 74 when the environment failed
    /// (as [`git_kind`] decides), else exit 70.
    pub fn git(what: impl Into<String>, err: git2::Error) -> Self {
        let what = what.into();
        let kind = git_kind(&what, &err);
        Error::new(kind, what).caused_by(GitError(err))
    }

    /// A temporary failure (exit 75): a service that could not be reached, a lock held too long.
    pub fn temp_fail(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::TempFail, message)
    }

    /// A file or the repository that cannot be written (exit 73).
    pub fn cant_create(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::CantCreate, message)
    }

    /// A file or the repository that cannot be read (exit 74).
    pub fn io_error(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::IoError, message)
    }

    /// Appends `cause` to the end of the cause chain (an error value keeps its type and its own
    /// sources; a string becomes a message).
    pub fn caused_by(mut self, cause: impl Into<BoxError>) -> Self {
        let link = Box::new(Link {
            cause: cause.into(),
            next: None,
        });
        let mut slot = &mut self.chain;
        while let Some(l) = slot {
            slot = &mut l.next;
        }
        *slot = Some(link);
        self
    }

    /// Sets the hint line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The exit code for this error (see [`exit`]).
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::Input => exit::INPUT,
            ErrorKind::Refused => exit::FINDINGS,
            ErrorKind::Internal => exit::INTERNAL,
            ErrorKind::CantCreate => exit::CANT_CREATE,
            ErrorKind::IoError => exit::IO_ERROR,
            ErrorKind::TempFail => exit::TEMP_FAIL,
        }
    }

    /// Every cause of the chain as text, outermost first (one `Caused by:` line each). A cause
    /// whose text is the one before it (an error that displays its source, as a wrapped
    /// [`std::io::Error`] does) is shown once.
    pub fn causes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut cur: Option<&(dyn StdError + 'static)> = self.source();
        while let Some(e) = cur {
            let text = e.to_string();
            if out.last() != Some(&text) {
                out.push(text);
            }
            cur = e.source();
        }
        out
    }

    /// The first cause of type `T` in the chain, if any (e.g. the [`Refusal`]s of a refused
    /// analysis).
    pub fn find_cause<T: StdError + 'static>(&self) -> Option<&T> {
        let mut cur: Option<&(dyn StdError + 'static)> = self.source();
        while let Some(e) = cur {
            if let Some(t) = e.downcast_ref::<T>() {
                return Some(t);
            }
            if let Some(l) = e.downcast_ref::<Link>() {
                if let Some(t) = l.cause.downcast_ref::<T>() {
                    return Some(t);
                }
            }
            cur = e.source();
        }
        None
    }

    /// The cargo/uv rendering: `error: MESSAGE`, then `Caused by: …` per cause, then `hint: …`.
    pub fn render(&self) -> String {
        let mut s = format!("error: {}", self.message);
        for c in self.causes() {
            s.push_str("\nCaused by: ");
            s.push_str(&c);
        }
        if let Some(h) = &self.hint {
            s.push_str("\nhint: ");
            s.push_str(h);
        }
        s
    }
}

/// Whether `what` (a phrase starting with its verb, e.g. "writing", "creating the directory")
/// changes the file system: the verbs that write, create, move or remove.
fn writes(what: &str) -> bool {
    const VERBS: &[&str] = &[
        "writing",
        "creating",
        "moving",
        "recording",
        "copying",
        "removing",
        "renaming",
        "saving",
        "syncing",
        "updating",
        "locking",
        "replacing",
        "appending",
    ];
    let verb = what.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    VERBS.contains(&verb.as_str())
}

/// Whether `err` is the environment failing rather than the data: permission denied, a
/// read-only file system, a full disk or quota, a file too large, a device error (`EIO`).
pub fn is_environment(err: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        err.kind(),
        K::PermissionDenied | K::ReadOnlyFilesystem | K::StorageFull | K::QuotaExceeded | K::FileTooLarge
    ) || err.raw_os_error() == Some(5)
}

/// The kind of an I/O error met while doing `what` ([`Error::io`]): the environment failing
/// ([`is_environment`]) is [`ErrorKind::CantCreate`] when `what` writes, else
/// [`ErrorKind::IoError`]; anything else is [`ErrorKind::Input`].
pub fn io_kind(what: &str, err: &std::io::Error) -> ErrorKind {
    match (is_environment(err), writes(what)) {
        (true, true) => ErrorKind::CantCreate,
        (true, false) => ErrorKind::IoError,
        (false, _) => ErrorKind::Input,
    }
}

/// The kind of a git error met while doing `what` ([`Error::git`]): libgit2's operating-system
/// and file-system failures (its error classes `Os` and `Filesystem`, e.g. "failed to make
/// directory …: Permission denied") are the environment, [`ErrorKind::CantCreate`] when `what`
/// writes, else [`ErrorKind::IoError`]; anything else is [`ErrorKind::Internal`].
pub fn git_kind(what: &str, err: &git2::Error) -> ErrorKind {
    let environment = matches!(err.class(), git2::ErrorClass::Os | git2::ErrorClass::Filesystem);
    match (environment, writes(what)) {
        (true, true) => ErrorKind::CantCreate,
        (true, false) => ErrorKind::IoError,
        (false, _) => ErrorKind::Internal,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.chain.as_deref().map(|l| l as &(dyn StdError + 'static))
    }
}

impl From<git2::Error> for Error {
    fn from(e: git2::Error) -> Self {
        Error::git("git operation failed", e)
    }
}

/// A [`git2::Error`] as a cause: shown by its message only (libgit2's class and code are kept in
/// the value for callers that inspect them).
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.message())]
pub struct GitError(pub git2::Error);

/// Why the registration refuses an action (exit 1, or a recorded deviation when the user gives
/// `--deviation REASON`). Each refusal is a value: commands collect them, show every one as a
/// `Caused by:` line, and a deviation entry records them.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// The study of the protocol has no register entry in the ledger.
    #[error("protocol {path} (study `{study}`) is not registered")]
    Unregistered {
        /// The protocol file as given.
        path: String,
        /// Its study id.
        study: String,
    },
    /// The protocol file differs from the study's latest registration.
    #[error("protocol {path} changed since it was registered (entry #{seq}): registered sha256 {registered}, file now {now}")]
    Changed {
        /// The protocol file as given.
        path: String,
        /// The latest register/amend entry.
        seq: u64,
        /// Its registered hash.
        registered: String,
        /// The file's hash now.
        now: String,
    },
    /// The study's latest stop-rule decision is `stop`.
    #[error("the stop rule said stop (entry #{seq})")]
    Stopped {
        /// The `stop` entry.
        seq: u64,
    },
    /// The component count the analysis rests on (its stop-rule decision, or the component
    /// assignment it recorded) was made under an earlier version of the protocol that fixed
    /// what a count decides from otherwise (link rules, `[components]`, splits, stop rule, or
    /// the power target the splits derive their requirement from).
    #[error("the component count (entry #{seq}, protocol sha256 {protocol}) does not stand under the registration in force, which counts otherwise: {changes}")]
    Recount {
        /// The latest `count`, `stop` or `go` entry.
        seq: u64,
        /// The protocol hash that entry records (shortened).
        protocol: String,
        /// What changed, `key: old → new` joined by `; `.
        changes: String,
    },
    /// The component assignment is not the one a components entry recorded.
    #[error("{0}")]
    Assignment(String),
    /// The analysis reads other content for a data role (scores, runs, qrels, strata) than the
    /// study's first analysis read.
    #[error("{0}")]
    Data(String),
    /// The analysis uses a field otherwise than the registration fixes (`field: registered →
    /// used`).
    #[error("{0}")]
    Field(String),
    /// Any other rule of the registration (the message says which).
    #[error("{0}")]
    Other(String),
}

impl Refusal {
    /// The first part of the refusal's text (its whole text but for [`Refusal::Changed`], whose
    /// hashes are the detail).
    pub fn headline(&self) -> String {
        match self {
            Refusal::Changed { path, seq, .. } => {
                format!("protocol {} changed since it was registered (entry #{})", path, seq)
            }
            other => other.to_string(),
        }
    }

    /// The detail behind the headline, if any.
    pub fn detail(&self) -> Option<String> {
        match self {
            Refusal::Changed { registered, now, .. } => {
                Some(format!("registered sha256 {}, file now {}", registered, now))
            }
            _ => None,
        }
    }
}

/// Turns a non-empty list of refusals into one error (exit 1): `message`, every refusal as a
/// `Caused by:` line, and `hint`.
pub fn refused_by(message: impl Into<String>, refusals: &[Refusal], hint: impl Into<String>) -> Error {
    let mut e = Error::refused(message);
    for r in refusals {
        e = e.caused_by(r.clone());
    }
    e.with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_chain_in_order_and_keeps_typed_causes() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = Error::input("reading x.csv")
            .caused_by(io)
            .caused_by("second")
            .with_hint("check the file");
        assert_eq!(
            e.render(),
            "error: reading x.csv\nCaused by: denied\nCaused by: second\nhint: check the file"
        );
        assert_eq!(e.exit_code(), exit::INPUT);
        assert!(e.find_cause::<std::io::Error>().is_some());
        let r = refused_by("refused", &[Refusal::Stopped { seq: 4 }], "h");
        assert_eq!(r.find_cause::<Refusal>(), Some(&Refusal::Stopped { seq: 4 }));
        assert_eq!(r.causes(), vec!["the stop rule said stop (entry #4)"]);
        assert_eq!(r.exit_code(), exit::FINDINGS);
    }

    #[test]
    fn a_quietly_caught_panic_is_known_to_be_caught() {
        assert!(!caught::is_caught());
        let r = caught::catch_quietly(|| {
            assert!(caught::is_caught());
            7
        });
        assert_eq!(r.unwrap(), 7);
        assert!(!caught::is_caught());
        let r = caught::catch_quietly(|| -> u8 { panic!("decoder bug") });
        assert!(r.is_err());
        assert!(!caught::is_caught(), "the depth is restored after a panic");
    }

    #[test]
    fn an_os_error_is_said_once() {
        let missing = Error::io("reading", Path::new("x.csv"), std::io::Error::from_raw_os_error(2));
        assert_eq!(missing.render(), "error: x.csv: no such file or directory");
        let denied = Error::io("reading", Path::new("x.csv"), std::io::Error::from_raw_os_error(13));
        assert_eq!(
            denied.render(),
            "error: reading x.csv\nCaused by: Permission denied (os error 13)"
        );
        // An error that displays its source (`#[error("{0}")]` with `#[source]`): one line.
        #[derive(Debug, thiserror::Error)]
        #[error("{0}")]
        struct Wrapper(#[source] std::io::Error);
        let e = Error::input("writing y").caused_by(Wrapper(std::io::Error::from_raw_os_error(13)));
        assert_eq!(e.causes(), vec!["Permission denied (os error 13)"]);
        assert_eq!(Error::input("m").caused_by("a").caused_by("b").causes(), vec!["a", "b"]);
    }
}
