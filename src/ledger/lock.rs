//! The append lock: an OS advisory lock (`flock(2)` on Unix, `LockFileEx` on Windows, through
//! the `fs4` crate) on the file [`APPEND_LOCK_FILE`] in the repository's common git directory,
//! held by a writer for its whole append.
//!
//! The operating system releases an advisory lock when its holder exits, however it exits
//! (a `SIGKILL` included), so a killed append never blocks later ones. And since every pledge
//! writer takes this lock before it takes git's own ref lock file (`refs/pledge/ledger.lock`,
//! which libgit2 creates with `O_EXCL` to move the ref and deletes afterwards, and which a
//! process killed between the two leaves behind), a ref lock file found while holding the
//! append lock was left by a dead pledge process: it is stale and can be removed
//! ([`AppendLock::clear_stale_ref_lock`], which returns a note saying so).
//!
//! What this cannot know: a process that moves the same ref without taking the append lock
//! (e.g. `git update-ref refs/pledge/ledger ...` run by hand at the same moment). The `older_than`
//! argument of [`AppendLock::clear_stale_ref_lock`] leaves such a lock alone while it is young.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Name of the append lock file, created in the repository's common git directory (the one
/// holding `refs/`; for a linked worktree, the main repository's `.git`). It stays there
/// between appends, empty; only the advisory lock on it matters.
pub const APPEND_LOCK_FILE: &str = "pledge-append.lock";

/// A held append lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct AppendLock {
    file: File,
    path: PathBuf,
    git_dir: PathBuf,
}

/// A leftover ref lock file that [`AppendLock::clear_stale_ref_lock`] removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleRefLock {
    /// The removed file, e.g. `<git dir>/refs/pledge/ledger.lock`.
    pub path: PathBuf,
    /// The ref it locked, e.g. `refs/pledge/ledger`.
    pub refname: String,
    /// How long before its removal the file was last modified (whole seconds), when known.
    pub age_secs: Option<u64>,
}

impl StaleRefLock {
    /// One sentence for a verification note or a command's output.
    pub fn note(&self) -> String {
        format!(
            "removed {} (a ref lock left by a pledge process that was killed while appending{}): no pledge process held the append lock",
            self.path.display(),
            self.age_secs
                .map(|s| format!(", last modified {} s earlier", s))
                .unwrap_or_default()
        )
    }
}

impl AppendLock {
    /// Takes the append lock of the repository whose common git directory is `git_dir`, if no
    /// other process (or other handle in this process) holds it; `Ok(None)` if one does.
    ///
    /// Errors: the lock file cannot be created or opened, or the operating system refuses the
    /// lock (exit 73 for a read-only repository, a full disk or a permission denied; else 70).
    pub fn try_acquire(git_dir: &Path) -> Result<Option<AppendLock>> {
        let path = git_dir.join(APPEND_LOCK_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| {
                environment_error(format!("cannot open the append lock {}", path.display()), e).with_hint(
                    "appending needs write access to the repository's git directory: check its permissions and file system",
                )
            })?;
        // Called through the trait: std's inherent `File::try_lock` (Rust 1.89) would shadow it.
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => Ok(Some(AppendLock {
                file,
                path,
                git_dir: git_dir.to_path_buf(),
            })),
            Err(fs4::TryLockError::WouldBlock) => Ok(None),
            Err(fs4::TryLockError::Error(e)) => Err(environment_error(format!("cannot lock {}", path.display()), e)),
        }
    }

    /// Takes the append lock, waiting up to `timeout` for another writer to finish (polling
    /// every few milliseconds).
    ///
    /// Errors: as [`AppendLock::try_acquire`]; another process still holds the lock after
    /// `timeout` (exit 75) (a live append that takes that long, or a hung process: the hint says
    /// which file).
    pub fn acquire(git_dir: &Path, timeout: Duration) -> Result<AppendLock> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            if let Some(lock) = AppendLock::try_acquire(git_dir)? {
                return Ok(lock);
            }
            if start.elapsed() >= timeout {
                return Err(Error::temp_fail(format!(
                    "another process kept the ledger's append lock for {:.1} s",
                    timeout.as_secs_f64()
                ))
                .with_hint(format!(
                    "a pledge command is still appending to this repository's ledger (it holds {}); wait for it, or stop it",
                    git_dir.join(APPEND_LOCK_FILE).display()
                )));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes git's lock file of `refname` (`<git dir>/<refname>.lock`) if one exists and was
    /// last modified at least `older_than` ago, returning what was removed. Only meaningful
    /// because this append lock is held: no other pledge writer can be inside its append.
    ///
    /// `refname` must be a full ref name under `refs/` without `.`/`..` components; `now` is the
    /// clock to measure the file's age with (library code takes the clock as a parameter).
    ///
    /// Errors: a bad `refname` (internal, exit 70: the caller passes a constant); the file exists
    /// but cannot be removed (exit 73 when the file system refuses, else 70).
    pub fn clear_stale_ref_lock(
        &self,
        refname: &str,
        older_than: Duration,
        now: SystemTime,
    ) -> Result<Option<StaleRefLock>> {
        let valid = refname.starts_with("refs/")
            && refname
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != ".." && !c.ends_with(".lock"));
        if !valid {
            return Err(Error::internal(format!("`{}` is not a full ref name", refname)));
        }
        let path = self.git_dir.join(format!("{}.lock", refname));
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if crate::error::is_environment(&e) => {
                return Err(Error::io_error(format!("cannot read {}", path.display())).caused_by(e))
            }
            Err(e) => return Err(Error::internal(format!("cannot read {}", path.display())).caused_by(e)),
        };
        if !meta.is_file() {
            return Ok(None);
        }
        let age = meta.modified().ok().and_then(|m| now.duration_since(m).ok());
        if age.unwrap_or(Duration::ZERO) < older_than {
            return Ok(None);
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(environment_error(
                    format!("cannot remove the stale ref lock {}", path.display()),
                    e,
                ))
            }
        }
        Ok(Some(StaleRefLock {
            path,
            refname: refname.to_string(),
            age_secs: age.map(|a| a.as_secs()),
        }))
    }
}

/// `message` caused by `e`: exit 73 when the environment refused (a read-only repository, a
/// full disk, see [`crate::error::is_environment`]), else exit 70.
fn environment_error(message: String, e: std::io::Error) -> Error {
    let err = if crate::error::is_environment(&e) {
        Error::cant_create(message)
    } else {
        Error::internal(message)
    };
    err.caused_by(e)
}

impl Drop for AppendLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first makes it immediate even if
        // another handle to the same open file description exists.
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    const CHILD_ENV: &str = "PLEDGE_TEST_LOCK_HOLDER_DIR";

    /// Not a test on its own: the body of the child process of
    /// `a_killed_holder_leaves_no_lock_behind`, which re-runs this test binary with
    /// [`CHILD_ENV`] set. It takes the lock, leaves a ref lock file as libgit2 does mid-append,
    /// says it is ready, and waits to be killed.
    #[test]
    fn lock_holder_child() {
        let Ok(dir) = std::env::var(CHILD_ENV) else { return };
        let dir = PathBuf::from(dir);
        let lock = AppendLock::try_acquire(&dir)
            .unwrap()
            .expect("the parent does not hold the lock");
        std::fs::create_dir_all(dir.join("refs/pledge")).unwrap();
        std::fs::write(dir.join("refs/pledge/ledger.lock"), b"0123456789abcdef\n").unwrap();
        std::fs::write(dir.join("child-ready"), b"").unwrap();
        std::thread::sleep(Duration::from_secs(60));
        drop(lock);
        panic!("the parent did not kill this child within 60 s");
    }

    #[test]
    fn a_killed_holder_leaves_no_lock_behind() {
        let dir = tempfile::tempdir().unwrap();
        let exe = std::env::current_exe().unwrap();
        let mut child = Command::new(exe)
            .args([
                "--exact",
                "ledger::lock::tests::lock_holder_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !dir.path().join("child-ready").exists() {
            assert!(start.elapsed() < Duration::from_secs(30), "child never took the lock");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Held by a live process: not available, and waiting for it times out with a hint.
        assert!(AppendLock::try_acquire(dir.path()).unwrap().is_none());
        let err = AppendLock::acquire(dir.path(), Duration::from_millis(60)).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::TEMP_FAIL);
        assert!(err.hint.unwrap().contains(APPEND_LOCK_FILE));
        // SIGKILL (what `Child::kill` sends on Unix): no cleanup code runs in the child.
        child.kill().unwrap();
        child.wait().unwrap();
        let lock = AppendLock::acquire(dir.path(), Duration::from_secs(5)).unwrap();
        // The child's ref lock is still there; under the append lock it is known stale.
        let ref_lock = dir.path().join("refs/pledge/ledger.lock");
        assert!(ref_lock.exists());
        let later = SystemTime::now() + Duration::from_secs(3);
        let stale = lock
            .clear_stale_ref_lock("refs/pledge/ledger", Duration::from_secs(1), later)
            .unwrap()
            .unwrap();
        assert_eq!(stale.path, ref_lock);
        assert_eq!(stale.refname, "refs/pledge/ledger");
        assert!(stale.age_secs.unwrap() >= 2);
        assert!(stale.note().contains("killed while appending"));
        assert!(!ref_lock.exists());
        // Nothing left: a second call finds nothing.
        assert_eq!(
            lock.clear_stale_ref_lock("refs/pledge/ledger", Duration::ZERO, later)
                .unwrap(),
            None
        );
    }

    #[test]
    fn one_holder_at_a_time_and_release_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = AppendLock::try_acquire(dir.path()).unwrap().unwrap();
        assert_eq!(a.path(), dir.path().join(APPEND_LOCK_FILE));
        // A second handle in the same process is a separate open file: it conflicts too.
        assert!(AppendLock::try_acquire(dir.path()).unwrap().is_none());
        drop(a);
        let b = AppendLock::acquire(dir.path(), Duration::from_secs(1)).unwrap();
        drop(b);
    }

    #[test]
    fn young_ref_locks_and_bad_names_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let lock = AppendLock::try_acquire(dir.path()).unwrap().unwrap();
        std::fs::create_dir_all(dir.path().join("refs/pledge")).unwrap();
        let ref_lock = dir.path().join("refs/pledge/ledger.lock");
        std::fs::write(&ref_lock, b"").unwrap();
        let now = SystemTime::now();
        assert_eq!(
            lock.clear_stale_ref_lock("refs/pledge/ledger", Duration::from_secs(30), now)
                .unwrap(),
            None
        );
        assert!(ref_lock.exists());
        for bad in ["../x", "refs/../x", "HEAD", "refs/a.lock", "refs//a"] {
            assert_eq!(
                lock.clear_stale_ref_lock(bad, Duration::ZERO, now)
                    .unwrap_err()
                    .exit_code(),
                70,
                "{}",
                bad
            );
        }
        // A directory of that name is not a lock file.
        std::fs::remove_file(&ref_lock).unwrap();
        std::fs::create_dir(&ref_lock).unwrap();
        assert_eq!(
            lock.clear_stale_ref_lock("refs/pledge/ledger", Duration::ZERO, now)
                .unwrap(),
            None
        );
        // An unwritable git dir is an internal error, not a panic.
        let missing = dir.path().join("no/such/dir");
        assert_eq!(AppendLock::try_acquire(&missing).unwrap_err().exit_code(), 70);
    }
}
