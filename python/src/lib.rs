//! `pledge._native`: the extension module under the Python package `pledge`.
//!
//! Two entry points over the same Rust core as the `pledge` command, no second implementation:
//!
//! - [`run`] runs the command line (`pledge::cli::run`) with the arguments and environment the
//!   Python side passes, and returns the exit code, stdout and stderr the command would have
//!   written. The `pledge` console script and every API function (`pledge.compare`,
//!   `pledge.register`, ...) go through it, so their results are the CLI's `--format json`
//!   output and their errors the CLI's `error:` / `Caused by:` / `hint:` text and exit code.
//! - [`read_scores`] reads score files as `pledge compare --scores` does (`pledge::scores::read_many`)
//!   and returns the per-topic table as JSON, which no command prints; [`read_runs`] does the same
//!   for TREC runs against qrels (`pledge compare --qrels --run`).
//!
//! As `main.rs` is for the binary, this module is an entry point: it takes the clock, working
//! directory and git variables as parameters from the Python side (which reads the environment)
//! and hands them to the library.

use pyo3::prelude::*;
use std::ffi::OsString;
use std::path::PathBuf;

/// Installs, once, the panic hook of the `pledge` binary: silent for a panic the library
/// catches on purpose (a third-party decoder failing on a corrupt file), the standard report
/// otherwise.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !pledge::error::caught::is_caught() {
                report(info);
            }
        }));
    });
}

/// The clock: `now` (an RFC 3339 time, `PLEDGE_NOW`) when given and not empty, fixed; else the
/// system clock.
///
/// Errors: the message `main.rs` prints for a bad `PLEDGE_NOW` (exit 2).
fn clock(now: Option<String>) -> Result<(chrono::DateTime<chrono::Utc>, bool), String> {
    match now.filter(|s| !s.is_empty()) {
        Some(s) => match chrono::DateTime::parse_from_rfc3339(&s) {
            Ok(t) => Ok((t.with_timezone(&chrono::Utc), true)),
            Err(e) => Err(format!(
                "error: PLEDGE_NOW={} is not an RFC 3339 time\nCaused by: {}\n",
                s, e
            )),
        },
        None => Ok((chrono::Utc::now(), false)),
    }
}

/// Runs `pledge ARGV...` (`argv[0]` is the program name) as the binary does and returns
/// `(exit_code, stdout, stderr)`.
///
/// `cwd` is the working directory; `now` is `PLEDGE_NOW` (a fixed clock, RFC 3339) or `None`;
/// `git_dir` / `git_work_tree` are `GIT_DIR` / `GIT_WORK_TREE`; `temp_dir` the directory for
/// temporary files; `mem_available` the bytes the system has available (the default
/// `--memory-limit` is half of it); `stderr_is_tty` shows progress bars. The GIL is released
/// while the command runs. A panic (a bug in pledge) gives exit 70 and the binary's message.
#[pyfunction]
#[pyo3(signature = (argv, cwd, now=None, git_dir=None, git_work_tree=None, temp_dir=None, mem_available=None, stderr_is_tty=false))]
#[allow(clippy::too_many_arguments)] // a Python function's keyword arguments
fn run(
    py: Python<'_>,
    argv: Vec<OsString>,
    cwd: PathBuf,
    now: Option<String>,
    git_dir: Option<PathBuf>,
    git_work_tree: Option<PathBuf>,
    temp_dir: Option<PathBuf>,
    mem_available: Option<u64>,
    stderr_is_tty: bool,
) -> (u8, String, String) {
    install_panic_hook();
    let (now, clock_fixed) = match clock(now) {
        Ok(c) => c,
        Err(message) => return (pledge::error::exit::INPUT, String::new(), message),
    };
    // The binding is the Python process's `main`: it reads the environment as `main` does.
    let author = pledge::cli::git_author(
        std::env::var("GIT_AUTHOR_NAME").ok(),
        std::env::var("GIT_AUTHOR_EMAIL").ok(),
        &cwd,
    );
    let ctx = pledge::cli::Ctx {
        author,
        now,
        cwd,
        stderr_is_tty,
        clock_fixed,
        sign_key: None,
        git_dir: git_dir.filter(|p| !p.as_os_str().is_empty()),
        git_work_tree: git_work_tree.filter(|p| !p.as_os_str().is_empty()),
        mem_available,
        temp_dir: temp_dir.unwrap_or_else(std::env::temp_dir),
        system_clock: chrono::Utc::now,
    };
    py.detach(
        move || match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pledge::cli::run(argv, &ctx))) {
            Ok(out) => (out.code, out.stdout, out.stderr),
            Err(_) => (
                pledge::error::exit::INTERNAL,
                String::new(),
                "error: pledge stopped on an internal error (a bug in pledge, not in the input)\n\
                 hint: please report it with the command line and the message above\n"
                    .to_string(),
            ),
        },
    )
}

/// The error of a failed read as the CLI's `--format json` error object: `{"error", "causes",
/// "hint", "exit_code"}`.
fn error_json(e: &pledge::error::Error) -> String {
    serde_json::json!({
        "error": e.message,
        "causes": e.causes(),
        "hint": e.hint,
        "exit_code": e.exit_code(),
    })
    .to_string()
}

/// The read options of `read_scores`' arguments, as `compare`'s flags of the same names set
/// them.
///
/// Errors (exit 2): an unknown `input_format`.
fn read_options(
    names: Vec<Option<String>>,
    measure: Option<String>,
    column: Option<String>,
    labels: Vec<(String, f64)>,
    input_format: Option<String>,
    filter: Option<String>,
) -> pledge::error::Result<pledge::scores::ReadOptions> {
    let format = match input_format {
        Some(f) => Some(pledge::scores::ScoreFormat::from_name(&f)?),
        None => None,
    };
    Ok(pledge::scores::ReadOptions {
        measure,
        column,
        labels,
        format,
        filter,
        file_systems: names,
        ..Default::default()
    })
}

/// Reads score files as `pledge compare --scores FILE[=NAME] ...` does and returns `(0, JSON)`
/// of the score table (`{"systems": [...], "topics": [...], "values": [[score or null per
/// topic] per system], "notes": [...]}`), or `(exit_code, JSON)` of the CLI's error object.
///
/// `names[i]` names the one system of `paths[i]` (`FILE=NAME`); `measure`, `column`, `labels`
/// (`(LABEL, VALUE)` pairs), `input_format` and `filter` are the flags of the same names.
#[pyfunction]
#[pyo3(signature = (paths, names, measure=None, column=None, labels=Vec::new(), input_format=None, filter=None))]
#[allow(clippy::too_many_arguments)] // a Python function's keyword arguments
fn read_scores(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    names: Vec<Option<String>>,
    measure: Option<String>,
    column: Option<String>,
    labels: Vec<(String, f64)>,
    input_format: Option<String>,
    filter: Option<String>,
) -> (u8, String) {
    install_panic_hook();
    py.detach(move || {
        guarded(|| {
            let opts = read_options(names, measure, column, labels, input_format, filter)?;
            let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
            let table = pledge::scores::read_many(&refs, &opts)?;
            table_json(&table)
        })
    })
}

/// Reads TREC runs against qrels as `pledge compare --qrels Q --run R ... --measure M` does
/// (`pledge::trec::{Qrels, Run}` with duplicates refused, then `pledge::scores::score_table`)
/// and returns `(0, JSON)` of the per-topic table of `measure` (`map`, `ndcg_cut.10`,
/// `nDCG@10`, ...), in the shape of [`read_scores`], or `(exit_code, JSON)` of the CLI's error
/// object. `complete` is `--missing-topics zero` (trec_eval's `-c`: a run lacking a qrels topic
/// scores it as an empty ranking); otherwise such a topic is `null` for that run.
///
/// Errors (exit 2): unreadable or malformed qrels or runs (file and line), two runs with one
/// tag, an unknown or non-per-topic measure.
#[pyfunction]
#[pyo3(signature = (qrels, runs, measure, complete=false))]
fn read_runs(py: Python<'_>, qrels: PathBuf, runs: Vec<PathBuf>, measure: String, complete: bool) -> (u8, String) {
    use pledge::trec::{Duplicates, Qrels, Run};
    install_panic_hook();
    py.detach(move || {
        guarded(|| {
            let read = |p: &PathBuf| pledge::input::Input::from_path(p, pledge::input::Limits::DEFAULT);
            let q = Qrels::from_input(&read(&qrels)?, Duplicates::Error)?;
            let rs = runs
                .iter()
                .map(|r| Run::from_input(&read(r)?, Duplicates::Error))
                .collect::<pledge::error::Result<Vec<_>>>()?;
            table_json(&pledge::scores::score_table(&q, &rs, &measure, complete)?)
        })
    })
}

/// The score table as JSON.
fn table_json(table: &pledge::scores::ScoreTable) -> pledge::error::Result<String> {
    serde_json::to_string(table).map_err(|e| pledge::error::Error::internal(e.to_string()))
}

/// Runs `f`, turning its error or a panic into `(exit_code, JSON of the CLI's error object)`.
fn guarded(f: impl FnOnce() -> pledge::error::Result<String>) -> (u8, String) {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(json)) => (0, json),
        Ok(Err(e)) => (e.exit_code(), error_json(&e)),
        Err(_) => {
            let e = pledge::error::Error::internal(
                "pledge stopped on an internal error (a bug in pledge, not in the input)",
            );
            (e.exit_code(), error_json(&e))
        }
    }
}

/// The module `pledge._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read_scores, m)?)?;
    m.add_function(wrap_pyfunction!(read_runs, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
