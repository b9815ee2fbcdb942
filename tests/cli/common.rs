//! Shared helpers: a hermetic scratch directory and a way to run the real binary in it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixed clock every test uses.
pub const NOW: &str = "2026-11-30T12:00:00Z";

/// A scratch directory; `pledge` runs with it as working directory.
pub struct Env {
    pub dir: tempfile::TempDir,
}

/// What a run of `pledge` gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Env {
    /// An empty scratch directory (not yet a git repository).
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// A scratch directory with `pledge init` already run.
    pub fn init() -> Env {
        let e = Env::new();
        let r = e.run(&["init"]);
        assert_eq!(r.code, 0, "init failed: {}", r.stderr);
        e
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }

    /// Writes a file relative to the scratch directory.
    pub fn write(&self, p: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(p);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        path
    }

    /// Copies a file from the repository (e.g. `protocols/hotpotqa.toml`) into the scratch dir.
    pub fn copy_from_repo(&self, from: &str, to: &str) -> PathBuf {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
        let bytes = std::fs::read(&src).unwrap_or_else(|e| panic!("reading {}: {}", src.display(), e));
        self.write(to, bytes)
    }

    /// Runs `pledge ARGS` in the scratch directory with the fixed clock.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    /// Runs `pledge ARGS` with extra environment variables.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = pledge_cmd();
        cmd.args(args).current_dir(self.path());
        for (k, v) in env {
            cmd.env(k, v);
        }
        run_output(cmd.output().expect("running pledge"))
    }

    /// Runs `pledge ARGS` under `umask MASK` (set by `sh`, then `exec`), hermetically.
    pub fn run_umask(&self, mask: &str, args: &[&str]) -> Run {
        let mut cmd = Command::new("sh");
        hermetic(&mut cmd);
        cmd.env("PLEDGE_NOW", NOW)
            .arg("-c")
            .arg(format!("umask {} && exec \"$0\" \"$@\"", mask))
            .arg(env!("CARGO_BIN_EXE_pledge"))
            .args(args)
            .current_dir(self.path());
        run_output(cmd.output().expect("running sh"))
    }

    /// Runs the shell command line `line` with `sh -c` in `dir` (relative to the scratch
    /// directory), hermetically, with the fixed clock and the `pledge` under test first on the
    /// `PATH`: a command exactly as a user would paste it.
    pub fn sh(&self, dir: &str, line: &str) -> Run {
        let mut cmd = Command::new("sh");
        hermetic(&mut cmd);
        let bin = Path::new(env!("CARGO_BIN_EXE_pledge")).parent().unwrap().to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin];
        paths.extend(std::env::split_paths(&path));
        cmd.env("PLEDGE_NOW", NOW)
            .env("PATH", std::env::join_paths(paths).unwrap())
            .arg("-c")
            .arg(line)
            .current_dir(self.join(dir));
        run_output(cmd.output().expect("running sh"))
    }

    /// Runs `git ARGS` in the scratch directory, hermetically.
    pub fn git(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new("git");
        hermetic(&mut cmd);
        cmd.args(args).current_dir(self.path());
        run_output(cmd.output().expect("running git"))
    }
}

/// A `Command` for the pledge binary with the hermetic environment set.
pub fn pledge_cmd() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pledge"));
    hermetic(&mut cmd);
    cmd.env("PLEDGE_NOW", NOW);
    cmd
}

fn hermetic(cmd: &mut Command) {
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.org")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.org")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
}

fn run_output(o: Output) -> Run {
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Path of a file under `tests/data/`.
pub fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(p)
}

/// Copies the bundled test file `from` (under tests/data) to `to` in the test's repository.
pub fn copy(env: &Env, from: &str, to: &str) {
    env.write(to, std::fs::read(data(from)).unwrap());
}

/// (system, mean, topics) of `ARGS --format json` (a `compare`), which must exit 0.
pub fn means(env: &Env, args: &[&str]) -> Vec<(String, f64, u64)> {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let r = env.run(&a);
    assert_eq!(r.code, 0, "{:?}: {}", args, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["mean"].as_f64().unwrap(),
                s["topics"].as_u64().unwrap(),
            )
        })
        .collect()
}
