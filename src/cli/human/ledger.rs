//! Text forms (`--format human`) of the ledger commands' results.

use super::Human;
use crate::ledger::{CheckStatus, ExportSummary, Finding, LogItem, PublishReport, VerifyReport};
use crate::text::{cut, short};
use std::fmt::Write as _;

fn finding_line(f: &Finding) -> String {
    match f.seq {
        Some(s) => format!("  #{:<4} {:<30} {}\n", s, f.code, f.message),
        None => format!("  {:<5} {:<30} {}\n", "-", f.code, f.message),
    }
}

impl Human for VerifyReport {
    fn human(&self) -> String {
        let mut s = format!(
            "ledger    {} ({}{})\n",
            self.source,
            crate::text::plural(self.entries as u64, "entry", "entries"),
            self.tip
                .as_deref()
                .map(|t| format!(", tip {}", short(t, 7)))
                .unwrap_or_default()
        );
        for p in self.protocol.iter().chain(&self.more_protocols) {
            let what = match p.status {
                CheckStatus::Matches => format!("matches the registration of study `{}`", p.study_id),
                CheckStatus::LineEndingsOnly => format!(
                    "matches the registration of study `{}` (line endings differ only)",
                    p.study_id
                ),
                CheckStatus::Unregistered => format!("study `{}` is not registered", p.study_id),
                CheckStatus::Changed => format!("CHANGED since the registration of study `{}`", p.study_id),
                CheckStatus::PilotChanged => format!(
                    "matches the registration of study `{}`, but its pilot file does NOT",
                    p.study_id
                ),
            };
            let seq = p.registered_seq.map(|s| format!(" (#{})", s)).unwrap_or_default();
            s.push_str(&format!("protocol  {}: {}{}\n", p.path, what, seq));
        }
        if let Some(r) = &self.remote {
            s.push_str(&format!(
                "published {}: {} entries, {} local entries not yet published\n",
                r.remote, r.published_entries, r.unpublished_entries
            ));
        }
        if !self.notes.is_empty() {
            s.push_str("\nnotes:\n");
            self.notes.iter().for_each(|f| s.push_str(&finding_line(f)));
        }
        if !self.findings.is_empty() {
            s.push_str("\nfindings:\n");
            self.findings.iter().for_each(|f| s.push_str(&finding_line(f)));
        }
        if self.ok {
            s.push_str("\nOK: the ledger verifies\n");
        } else {
            s.push_str(&format!(
                "\nFAILED: {} finding{}\n",
                self.findings.len(),
                if self.findings.len() == 1 { "" } else { "s" }
            ));
        }
        if let Some(r) = &self.review {
            let cut = self
                .findings
                .iter()
                .any(|f| f.code == crate::ledger::FindingCode::LedgerUnreadable);
            s.push_str(&review(r, cut));
            if let (None, Some(t), false) = (&r.tip, &self.tip, self.tip_authenticated) {
                s.push_str(&format!(
                    "  tip          {} (not to cite: the commit ids of this export are not recomputed)\n",
                    t
                ));
            }
        }
        s
    }
}

/// The reviewer summary: one block per registered study, then the tip id to cite. `cut`: some
/// entries cannot be read, so a registration may lie among them.
fn review(r: &crate::ledger::review::Review, cut: bool) -> String {
    use crate::ledger::review::SignatureState;
    use crate::text::plural;
    let mut s = String::from("\nreviewer summary:\n");
    if r.studies.is_empty() && cut {
        s.push_str("  no registration can be read (entries of this ledger cannot be read: see ledger-unreadable)\n");
    } else if r.studies.is_empty() {
        s.push_str("  no study is registered in this ledger\n");
    }
    for st in &r.studies {
        s.push_str(&format!(
            "  study        {}{}\n",
            st.study_id,
            st.title.as_deref().map(|t| format!(" ({})", t)).unwrap_or_default()
        ));
        let witnessed = match &st.witnessed {
            Some(w) => format!(
                "witnessed by TSA {} at {} (timestamp #{}{})",
                w.tsa,
                w.at,
                w.timestamp_seq,
                if w.trusted {
                    ", certificate trusted"
                } else {
                    ", certificate from the token"
                }
            ),
            None => "time not witnessed".to_string(),
        };
        s.push_str(&format!(
            "  registered   at {} (#{}{}), {}\n",
            st.registered_at,
            st.registered_seq,
            if st.clock_fixed { ", clock fixed" } else { "" },
            witnessed
        ));
        let signed = match (st.signature, &st.signed_by) {
            (Some(SignatureState::Verified), Some(p)) => format!("signed by {} (verified)", p),
            (Some(SignatureState::Verified), None) => "signed (verified)".to_string(),
            (Some(SignatureState::Unchecked), _) => "signed, signature not checked (--allowed-signers)".to_string(),
            (Some(SignatureState::Unsigned), _) => "not signed".to_string(),
            (Some(SignatureState::Invalid), _) => "signature INVALID".to_string(),
            (None, _) => "signature not checked (an export line without its raw commit)".to_string(),
        };
        s.push_str(&format!(
            "  by           {}, {}\n",
            st.registered_by.as_deref().unwrap_or("(unknown)"),
            signed
        ));
        // Declared, and not contradicted by the ledger: an overlap with an earlier study shows
        // that something was run before, unless results were declared seen.
        if st.overlap.is_empty() || st.data_access == crate::ledger::DataAccess::ResultsSeen {
            s.push_str(&format!("  data access  {} at registration\n", st.data_access));
        } else {
            s.push_str(&format!(
                "  data access  {} declared at registration, but the ledger shows an earlier study's use:\n",
                st.data_access
            ));
        }
        for o in &st.overlap {
            s.push_str(&format!("  overlap      {}\n", o));
        }
        if let Some(a) = &st.attempts {
            s.push_str(&format!("  attempts     {}\n", a));
        }
        s.push_str(&format!(
            "  since        {}, {}, {}\n",
            plural(st.amendments as u64, "amendment", "amendments"),
            plural(st.deviations as u64, "deviation", "deviations"),
            plural(st.analyses as u64, "analysis", "analyses")
        ));
    }
    if let Some(t) = &r.tip {
        s.push_str(&format!("  cite tip     {}\n", t));
    }
    s
}

impl Human for Vec<LogItem> {
    fn human(&self) -> String {
        if self.is_empty() {
            return format!("The ledger is empty (no entries on {}).\n", crate::ledger::LEDGER_REF);
        }
        let mut s = format!(
            "{:>4}  {:<20}  {:<9}  {:<24}  {:<14}  {:<12}  {}\n",
            "SEQ", "TIME (UTC)", "KIND", "STUDY", "ACCESS", "PROTOCOL", "DETAILS"
        );
        // About 130 bytes a line: one allocation for the whole table.
        s.reserve(160 * self.len());
        for it in self {
            let e = &it.entry;
            let mut details = e
                .reason
                .clone()
                .map(|r| format!("reason: {}", r))
                .unwrap_or_else(|| match &e.summary {
                    serde_json::Value::Null => String::new(),
                    v => v.to_string(),
                });
            if e.summary.get("results_seen_at_registration") == Some(&serde_json::Value::Bool(true)) {
                details = format!("[registered after results were seen] {}", details);
            }
            let _ = writeln!(
                s,
                "{:>4}  {:<20}  {:<9}  {:<24}  {:<14}  {:<12}  {}",
                e.seq,
                e.time,
                e.kind.as_str(),
                cut(&e.study_id, 24),
                e.data_access.as_str(),
                e.protocol_sha256.as_deref().map(|h| short(h, 12)).unwrap_or("-"),
                cut(&details, 80)
            );
        }
        s
    }
}

impl Human for PublishReport {
    fn human(&self) -> String {
        if self.updated {
            format!(
                "Published {} entries (tip {}) to {} {}\n",
                self.entries,
                short(&self.tip, 7),
                self.remote,
                self.remote_ref
            )
        } else {
            format!(
                "{} already has the ledger (tip {}, {} entries)\n",
                self.remote,
                short(&self.tip, 7),
                self.entries
            )
        }
    }
}

impl Human for ExportSummary {
    fn human(&self) -> String {
        format!(
            "Exported {} to {}\n",
            crate::text::plural(self.entries as u64, "entry", "entries"),
            self.file
        )
    }
}
