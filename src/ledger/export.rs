//! `pledge export FILE` and `pledge verify --ledger FILE`: the ledger as portable JSON Lines that
//! verify offline, without git.
//!
//! Format `pledge-ledger-export/2`: UTF-8, one line per entry, first entry first, each line a
//! JSON object with keys sorted and no insignificant whitespace:
//!
//! - `format`: `"pledge-ledger-export/2"` (`/1` exports, without `commit_raw`, still verify);
//! - `commit`: the ledger commit id (hex) holding the entry; `parents`: its parent ids;
//! - `commit_raw`: the commit object exactly as git stores it (its header lines `tree`,
//!   `parent`, `author`, `committer` and any others, an empty line, the message), so its id can
//!   be recomputed (git's object format, see [`super::gitobj`]);
//! - `entry`: the entry object exactly as stored in `entry.json` (with `entry_sha256`);
//! - `result_json`: the exact text of the stored `result.json`, or `null`;
//! - `protocol_toml`: the exact text of the stored `protocol.toml` (register, amend), or `null`.
//!
//! The tree of a ledger commit has a fixed layout: `entry.json` (the entry's stored bytes,
//! recomputed from `entry` in its canonical form), `result.json` and `protocol.toml` when present
//! (the exact texts above), each a regular file (mode `100644`).
//!
//! Offline verification recomputes every `entry_sha256` over the canonical form, follows the
//! `prev_sha256` links and sequence numbers, hashes `result_json` and `protocol_toml` against
//! the entry, checks that each line's first parent is the commit of the line before it, and
//! recomputes each commit id: the tree from the line's files, the commit from `commit_raw`
//! (which must name that tree and the line's parents). Every id up to the tip is then
//! authenticated by the content, so a consistently rewritten export ends at another tip, which
//! `verify --ledger FILE --expect-tip ID` turns into a finding. The raw commit keeps git's
//! `gpgsig` header, so [`super::witness`] checks each line's SSH signature offline too.

use super::entry::{canonical_json, Entry};
use super::finding::{Finding, FindingCode};
use super::records::Record;
use super::store::Ledger;
use super::verify::VerifyReport;
use crate::error::{Error, Result};
use crate::input::Input;
use crate::protocol::LoadedProtocol;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `format` value of every export line written.
pub const EXPORT_FORMAT: &str = "pledge-ledger-export/2";

/// The format of exports written before `commit_raw` existed; they still verify, with commit
/// ids checked for order only.
pub const EXPORT_FORMAT_V1: &str = "pledge-ledger-export/1";

/// One line of an export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportLine {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// Ledger commit id (hex).
    pub commit: String,
    /// Parent commit ids (hex).
    pub parents: Vec<String>,
    /// The entry object as stored.
    pub entry: serde_json::Value,
    /// Exact text of `result.json`, if stored.
    pub result_json: Option<String>,
    /// Exact text of `protocol.toml`, if stored.
    pub protocol_toml: Option<String>,
    /// The raw commit object (UTF-8), from which `commit` is recomputed; absent in format `/1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_raw: Option<String>,
}

/// What `export` wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportSummary {
    /// The file written.
    pub file: String,
    /// Lines (entries) written.
    pub entries: usize,
    /// The ledger tip exported, if any.
    pub tip: Option<String>,
}

/// The ledger on [`super::LEDGER_REF`] as export text (empty for an empty ledger), and its
/// tip. Entries are exported as stored, even edited ones, so a tampered ledger exports as
/// tampered (and `pledge verify --ledger` finds what `pledge verify` finds).
///
/// Errors (exit 2, naming the commit, with a hint to run `pledge verify`): a ledger commit holds
/// no entry that parses (an export line carries an entry object), or an object of the ledger
/// cannot be read (a shallow clone, a missing or damaged object), since an export without it
/// would not be the ledger; the ledger ref is damaged. Exit 70: the repository cannot be read.
pub fn export_jsonl(ledger: &Ledger) -> Result<(String, Option<String>, usize)> {
    let Some(tip) = ledger.tip()? else {
        return Ok((String::new(), None, 0));
    };
    let records = ledger.records(tip)?;
    for r in records.iter() {
        if let Some(u) = r.unreadable.first() {
            let e = ledger.unreadable_error(u);
            return Err(Error::input(format!("cannot export the ledger: {}", e.message))
                .caused_by(u.why.clone())
                .with_hint(e.hint.unwrap_or_default()));
        }
        if let Err(why) = &r.entry {
            return Err(
                Error::input(format!("cannot export the ledger: {} holds no pledge ledger entry", r.at))
                    .caused_by(why.clone())
                    .with_hint("run `pledge verify` to see every problem of the ledger: an export line carries one entry, so a commit without one cannot be exported"),
            );
        }
    }
    let mut out = String::new();
    for r in records.iter() {
        let commit_raw = r.commit_raw.as_deref().map(|b| String::from_utf8_lossy(b).into_owned());
        let entry = r
            .entry_bytes
            .as_deref()
            .map(|b| {
                serde_json::from_slice(b)
                    .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(b).into_owned()))
            })
            .unwrap_or(serde_json::Value::Null);
        let line = ExportLine {
            format: EXPORT_FORMAT.into(),
            commit: r.commit.clone().unwrap_or_default(),
            parents: r.parents.clone(),
            entry,
            result_json: r.result.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()),
            protocol_toml: r.protocol.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()),
            commit_raw,
        };
        let v = serde_json::to_value(&line).map_err(|e| Error::internal("serializing an export line").caused_by(e))?;
        out.push_str(&String::from_utf8_lossy(&canonical_json(&v)));
        out.push('\n');
    }
    Ok((out, Some(tip.to_string()), records.len()))
}

/// Writes the export of `ledger` to `file` atomically (nothing is written on an error). Errors:
/// as [`export_jsonl`]; the file cannot be written (exit 2).
pub fn export_to(ledger: &Ledger, file: &Path) -> Result<ExportSummary> {
    let (text, tip, n) = export_jsonl(ledger)?;
    crate::io::write_atomic(file, text.as_bytes())?;
    Ok(ExportSummary {
        file: file.display().to_string(),
        entries: n,
        tip,
    })
}

/// Parses export `text` (read from `file`, named in errors) into records; a line that is not an
/// export line becomes a record with a malformed entry (a finding, since an edited export is what
/// verification looks for).
///
/// Errors (exit 2), for a file that is not an export at all rather than an edited one: it holds
/// no line (`holds no ledger entry`), no line is a JSON object with a `format` key naming a
/// `pledge-ledger-export/` version (another file given by mistake), or its last line ends inside
/// its JSON (a file cut short, e.g. by an interrupted copy).
pub(crate) fn export_records(file: &Path, text: &str) -> Result<Vec<Record>> {
    let expected = "expected the JSON Lines written by `pledge export`, one object per entry";
    let mut out = Vec::new();
    let mut any_export_line = false;
    let mut cut_short = None;
    for (no, line) in crate::io::lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("line {}", no);
        let mut rec = Record::new(at.clone(), Err(String::new()));
        cut_short = None;
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(o))
                if o.get("format")
                    .and_then(|f| f.as_str())
                    .is_some_and(|f| f.starts_with("pledge-ledger-export/")) =>
            {
                any_export_line = true
            }
            Ok(_) => {}
            Err(e) if e.is_eof() => cut_short = Some((no, e)),
            Err(_) => {}
        }
        match serde_json::from_str::<ExportLine>(line) {
            Err(e) => rec.entry = Err(format!("not an export line: {}", e)),
            Ok(l) if l.format != EXPORT_FORMAT && l.format != EXPORT_FORMAT_V1 => {
                rec.entry = Err(format!("format is `{}`, expected `{}`", l.format, EXPORT_FORMAT))
            }
            Ok(l) => {
                rec.entry = serde_json::from_value::<Entry>(l.entry).map_err(|e| e.to_string());
                rec.commit = Some(l.commit);
                rec.parents = l.parents;
                rec.result = l.result_json.map(String::into_bytes);
                rec.protocol = l.protocol_toml.map(String::into_bytes);
                rec.message_sha = l.commit_raw.as_deref().and_then(|raw| {
                    let message = raw.split_once("\n\n").map(|(_, m)| m).unwrap_or("");
                    message
                        .lines()
                        .find_map(|x| x.strip_prefix("entry_sha256 "))
                        .map(|x| x.trim().to_string())
                });
                rec.commit_raw = l.commit_raw.map(String::into_bytes);
            }
        }
        out.push(rec);
    }
    if out.is_empty() {
        return Err(Error::in_file(file, format!("holds no ledger entry ({})", expected)));
    }
    if let Some((no, e)) = cut_short {
        return Err(Error::at(
            file,
            no,
            format!(
                "the file ends inside this line's JSON, at column {}: it was cut short ({}, each ending in a newline)",
                e.column(),
                expected
            ),
        )
        .with_hint("export the ledger again (pledge export FILE), or copy the whole file"));
    }
    if !any_export_line {
        return Err(Error::in_file(
            file,
            format!(
                "is not a ledger export: no line is a JSON object with \"format\": \"{}\" ({})",
                EXPORT_FORMAT, expected
            ),
        ));
    }
    Ok(out)
}

/// Verifies an export offline (`input`, a file or standard input): the chain checks of
/// [`super::verify_ledger`], the export's own commit links, and `protocol` against its
/// registration when given.
///
/// An export of format `/1` carries no raw commits, so its commit ids cannot be recomputed and
/// nothing binds them, or its tip, to the content: a rewritten ledger saved in that format with
/// the genuine ids would pass every other check. Such an export is the finding
/// `export-ids-unchecked` unless `allow_v1` (`--allow-format 1`) accepts the old format, when
/// a note says its commit ids were checked for order only and the tip is not one to cite.
///
/// Errors (exit 2): the input is not UTF-8, or is not an export at all: no line, no line with
/// a `pledge-ledger-export/` format, or a last line cut short inside its JSON. Everything else,
/// an edited line included, is a finding.
pub fn verify_export(input: &Input, protocol: Option<&LoadedProtocol>, allow_v1: bool) -> Result<VerifyReport> {
    let file = input.path();
    let records = export_records(file, input.text()?)?;
    let tip = records.last().and_then(|r| r.commit.clone());
    let mut report = VerifyReport::build(file.display().to_string(), tip, &records, protocol);
    for w in records.windows(2) {
        if let (Some(prev), Some(_)) = (&w[0].commit, &w[1].commit) {
            if w[1].parents.first() != Some(prev) {
                report.findings.push(Finding::new(
                    FindingCode::CommitChain,
                    w[1].seq(),
                    format!(
                        "{}: its commit's parent is not the commit of the line before it (lines were moved, removed or inserted)",
                        w[1].at
                    ),
                ));
            }
        }
    }
    let unverified = check_commit_ids(&records, &mut report.findings);
    // An export is written in one format: lines without a raw commit beside lines with one were
    // edited or spliced in (dropping `commit_raw` from a line would otherwise unbind its id).
    let with_raw = records.iter().filter(|r| r.commit_raw.is_some()).count();
    if unverified > 0 && with_raw > 0 {
        if let Some(r) = records.iter().find(|r| r.commit.is_some() && r.commit_raw.is_none()) {
            report.findings.push(Finding::new(
                FindingCode::MalformedEntry,
                r.seq(),
                format!(
                    "{}: carries no raw commit while {} other lines do: an export is written in one format (each `{}` line carries its raw commit), so this line was edited or spliced in",
                    r.at, with_raw, EXPORT_FORMAT
                ),
            ));
        }
    }
    report.tip_authenticated = unverified == 0;
    if unverified > 0 && with_raw == 0 && !allow_v1 {
        report.findings.push(Finding::new(
            FindingCode::ExportIdsUnchecked,
            None,
            format!(
                "this export is in the old format `{}`: its {} lines carry no raw commit, so their commit ids cannot be recomputed from their content and a rewritten ledger saved in this format would pass every other check; export the ledger again (`pledge export`), or accept the old format knowingly with --allow-format 1",
                EXPORT_FORMAT_V1, unverified
            ),
        ));
    }
    report.notes.push(Finding::new(
        FindingCode::Offline,
        None,
        if unverified == 0 {
            "verified offline from an export: every commit id recomputed from the entry's files and raw commit".to_string()
        } else {
            format!(
                "verified offline from an export: {} of {} lines carry no raw commit (an export of format `{}`), so their commit ids are checked for order, not recomputed",
                unverified,
                records.len(),
                EXPORT_FORMAT_V1
            )
        },
    ));
    report.settle();
    Ok(report)
}

/// Recomputes every commit id an export line carries a raw commit for: the tree from the line's
/// files (layout in the module docs), the commit id from the raw commit, which must name that
/// tree and the line's parents. Pushes a `commit-id-mismatch` finding per line that fails;
/// returns how many export lines carry no raw commit (format `/1`); a line that is not an export
/// line, or whose entry does not parse, is already a finding and not counted.
fn check_commit_ids(records: &[Record], findings: &mut Vec<Finding>) -> usize {
    use super::gitobj::{blob_id, commit_id, tree_id, Commit, ObjectFormat, TreeEntry};
    let mut unverified = 0;
    for r in records {
        let (Some(raw), Ok(e), Some(id)) = (&r.commit_raw, &r.entry, &r.commit) else {
            if r.commit.is_some() && r.commit_raw.is_none() {
                unverified += 1;
            }
            continue;
        };
        let mut bad = |why: String| {
            findings.push(Finding::new(
                FindingCode::CommitIdMismatch,
                Some(e.seq),
                format!("{} (entry #{}): {}", r.at, e.seq, why),
            ))
        };
        let Some(format) = ObjectFormat::from_hex_len(id.len()) else {
            bad(format!("`{}` is not a git commit id (40 or 64 hex digits)", id));
            continue;
        };
        let recomputed = commit_id(format, raw);
        if recomputed != *id {
            bad(format!(
                "its raw commit hashes to {}, not to the commit id {} the line names: the export was rewritten",
                recomputed, id
            ));
            continue;
        }
        let commit = match Commit::parse(raw) {
            Ok(c) => c,
            Err(why) => {
                bad(format!("its raw commit does not parse ({})", why));
                continue;
            }
        };
        let mut files = vec![TreeEntry::file("entry.json", &blob_id(format, &e.stored_bytes()))];
        if let Some(b) = &r.result {
            files.push(TreeEntry::file("result.json", &blob_id(format, b)));
        }
        if let Some(b) = &r.protocol {
            files.push(TreeEntry::file("protocol.toml", &blob_id(format, b)));
        }
        match tree_id(format, &files) {
            Ok(t) if commit.tree() == Some(t.as_str()) => {}
            Ok(t) => bad(format!(
                "the line's files make tree {}, but commit {} names tree {}: the entry or its files were rewritten",
                t,
                crate::text::short(id, 12),
                commit.tree().unwrap_or("none")
            )),
            Err(why) => bad(format!("its files do not make a git tree ({})", why)),
        }
        let parents: Vec<&str> = commit.parents();
        if parents != r.parents.iter().map(String::as_str).collect::<Vec<_>>() {
            bad(format!(
                "the line lists parents [{}] but its commit names [{}]",
                r.parents.join(", "),
                parents.join(", ")
            ));
        }
    }
    unverified
}
