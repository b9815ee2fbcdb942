//! `pledge analyze` and `pledge compare`.
use super::{not_yet, Ctx, Outcome};

/// Arguments of `pledge analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {}

/// Arguments of `pledge compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {}

pub fn analyze(_a: AnalyzeArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("analyze"))
}

pub fn compare(_a: CompareArgs, _ctx: &Ctx) -> Outcome {
    Err(not_yet("compare"))
}
