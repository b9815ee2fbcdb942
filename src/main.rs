//! The `pledge` binary: reads the environment (clock, working directory, terminal) and hands
//! them to the library's CLI layer, then writes what it returns. Only this file reads the
//! environment or prints.

use std::io::Write;
use std::process::ExitCode;

/// `MemAvailable` of `/proc/meminfo` in bytes (Linux), `None` elsewhere or when unreadable.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Installs the panic hook: silent for a panic the library catches on purpose (a third-party
/// decoder failing on a corrupt file, reported as a clear exit-2 error), the standard report
/// otherwise.
fn install_panic_hook() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !pledge::error::caught::is_caught() {
            report(info);
        }
    }));
}

fn main() -> ExitCode {
    install_panic_hook();
    let (now, clock_fixed) = match std::env::var("PLEDGE_NOW") {
        Ok(s) if !s.is_empty() => match chrono::DateTime::parse_from_rfc3339(&s) {
            Ok(t) => (t.with_timezone(&chrono::Utc), true),
            Err(e) => {
                eprintln!("error: PLEDGE_NOW={} is not an RFC 3339 time\nCaused by: {}", s, e);
                return ExitCode::from(pledge::error::exit::INPUT);
            }
        },
        _ => (chrono::Utc::now(), false),
    };
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot read the current directory\nCaused by: {}", e);
            return ExitCode::from(pledge::error::exit::INTERNAL);
        }
    };
    use std::io::IsTerminal;
    let git_env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    };
    let env_text = |name: &str| std::env::var(name).ok();
    let author = pledge::cli::git_author(env_text("GIT_AUTHOR_NAME"), env_text("GIT_AUTHOR_EMAIL"), &cwd);
    let ctx = pledge::cli::Ctx {
        author,
        now,
        cwd,
        stderr_is_tty: std::io::stderr().is_terminal(),
        clock_fixed,
        sign_key: None,
        git_dir: git_env("GIT_DIR"),
        git_work_tree: git_env("GIT_WORK_TREE"),
        mem_available: mem_available(),
        temp_dir: std::env::temp_dir(),
        system_clock: chrono::Utc::now,
    };
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let out = match std::panic::catch_unwind(|| pledge::cli::run(args, &ctx)) {
        Ok(out) => out,
        Err(_) => {
            // The hook has printed the panic's message and place.
            eprintln!("error: pledge stopped on an internal error (a bug in pledge, not in the input)\nhint: please report it with the command line and the message above");
            return ExitCode::from(pledge::error::exit::INTERNAL);
        }
    };
    // Quiet on a broken pipe (`pledge log | head`), as ripgrep.
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(out.stdout.as_bytes()).and_then(|_| stdout.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: writing to standard output\nCaused by: {}", e);
            return ExitCode::from(pledge::error::exit::INTERNAL);
        }
    }
    ExitCode::from(out.code)
}
