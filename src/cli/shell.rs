//! `pledge completions SHELL` and `pledge man [--dir DIR]`: shell completion scripts
//! (clap_complete) and the roff man pages (clap_mangen: pledge(1), and with `--dir` one page per
//! subcommand, which pledge(1) refers to), all generated from the same clap definition as
//! `--help`.

use super::{Ctx, Outcome, Output};
use crate::error::Error;
use clap::CommandFactory;

/// Arguments of `pledge completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `pledge man`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
pledge(1) lists the subcommands' pages (pledge-verify(1), ...): --dir DIR writes them all.

Examples:
  pledge man > ~/.local/share/man/man1/pledge.1
  pledge man --dir ~/.local/share/man/man1")]
pub struct ManArgs {
    /// Write every page into DIR instead: pledge.1 and one page per subcommand
    /// (pledge-verify.1, ...), which pledge(1) refers to. DIR is created if missing.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

/// Prints the completion script of `a.shell` to stdout.
pub fn completions(a: CompletionsArgs, _ctx: &Ctx) -> Outcome {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "pledge", &mut buf);
    let text = String::from_utf8(buf).map_err(|e| Error::internal("a completion script").caused_by(e))?;
    Ok(Output::ok(text, &vec![]))
}

/// Prints the man page `pledge(1)` (roff) to stdout, or with `--dir` writes it and one page per
/// subcommand (`pledge-verify.1`, ..., as `clap_mangen::generate_to` names them) into the
/// directory, each atomically, and prints what it wrote.
///
/// Errors (exit 2): the directory cannot be created or written.
pub fn man(a: ManArgs, ctx: &Ctx) -> Outcome {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = a.dir.as_deref().map(|d| super::resolve(ctx, d)) else {
        let (_, text) = page(cmd)?;
        return Ok(Output::ok(text, &vec![]));
    };
    let mut pages = Vec::new();
    collect_pages(cmd, &mut pages)?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("creating the directory", &dir, e))?;
    for (name, text) in &pages {
        crate::io::write_atomic(&dir.join(name), text.as_bytes())?;
    }
    Ok(Output::ok(
        format!("Wrote {} man pages to {}\n", pages.len(), dir.display()),
        &vec![],
    ))
}

/// The page of `cmd` and, before it, those of its visible subcommands, depth first (the order of
/// `clap_mangen::generate_to`).
fn collect_pages(cmd: clap::Command, out: &mut Vec<(String, String)>) -> crate::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        collect_pages(sub, out)?;
    }
    out.push(page(cmd)?);
    Ok(())
}

/// One page: its file name (`pledge-verify.1`) and its roff text.
fn page(cmd: clap::Command) -> crate::Result<(String, String)> {
    let man = clap_mangen::Man::new(cmd);
    let mut buf = Vec::new();
    man.render(&mut buf)
        .map_err(|e| Error::internal("rendering the man page").caused_by(e))?;
    let text = String::from_utf8(buf).map_err(|e| Error::internal("the man page").caused_by(e))?;
    Ok((man.get_filename(), text))
}
