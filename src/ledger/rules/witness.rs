//! The witness rule: what a protocol's `[witness]` table requires of its study's `register` and
//! `amend` entries (a TSA's token over each, a signed ledger commit for each), judged once the
//! chain ends ([`LedgerState::finish`]): a token that never came is only known then. What the
//! rule weighs, the valid tokens and the commits' signatures, is checked outside the fold (the
//! cryptography of `ledger::witness`) and handed to it as [`WitnessEvidence`]; `verify`'s
//! `witness-missing` and `witness-late` findings and the report's witness status both come from
//! this one rule.

use super::state::{LedgerState, Version};
use super::violation::Violation;
use chrono::{DateTime, SecondsFormat, Utc};
use std::collections::BTreeMap;

/// What a protocol's `[witness]` table requires of its study's `register` and `amend` entries:
/// a TSA's token over each (`tsa`), a signed ledger commit for each (`signed = true`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WitnessRequired {
    /// A time-stamp token, obtained at the registration (`[witness] tsa`).
    pub tsa: bool,
    /// An SSH-signed commit (`[witness] signed = true`).
    pub signed: bool,
}

impl WitnessRequired {
    /// The requirements of a loaded protocol.
    pub fn of(p: &crate::protocol::Protocol) -> WitnessRequired {
        let w = p.witness.as_ref();
        WitnessRequired {
            tsa: w.is_some_and(|w| w.tsa.as_deref().is_some_and(|t| !t.trim().is_empty())),
            signed: w.is_some_and(|w| w.signed == Some(true)),
        }
    }

    /// The requirements of a stored protocol text (its `[witness]` table read alone, so a text
    /// an older or newer pledge wrote still says what it requires); none when it is not TOML.
    pub fn of_text(text: &str) -> WitnessRequired {
        let Ok(table) = text.parse::<toml::Table>() else {
            return WitnessRequired::default();
        };
        let w = table.get("witness").and_then(|w| w.as_table());
        WitnessRequired {
            tsa: w
                .and_then(|w| w.get("tsa"))
                .and_then(|t| t.as_str())
                .is_some_and(|t| !t.trim().is_empty()),
            signed: w.and_then(|w| w.get("signed")).and_then(|s| s.as_bool()) == Some(true),
        }
    }

    /// Both sets of requirements.
    pub fn union(self, other: WitnessRequired) -> WitnessRequired {
        WitnessRequired {
            tsa: self.tsa || other.tsa,
            signed: self.signed || other.signed,
        }
    }

    /// The requirements of a stored version (none when its text is not in the ledger).
    fn of_version(v: &Version) -> WitnessRequired {
        v.text.as_deref().map(WitnessRequired::of_text).unwrap_or_default()
    }
}

/// A TSA token that verified, as the rule weighs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The `timestamp` entry holding it.
    pub timestamp_seq: u64,
    /// The entry it stamps: that entry and every one before it existed at `at`.
    pub covers_seq: u64,
    /// The witnessed time (`genTime`).
    pub at: DateTime<Utc>,
    /// How far (seconds) a claimed time may precede `at` before the token counts as late: the
    /// clock tolerance plus the TSA's stated accuracy.
    pub tolerance_secs: i64,
    /// The TSA's name.
    pub tsa: String,
}

crate::named_enum! {
    /// How an entry's commit stands for the signature requirement.
    pub enum Signed {
        /// It carries a signature (whether it verifies is checked apart: `signature-invalid`).
        Signed = "signed",
        /// It carries none.
        Unsigned = "unsigned",
        /// Its raw commit is not at hand (an export line of format `/1`), so no signature can
        /// show.
        NotCarried = "not-carried",
    }
}

/// What the witness rule weighs, checked outside the fold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WitnessEvidence {
    /// Every token that verified.
    pub tokens: Vec<Token>,
    /// Each entry's commit signature by entry number; `None` when signatures were not examined
    /// (the signature requirement is then not judged).
    pub signatures: Option<BTreeMap<u64, Signed>>,
}

impl WitnessEvidence {
    /// The earliest token covering entry `seq` (one over it or over a later entry).
    pub fn earliest(&self, seq: u64) -> Option<&Token> {
        self.tokens.iter().filter(|t| t.covers_seq >= seq).min_by_key(|t| t.at)
    }
}

impl LedgerState {
    /// The final step of the fold: every `register` or `amend` entry whose protocol, or the
    /// study's registered version before it, requires a witness ([`WitnessRequired`]) it lacks
    /// in `evidence`, in ledger order: no token covers it ([`Violation::TokenMissing`]), the
    /// earliest one came later than the tolerance after its claimed time
    /// ([`Violation::WitnessLate`]), its commit is not signed or cannot show a signature
    /// ([`Violation::SignatureMissing`]).
    pub fn finish(&self, evidence: &WitnessEvidence) -> Vec<(u64, Violation)> {
        let mut out = Vec::new();
        for s in self.studies.values() {
            let mut before = WitnessRequired::default();
            for v in &s.versions {
                let own = WitnessRequired::of_version(v);
                let needed = own.union(before);
                before = own;
                if needed.tsa {
                    out.extend(token_rule(v, evidence).map(|x| (v.seq, x)));
                }
                if needed.signed {
                    out.extend(signature_rule(v, evidence).map(|x| (v.seq, x)));
                }
            }
        }
        // Stable: an entry's token finding before its signature finding.
        out.sort_by_key(|(seq, _)| *seq);
        out
    }
}

/// A required token: present, and not obtained later than the tolerance after the claim.
fn token_rule(v: &Version, evidence: &WitnessEvidence) -> Option<Violation> {
    let Some(t) = evidence.earliest(v.seq) else {
        return Some(Violation::TokenMissing);
    };
    let claimed = super::super::clock::parse_time(&v.time)?;
    let late = (t.at - claimed).num_seconds();
    (late > t.tolerance_secs).then(|| Violation::WitnessLate {
        at: t.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        tsa: t.tsa.clone(),
        timestamp_seq: t.timestamp_seq,
        late_secs: late,
    })
}

/// A required signature: the commit carries one.
fn signature_rule(v: &Version, evidence: &WitnessEvidence) -> Option<Violation> {
    let signatures = evidence.signatures.as_ref()?;
    match signatures.get(&v.seq).copied().unwrap_or(Signed::NotCarried) {
        Signed::Signed => None,
        Signed::Unsigned => Some(Violation::SignatureMissing { carried: true }),
        Signed::NotCarried => Some(Violation::SignatureMissing { carried: false }),
    }
}

/// `3 days 4 h`, `5 h 2 min`, `7 min`: how late a witness came.
pub(crate) fn span(secs: i64) -> String {
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    match (d, h) {
        (0, 0) => format!("{} min", m),
        (0, _) => format!("{} h {} min", h, m),
        _ => format!("{} {} h", crate::text::plural(d as u64, "day", "days"), h),
    }
}
