//! `pledge completions SHELL` and `pledge man`: shell completion scripts (clap_complete) and
//! the roff man page (clap_mangen), both generated from the same clap definition as `--help`.

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
pub struct ManArgs {}

/// Prints the completion script of `a.shell` to stdout.
pub fn completions(a: CompletionsArgs, _ctx: &Ctx) -> Outcome {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "pledge", &mut buf);
    let text = String::from_utf8(buf).map_err(|e| Error::internal("a completion script").caused_by(e))?;
    Ok(Output::ok(text, &vec![]))
}

/// Prints the man page `pledge(1)` (roff) to stdout.
pub fn man(_a: ManArgs, _ctx: &Ctx) -> Outcome {
    let cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut buf)
        .map_err(|e| Error::internal("rendering the man page").caused_by(e))?;
    let text = String::from_utf8(buf).map_err(|e| Error::internal("the man page").caused_by(e))?;
    Ok(Output::ok(text, &vec![]))
}
