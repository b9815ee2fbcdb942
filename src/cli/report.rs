//! `pledge report`.
use super::{not_yet, Ctx, Outcome};

/// Arguments of `pledge report`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_a: Args, _ctx: &Ctx) -> Outcome {
    Err(not_yet("report"))
}
