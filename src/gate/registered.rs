//! The registered contamination rules run by `pledge components`: each rule's key (matched by
//! its registered commitment) and its fingerprint file (checked against its registered
//! SHA-256), then [`check`], and the flagged questions left out of the count.

use super::contamination::{check, Contamination, RuleInput};
use super::fingerprint::{self, Fingerprint, Key};
use crate::components::read::Corpus;
use crate::error::{Error, Result};
use crate::protocol::ContaminationRule;
use std::path::{Path, PathBuf};

/// Runs `rules` over `corpus` with the keys read from `key_files` (each rule takes the key whose
/// commitment it registers) and the fingerprint files the rules name (relative to
/// `protocol_dir`). `None` when there is no rule.
///
/// Errors: a rule whose key commitment no key file has, or key files without a rule (exit 2);
/// a fingerprint file that is not the registered one, or made with another key, shingle size
/// or normalization (refused, exit 1); a file that cannot be read or parsed (exit 2).
pub fn run(
    rules: &[ContaminationRule],
    protocol_dir: &Path,
    key_files: &[PathBuf],
    corpus: &Corpus,
) -> Result<Option<Contamination>> {
    if rules.is_empty() {
        if let Some(k) = key_files.first() {
            return Err(Error::input(format!(
                "--sealed-key {} was given, and the protocol has no [[contamination-rules]]",
                k.display()
            ))
            .with_hint("leave out --sealed-key, or register a contamination rule"));
        }
        return Ok(None);
    }
    let keys: Vec<Key> = key_files.iter().map(|p| Key::read(p)).collect::<Result<_>>()?;
    let mut fps: Vec<(Fingerprint, String)> = Vec::with_capacity(rules.len());
    for r in rules {
        let key = key_for(r, &keys)?;
        fps.push(registered_fingerprint(r, key, protocol_dir)?);
    }
    let inputs: Vec<RuleInput> = rules
        .iter()
        .zip(&fps)
        .map(|(rule, (fp, sha))| {
            Ok(RuleInput {
                rule,
                key: key_for(rule, &keys)?,
                fingerprint: fp,
                fingerprint_sha256: sha,
            })
        })
        .collect::<Result<_>>()?;
    check(corpus, &inputs).map(Some)
}

/// The key whose commitment `r` registers.
fn key_for<'k>(r: &ContaminationRule, keys: &'k [Key]) -> Result<&'k Key> {
    keys.iter().find(|k| k.commitment() == r.key_sha256).ok_or_else(|| {
        Error::input(format!(
            "contamination rule `{}` needs the key whose SHA-256 is {}, and no --sealed-key file has it ({} given)",
            r.name,
            r.key_sha256,
            keys.len()
        ))
        .with_hint("give the sealed set's key file with --sealed-key FILE (it stays out of the repository)")
    })
}

/// Reads rule `r`'s fingerprint file and checks it is the registered one, made with `key` and
/// the rule's shingling.
fn registered_fingerprint(r: &ContaminationRule, key: &Key, protocol_dir: &Path) -> Result<(Fingerprint, String)> {
    let path = protocol_dir.join(&r.fingerprint);
    let bytes = std::fs::read(&path).map_err(|e| Error::io("reading", &path, e))?;
    let sha = crate::io::sha256_hex(&bytes);
    let refuse = |what: String| {
        Err(Error::refused(format!(
            "contamination rule `{}`: the fingerprint {} {}",
            r.name,
            path.display(),
            what
        ))
        .with_hint("use the fingerprint file the protocol registers, or register the change with `pledge amend`"))
    };
    if sha != r.fingerprint_sha256 {
        return refuse(format!(
            "has SHA-256 {}, and the protocol registers {}",
            sha, r.fingerprint_sha256
        ));
    }
    // Parsed only once it is the registered file.
    let fp = fingerprint::parse(&bytes, &path)?;
    let h = &fp.header;
    if h.key_sha256 != key.commitment() {
        return refuse(format!(
            "was made with the key {}, not the registered {}",
            h.key_sha256, r.key_sha256
        ));
    }
    if h.shingle_size != r.shingle_size || h.normalization != r.normalization {
        return refuse(format!(
            "was made with shingle size {} and normalization {}, and the rule registers {} and {}",
            h.shingle_size,
            crate::named::Named::name(h.normalization),
            r.shingle_size,
            crate::named::Named::name(r.normalization)
        ));
    }
    Ok((fp, sha))
}

/// Leaves out of `corpus` the questions some rule flagged. Their passages stay in the corpus,
/// so a link through one of them still joins the questions left (the conservative side).
pub fn keep_unflagged(corpus: &mut Corpus, c: &Contamination) {
    let mut i = 0;
    corpus.questions.retain(|_| {
        let keep = c.flagged_by.get(i).is_none_or(|f| f.is_none());
        i += 1;
        keep
    });
}
