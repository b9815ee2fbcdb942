//! `pledge report`: parse, call [`crate::ops::report::report`], print the path (or the data).

use super::values::named;
use super::{open_ledger, resolve, Ctx, Outcome, Output};
use crate::error::exit;
use crate::ops::report::ReportOptions;
use crate::output::{to_json, Format};
use std::path::PathBuf;

/// Arguments of `pledge report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The study to report on (default: the only study in the ledger).
    #[arg(long)]
    pub study: Option<String>,
    /// Directory for `report.md` and its SVG pictures.
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
    /// A minijinja template to use instead of the built-in one (undefined variables are an error).
    #[arg(long, value_name = "FILE")]
    pub template: Option<PathBuf>,
    /// Also write a self-contained HTML report (no external file: the SVG pictures are inlined).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write the results (system means, comparisons) as a LaTeX table (needs `booktabs`).
    #[arg(long, value_name = "FILE")]
    pub latex: Option<PathBuf>,
    /// `human` writes the files and prints their paths; `json` prints the report data instead.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let o = ReportOptions {
        study: a.study.clone(),
        out: resolve(ctx, &a.out),
        template: a.template.as_deref().map(|p| resolve(ctx, p)),
        data_only: a.format == Format::Json,
        html: a.html.as_deref().map(|p| resolve(ctx, p)),
        latex: a.latex.as_deref().map(|p| resolve(ctx, p)),
    };
    let r = crate::ops::report::report(&open_ledger(ctx)?, &o)?;
    let stdout = match &r.path {
        None => to_json(&r.data),
        Some(p) => std::iter::once(p)
            .chain(&r.also)
            .map(|p| format!("{}\n", p.display()))
            .collect(),
    };
    let code = if r.verified || r.path.is_none() {
        exit::OK
    } else {
        exit::FINDINGS
    };
    Ok(Output::with_code(code, stdout, &r.notes))
}
