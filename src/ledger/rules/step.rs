//! The fold: one entry at a time, the rules it breaks (judged on the state before it), then the
//! state after it.

use super::super::entry::{hashes_of, Entry, EntryKind, InputRole, Inputs};
use super::state::*;
use super::violation::{shown, Violation};
use crate::records::{DeviationSummary, FieldDeviation};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One entry as the rules read it: the entry and, for a `register` or `amend`, the protocol
/// text stored with it.
#[derive(Debug, Clone, Copy)]
pub struct Fact<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// The stored `protocol.toml`, when the entry holds one that is UTF-8.
    pub protocol_text: Option<&'a str>,
    /// The ledger commit holding the entry (hex), once it is written.
    pub commit: Option<&'a str>,
}

/// What the rules say of one entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The entry.
    pub seq: u64,
    /// The rules it breaks and the facts disclosed about it (see [`Violation::is_finding`]),
    /// in the order `verify` lists them.
    pub violations: Vec<Violation>,
    /// The rules it would break, disclosed by the deviation recorded with it.
    pub overridden: Vec<Violation>,
    /// For an `analyze` entry: how it stands.
    pub analysis: Option<AnalysisVerdict>,
}

impl Verdict {
    /// The rules it breaks (findings only).
    pub fn findings(&self) -> impl Iterator<Item = &Violation> {
        self.violations.iter().filter(|v| v.is_finding())
    }
}

/// The roles whose content the first analysis reading them fixes (the data of record).
pub const DATA_ROLES: [InputRole; 4] = [InputRole::Scores, InputRole::Qrels, InputRole::Run, InputRole::Strata];

/// The roles a component count counts (its question set, and what decides its components).
pub const COUNTED_ROLES: [(InputRole, &str); 4] = [
    (InputRole::Questions, "questions"),
    (InputRole::Passages, "passages"),
    (InputRole::Qrels, "qrels"),
    // Pairs listed in a file instead of the join (or another pairs file) can change the count.
    (InputRole::Pairs, "pairs"),
];

fn of_roles(inputs: &Inputs, roles: &[InputRole]) -> Inputs {
    inputs
        .iter()
        .filter(|(k, _)| roles.contains(&k.role))
        .map(|(k, h)| (k.clone(), h.clone()))
        .collect()
}

fn is_count(k: EntryKind) -> bool {
    matches!(k, EntryKind::Count | EntryKind::Stop | EntryKind::Go)
}

impl LedgerState {
    /// Folds `f` into the state and says what the rules say of it, judged on the state before
    /// it. Appends and `verify` both call this, so an entry an append would refuse is exactly
    /// one `verify` flags.
    pub fn step(&mut self, f: &Fact) -> Verdict {
        let e = f.entry;
        let disclosed = self.disclosed(e);
        let mut v = Vec::new();
        if matches!(e.kind, EntryKind::Amend | EntryKind::Deviation)
            && e.reason.as_deref().is_none_or(|r| r.trim().is_empty())
        {
            v.push(Violation::MissingReason);
        }
        let study = self.studies.get(&e.study_id);
        match e.kind {
            EntryKind::Register => v.extend(self.register_rules(e)),
            EntryKind::Amend => v.extend(amend_rules(study, e)),
            _ => v.extend(self.protocol_rules(study, e)),
        }
        if e.kind == EntryKind::Analyze {
            v.extend(self.analysis_rules(study, e));
        }
        if is_count(e.kind) {
            v.extend(count_rules(study, e));
        }
        let (overridden, mut violations): (Vec<Violation>, Vec<Violation>) =
            v.into_iter().partition(|x| disclosed && x.deviable());
        violations.extend(self.note_rules(e));
        let analysis = self.apply(f, disclosed, &overridden, &mut violations);
        Verdict {
            seq: e.seq,
            violations,
            overridden,
            analysis,
        }
    }

    /// A deviation entry, and the entry written with it (the next one, of the same study and
    /// protocol hash: a command's `--deviation` appends both at once), may do what the
    /// registration refuses: the deviation records and discloses it.
    fn disclosed(&self, e: &Entry) -> bool {
        e.kind == EntryKind::Deviation
            || self.last.as_ref().is_some_and(|p| {
                p.kind == EntryKind::Deviation && p.study == e.study_id && p.protocol == e.protocol_sha256
            })
    }

    /// A `register`: not of a registered study, nor of one already used unregistered.
    fn register_rules(&self, e: &Entry) -> Vec<Violation> {
        let study = self.studies.get(&e.study_id);
        match (
            study.and_then(StudyState::in_force),
            study.and_then(|s| s.used_unregistered),
        ) {
            (Some(v), _) => vec![Violation::RegisteredTwice {
                seq: v.seq,
                same: e.protocol_sha256.as_deref() == Some(v.hash.as_str()),
            }],
            (None, Some(first)) if !self.cut => vec![Violation::RegisteredAfterUse { first }],
            _ => vec![],
        }
    }

    /// Any other entry under a protocol: the study's registration in force, else a note that
    /// the study is not registered.
    fn protocol_rules(&self, study: Option<&StudyState>, e: &Entry) -> Vec<Violation> {
        let Some(h) = &e.protocol_sha256 else { return vec![] };
        match study.and_then(StudyState::in_force) {
            Some(v) if *h != v.hash => vec![Violation::ProtocolNotInForce {
                used: h.clone(),
                registered: v.hash.clone(),
                seq: v.seq,
            }],
            Some(_) => vec![],
            // Registered, perhaps, in an entry that cannot be read.
            None if self.cut || e.study_id.is_empty() => vec![],
            None => vec![Violation::UnregisteredStudy],
        }
    }

    /// Notes: a registration after results were seen, a lowered data-access level.
    fn note_rules(&self, e: &Entry) -> Vec<Violation> {
        let mut v = Vec::new();
        if matches!(e.kind, EntryKind::Register | EntryKind::Amend)
            && e.data_access == crate::ledger::DataAccess::ResultsSeen
        {
            v.push(Violation::RegisteredAfterResultsSeen);
        }
        let before = self.access.in_force(&e.study_id);
        if self.entries > 0 && e.data_access < before {
            v.push(Violation::AccessLowered { before });
        }
        v
    }

    /// The analysis rules: the stop rule, the count and assignment it rests on, the data of
    /// record.
    fn analysis_rules(&self, study: Option<&StudyState>, e: &Entry) -> Vec<Violation> {
        let Some(s) = study else {
            return if !self.cut && !e.study_id.is_empty() && !hashes_of(&e.inputs, InputRole::Assignment).is_empty() {
                vec![Violation::NoAssignmentRecorded]
            } else {
                vec![]
            };
        };
        let mut v = Vec::new();
        if let Some(stop) = s.decision.as_ref().filter(|d| d.kind == EntryKind::Stop) {
            v.push(Violation::Stopped { seq: stop.seq });
        }
        let used = hashes_of(&e.inputs, InputRole::Assignment);
        let splits = s.in_force().and_then(|v| v.splits) == Some(true);
        if splits {
            match &s.latest_count {
                None if !self.cut => v.push(Violation::NoCount),
                Some(c) if c.kind == EntryKind::Go && used.is_empty() => {
                    v.push(Violation::GoWithoutAssignment { seq: c.seq })
                }
                _ => {}
            }
        }
        if !used.is_empty() {
            v.extend(assignment_rule(s, &used, self.cut));
        }
        if splits || !used.is_empty() {
            v.extend(super::basis::counted_otherwise(s, e));
        }
        v.extend(data_rule(s, e));
        v
    }
}

/// An `amend`: names the registration in force, and changes something.
fn amend_rules(study: Option<&StudyState>, e: &Entry) -> Vec<Violation> {
    let in_force = study.and_then(StudyState::in_force);
    match in_force {
        Some(v) if e.amends.as_deref() == Some(v.hash.as_str()) => {
            let same = e.protocol_sha256.as_deref() == Some(v.hash.as_str()) && pilot_of(&e.inputs) == v.pilot;
            if same {
                vec![Violation::AmendsNothing { seq: v.seq }]
            } else {
                vec![]
            }
        }
        _ => vec![Violation::AmendLink {
            registered: in_force.map(|v| v.hash.clone()),
        }],
    }
}

fn pilot_of(inputs: &Inputs) -> Inputs {
    of_roles(inputs, &[InputRole::Pilot])
}

/// The assignment an analysis uses is the one its study's latest components entry recorded.
fn assignment_rule(s: &StudyState, used: &[&str], cut: bool) -> Option<Violation> {
    match &s.assignment {
        None if cut => None,
        None => Some(Violation::NoAssignmentRecorded),
        Some((seq, rec)) => {
            let Some((k, h)) = rec.iter().next() else {
                return Some(Violation::AssignmentNotRecorded { seq: *seq });
            };
            if rec.values().any(|h| used.contains(&h.as_str())) {
                return None;
            }
            Some(Violation::AssignmentOther {
                seq: *seq,
                key: k.to_string(),
                recorded: h.clone(),
                now: used.first().map(|s| s.to_string()).unwrap_or_default(),
            })
        }
    }
}

/// For each data role the analysis reads: the content the study's first analysis reading it
/// read.
fn data_rule(s: &StudyState, e: &Entry) -> Vec<Violation> {
    let mut v = Vec::new();
    for role in DATA_ROLES {
        let now = of_roles(&e.inputs, &[role]);
        if now.is_empty() {
            continue;
        }
        let Some((first, rec)) = s.data.get(&role) else {
            continue;
        };
        if content(rec) != content(&now) {
            v.push(Violation::DataReplaced {
                role,
                first: *first,
                recorded: shown(rec, role),
                now: shown(&now, role),
            });
        }
    }
    v
}

/// The distinct hashes of `inputs`, sorted: their content, whatever the paths.
fn content(inputs: &Inputs) -> Vec<&String> {
    let mut h: Vec<&String> = inputs.values().collect();
    h.sort();
    h.dedup();
    h
}

/// A count: on the inputs of the study's previous count (else a deviation), under the
/// registered pilot.
fn count_rules(study: Option<&StudyState>, e: &Entry) -> Vec<Violation> {
    let Some(s) = study else { return vec![] };
    let mut v = Vec::new();
    if let Some(prev) = &s.latest_count {
        let fields = counted_changes(prev, &e.inputs);
        match s.in_force().and_then(|r| r.build.as_ref()) {
            _ if fields.is_empty() => {}
            None => v.push(Violation::CountOnOtherInputs { seq: prev.seq, fields }),
            Some(budget) => v.extend(attempt_rule(s, e, prev, budget)),
        }
    }
    if let Some(reg) = s.in_force() {
        for (k, h) in pilot_of(&e.inputs) {
            if reg.pilot.get(&k) != Some(&h) {
                v.push(Violation::PilotNotRegistered {
                    path: k.path.clone(),
                    seq: reg.seq,
                });
            }
        }
    }
    v
}

/// A count on other inputs than the count before it, under a registered budget: a new build
/// attempt, within the budget, and changing only what the registration allows, as the check
/// `components` recorded in its summary says (against that count: `prev`).
fn attempt_rule(s: &StudyState, e: &Entry, prev: &CountRef, budget: &crate::protocol::BuildSpec) -> Option<Violation> {
    let attempt = s.attempts.len() as u64 + 1;
    if attempt > u64::from(budget.attempts) {
        return Some(Violation::AttemptOverBudget {
            attempt,
            budget: budget.attempts,
            before: s.attempts.iter().map(|a| a.seq).collect(),
        });
    }
    let check = crate::records::read_summary::<crate::records::CountSummary>(e, "count")
        .ok()
        .and_then(|c| c.attempt)
        .filter(|a| a.previous == prev.seq && a.may_change == budget.attempt_may_change);
    match check {
        None => Some(Violation::AttemptUnchecked {
            attempt,
            previous: prev.seq,
        }),
        Some(c) if !c.outside.is_empty() => Some(Violation::AttemptChangeNotAllowed {
            attempt,
            allowed: budget.attempt_may_change.clone(),
            outside: c.outside,
        }),
        Some(_) => None,
    }
}

/// How the counted inputs `now` (questions, passages, qrels, pairs) differ from count `prev`'s,
/// one field per role (empty when the same).
pub fn counted_changes(prev: &CountRef, now: &Inputs) -> Vec<FieldDeviation> {
    let mut out = Vec::new();
    for (role, field) in COUNTED_ROLES {
        let hashes = |i: &Inputs| hashes_of(i, role).into_iter().map(str::to_string).collect::<Vec<_>>();
        if hashes(&prev.counted) != hashes(now) {
            out.push(FieldDeviation {
                field: format!("{} (counted in entry #{})", field, prev.seq),
                registered: shown(&prev.counted, role),
                used: shown(now, role),
            });
        }
    }
    out
}

impl LedgerState {
    /// The state after `f`: what each kind records, the changes, the overlaps; for an
    /// analysis, its verdict.
    fn apply(
        &mut self,
        f: &Fact,
        disclosed: bool,
        overridden: &[Violation],
        violations: &mut Vec<Violation>,
    ) -> Option<AnalysisVerdict> {
        let e = f.entry;
        let mut verdict = None;
        if !e.study_id.is_empty() {
            let overlaps = self.overlaps(f);
            let cut = self.cut;
            let last = self.last.clone();
            let s = self.studies.entry(e.study_id.clone()).or_insert_with(|| StudyState {
                id: e.study_id.clone(),
                ..Default::default()
            });
            if disclosed && e.kind != EntryKind::Deviation {
                s.cover_deviation(last.as_ref(), e.seq, overridden);
            }
            match e.kind {
                EntryKind::Register | EntryKind::Amend => s.apply_version(f),
                EntryKind::Deviation => s.apply_deviation(e),
                EntryKind::Assign => {
                    s.assignment = Some((e.seq, of_roles(&e.inputs, &[InputRole::Assignment])));
                }
                k if is_count(k) => s.apply_count(f, disclosed, last.as_ref()),
                EntryKind::Analyze => verdict = Some(s.apply_analysis(e, disclosed, overridden)),
                _ => {}
            }
            if e.protocol_sha256.is_some() && s.versions.is_empty() && !cut && e.kind != EntryKind::Register {
                s.used_unregistered.get_or_insert(e.seq);
            }
            for o in overlaps {
                if !s.overlap.iter().any(|x| x.kind == o.kind && x.study == o.study) {
                    violations.push(Violation::Overlap(o.clone()));
                    s.overlap.push(o);
                }
            }
        }
        self.access.push(e);
        self.entries += 1;
        self.last = Some(Last {
            seq: e.seq,
            kind: e.kind,
            study: e.study_id.clone(),
            protocol: e.protocol_sha256.clone(),
        });
        verdict
    }

    /// The overlaps `f` shows with earlier studies (recording what it registers or analyzes
    /// for later ones): the same protocol under another id; the same data or result.
    fn overlaps(&mut self, f: &Fact) -> Vec<Overlap> {
        let e = f.entry;
        let mut out = Vec::new();
        let mut seen =
            |map: &mut BTreeMap<String, (String, u64)>, key: String, kind, input: Option<String>| match map.get(&key) {
                Some((study, seq)) if *study != e.study_id => {
                    if !out.iter().any(|o: &Overlap| o.kind == kind && o.study == *study) {
                        out.push(Overlap {
                            kind,
                            study: study.clone(),
                            their_seq: *seq,
                            seq: e.seq,
                            input,
                        });
                    }
                }
                Some(_) => {}
                None => {
                    map.insert(key, (e.study_id.clone(), e.seq));
                }
            };
        if e.kind == EntryKind::Register {
            if let Some(fp) = f.protocol_text.and_then(fingerprint) {
                seen(&mut self.fingerprints, fp, OverlapKind::SameProtocol, None);
            }
        }
        if e.kind == EntryKind::Analyze {
            for (k, h) in of_roles(&e.inputs, &DATA_ROLES) {
                seen(&mut self.analyzed, h, OverlapKind::SameData, Some(k.to_string()));
            }
        }
        out
    }
}

/// The SHA-256 of a protocol text's values but for its `[study]` table (id, title, who
/// registered it): the same protocol registered under another id has the same fingerprint.
/// `None` when the text is not TOML.
pub(crate) fn fingerprint(text: &str) -> Option<String> {
    let mut t: toml::Table = text.parse().ok()?;
    t.remove("study");
    // serde_json's map sorts keys, so the bytes do not depend on the text's order.
    let v = serde_json::to_vec(&t).ok()?;
    Some(crate::io::sha256_hex(&v))
}

impl StudyState {
    /// A `register` or `amend`: a new version in force (and the change an amendment makes).
    fn apply_version(&mut self, f: &Fact) {
        let e = f.entry;
        let parsed = f
            .protocol_text
            .map(|t| crate::protocol::parse(t, std::path::Path::new("protocol.toml")));
        let build = match &parsed {
            Some(Ok(p)) => p.build.clone(),
            _ => None,
        };
        let (splits, split) = match &parsed {
            Some(Ok(p)) => (
                Some(!p.splits.is_empty()),
                p.analysis.split.clone().or_else(|| match p.splits.as_slice() {
                    [only] => Some(only.name.clone()),
                    _ => None,
                }),
            ),
            _ => (None, None),
        };
        if e.kind == EntryKind::Amend {
            let before = self.in_force().and_then(|v| v.text.clone());
            let what = match (before.as_deref(), f.protocol_text) {
                (Some(a), Some(b)) => crate::protocol::changes(a, b),
                _ => vec!["the protocol (a text is not in the ledger)".into()],
            };
            let mut what = what;
            if self.in_force().is_some_and(|v| v.pilot != pilot_of(&e.inputs)) {
                what.push(format!("pilot file: {}", shown(&e.inputs, InputRole::Pilot)));
            }
            self.push_change(e, ChangeKind::Amend, None, what);
        }
        if self.versions.is_empty() && e.kind == EntryKind::Register {
            self.registered_access = Some(e.data_access);
        }
        if let Some(h) = &e.protocol_sha256 {
            self.versions.push(Version {
                seq: e.seq,
                time: e.time.clone(),
                hash: h.clone(),
                pilot: pilot_of(&e.inputs),
                text: f.protocol_text.map(str::to_string),
                splits,
                split,
                build,
            });
        }
    }

    /// Records a change with its scopes (from the keys its lines name) and timing.
    fn push_change(&mut self, e: &Entry, kind: ChangeKind, command: Option<String>, what: Vec<String>) {
        let mut scopes: Vec<Scope> = what.iter().map(|w| Scope::of_key(w)).collect();
        if command.as_deref() == Some("components") {
            scopes.push(Scope::QuestionSet);
        }
        scopes.sort();
        scopes.dedup();
        self.changes.push(Change {
            seq: e.seq,
            kind,
            time: e.time.clone(),
            reason: e.reason.clone().unwrap_or_default().replace('\n', " "),
            command,
            covers: None,
            what,
            scopes,
            timing: self.timing_now(),
        });
    }

    /// A `deviation`: the change it records (its summary's overridden rules and fields).
    fn apply_deviation(&mut self, e: &Entry) {
        let s: Option<DeviationSummary> = crate::records::read_summary(e, "deviation").ok();
        let (command, what) = match s {
            Some(s) => (
                Some(s.command),
                s.overridden
                    .into_iter()
                    .chain(s.fields.iter().map(|f| f.to_string()))
                    .collect(),
            ),
            None => (None, vec![]),
        };
        self.push_change(e, ChangeKind::Deviation, command, what);
    }

    /// The deviation just before `seq` covers it: with the scopes of the rules it overrode.
    fn cover_deviation(&mut self, last: Option<&Last>, seq: u64, overridden: &[Violation]) {
        let Some(last) = last else { return };
        if let Some(c) = self.changes.iter_mut().rev().find(|c| c.seq == last.seq) {
            c.covers = Some(seq);
            c.scopes.extend(overridden.iter().map(Violation::scope));
            c.scopes.sort();
            c.scopes.dedup();
        }
    }

    /// A count (`count`, `stop`, `go`): the latest count and decision, the assignment, the
    /// registered question set and how the counted set stands against it.
    fn apply_count(&mut self, f: &Fact, disclosed: bool, last: Option<&Last>) {
        let e = f.entry;
        let c = CountRef {
            seq: e.seq,
            kind: e.kind,
            protocol: e.protocol_sha256.clone(),
            counted: of_roles(&e.inputs, &COUNTED_ROLES.map(|(r, _)| r)),
            inputs: of_roles(&e.inputs, &[InputRole::Pilot, InputRole::Assignment]),
            commit: f.commit.map(str::to_string),
        };
        let new_attempt = self
            .latest_count
            .as_ref()
            .is_none_or(|prev| !counted_changes(prev, &c.counted).is_empty());
        if new_attempt {
            let deviation = last
                .filter(|l| disclosed && l.kind == EntryKind::Deviation)
                .and_then(|l| self.changes.iter().rev().find(|ch| ch.seq == l.seq))
                .map(|ch| (ch.seq, ch.reason.clone()));
            self.attempts.push(Attempt {
                number: self.attempts.len() as u64 + 1,
                seq: e.seq,
                budget: self.in_force().and_then(|v| v.build.as_ref()).map(|b| b.attempts),
                deviation,
            });
        }
        self.first_count.get_or_insert(e.seq);
        self.assignment = Some((e.seq, of_roles(&e.inputs, &[InputRole::Assignment])));
        if matches!(e.kind, EntryKind::Stop | EntryKind::Go) {
            self.decision = Some(c.clone());
        }
        let no_stop_rule = self.in_force().and_then(|v| v.splits) == Some(false);
        if self.registered_set.is_none() && (e.kind == EntryKind::Go || (e.kind == EntryKind::Count && no_stop_rule)) {
            self.registered_set = Some(c.clone());
        }
        if let Some(r) = self.registered_set.as_ref().filter(|r| r.seq != e.seq) {
            let fields = counted_changes(r, &c.counted);
            // How many questions left and joined, as the count recorded against this set.
            let counts = crate::records::read_summary::<crate::records::CountSummary>(e, "count")
                .ok()
                .and_then(|s| s.question_change)
                .filter(|q| q.registered_seq == r.seq);
            self.question_set = (!fields.is_empty()).then(|| QuestionSetChange {
                registered_seq: r.seq,
                count_seq: e.seq,
                deviation: match last {
                    Some(l) if disclosed => self
                        .changes
                        .iter()
                        .rev()
                        .find(|ch| ch.seq == l.seq)
                        .map(|ch| (ch.seq, ch.reason.clone())),
                    _ => None,
                },
                fields,
                left: counts.as_ref().map(|q| q.left),
                joined: counts.as_ref().map(|q| q.joined),
            });
        }
        self.latest_count = Some(c);
    }

    /// An analysis: its verdict (and the study's registered analysis, when it is that), and
    /// the data of record it fixes.
    fn apply_analysis(&mut self, e: &Entry, disclosed: bool, overridden: &[Violation]) -> AnalysisVerdict {
        let verdict = super::classify::classify(self, e, disclosed, overridden);
        if verdict.classification != Classification::Exploratory {
            self.lead = Some(Lead {
                verdict: verdict.clone(),
            });
        }
        for role in DATA_ROLES {
            let read = of_roles(&e.inputs, &[role]);
            if !read.is_empty() {
                self.data.entry(role).or_insert((e.seq, read));
            }
        }
        if self.lead.is_none() && self.earlier.len() < Self::EARLIER_KEPT {
            self.earlier.push(e.seq);
        }
        self.first_analysis.get_or_insert(e.seq);
        self.analyses += 1;
        verdict
    }
}
