//! `pledge formats`: the input formats pledge reads, how each is detected, and the command a
//! user runs for it.

use super::values::named;
use super::{Ctx, Outcome, Output};
use crate::output::{to_json, Format};

/// Arguments of `pledge formats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// `human` prints a Markdown table; `json` the list.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn run(a: Args, _ctx: &Ctx) -> Outcome {
    let out = match a.format {
        Format::Human => crate::formats::markdown_table(),
        Format::Json => to_json(crate::formats::formats()),
    };
    Ok(Output::ok(out, &vec![]))
}
