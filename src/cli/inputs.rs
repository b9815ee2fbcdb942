//! The reader flags shared by the commands that read per-topic scores (`analyze`, `compare`,
//! `power --pilot`), and the one place where `-` is turned into standard input.

use super::{resolve, Ctx};
use crate::error::{Error, Result};
use crate::input::{is_stdin, Input, Limits, STDIN_NAME};
use crate::scores::{ReadOptions, ScoreFormat};
use std::path::{Path, PathBuf};

/// Reader flags (see `pledge formats` for the formats and how they are detected).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InputArgs {
    /// Read the score files in this format instead of detecting it (trec-eval, ir-measures,
    /// pytrec-eval, lm-eval, inspect-eval, inspect-json, helm, jsonl, json-table, delimited, parquet).
    #[arg(long = "input-format", value_name = "NAME")]
    pub input_format: Option<String>,
    /// lm-evaluation-harness filter (e.g. strict-match) or HELM split to read, when a file holds several.
    #[arg(long, value_name = "NAME")]
    pub filter: Option<String>,
    /// System name of a one-system score input (default: from the file or the log).
    #[arg(long = "system-name", value_name = "NAME")]
    pub system_name: Option<String>,
    /// Largest input accepted, raw and decompressed, e.g. 8G or 512M (default 4G).
    #[arg(long = "max-input-size", value_name = "SIZE")]
    pub max_input_size: Option<String>,
}

impl InputArgs {
    /// The size limits asked for.
    pub fn limits(&self) -> Result<Limits> {
        match &self.max_input_size {
            Some(s) => Ok(Limits {
                max_bytes: crate::input::parse_size(s)?,
            }),
            None => Ok(Limits::default()),
        }
    }

    /// Adds these flags to `opts`; when one of `files` is `-`, reads standard input once into
    /// `opts.stdin` (the raw bytes read are what its SHA-256 is computed from).
    pub fn apply(&self, opts: &mut ReadOptions, files: &[PathBuf]) -> Result<()> {
        opts.format = self.input_format.as_deref().map(ScoreFormat::from_name).transpose()?;
        opts.filter = self.filter.clone();
        opts.system = self.system_name.clone();
        opts.limits = self.limits()?;
        let dashes = files.iter().filter(|p| is_stdin(p)).count();
        if dashes > 1 {
            return Err(Error::input("`-` (standard input) can be given only once"));
        }
        if dashes == 1 {
            opts.stdin = Some(std::sync::Arc::new(stdin(opts.limits)?));
        }
        Ok(())
    }
}

/// Everything on standard input, within `limits`.
pub fn stdin(limits: Limits) -> Result<Input> {
    Input::from_reader(STDIN_NAME, std::io::stdin().lock(), limits)
}

/// Opens `path` (resolved against the working directory), or standard input for `-`.
pub fn open(ctx: &Ctx, path: &Path, limits: Limits) -> Result<Input> {
    if is_stdin(path) {
        stdin(limits)
    } else {
        Input::from_path(&resolve(ctx, path), limits)
    }
}
