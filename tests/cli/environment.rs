//! Exit codes for the environment, each said as such: a repository or file that cannot be
//! written (73) or read (74), git's "dubious ownership" (74, with git's `safe.directory`
//! hint), and a SHA-256 repository, which the git library cannot open (2, naming what cannot be
//! done). The unreachable TSA (75) is in `witness`.
//!
//! Permissions do not stop root, so when the tests run as root the commands concerned run as
//! the user `nobody` (uid 65534) on a tree owned by it.

use crate::common::{pledge_cmd, Env, Run};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;

/// The uid of `nobody`, which the commands run as when the tests run as root.
const NOBODY: u32 = 65534;

/// This process's effective uid (the owner of a file it creates).
fn euid() -> u32 {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::metadata(f.path()).unwrap().uid()
}

fn run(cmd: &mut std::process::Command) -> Run {
    let o = cmd.output().expect("running pledge");
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Runs `pledge ARGS` in `dir` as a user the file permissions apply to: `nobody` when the tests
/// run as root (with a home it cannot read nothing from), else this user.
fn as_user(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = pledge_cmd();
    cmd.args(args).current_dir(dir).env("HOME", "/nonexistent");
    if euid() == 0 {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    run(&mut cmd)
}

/// Every path under `root` (itself included), deepest last.
fn tree(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        if out[i].is_dir() && !out[i].is_symlink() {
            let mut children: Vec<_> = std::fs::read_dir(&out[i]).unwrap().map(|d| d.unwrap().path()).collect();
            children.sort();
            out.extend(children);
        }
        i += 1;
    }
    out
}

/// Makes the tree at `root` readable and not writable by the user of [`as_user`] (owned by
/// `nobody` when running as root), or writable again (`writable`).
fn set_writable(root: &Path, writable: bool) {
    for p in tree(root) {
        if euid() == 0 {
            std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        let mode = std::fs::symlink_metadata(&p).unwrap().mode() & 0o7777;
        let mode = if writable {
            mode | 0o200
        } else {
            (mode & !0o222) | 0o444
        };
        let mode = if p.is_dir() { mode | 0o111 } else { mode };
        if !p.is_symlink() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
}

/// A registered ledger, published to a bare repository beside it (`published.git`, inside the
/// scratch directory), then made read-only for the user of [`as_user`].
fn read_only_ledger() -> Env {
    let e = Env::init();
    e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    assert_eq!(e.run(&["register", "p.toml"]).code, 0);
    assert_eq!(e.git(&["init", "-q", "--bare", "published.git"]).code, 0);
    let p = e.run(&["publish", "published.git"]);
    assert_eq!(p.code, 0, "{}", p.stderr);
    // The scratch directory itself (0700 from tempfile) must let that user in.
    set_writable(e.path(), false);
    e
}

/// In a repository this user cannot write: an append is exit 73 (with the cause and what it
/// needs), a file written into it too; everything that only reads works (`verify`, `log`, and
/// `verify --remote`, which compares the published copy where it is and says it could not keep
/// a copy).
#[test]
fn a_read_only_repository_refuses_appends_with_73_and_reads_fine() {
    let e = read_only_ledger();
    let before = e.git(&["rev-parse", "refs/pledge/ledger"]).stdout;
    let r = as_user(e.path(), &["note", "--reason", "read-only"]);
    assert_eq!(r.code, 73, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "error: cannot open the append lock {}\nCaused by: Permission denied (os error 13)\nhint: appending needs write access to the repository's git directory: check its permissions and file system\n",
            e.join(".git/pledge-append.lock").display()
        )
    );
    let r = as_user(e.path(), &["export", "ledger.jsonl"]);
    assert_eq!(r.code, 73, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with(&format!("error: creating a file in {}\n", e.path().display())),
        "{}",
        r.stderr
    );
    assert_eq!(as_user(e.path(), &["verify"]).code, 0);
    assert_eq!(as_user(e.path(), &["log"]).code, 0);
    let r = as_user(e.path(), &["verify", "--remote", "published.git", "--format", "json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let note = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["code"] == "fetch-not-recorded")
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .starts_with("the published copy was compared where it is, but not kept in refs/pledge/remotes/path-"),
        "{}",
        note
    );
    assert_eq!(v["remote"]["published_entries"], 1);
    set_writable(e.path(), true);
    assert_eq!(e.git(&["rev-parse", "refs/pledge/ledger"]).stdout, before);
}

/// A repository whose objects this user cannot read is exit 74 for every command, naming the
/// directory, not a damaged ledger (libgit2 takes such an object for a missing one).
#[test]
fn a_repository_whose_objects_cannot_be_read_is_74() {
    let e = Env::init();
    assert_eq!(e.run(&["note", "--reason", "one"]).code, 0);
    set_writable(e.path(), true);
    let fanout: Vec<_> = std::fs::read_dir(e.join(".git/objects"))
        .unwrap()
        .map(|d| d.unwrap().path())
        .filter(|p| p.file_name().unwrap().len() == 2)
        .collect();
    for d in &fanout {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    for args in [
        &["log"][..],
        &["verify"],
        &["note", "--reason", "two"],
        &["export", "x.jsonl"],
    ] {
        let r = as_user(e.path(), args);
        assert_eq!(r.code, 74, "{:?}: {}{}", args, r.stdout, r.stderr);
        assert!(
            r.stderr.starts_with(&format!(
                "error: cannot read the repository's objects in {}/.git/objects/",
                e.path().display()
            )),
            "{:?}: {}",
            args,
            r.stderr
        );
        assert!(
            r.stderr.contains("Caused by: Permission denied (os error 13)\n"),
            "{}",
            r.stderr
        );
    }
    for d in &fanout {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// An input file this user cannot read is exit 74 (not "bad input"), naming the file and the
/// cause; a missing one stays exit 2.
#[test]
fn an_unreadable_input_is_74_and_a_missing_one_2() {
    let e = Env::init();
    e.copy_from_repo("protocols/hotpotqa.toml", "p.toml");
    set_writable(e.path(), true);
    std::fs::set_permissions(e.join("p.toml"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let r = as_user(e.path(), &["register", "p.toml"]);
    assert_eq!(r.code, 74, "{}", r.stderr);
    assert!(r.stderr.contains("Permission denied (os error 13)"), "{}", r.stderr);
    assert!(r.stderr.contains("p.toml"), "{}", r.stderr);
    let r = as_user(e.path(), &["register", "missing.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A repository owned by another user is refused by git's safety check: said as git says it
/// ("dubious ownership"), exit 74, with the `safe.directory` exception git suggests, not "not
/// inside a git repository". Needs root, to give the repository another owner.
#[test]
fn a_repository_owned_by_another_user_is_dubious_ownership() {
    if euid() != 0 {
        eprintln!(
            "skipped: only root can give a repository another owner (the message is unit-tested in ledger::opening)"
        );
        return;
    }
    let e = Env::init();
    for p in tree(e.path()) {
        std::os::unix::fs::chown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let mut cmd = pledge_cmd();
    cmd.args(["log"]).current_dir(e.path());
    let r = run(&mut cmd);
    assert_eq!(r.code, 74, "{}", r.stderr);
    let root = std::fs::canonicalize(e.path()).unwrap();
    assert_eq!(
        r.stderr,
        format!(
            "error: detected dubious ownership in repository at '{0}': it is owned by another user, so git will not read it\n\
             Caused by: repository path '{0}' is not owned by current user\n\
             hint: if you trust this repository, add an exception for it (as git suggests): git config --global --add safe.directory {0}\n",
            root.display()
        )
    );
    // The exception git suggests works for pledge too.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".gitconfig"),
        format!("[safe]\n\tdirectory = {}\n", root.display()),
    )
    .unwrap();
    let mut cmd = pledge_cmd();
    cmd.args(["log"]).current_dir(e.path()).env("HOME", home.path());
    assert_eq!(run(&mut cmd).code, 0);
}

/// A SHA-256 repository cannot be opened by the git library pledge is built on: `init` refuses
/// to keep a ledger there (and leaves the repository as it was), and every other command says
/// exactly that; exit 2.
#[test]
fn a_sha256_repository_is_refused_saying_what_is_unsupported() {
    let e = Env::new();
    let g = e.git(&["init", "-q", "--object-format=sha256"]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    let config = std::fs::read(e.join(".git/config")).unwrap();
    let r = e.run(&["init"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "error: cannot keep a ledger in {}: it is a SHA-256 git repository (extensions.objectformat = sha256), and libgit2 ",
            e.path().display()
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            ", the git library pledge is built on, opens SHA-1 repositories only, so pledge can neither read, verify, export nor append to a ledger in it\n"
        ) && r.stderr.ends_with(
            "hint: keep the ledger in a SHA-1 repository: `git init --object-format=sha1 DIR`, then `pledge init` there\n"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(e.join(".git/config")).unwrap(), config);
    for args in [&["verify"][..], &["log"], &["note", "--reason", "x"]] {
        let r = e.run(args);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert!(
            r.stderr.starts_with(&format!(
                "error: cannot open the ledger of {}: it is a SHA-256 git repository",
                e.path().display()
            )),
            "{:?}: {}",
            args,
            r.stderr
        );
        assert!(r.stderr.contains("pledge verify --ledger FILE"), "{}", r.stderr);
    }
}
