//! The error type shared by every module, and the exit codes the CLI maps it to.
//!
//! Rendering follows cargo/uv: an `error:` line, then one `Caused by:` line per cause, then an
//! optional `hint:` line. Library code returns [`Error`]; only `main` prints it and exits.

use std::fmt;
use std::path::Path;

/// Process exit codes, documented in `--help` and the README.
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
    /// An internal error (a bug in pledge or an I/O failure of the machine), as sysexits' EX_SOFTWARE.
    pub const INTERNAL: u8 = 70;
}

/// What went wrong, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input file or value, or bad usage: exit 2.
    Input,
    /// The registration refuses the action (unregistered / changed protocol, stop said stop,
    /// different component assignment): exit 1.
    Refused,
    /// Internal failure (git, I/O on the repository, a bug): exit 70.
    Internal,
}

/// An error with its causes and an optional hint.
#[derive(Debug, Clone)]
pub struct Error {
    /// Kind, which decides the exit code.
    pub kind: ErrorKind,
    /// The one-line message shown after `error:`.
    pub message: String,
    /// Causes, outermost first, shown as `Caused by:` lines.
    pub causes: Vec<String>,
    /// A suggestion shown as a `hint:` line.
    pub hint: Option<String>,
}

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A bad-input error with no location.
    pub fn input(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Input,
            message: message.into(),
            causes: vec![],
            hint: None,
        }
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
        Error {
            kind: ErrorKind::Refused,
            message: message.into(),
            causes: vec![],
            hint: None,
        }
    }

    /// An internal error (exit 70).
    pub fn internal(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Internal,
            message: message.into(),
            causes: vec![],
            hint: None,
        }
    }

    /// An I/O error on `path` while doing `what` (e.g. "reading"): a missing input file is bad
    /// input (exit 2), anything else too, since it concerns a path the user named.
    pub fn io(what: &str, path: &Path, err: std::io::Error) -> Self {
        let msg = match err.kind() {
            std::io::ErrorKind::NotFound => format!("{}: no such file or directory", path.display()),
            _ => format!("{} {}", what, path.display()),
        };
        Error::input(msg).caused_by(err)
    }

    /// A git error while doing `what`.
    pub fn git(what: impl Into<String>, err: git2::Error) -> Self {
        Error::internal(what).caused_by(err.message())
    }

    /// Adds a cause line.
    pub fn caused_by(mut self, cause: impl fmt::Display) -> Self {
        self.causes.push(cause.to_string());
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
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        for c in &self.causes {
            write!(f, "\nCaused by: {}", c)?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\nhint: {}", h)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<git2::Error> for Error {
    fn from(e: git2::Error) -> Self {
        Error::git("git operation failed", e)
    }
}
