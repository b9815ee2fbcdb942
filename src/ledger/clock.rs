//! How an append dates its entries: the time is read after the append lock is taken, inside the
//! compare-and-swap retry, so a writer that waited for another one never dates its entry before
//! the one it waited for; two clocks that disagree by less than [`MAX_CLOCK_SKEW_SECS`] are
//! reconciled without failing; a clock far ahead is refused before it is recorded, and a ledger
//! that already holds an entry dated far ahead can go on with a recorded, disclosed correction.
//!
//! The rules, for an entry about to follow the ledger's last entry `L` (time `tL`), with `t` the
//! time read (the system clock, or `PLEDGE_NOW`'s fixed time) and `s` the system clock:
//! - `t` more than the skew after `s` (a `PLEDGE_NOW` typo): refused, exit 2, nothing written;
//! - `t ≥ tL`: the entry is dated `t`;
//! - `t` behind `tL` by at most the skew (two machines' clocks, or a clock stepped back by NTP):
//!   the entry is dated `tL`, and a note says so;
//! - `tL` more than the skew after `s` (`L` was dated ahead, or this clock is behind): refused,
//!   exit 2, naming both times; with a clock correction ([`super::Ledger::set_clock_correction`],
//!   `pledge note --correct-clock`) the entry is dated `s` and records `"clock": "corrected"`,
//!   which `verify` discloses instead of reporting `time-decreased`;
//! - else (`t` really behind the ledger, e.g. `PLEDGE_NOW` in the past): refused, exit 2, saying
//!   by how much.

use super::entry::{ClockSource, Entry};
use crate::error::{Error, Result};
use chrono::{DateTime, SecondsFormat, Utc};

/// How far apart two honest clocks may be, in seconds (two minutes): a clock behind the
/// ledger's last entry by at most this is reconciled (the entry is dated at the last entry's
/// time), an entry may be dated at most this far after the system clock, and a TSA's witnessed
/// time may differ this much (plus its stated accuracy) from the time an entry claims.
pub const MAX_CLOCK_SKEW_SECS: i64 = 120;

/// The clocks an append reads.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Clocks {
    /// Whether the time passed to the append is the one the user declared (`PLEDGE_NOW`),
    /// used instead of the system clock's reading.
    pub fixed: bool,
    /// Reads the system clock (only `main` passes one: library code takes the clock as a
    /// parameter); `None`: no system clock, the time the caller passed is used.
    pub system: Option<fn() -> DateTime<Utc>>,
    /// Whether this append records a clock correction.
    pub correct: bool,
}

/// The date an append gives its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dated {
    /// The entries' time.
    pub time: DateTime<Utc>,
    /// What the entries record as their clock (`fixed`, `corrected`, or nothing: read).
    pub clock: Option<ClockSource>,
    /// A sentence for the user when the time is not simply the one read.
    pub note: Option<String>,
}

/// `T` as entries write it (RFC 3339, seconds, `Z`).
fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A span of seconds as people say it: `45 s`, `7 min 3 s`, `5 h 2 min`, `3 days 4 h`,
/// `26328 days (about 72.1 years)`.
pub fn span(secs: i64) -> String {
    let secs = secs.unsigned_abs();
    let (d, h, m, s) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{} s", s),
        (0, 0, _) => format!("{} min {} s", m, s),
        (0, _, _) => format!("{} h {} min", h, m),
        _ if d >= 365 => format!("{} days (about {:.1} years)", d, d as f64 / 365.25),
        _ => format!("{} {} h", crate::text::plural(d, "day", "days"), h),
    }
}

impl Clocks {
    /// Dates the entries that follow `last` (the ledger's last entry, if any); `now` is the time
    /// the caller passed, used when it is the fixed clock or when there is no system clock.
    ///
    /// Errors (exit 2): the time is more than the skew after the system clock; the ledger's last
    /// entry is more than the skew ahead of the system clock (without a correction); the time
    /// is behind the last entry by more than the skew; a correction asked for where there is
    /// nothing to correct, or under a fixed clock.
    pub(crate) fn date(&self, now: DateTime<Utc>, last: Option<&Entry>) -> Result<Dated> {
        let system = self.system.map(|f| f());
        let read = if self.fixed { now } else { system.unwrap_or(now) };
        let read_clock = self.fixed.then_some(ClockSource::Fixed);
        let skew = chrono::Duration::seconds(MAX_CLOCK_SKEW_SECS);
        if let Some(s) = system {
            if read > s + skew {
                return Err(far_ahead(read, s));
            }
        }
        let last_time = last.and_then(|l| parse_time(&l.time).map(|t| (l, t)));
        if self.correct {
            return self.corrected(system, last_time);
        }
        let Some((last, lt)) = last_time else {
            return Ok(Dated {
                time: read,
                clock: read_clock,
                note: None,
            });
        };
        if read >= lt {
            return Ok(Dated {
                time: read,
                clock: read_clock,
                note: None,
            });
        }
        let behind = (lt - read).num_seconds();
        if lt - read <= skew {
            return Ok(Dated {
                time: lt,
                clock: read_clock,
                note: Some(format!(
                    "the clock ({}) is {} behind the ledger's last entry #{} ({}): the new entries are dated at its time (clocks may differ by up to {})",
                    rfc3339(read),
                    span(behind),
                    last.seq,
                    last.time,
                    span(MAX_CLOCK_SKEW_SECS)
                )),
            });
        }
        match system {
            Some(s) if lt > s + skew => Err(last_ahead(last, lt, s)),
            _ => Err(Error::input(format!(
                "the clock says {}, {} before the ledger's last entry #{} ({}): an entry dated earlier would break the order of times",
                rfc3339(read),
                span(behind),
                last.seq,
                last.time
            ))
            .with_hint("check the system clock, or PLEDGE_NOW if you set it")),
        }
    }

    /// The date of a clock correction: the system clock, when the ledger's last entry is more
    /// than the skew ahead of it.
    fn corrected(&self, system: Option<DateTime<Utc>>, last: Option<(&Entry, DateTime<Utc>)>) -> Result<Dated> {
        let Some(s) = system.filter(|_| !self.fixed) else {
            return Err(Error::input(
                "a clock correction is dated by the system clock, not by PLEDGE_NOW: unset PLEDGE_NOW to record one",
            ));
        };
        match last {
            Some((l, lt)) if lt > s + chrono::Duration::seconds(MAX_CLOCK_SKEW_SECS) => Ok(Dated {
                time: s,
                clock: Some(ClockSource::Corrected),
                note: Some(format!(
                    "clock corrected: the ledger's last entry #{} is dated {}, {} after the system clock ({}); this entry is dated by the system clock and discloses the correction",
                    l.seq,
                    l.time,
                    span((lt - s).num_seconds()),
                    rfc3339(s)
                )),
            }),
            _ => Err(Error::input(format!(
                "there is no clock to correct: the ledger's last entry is not dated more than {} after the system clock ({})",
                span(MAX_CLOCK_SKEW_SECS),
                rfc3339(s)
            ))
            .with_hint("leave out --correct-clock")),
        }
    }
}

/// The refusal of a time more than the skew after the system clock.
fn far_ahead(read: DateTime<Utc>, system: DateTime<Utc>) -> Error {
    Error::input(format!(
        "the clock says {}, {} after the system clock ({}): an entry dated ahead would block every later append until then, so nothing was written",
        rfc3339(read),
        span((read - system).num_seconds()),
        rfc3339(system)
    ))
    .with_hint(format!(
        "check PLEDGE_NOW (it may be at most {} after the system clock), or unset it",
        span(MAX_CLOCK_SKEW_SECS)
    ))
}

/// The refusal of an append after an entry dated more than the skew after the system clock.
fn last_ahead(last: &Entry, lt: DateTime<Utc>, system: DateTime<Utc>) -> Error {
    Error::input(format!(
        "the ledger's last entry #{} is dated {}, {} after the system clock ({}): either it was dated ahead, or this clock is behind",
        last.seq,
        last.time,
        span((lt - system).num_seconds()),
        rfc3339(system)
    ))
    .with_hint(
        "if this clock is right, record a clock correction (disclosed by verify and the report), then go on: pledge note --correct-clock --reason \"WHY #N was dated ahead\"; otherwise set this clock right",
    )
}

/// An RFC 3339 instant in UTC, or `None`.
pub(crate) fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(s: &str) -> DateTime<Utc> {
        super::parse_time(s).unwrap()
    }

    fn last(seq: u64, time: &str) -> Entry {
        serde_json::from_value(serde_json::json!({
            "seq": seq, "kind": "note", "time": time, "prev_sha256": super::super::GENESIS,
            "study_id": "", "protocol_sha256": null, "protocol_path": null, "amends": null,
            "inputs": {}, "result_sha256": null, "tool": {"name": "pledge", "version": "0"},
            "rng": null, "reason": null, "data_access": "nothing-run", "git_head": null,
            "summary": {}, "entry_sha256": "00",
        }))
        .unwrap()
    }

    fn system() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
    }

    fn clocks(fixed: bool) -> Clocks {
        Clocks {
            fixed,
            system: Some(system),
            correct: false,
        }
    }

    #[test]
    fn the_time_read_dates_the_entry_and_a_small_skew_is_reconciled() {
        let now = system();
        let d = clocks(false).date(now, Some(&last(3, "2026-12-01T11:59:00Z"))).unwrap();
        assert_eq!((d.time, d.clock, d.note), (system(), None, None));
        // 2 min behind the last entry: dated at its time, with a note.
        let d = clocks(false).date(now, Some(&last(3, "2026-12-01T12:02:00Z"))).unwrap();
        assert_eq!(d.time, at("2026-12-01T12:02:00Z"));
        assert_eq!(
            d.note.unwrap(),
            "the clock (2026-12-01T12:00:00Z) is 2 min 0 s behind the ledger's last entry #3 (2026-12-01T12:02:00Z): the new entries are dated at its time (clocks may differ by up to 2 min 0 s)"
        );
        // A fixed clock is recorded as such.
        let d = clocks(true).date(at("2026-11-30T12:00:00Z"), None).unwrap();
        assert_eq!(
            (d.time, d.clock),
            (at("2026-11-30T12:00:00Z"), Some(ClockSource::Fixed))
        );
    }

    #[test]
    fn a_clock_far_ahead_is_refused_and_a_real_backwards_clock_says_by_how_much() {
        let e = clocks(true).date(at("2099-01-01T00:00:00Z"), None).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            "the clock says 2099-01-01T00:00:00Z, 26328 days (about 72.1 years) after the system clock (2026-12-01T12:00:00Z): an entry dated ahead would block every later append until then, so nothing was written"
        );
        // 2 min ahead is allowed, 2 min 1 s is not.
        assert!(clocks(true).date(at("2026-12-01T12:02:00Z"), None).is_ok());
        assert!(clocks(true).date(at("2026-12-01T12:02:01Z"), None).is_err());
        let e = clocks(true)
            .date(at("2020-01-01T00:00:00Z"), Some(&last(4, "2026-11-30T12:00:00Z")))
            .unwrap_err();
        assert_eq!(
            e.message,
            "the clock says 2020-01-01T00:00:00Z, 2525 days (about 6.9 years) before the ledger's last entry #4 (2026-11-30T12:00:00Z): an entry dated earlier would break the order of times"
        );
    }

    #[test]
    fn an_entry_dated_ahead_blocks_until_a_correction_is_recorded() {
        let now = system();
        let ahead = last(6, "2062-01-01T00:00:00Z");
        let e = clocks(false).date(now, Some(&ahead)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message.starts_with(
            "the ledger's last entry #6 is dated 2062-01-01T00:00:00Z, 12814 days (about 35.1 years) after the system clock (2026-12-01T12:00:00Z)"
        ), "{}", e.message);
        assert!(e.hint.unwrap().contains("pledge note --correct-clock"));
        let fix = Clocks {
            correct: true,
            ..clocks(false)
        };
        let d = fix.date(now, Some(&ahead)).unwrap();
        assert_eq!((d.time, d.clock), (system(), Some(ClockSource::Corrected)));
        // Nothing to correct, or under a fixed clock: refused.
        assert!(fix.date(now, Some(&last(6, "2026-12-01T12:01:00Z"))).is_err());
        let fixed = Clocks {
            correct: true,
            ..clocks(true)
        };
        assert!(fixed
            .date(now, Some(&ahead))
            .unwrap_err()
            .message
            .contains("unset PLEDGE_NOW"));
    }

    #[test]
    fn without_a_system_clock_the_time_passed_is_used() {
        let c = Clocks::default();
        let now = system();
        assert_eq!(c.date(now, None).unwrap().time, now);
        assert!(c.date(now, Some(&last(1, "2030-01-01T00:00:00Z"))).is_err());
    }

    #[test]
    fn spans_read_as_people_write_them() {
        assert_eq!(span(45), "45 s");
        assert_eq!(span(7 * 60 + 5), "7 min 5 s");
        assert_eq!(span(5 * 3600 + 2 * 60), "5 h 2 min");
        assert_eq!(span(3 * 86_400 + 4 * 3600 + 59), "3 days 4 h");
        assert_eq!(span(366 * 86_400), "366 days (about 1.0 years)");
    }
}
