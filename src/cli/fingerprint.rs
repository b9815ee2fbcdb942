//! `pledge fingerprint`: the keyed fingerprint of a sealed passage set
//! ([`crate::gate::fingerprint`]), for a `[[contamination-rules]]` entry to register.

use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::gate::fingerprint;
use crate::output::{to_json, Format};
use crate::protocol::Normalization;
use serde::Serialize;
use std::path::PathBuf;

/// Arguments of `pledge fingerprint`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The sealed passages: JSON Lines {id, text, ...} (or the other passage layouts components
    /// reads). Only their keyed hashes are written; keep the file out of the repository.
    pub passages: PathBuf,
    /// The key file: 16 to 65536 bytes, e.g. made with `head -c 32 /dev/urandom > sealed.key`.
    /// Keep it with the sealed data, out of the repository; the protocol registers its SHA-256.
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// Character n-gram size of the shingles (the rule's shingle-size).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub shingle_size: u32,
    /// Unicode normalization before shingling (the rule's normalization).
    #[arg(long, value_parser = named::<Normalization>(), default_value = "nfc")]
    pub normalization: Normalization,
    /// Where to write the fingerprint file (it goes in the repository, beside the protocol).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// What `pledge fingerprint` wrote.
#[derive(Debug, Serialize)]
struct Written {
    out: String,
    passages: u64,
    distinct_shingles: u64,
    shingle_size: u32,
    normalization: Normalization,
    fingerprint_sha256: String,
    key_sha256: String,
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let key = fingerprint::Key::read(&resolve(ctx, &a.key))?;
    let sealed = crate::components::read::read_passages(&resolve(ctx, &a.passages))?;
    let texts: Vec<std::borrow::Cow<str>> = (0..sealed.len())
        .map(|i| sealed.texts.get(i))
        .collect::<crate::error::Result<_>>()?;
    let pairs: Vec<(&str, &str)> = sealed
        .passages
        .iter()
        .zip(&texts)
        .map(|(p, t)| (p.id.as_str(), t.as_ref()))
        .collect();
    let fp = fingerprint::make(&pairs, &key, a.shingle_size as usize, a.normalization)?;
    let bytes = fingerprint::to_bytes(&fp);
    let out = resolve(ctx, &a.out);
    crate::io::write_atomic(&out, &bytes)?;
    let w = Written {
        out: a.out.display().to_string(),
        passages: fp.header.passages,
        distinct_shingles: fp.header.distinct,
        shingle_size: a.shingle_size,
        normalization: a.normalization,
        fingerprint_sha256: crate::io::sha256_hex(&bytes),
        key_sha256: key.commitment().to_string(),
    };
    let text = match a.format {
        Format::Json => to_json(&w),
        Format::Human => format!(
            "wrote {}: {} sealed passages, {} distinct shingles\n\n# for the [[contamination-rules]] entry:\nfingerprint = \"{}\"\nfingerprint-sha256 = \"{}\"\nkey-sha256 = \"{}\"\nshingle-size = {}\nnormalization = \"{}\"\n",
            w.out,
            w.passages,
            w.distinct_shingles,
            w.out,
            w.fingerprint_sha256,
            w.key_sha256,
            w.shingle_size,
            crate::named::Named::name(w.normalization)
        ),
    };
    Ok(Output::ok(text, &vec![]))
}
