//! `pledge power`.
use super::{not_yet, Ctx, Outcome};

/// Arguments of `pledge power`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_a: Args, _ctx: &Ctx) -> Outcome {
    Err(not_yet("power"))
}
