//! `pledge timestamp` (and `--tsa` on `register` / `amend`): asks a Time-Stamping Authority for
//! an RFC 3161 token over an entry's `entry_sha256` and records it in a `timestamp` entry
//! (summary [`TimestampSummary`]), which `verify` checks offline (see
//! [`crate::ledger::witness`]).

use super::{Note, Notes};
use crate::error::{Error, Result};
use crate::ledger::tsa::{self, TrustAnchors, TsaClient};
use crate::ledger::{Draft, Entry, EntryKind, Ledger};
use crate::records::{self, TimestampSummary};
use chrono::{DateTime, SecondsFormat, Utc};
use sha2::Digest as _;
use std::path::PathBuf;
use std::time::Duration;

/// What `pledge timestamp` is asked to do. Paths are absolute.
#[derive(Debug, Clone)]
pub struct TimestampOptions {
    /// The TSA's URL (`http://` or `https://`), e.g. `http://timestamp.digicert.com`.
    pub tsa_url: String,
    /// The entry to witness (its sequence number); `None`: the ledger's last entry.
    pub entry: Option<u64>,
    /// A trust file of PEM certificates the TSA's certificate must chain to.
    pub trust: Option<PathBuf>,
    /// Time allowed for the exchange with the TSA.
    pub timeout: Duration,
}

impl TimestampOptions {
    /// Witness the last entry at `tsa_url`, 30 s timeout, no trust file.
    pub fn new(tsa_url: impl Into<String>) -> Self {
        TimestampOptions {
            tsa_url: tsa_url.into(),
            entry: None,
            trust: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// What `pledge timestamp` did.
#[derive(Debug, Clone)]
pub struct TimestampOutcome {
    /// The `timestamp` entry written.
    pub entry: Entry,
    /// The entry witnessed.
    pub covers_seq: u64,
    /// The TSA's name (from its token).
    pub tsa: String,
    /// The witnessed time (`genTime`), RFC 3339 UTC.
    pub witnessed_at: String,
    /// Notes for people.
    pub notes: Notes,
}

/// Witnesses entry `o.entry` (default: the last) of `ledger`: requests a token over its
/// `entry_sha256` (the nonce is derived from the hash and `now`: it only pairs the answer with
/// the request), checks it (and, with `o.trust`, its certificate chain), and appends a
/// `timestamp` entry holding the DER token.
///
/// Errors: an empty ledger or an entry already witnessed by the last entry (refused, exit 1); no
/// such entry, an unreadable trust file, a TSA that refuses or answers with a token that does
/// not verify (exit 2); a TSA that cannot be reached (exit 75); the ledger's own errors (see
/// [`Ledger::append_with`]).
pub fn timestamp(ledger: &Ledger, o: &TimestampOptions, now: DateTime<Utc>) -> Result<TimestampOutcome> {
    let snap = ledger.snapshot(ledger.tip()?, "")?;
    let target = match o.entry {
        Some(seq) => snap.by_seq(seq)?.map(|s| s.entry).ok_or_else(|| {
            Error::input(format!("the ledger has no entry #{}", seq)).with_hint("`pledge log` lists the entries")
        })?,
        None => snap
            .last()
            .cloned()
            .ok_or_else(|| Error::refused("the ledger is empty: there is no entry to timestamp"))?,
    };
    if o.entry.is_none() && target.kind == EntryKind::Timestamp {
        return Err(Error::refused(format!(
            "the last entry (#{}) is already a timestamp: every entry before it is witnessed",
            target.seq
        )));
    }
    witness(ledger, &target, o, now)
}

/// Witnesses `covered` (an entry of `ledger`), as [`timestamp`] does.
///
/// Errors: as [`timestamp`].
pub fn witness(ledger: &Ledger, covered: &Entry, o: &TimestampOptions, now: DateTime<Utc>) -> Result<TimestampOutcome> {
    let trust = load_trust(o)?;
    let got = obtain(covered, o, trust.as_ref(), now)?;
    let draft = timestamp_draft(covered, o, &got.token)?;
    let (seq, sha) = (covered.seq, covered.entry_sha256.clone());
    let entry = ledger.append_with(now, &covered.study_id, |snap| {
        if snap.by_seq(seq)?.is_none_or(|e| e.entry.entry_sha256 != sha) {
            return Err(Error::refused(format!(
                "entry #{} is no longer in the ledger as it was when the token was asked for",
                seq
            )));
        }
        Ok(draft.clone())
    })?;
    let mut out = outcome(entry, covered.seq, &got.witness, trust.is_some());
    out.notes.extend(ledger.take_notes().into_iter().map(Note::info));
    Ok(out)
}

/// The trust file of `o`, loaded. Errors (exit 2): it cannot be read or holds no certificate.
pub(crate) fn load_trust(o: &TimestampOptions) -> Result<Option<TrustAnchors>> {
    o.trust.as_deref().map(TrustAnchors::load).transpose()
}

/// A token from the TSA of `o` over `covered`'s `entry_sha256`, checked (under `trust` when
/// given, else under the certificate it carries).
///
/// Errors: the TSA cannot be reached or answered with a server error (exit 75, try again
/// later); a bad URL, a refusal, an answer that is not a token or does not verify (exit 2).
pub(crate) fn obtain(
    covered: &Entry,
    o: &TimestampOptions,
    trust: Option<&TrustAnchors>,
    now: DateTime<Utc>,
) -> Result<tsa::Obtained> {
    if !cfg!(feature = "witness") {
        return Err(tsa::witness_missing(
            "asking a TSA for a time-stamp token (register --tsa, timestamp, a protocol's [witness] tsa)",
        ));
    }
    let hash: [u8; 32] = hex::decode(&covered.entry_sha256)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            Error::input(format!("entry #{}'s entry_sha256 is not a SHA-256 hash", covered.seq))
                .with_hint("run `pledge verify`")
        })?;
    let client = TsaClient {
        timeout: o.timeout,
        proxy: None,
    };
    let mut got = tsa::request_token(&client, &o.tsa_url, &hash, nonce_for(&hash, now)).map_err(|e| {
        let message = format!(
            "could not get a time-stamp token for entry #{} from {}",
            covered.seq, o.tsa_url
        );
        if e.is_temporary() {
            Error::temp_fail(message)
                .caused_by(e)
                .with_hint("the TSA could not be reached or is busy: try again later, or name another one with --tsa URL")
        } else {
            Error::input(message).caused_by(e).with_hint(
                "name a reachable RFC 3161 TSA, e.g. --tsa http://timestamp.digicert.com or --tsa https://freetsa.org/tsr",
            )
        }
    })?;
    if let Some(t) = trust {
        got.witness = tsa::verify_token(&got.token, &hash, Some(t)).map_err(|e| {
            Error::input(format!(
                "the token from {} does not verify under the trust file",
                o.tsa_url
            ))
            .caused_by(e)
        })?;
    }
    Ok(got)
}

/// The draft of the `timestamp` entry holding `token` over `covered`.
pub(crate) fn timestamp_draft(covered: &Entry, o: &TimestampOptions, token: &[u8]) -> Result<Draft> {
    Ok(Draft {
        kind: Some(EntryKind::Timestamp),
        study_id: covered.study_id.clone(),
        summary: records::to_value(&TimestampSummary {
            covers_seq: covered.seq,
            covers_sha256: covered.entry_sha256.clone(),
            tsa_url: o.tsa_url.clone(),
            token_der: hex::encode(token),
        })?,
        ..Default::default()
    })
}

/// What a `timestamp` entry `entry` over entry `covers_seq` holds, for people; `trusted`: the
/// token was checked against a trust file.
pub(crate) fn outcome(entry: Entry, covers_seq: u64, w: &tsa::Witness, trusted: bool) -> TimestampOutcome {
    let mut notes = Notes::new();
    if !trusted {
        notes.push(Note::info(
            "the token was checked under the certificate it carries; `pledge verify --tsa-trust CA.pem` checks it against the TSA's CA",
        ));
    }
    TimestampOutcome {
        entry,
        covers_seq,
        tsa: w.tsa_name.clone(),
        witnessed_at: w.gen_time.to_rfc3339_opts(SecondsFormat::Secs, true),
        notes,
    }
}

/// The request nonce: the first 8 bytes of SHA-256(hash ‖ now as RFC 3339 with nanoseconds).
fn nonce_for(hash: &[u8; 32], now: DateTime<Utc>) -> u64 {
    let mut h = sha2::Sha256::new();
    h.update(hash);
    h.update(now.to_rfc3339_opts(SecondsFormat::Nanos, true).as_bytes());
    let d = h.finalize();
    u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_nonce_depends_on_hash_and_time() {
        let t = Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap();
        let a = nonce_for(&[0u8; 32], t);
        assert_eq!(a, nonce_for(&[0u8; 32], t));
        assert_ne!(a, nonce_for(&[1u8; 32], t));
        assert_ne!(a, nonce_for(&[0u8; 32], t + chrono::Duration::nanoseconds(1)));
    }
}
