//! `pledge demo [DIR]`: the main job. Runs the whole pipeline on the bundled HotpotQA example in
//! a fresh scratch directory (see [`crate::ops::demo`]): every step is the real command, run
//! in-process, its output shown in order.

use super::{resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops::demo::Step;
use std::path::PathBuf;

/// Arguments of `pledge demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scratch directory to create (a previous demo directory there is replaced).
    #[arg(default_value = "pledge-demo")]
    pub dir: PathBuf,
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {}\n", l)).collect()
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let dir = resolve(ctx, &a.dir);
    crate::ops::demo::prepare(&dir, ctx.now)?;
    let sub = Ctx {
        cwd: dir.clone(),
        stderr_is_tty: false,
        // The demo's scratch repository, whatever GIT_DIR says.
        git_dir: None,
        git_work_tree: None,
        ..ctx.clone()
    };
    let mut log = String::new();
    for step in crate::ops::demo::plan() {
        log.push_str(&format!("==> {}\n", step.command_line()));
        let out = match &step {
            Step::Pledge(args) => {
                let mut argv = vec![std::ffi::OsString::from("pledge")];
                argv.extend(args.iter().map(std::ffi::OsString::from));
                super::run(argv, &sub)
            }
            Step::Commit { paths, message } => {
                crate::ops::demo::commit(&dir, ctx.now, paths, message)?;
                Output::ok(String::new(), &vec![])
            }
        };
        log.push_str(&indent(&out.stdout));
        log.push_str(&indent(&out.stderr));
        if out.code != exit::OK {
            let what = if out.code == exit::STOP {
                "the stop rule said stop"
            } else {
                "a step failed"
            };
            log.push_str(&format!(
                "error: demo: {} at `{}` (exit {}); the scratch directory {} is kept\n",
                what,
                step.command_line(),
                out.code,
                dir.display()
            ));
            return Ok(Output {
                code: out.code,
                stdout: String::new(),
                stderr: log,
            });
        }
    }
    let report = dir.join("report").join("report.md");
    log.push_str(&format!("The report is at {}\n", report.display()));
    Ok(Output {
        code: exit::OK,
        stdout: format!("{}\n", report.display()),
        stderr: log,
    })
}
