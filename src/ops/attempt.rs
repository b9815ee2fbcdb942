//! The check `components` makes of a new build attempt under a registered budget (`[build]`):
//! what it changed of the previous attempt's candidates, read from the files the previous
//! count recorded (with the recorded hashes), against what the registration lets an attempt
//! change. The rule that judges it (within the budget, nothing outside what is allowed) is the
//! ledger's ([`crate::ledger::rules::Violation::AttemptOverBudget`] and the next two), which
//! reads this check from the count's summary.

use super::components::{counted_inputs, ComponentsOptions};
use crate::components::read::{self, Corpus, PassageSource};
use crate::error::{Error, Result};
use crate::gate::attempt::Flagged;
use crate::ledger::rules::CountRef;
use crate::ledger::{InputRole, Ledger};
use crate::records::{self, AttemptCheck, CountRecord};

/// The check of this count as a new build attempt, or `None`: no ledger (a dry run), no
/// registered budget, no earlier count of the study, a count on the inputs of the count before
/// it, or an attempt past the budget (the rule refuses it whatever it changed). With
/// `--deviation`, previous files that are not at hand leave the attempt unchecked (the
/// deviation discloses it) instead of an error.
///
/// Errors (exit 2): a previous input that is standard input, missing, or not the content the
/// ledger records; one that cannot be read; the previous count's record cannot be read.
pub(super) fn check(
    ledger: Option<&Ledger>,
    o: &ComponentsOptions,
    lp: &crate::protocol::LoadedProtocol,
    corpus: &Corpus,
    passages_sha256: Option<&String>,
) -> Result<Option<AttemptCheck>> {
    let (Some(ledger), Some(build)) = (ledger.filter(|_| !o.dry_run), &lp.protocol.build) else {
        return Ok(None);
    };
    let snap = ledger.snapshot(ledger.tip()?, &lp.protocol.study.id)?;
    let Some(study) = snap.rules().study(&lp.protocol.study.id) else {
        return Ok(None);
    };
    let Some(prev) = study.latest_count.clone() else {
        return Ok(None);
    };
    let now = counted_inputs(ledger, o, passages_sha256);
    let changed = crate::ledger::rules::counted_changes(&prev, &now);
    if changed.is_empty() || study.attempts.len() as u64 >= u64::from(build.attempts) {
        return Ok(None);
    }
    let before = match read_previous(ledger, o, &prev) {
        Ok(c) => c,
        Err(_) if o.deviation.is_some() => return Ok(None),
        Err(e) => return Err(e),
    };
    let flagged = previous_flags(ledger, &prev)?;
    let c = crate::gate::attempt::check(&before, &flagged, corpus, &build.attempt_may_change)?;
    let mut outside = c.outside;
    if changed.iter().any(|f| f.field.starts_with("pairs")) {
        outside.push("the near-duplicate pairs file changed".into());
    }
    Ok(Some(AttemptCheck {
        previous: prev.seq,
        may_change: build.attempt_may_change.clone(),
        dropped: c.dropped,
        replaced: c.replaced,
        repaired: c.repaired,
        outside,
    }))
}

/// The previous attempt's candidates, read from the passages, questions and qrels its count
/// entry records (relative to the repository root), each with the hash recorded.
fn read_previous(ledger: &Ledger, o: &ComponentsOptions, prev: &CountRef) -> Result<Corpus> {
    let root = ledger.root();
    let path_of = |role: InputRole| -> Result<Option<(std::path::PathBuf, String)>> {
        let Some((k, h)) = prev.counted.iter().find(|(k, _)| k.role == role) else {
            return Ok(None);
        };
        if k.path == crate::input::STDIN_ARG {
            return Err(unavailable(prev.seq, role, &k.path, h, "was read from standard input"));
        }
        Ok(Some((root.join(&k.path), h.clone())))
    };
    let open = |role: InputRole| -> Result<Option<crate::input::Input>> {
        let Some((path, sha)) = path_of(role)? else {
            return Ok(None);
        };
        let input = crate::input::Input::from_path(&path, o.limits)
            .map_err(|_| unavailable(prev.seq, role, &path.display().to_string(), &sha, "cannot be read"))?;
        if input.sha256() != sha {
            return Err(unavailable(
                prev.seq,
                role,
                &path.display().to_string(),
                &sha,
                "has other content now",
            ));
        }
        Ok(Some(input))
    };
    let Some(questions) = open(InputRole::Questions)? else {
        return Err(Error::input(format!(
            "the previous attempt (entry #{}) records no questions file",
            prev.seq
        )));
    };
    let qrels = open(InputRole::Qrels)?;
    let passages = path_of(InputRole::Passages)?;
    let source = match &passages {
        Some((p, _)) => Some(PassageSource::Stream(crate::input::Stream::open(p, o.limits)?)),
        None => None,
    };
    let (corpus, _, sha) = read::read_corpus_from(source, &questions, qrels.as_ref(), read::ReadOptions::default())?;
    if let (Some((p, want)), Some(got)) = (&passages, sha) {
        if *want != got {
            return Err(unavailable(
                prev.seq,
                InputRole::Passages,
                &p.display().to_string(),
                want,
                "has other content now",
            ));
        }
    }
    Ok(corpus)
}

/// The error for a previous attempt's input that cannot be compared.
fn unavailable(seq: u64, role: InputRole, path: &str, sha: &str, why: &str) -> Error {
    Error::input(format!(
        "the check of what this build attempt changed needs the previous attempt's {} (entry #{}: {}, sha256 {}), and it {}",
        role,
        seq,
        path,
        crate::text::short(sha, 12),
        why
    ))
    .with_hint("restore the previous attempt's files at the paths its count recorded (e.g. from git), or record the attempt unchecked with --deviation \"reason\"")
}

/// The passages the previous attempt's contamination check flagged, per question, read from
/// its count record.
fn previous_flags(ledger: &Ledger, prev: &CountRef) -> Result<Flagged> {
    let mut out = Flagged::new();
    let Some(commit) = prev.commit.as_deref().and_then(|c| git2::Oid::from_str(c).ok()) else {
        return Ok(out);
    };
    let stored: CountRecord = records::read_result(&ledger.read_commit(commit)?, "count")?;
    for f in stored.contamination.iter().flat_map(|c| c.flags.iter()) {
        let set = out.entry(f.question.clone()).or_default();
        set.extend(f.passages.iter().map(|p| (p.role, p.passage.clone())));
    }
    Ok(out)
}
