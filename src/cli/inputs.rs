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
    /// The column naming each row's sample (epoch, seed, repeat) in a long table with several
    /// rows per topic and system; every sample is kept and reduced with --sample-aggregation.
    #[arg(long = "sample-column", value_name = "NAME")]
    pub sample_column: Option<String>,
    /// How a topic's repeated samples (inspect_ai epochs, --sample-column) become its value:
    /// mean (default), first, or majority (0/1 scores).
    #[arg(long = "sample-aggregation", value_name = "NAME", value_parser = super::values::named::<crate::protocol::SampleAggregation>())]
    pub sample_aggregation: Option<crate::protocol::SampleAggregation>,
    /// Several score files of one system are its repeated samples, one NAME (seed, repeat) per
    /// file: lm-evaluation-harness samples files of each seed of a model (the system from the
    /// model directory, --scores FILE=NAME or --system-name); the i-th file of each system is its
    /// sample i (give the seeds in the same order for every system), reduced with
    /// --sample-aggregation.
    #[arg(long = "sample-files", value_name = "NAME")]
    pub sample_files: Option<String>,
    /// System name of a one-system score input (default: from the file or the log); given once
    /// per score file, the names pair with the files in order (as `--scores FILE=NAME`).
    #[arg(long = "system-name", value_name = "NAME")]
    pub system_name: Vec<String>,
    /// The limits of what is read.
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The help heading of the limit flags.
const LIMITS: &str = "Input limits";

/// The limits of what a command reads (the defaults bound memory; see `crate::input::LIMITS`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LimitArgs {
    /// Largest input accepted, raw and again decompressed, e.g. 8G or 512M (default 4G).
    #[arg(long = "max-input-size", value_name = "SIZE", help_heading = LIMITS)]
    pub max_input_size: Option<String>,
    /// Longest line of a text input, e.g. 1G (default 256M).
    #[arg(long = "max-line-length", value_name = "SIZE", help_heading = LIMITS)]
    pub max_line_length: Option<String>,
    /// Largest ratio of decompressed to compressed size, applied past 64 MiB decompressed
    /// (default 100; a decompression bomb is about 1000).
    #[arg(long = "max-compression-ratio", value_name = "N", help_heading = LIMITS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_compression_ratio: Option<u64>,
}

impl LimitArgs {
    /// The limits asked for, the defaults where none is given.
    ///
    /// Errors (exit 2): a size that does not parse.
    pub fn limits(&self) -> Result<Limits> {
        let d = Limits::DEFAULT;
        Ok(Limits {
            max_bytes: self
                .max_input_size
                .as_deref()
                .map_or(Ok(d.max_bytes), crate::input::parse_size)?,
            max_line: self
                .max_line_length
                .as_deref()
                .map_or(Ok(d.max_line), crate::input::parse_size)?,
            max_ratio: self.max_compression_ratio.unwrap_or(d.max_ratio),
        })
    }
}

impl InputArgs {
    /// The size limits asked for.
    pub fn limits(&self) -> Result<Limits> {
        self.limits.limits()
    }

    /// Adds these flags to `opts`; when one of `files` is `-`, reads standard input once into
    /// `opts.stdin` (the raw bytes read are what its SHA-256 is computed from).
    pub fn apply(&self, opts: &mut ReadOptions, files: &[PathBuf]) -> Result<()> {
        opts.format = self.input_format.as_deref().map(ScoreFormat::from_name).transpose()?;
        opts.filter = self.filter.clone();
        opts.sample_column = self.sample_column.clone();
        opts.sample_aggregation = self.sample_aggregation;
        opts.sample_files = self.sample_files.clone();
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

impl InputArgs {
    /// Names the systems of the `n` score files: `given` holds the names of `--scores FILE=NAME`
    /// (one per file, `None` where none was given); `--system-name` once names every one-system
    /// file, once per file pairs with the files in order.
    ///
    /// Errors (exit 2): `--system-name` given more than once, but not once per file; a file named
    /// both ways.
    pub fn name_files(&self, opts: &mut ReadOptions, given: Vec<Option<String>>) -> Result<()> {
        let n = given.len();
        let mut names = given;
        match self.system_name.len() {
            0 => {}
            1 if names.iter().all(Option::is_none) => opts.system = self.system_name.first().cloned(),
            k if k == n => {
                for (slot, name) in names.iter_mut().zip(&self.system_name) {
                    if let Some(old) = slot.replace(name.clone()) {
                        return Err(Error::input(format!(
                            "a score file is named twice: `{}` (--scores FILE=NAME) and `{}` (--system-name)",
                            old, name
                        ))
                        .with_hint("name each file once: --scores FILE=NAME, or --system-name once per file"));
                    }
                }
            }
            k => {
                return Err(
                    Error::input(format!("--system-name is given {} times for {} score files", k, n))
                        .with_hint("give it once per score file, in order, or name each file with --scores FILE=NAME"),
                )
            }
        }
        if names.iter().any(Option::is_some) {
            opts.file_systems = names;
        }
        Ok(())
    }
}

/// Splits each `--scores` value into the file and its system name: `FILE=NAME` names the
/// system of FILE, unless the whole value is a file that exists (a file name may hold `=`).
///
/// Errors (exit 2): an empty name (`FILE=`).
pub fn split_named(ctx: &Ctx, values: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<Option<String>>)> {
    let mut files = Vec::with_capacity(values.len());
    let mut names = Vec::with_capacity(values.len());
    for v in values {
        let text = v.to_string_lossy();
        let split = match text.rsplit_once('=') {
            Some((f, n)) if !f.is_empty() && !is_stdin(v) && !resolve(ctx, v).exists() => Some((f, n)),
            _ => None,
        };
        match split {
            Some((_, "")) => {
                return Err(
                    Error::input(format!("--scores {}: the system name after `=` is empty", text))
                        .with_hint("write --scores FILE=NAME"),
                )
            }
            Some((f, n)) => {
                files.push(PathBuf::from(f));
                names.push(Some(n.to_string()));
            }
            None => {
                files.push(v.clone());
                names.push(None);
            }
        }
    }
    Ok((files, names))
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
