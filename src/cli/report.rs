//! `pledge report`: renders the reviewer-facing Markdown report from the ledger.

use super::{resolve, Ctx, Outcome};
use crate::error::{exit, Error};
use crate::ledger::Ledger;
use crate::output::Format;
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
    /// `human` writes the files and prints their paths; `json` prints the report data instead.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let ledger = Ledger::open(&ctx.cwd)?;
    let template = match &a.template {
        Some(p) => {
            let p = resolve(ctx, p);
            let text = crate::io::read_text(&p)?;
            Some((p.display().to_string(), text))
        }
        None => None,
    };
    let built = crate::report::build(&ledger, a.study.as_deref())?;
    if a.format == Format::Json {
        return Ok((exit::OK, crate::output::to_json(&built.data)));
    }
    let md = crate::report::render(&built.data, template.as_ref().map(|(n, t)| (n.as_str(), t.as_str())))?;
    let out = resolve(ctx, &a.out);
    std::fs::create_dir_all(&out).map_err(|e| Error::io("creating", &out, e))?;
    for (name, svg) in &built.svgs {
        crate::io::write_atomic(&out.join(name), svg.as_bytes())?;
    }
    let path = out.join("report.md");
    crate::io::write_atomic(&path, md.as_bytes())?;
    if !built.data.verification.ok {
        eprintln!("warning: the ledger failed verification; the report says so at the top");
        return Ok((exit::FINDINGS, format!("{}\n", path.display())));
    }
    Ok((exit::OK, format!("{}\n", path.display())))
}
