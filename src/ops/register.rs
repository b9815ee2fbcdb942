//! `pledge register` and `pledge amend`: record a protocol's hash and text in the ledger.

use super::timestamp::TimestampOptions;
use super::{Note, Notes};
use crate::error::{Error, Result};
use crate::ledger::witness::WitnessRequired;
use crate::ledger::{DataAccess, Draft, Entry, EntryKind, InputKey, InputRole, Inputs, Ledger, Snapshot};
use crate::protocol::LoadedProtocol;
use crate::records::{self, PilotSummary, RegistrationSummary};
use chrono::{DateTime, Utc};

/// What `register` / `amend` did.
#[derive(Debug, Clone)]
pub struct RegisterOutcome {
    /// The entry written.
    pub entry: Entry,
    /// Notes for people (e.g. a registration after results were seen).
    pub notes: Notes,
    /// The `timestamp` entry witnessing it, when a TSA was named.
    pub timestamp: Option<super::timestamp::TimestampOutcome>,
}

/// Registers `lp` (kind `register`).
///
/// The checks run against the ledger as it is when the entry lands (inside the atomic append),
/// so two processes registering the same study at once cannot both succeed. The entry's summary
/// is a [`RegistrationSummary`]; `results_seen_at_registration` is true when the declared data
/// access (`access`, or the level in force for the study, see [`DataAccess::in_force`]) is
/// `results-seen`: such a registration is allowed but marked, and `verify` and the report
/// disclose it.
///
/// A protocol whose `[witness] tsa` names a TSA is witnessed as [`register_witnessed`] does
/// (the token lands with the entry, or nothing does).
///
/// Refused (exit 1): a different protocol under an already registered study id (use amend); the
/// same protocol twice. Bad input (exit 2): a `from-target` split whose target no count of
/// components can meet ([`super::checks::target_feasible`]); a protocol no analysis could
/// follow ([`super::check::usable`], what `pledge check` reports).
pub fn register(
    ledger: &Ledger,
    lp: &LoadedProtocol,
    access: Option<DataAccess>,
    now: DateTime<Utc>,
) -> Result<RegisterOutcome> {
    write(ledger, lp, None, access, None, now)
}

/// As [`register`] or (with `amend_reason`) [`amend`], witnessed: when `tsa` is given (or the
/// protocol's `[witness] tsa` names a TSA), the token over the new entry's hash is obtained
/// before the ledger ref moves, and the entry and the `timestamp` entry holding the token land
/// in one compare-and-swap, or neither does.
///
/// Errors: as [`register`] / [`amend`]; the TSA cannot be reached (exit 75) or refuses, or its
/// token does not verify, or its witnessed time does not bear out the entry's claimed time
/// (exit 2): in each case nothing is written. A protocol (or the registered version in force)
/// whose `[witness]` requires a token with no TSA named, or a signature with no signing key
/// (exit 2).
pub fn register_witnessed(
    ledger: &Ledger,
    lp: &LoadedProtocol,
    amend_reason: Option<&str>,
    access: Option<DataAccess>,
    tsa: Option<&TimestampOptions>,
    now: DateTime<Utc>,
) -> Result<RegisterOutcome> {
    if let Some(r) = amend_reason {
        check_reason(r)?;
    }
    write(ledger, lp, amend_reason, access, tsa, now)
}

/// Records a new version of a registered protocol (kind `amend`), linked to the version it
/// replaces; the reason is disclosed in the report.
///
/// Refused (exit 1): the study is not registered; the file is identical to the registered
/// version. Bad input (exit 2): an empty reason; an infeasible target, as for [`register`].
pub fn amend(
    ledger: &Ledger,
    lp: &LoadedProtocol,
    reason: &str,
    access: Option<DataAccess>,
    now: DateTime<Utc>,
) -> Result<RegisterOutcome> {
    check_reason(reason)?;
    write(ledger, lp, Some(reason), access, None, now)
}

fn check_reason(reason: &str) -> Result<()> {
    if reason.trim().is_empty() {
        return Err(Error::input(
            "amend needs a non-empty --reason (it is disclosed in the report)",
        ));
    }
    Ok(())
}

fn write(
    ledger: &Ledger,
    lp: &LoadedProtocol,
    amend_reason: Option<&str>,
    access: Option<DataAccess>,
    tsa: Option<&TimestampOptions>,
    now: DateTime<Utc>,
) -> Result<RegisterOutcome> {
    super::checks::metric(lp)?;
    super::check::usable(lp)?;
    let rel = ledger.relative(&lp.path);
    let pilot = estimate_pilot(lp, |f| ledger.relative(f))?;
    super::checks::target_feasible(lp, pilot.as_ref().map(|(_, _, p)| p.sd_for(&lp.protocol.target)))?;
    let required = WitnessRequired::of(&lp.protocol);
    // A TSA the protocol requires is asked even when the caller named none.
    let fallback = lp
        .protocol
        .witness
        .as_ref()
        .and_then(|w| w.tsa.clone())
        .map(TimestampOptions::new);
    let tsa = tsa.or(fallback.as_ref());
    let trust = tsa.map(super::timestamp::load_trust).transpose()?.flatten();
    let mut witnessed = None;
    let written = ledger.append_many_then(
        now,
        &lp.protocol.study.id,
        |snap| {
            let d = draft(snap, lp, &rel, amend_reason, access, pilot.as_ref())?;
            check_requirements(snap, lp, required, tsa.is_some(), ledger.signs())?;
            Ok(vec![d])
        },
        |built| {
            let (Some(o), Some(reg)) = (tsa, built.last()) else {
                return Ok(vec![]);
            };
            let got = super::timestamp::obtain(reg, o, trust.as_ref(), now)?;
            check_witnessed_time(reg, &got.witness, required.tsa)?;
            let d = super::timestamp::timestamp_draft(reg, o, &got.token)?;
            witnessed = Some(got.witness);
            Ok(vec![d])
        },
    )?;
    let entry = written
        .first()
        .cloned()
        .ok_or_else(|| Error::internal("a registration wrote no entry"))?;
    let timestamp = match (written.get(1), &witnessed) {
        (Some(t), Some(w)) => Some(super::timestamp::outcome(t.clone(), entry.seq, w, trust.is_some())),
        _ => None,
    };
    let mut notes: Notes = ledger.take_notes().into_iter().map(Note::info).collect();
    notes.extend(registration_notes(&entry, lp, amend_reason)?);
    if let Some(t) = &timestamp {
        notes.extend(t.notes.iter().cloned());
    }
    Ok(RegisterOutcome {
        entry,
        notes,
        timestamp,
    })
}

/// The notes a registration gives people: registered after results were seen, the pilot's
/// estimate.
fn registration_notes(entry: &Entry, lp: &LoadedProtocol, amend_reason: Option<&str>) -> Result<Notes> {
    let mut notes = Notes::new();
    if let Some(w) = super::checks::placeholder_author(lp) {
        notes.push(Note::warning(format!(
            "{}; correct it with `pledge amend` (a recorded amendment)",
            w
        )));
    }
    let s: RegistrationSummary = records::read_summary(entry, "registration")?;
    if s.results_seen_at_registration {
        notes.push(Note::info(if amend_reason.is_some() {
            "amended after results were seen (declared results-seen); every report discloses this"
        } else {
            "registered after results were seen (declared results-seen); every report discloses this"
        }));
    }
    if let Some(p) = &s.pilot {
        notes.push(Note::info(format!(
            "pilot {}: {} − {} over {} questions: mean difference {:.4}, σ̂ {:.4} per question, {:.4} per component; the power calculation uses {:.4}",
            p.file,
            p.systems.first().map(String::as_str).unwrap_or("?"),
            p.systems.get(1).map(String::as_str).unwrap_or("?"),
            p.questions,
            p.mean_difference,
            p.sd_question,
            p.sd_component,
            p.sd_for(&lp.protocol.target)
        )));
    }
    Ok(notes)
}

/// Refuses a registration or amendment that cannot meet the witness its protocol requires, or
/// the registered version in force requires (`[witness]`, see [`WitnessRequired`]): a token
/// with no TSA to ask, a signature with no signing key. `signs`: this ledger handle signs its
/// commits.
///
/// Errors (exit 2), naming the requirement and how to meet it.
fn check_requirements(
    snap: &Snapshot,
    lp: &LoadedProtocol,
    required: WitnessRequired,
    has_tsa: bool,
    signs: bool,
) -> Result<()> {
    let prev = snap.rules().study(&lp.protocol.study.id).and_then(|s| s.in_force());
    let in_force = prev
        .and_then(|v| v.text.as_deref())
        .map(WitnessRequired::of_text)
        .unwrap_or_default();
    let needed = required.union(in_force);
    let by = |own: bool| match (own, prev) {
        (true, _) | (false, None) => format!("protocol {}", lp.path.display()),
        (false, Some(v)) => format!("the registered version (entry #{})", v.seq),
    };
    if needed.tsa && !has_tsa {
        return Err(Error::input(format!(
            "{} requires a time-stamp for every registration and amendment ([witness] tsa), and no TSA is named",
            by(required.tsa)
        ))
        .with_hint("name one: --tsa URL (or [witness] tsa in the protocol, or git config pledge.tsa)"));
    }
    if needed.signed && !signs {
        return Err(Error::input(format!(
            "{} requires signed registrations and amendments ([witness] signed = true), and no signing key is set",
            by(required.signed)
        ))
        .with_hint("sign with --sign-key KEY, or git's settings: git config gpg.format ssh; git config user.signingkey KEY; git config commit.gpgsign true"));
    }
    Ok(())
}

/// Refuses (exit 2, nothing written) a registration whose claimed time a TSA's witness `w` does
/// not bear out: claimed more than the tolerance after the witnessed time (this clock, or
/// `PLEDGE_NOW`, is ahead), or, when the protocol requires the witness, witnessed more than the
/// tolerance after it (the clock is behind, or the time was declared in the past): either would
/// be a finding of `verify`.
fn check_witnessed_time(reg: &Entry, w: &crate::ledger::tsa::Witness, required: bool) -> Result<()> {
    let Some(claimed) = chrono::DateTime::parse_from_rfc3339(&reg.time).ok() else {
        return Ok(());
    };
    let tolerance = crate::ledger::witness::tolerance_secs(w.accuracy_micros);
    let ahead = (claimed.with_timezone(&Utc) - w.gen_time).num_seconds();
    let at = w.gen_time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let span = crate::ledger::clock::span;
    if ahead > tolerance {
        return Err(Error::input(format!(
            "entry #{} would claim {}, but {} witnessed it at {}: the clock is {} ahead of the TSA's, so nothing was written",
            reg.seq,
            reg.time,
            w.tsa_name,
            at,
            span(ahead)
        ))
        .with_hint("set the system clock right (or PLEDGE_NOW, if you set it)"));
    }
    if required && -ahead > tolerance {
        return Err(Error::input(format!(
            "entry #{} would claim {}, but {} witnessed it only at {}, {} later; its protocol requires the witness ([witness] tsa), so the claimed time must be the witnessed one and nothing was written",
            reg.seq,
            reg.time,
            w.tsa_name,
            at,
            span(-ahead)
        ))
        .with_hint("set the system clock right, or unset PLEDGE_NOW"));
    }
    Ok(())
}

/// The pilot named by `target.pilot`: its path as `shown` records it, its SHA-256, and σ
/// estimated from it for the systems of the first primary hypothesis (else the file's two
/// systems), read with the protocol's `[scores]` options.
///
/// Errors (exit 2): the file is missing or unreadable, or does not hold the two systems.
pub(crate) fn estimate_pilot(
    lp: &LoadedProtocol,
    shown: impl Fn(&std::path::Path) -> String,
) -> Result<Option<(String, String, PilotSummary)>> {
    let p = &lp.protocol;
    let Some(rel) = &p.target.pilot else {
        return Ok(None);
    };
    let file = super::checks::relative_file(lp, rel, &["target", "pilot"])?;
    let opts = crate::scores::ReadOptions {
        labels: p.labels(),
        column: p.scores.as_ref().and_then(|s| s.column.clone()),
        measure: p.scores.as_ref().and_then(|s| s.measure.clone()),
        topic_column: p.scores.as_ref().and_then(|s| s.topic_column.clone()),
        sample_column: p.scores.as_ref().and_then(|s| s.sample_column.clone()),
        sample_aggregation: p
            .scores
            .as_ref()
            .map(|s| s.sample_aggregation)
            .filter(|a| !a.is_default()),
        ..Default::default()
    };
    let table = crate::scores::read_with(&file, &opts)?;
    let names = p
        .primary_hypotheses()
        .next()
        .map(|h| (h.system.as_str(), h.comparator.as_str()));
    let est = crate::power::pilot::estimate(&table, names, None)
        .map_err(|e| e.with_hint("target.pilot: the pilot must hold the two systems of the first primary hypothesis (or exactly two systems)"))?;
    let shown = shown(&file);
    let sha = crate::io::sha256_file(&file)?;
    Ok(Some((
        shown.clone(),
        sha,
        PilotSummary {
            file: shown,
            systems: est.systems,
            questions: est.questions,
            mean_difference: est.mean_difference,
            sd_question: est.sd_question,
            sd_component: est.sd_component,
        },
    )))
}

/// The draft of a register/amend entry for `lp` on `snap`, as the registration rules allow it:
/// a `register` of a study not registered yet, an `amend` that names the registration in force
/// and changes the protocol or its pilot file (refused otherwise, exit 1, in the rules' words
/// with the way forward).
fn draft(
    snap: &Snapshot,
    lp: &LoadedProtocol,
    rel: &str,
    amend_reason: Option<&str>,
    access: Option<DataAccess>,
    pilot: Option<&(String, String, PilotSummary)>,
) -> Result<Draft> {
    let entries = snap.entries();
    let id = &lp.protocol.study.id;
    let in_force = snap.rules().study(id).and_then(|s| s.in_force());
    let kind = if amend_reason.is_some() {
        EntryKind::Amend
    } else {
        EntryKind::Register
    };
    let level = access.unwrap_or_else(|| DataAccess::in_force(entries.iter().map(|e| &e.entry), id));
    let mut inputs = Inputs::new();
    inputs.insert(InputKey::new(InputRole::Protocol, rel), lp.hash.raw_sha256.clone());
    if let Some((file, sha, _)) = pilot {
        inputs.insert(InputKey::new(InputRole::Pilot, file.clone()), sha.clone());
    }
    let d = Draft {
        kind: Some(kind),
        study_id: id.clone(),
        protocol_sha256: Some(lp.hash.sha256.clone()),
        protocol_path: Some(rel.to_string()),
        amends: if kind == EntryKind::Amend {
            in_force.map(|v| v.hash.clone())
        } else {
            None
        },
        inputs,
        reason: amend_reason.map(str::to_string),
        data_access: Some(level),
        rng: None,
        summary: records::to_value(&RegistrationSummary {
            title: lp.protocol.study.title.clone(),
            registered_by: lp.protocol.study.registered_by.clone(),
            results_seen_at_registration: level == DataAccess::ResultsSeen,
            pilot: pilot.map(|p| p.2.clone()),
        })?,
        result: None,
        protocol_text: Some(lp.text.clone()),
    };
    refuse_by_rules(snap, &d, lp, pilot.is_some())?;
    Ok(d)
}

/// Refuses `d` (a register or amend draft) when the registration rules would flag it, with the
/// way forward.
fn refuse_by_rules(snap: &crate::ledger::Snapshot, d: &Draft, lp: &LoadedProtocol, pilot: bool) -> Result<()> {
    use crate::ledger::rules::Violation;
    let (id, shown) = (&lp.protocol.study.id, lp.path.display());
    let Some(v) = snap.preview(std::slice::from_ref(d), "").pop() else {
        return Ok(());
    };
    let e = crate::ledger::rules::candidate(d, v.seq, "", DataAccess::default());
    let first = v.findings().next().cloned();
    match first {
        None => Ok(()),
        Some(Violation::RegisteredTwice { seq, same: true }) => Err(Error::refused(format!(
            "study `{}` is already registered with this protocol (entry #{})",
            id, seq
        ))),
        Some(Violation::RegisteredTwice { seq, same: false }) => Err(Error::refused(format!(
            "study `{}` is already registered (entry #{}) with a different protocol",
            id, seq
        ))
        .with_hint(format!(
            "to register a new version, use: pledge amend {} --reason TEXT",
            shown
        ))),
        Some(Violation::AmendLink { registered: None }) => Err(Error::refused(format!(
            "study `{}` is not registered, so there is nothing to amend",
            id
        ))
        .with_hint(format!("register it first: pledge register {}", shown))),
        Some(Violation::AmendsNothing { seq }) => Err(Error::refused(format!(
            "the protocol{} identical to the registered version (entry #{}): nothing to amend",
            if pilot { " and its pilot file are" } else { " is" },
            seq
        ))),
        Some(other) => Err(Error::refused(other.message(&e))),
    }
}
