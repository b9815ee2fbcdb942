//! The verdict card: the report's first screen. For each primary hypothesis the verdict at the
//! registered α with its estimate, interval and adjusted p; then whether the analysis is
//! confirmatory, the deviations (how many, the first one named), the split analyzed, and the
//! witness status of the registration (time witnessed by whom, commit signed by which key).
//! Hashes and commit ids come after it. This follows what a trial registry's results page leads
//! with (ClinicalTrials.gov's primary outcome measures, CONSORT item 17a: the estimated effect
//! and its precision for each primary outcome) and puts deviations beside the result.

use super::model::{fmt_diff, fmt_p, fmt_value};
use crate::protocol::Scale;
use crate::records::analysis::{Comparison, HypothesisKind as Kind, HypothesisResult};
use crate::records::AnalysisRecord;
use serde::Serialize;

/// A primary hypothesis' verdict at the registered α: the one three-valued enum as the analysis
/// record stores it ([`crate::records::analysis::Verdict`], from the statistics that decide it,
/// `crate::stats::verdict::Verdict`).
pub use crate::records::analysis::Verdict;

impl Verdict {
    /// The verdict the analysis recorded for a hypothesis: its three-valued judgement when the
    /// record has one, else supported or not supported.
    pub fn of(h: &crate::records::analysis::HypothesisResult) -> Verdict {
        match &h.judgement {
            Some(j) => j.verdict,
            None if h.supported => Verdict::Supported,
            None => Verdict::NotSupported,
        }
    }
}

crate::named_enum! {
    /// How the reported analysis stands against the registration.
    pub enum Classification {
        /// The registered analysis, on the registered data, with nothing deviated.
        Confirmatory = "confirmatory",
        /// The registered analysis, after recorded deviations (each named in the report).
        ConfirmatoryWithDeviations = "confirmatory with deviations",
        /// Not the registered analysis: it deviated from the registration.
        Exploratory = "exploratory",
    }
}

impl From<crate::ledger::rules::Classification> for Classification {
    /// The registration rules' classification, as the card words it.
    fn from(c: crate::ledger::rules::Classification) -> Classification {
        use crate::ledger::rules::Classification as Rules;
        match c {
            Rules::Confirmatory => Classification::Confirmatory,
            Rules::ConfirmatoryWithDeviations => Classification::ConfirmatoryWithDeviations,
            Rules::Exploratory => Classification::Exploratory,
        }
    }
}

/// One primary hypothesis on the card.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictLine {
    /// The hypothesis' registered name.
    pub hypothesis: String,
    /// `system − comparator`.
    pub comparison: String,
    /// What a margin hypothesis claims, with its margin (`non-inferiority, margin 0.0200`);
    /// empty for superiority.
    pub claim: String,
    /// The verdict at α.
    pub verdict: Verdict,
    /// The registered α, e.g. `0.05`.
    pub alpha: String,
    /// The difference, signed, with its unit.
    pub estimate: String,
    /// The interval the verdict reads, e.g. `[+0.0300, +0.1900]`: of the resampling unit the
    /// analysis used, or for a margin kind the t interval at 1 − 2α.
    pub interval: String,
    /// The interval's level, e.g. `95%`.
    pub level: String,
    /// The adjusted p-value.
    pub p_adjusted: String,
    /// How it was adjusted: `holm over 1 primary hypothesis`.
    pub adjustment: String,
    /// What qualifies the verdict (the opposite sign, an amendment after results were seen, the
    /// units an inconclusive verdict would need); empty when nothing does.
    pub note: String,
}

/// `card.*`: the report's first screen.
#[derive(Debug, Clone, Serialize, Default)]
pub struct VerdictCard {
    /// One line per primary hypothesis of the reported analysis.
    pub verdicts: Vec<VerdictLine>,
    /// Why there is no verdict line, when there is none (no analysis, no primary hypothesis).
    pub no_verdict: String,
    /// How the reported analysis stands; `None` when nothing was analyzed.
    pub classification: Option<Classification>,
    /// The reported analysis in words: which entry, and why it leads.
    pub analysis: String,
    /// How many deviations the study recorded.
    pub deviation_count: u64,
    /// `none`, or their number and the first one: entry, time, reason and what it changed.
    pub deviations: String,
    /// The amendments and deviations that touch the registered question, each with when it was
    /// made (before or after the first count or analysis) and what it touched; `none` without.
    pub question_changes: String,
    /// The build attempts against the registered budget (`[build]`), with any past it or
    /// changing more than allowed and its deviation; empty without a budget.
    pub attempts: String,
    /// Overlaps with earlier studies of the ledger (the same protocol, the same data); empty
    /// without.
    pub overlap: String,
    /// The verdict on the registered question set beside the one on the analyzed set, when a
    /// recount accepted with a deviation changed the questions (or why there is none on the
    /// registered questions); empty when the analyzed set is the registered one.
    pub registered_set: String,
    /// The split analyzed.
    pub split: String,
    /// The registration's time: claimed, and witnessed by whom or not.
    pub time: String,
    /// The registration commit's signature: by which key, or unsigned.
    pub signature: String,
}

/// The verdict lines of the primary hypotheses of `r`, values in the protocol's `scale`; with a
/// family across metrics (`[family]`), those of every metric, each hypothesis named with its
/// metric (`name [metric]`). `amended` gives, by hypothesis name, the mark of an amendment after
/// results were seen.
pub fn verdict_lines(r: &AnalysisRecord, scale: Scale, amended: &[(String, String)]) -> Vec<VerdictLine> {
    let Some(f) = &r.metric_family else {
        return metric_verdict_lines(r, &r.comparisons, None, scale, amended);
    };
    let mut lines = metric_verdict_lines(r, &r.comparisons, f.metrics.first().map(String::as_str), scale, amended);
    for m in &f.others {
        lines.extend(metric_verdict_lines(r, &m.comparisons, Some(&m.metric), scale, amended));
    }
    lines
}

/// The verdict lines of the primary hypotheses among `comparisons` (of metric `metric` of a
/// family across metrics, or of the analysis' one metric).
fn metric_verdict_lines(
    r: &AnalysisRecord,
    comparisons: &[Comparison],
    metric: Option<&str>,
    scale: Scale,
    amended: &[(String, String)],
) -> Vec<VerdictLine> {
    let metrics = r.metric_family.as_ref().map_or(1, |f| f.metrics.len());
    comparisons
        .iter()
        .filter_map(|c| {
            let h = c.hypothesis.as_ref().filter(|h| h.primary)?;
            let (interval, level) = verdict_interval(c, h, r.settings.interval_level);
            let mut notes = Vec::new();
            if !h.direction_holds {
                notes.push(
                    if h.kind != Kind::Superiority {
                        "the difference is not on the claimed side"
                    } else {
                        "the difference has the opposite sign to the one expected"
                    }
                    .to_string(),
                );
            }
            notes.extend(needed_text(h));
            notes.extend(amended.iter().filter(|(n, _)| n == &h.name).map(|(_, m)| m.clone()));
            Some(VerdictLine {
                hypothesis: match metric {
                    Some(m) => format!("{} [{}]", h.name, m),
                    None => h.name.clone(),
                },
                comparison: format!("{} − {}", c.system, c.baseline),
                claim: claim_text(h, scale),
                verdict: Verdict::of(h),
                alpha: h.alpha.to_string(),
                estimate: fmt_diff(c.difference, scale),
                interval: format!("[{}, {}]", fmt_diff(interval[0], scale), fmt_diff(interval[1], scale)),
                level: format!("{:.0}%", level * 100.0),
                p_adjusted: fmt_p(h.p_adjusted),
                adjustment: format!(
                    "{} over {}{}",
                    r.settings.adjust,
                    crate::text::plural(h.family_size as u64, "primary hypothesis", "primary hypotheses"),
                    if metrics > 1 {
                        format!(" of {} metrics", metrics)
                    } else {
                        String::new()
                    }
                ),
                note: notes.join("; "),
            })
        })
        .collect()
}

/// What a margin hypothesis claims, with its margin in the protocol's unit (`non-inferiority,
/// margin 0.0200`, `equivalence, margin ±0.0200`); empty for superiority.
pub fn claim_text(h: &HypothesisResult, scale: Scale) -> String {
    match (h.kind, h.margin) {
        (Kind::Superiority, _) | (_, None) => String::new(),
        (Kind::Equivalence, Some(m)) => format!("equivalence, margin ±{}", fmt_value(m, scale)),
        (kind, Some(m)) => format!("{}, margin {}", kind, fmt_value(m, scale)),
    }
}

/// The interval a hypothesis' verdict reads and its level: for a margin kind the recorded
/// judgement's (the t interval at 1 − 2α, 90% at α = 0.05), else the primary bootstrap interval
/// at the analysis' `interval_level`.
pub fn verdict_interval(c: &Comparison, h: &HypothesisResult, interval_level: f64) -> ([f64; 2], f64) {
    match &h.judgement {
        Some(j) if h.kind != Kind::Superiority => (j.interval, j.level),
        _ => (primary_bootstrap(c).interval, interval_level),
    }
}

/// For an inconclusive verdict, the units a study would need at the observed SD (`about 412
/// components would decide it at the observed SD 0.1713 and power 0.8`); `None` otherwise.
pub fn needed_text(h: &HypothesisResult) -> Option<String> {
    let j = h.judgement.as_ref().filter(|j| j.verdict == Verdict::Inconclusive)?;
    let n = j.needed.as_ref()?;
    Some(format!(
        "about {} {}s would decide it at the observed SD {:.4} and power {} (normal approximation)",
        super::model::fmt_count(n.units),
        n.unit,
        n.sd,
        n.power
    ))
}

/// The bootstrap of the unit the analysis resampled: components when it resampled them, else
/// topics.
pub fn primary_bootstrap(c: &Comparison) -> &crate::records::analysis::Bootstrap {
    match (c.primary_unit.as_str(), &c.component) {
        ("component", Some(b)) => b,
        _ => &c.paired,
    }
}

/// The split an analysis read, in words: the split of the assignment it was restricted to, the
/// whole assignment (named when the registration rules name the protocol's only split,
/// `registered`), or every topic of the scores when no assignment was read.
pub fn split_text(r: &AnalysisRecord, registered: Option<&str>) -> String {
    match r.options.as_ref() {
        Some(o) => match (&o.split, &o.components, registered) {
            (Some(s), _, _) => format!("{} (a split of the component assignment)", s),
            (None, Some(_), Some(s)) => format!("{} (the protocol's only split: the whole component assignment)", s),
            (None, Some(_), None) => "the whole component assignment (it has no splits)".into(),
            (None, None, _) => "every topic of the scores (no component assignment was read)".into(),
        },
        None => "not recorded".into(),
    }
}

/// The split named in the report's result headings: the one the analysis was restricted to,
/// else, when it read the whole assignment, the protocol's only split (`registered`, as the
/// registration rules name it); empty when it read no assignment or the protocol names none.
pub fn heading_split(r: &AnalysisRecord, registered: Option<&str>) -> String {
    let own = r
        .options
        .as_ref()
        .and_then(|o| o.split.clone())
        .or_else(|| r.components.as_ref().and_then(|c| c.split.clone()));
    let read_assignment = r.options.as_ref().is_some_and(|o| o.components.is_some());
    match (own, registered) {
        (Some(s), _) => s,
        (None, Some(s)) if read_assignment => s.to_string(),
        _ => String::new(),
    }
}

/// The verdicts of `r` in one line: each primary hypothesis' verdict at α with its estimate,
/// interval and adjusted p; without primary hypotheses, each comparison's difference and
/// interval. Values in the protocol's `scale`.
pub fn verdicts_text(r: &AnalysisRecord, scale: Scale) -> String {
    let lines = verdict_lines(r, scale, &[]);
    let parts: Vec<String> = if lines.is_empty() {
        r.comparisons
            .iter()
            .map(|c| {
                let b = primary_bootstrap(c);
                format!(
                    "{} − {} {} [{}, {}]",
                    c.system,
                    c.baseline,
                    fmt_diff(c.difference, scale),
                    fmt_diff(b.interval[0], scale),
                    fmt_diff(b.interval[1], scale)
                )
            })
            .collect()
    } else {
        lines
            .iter()
            .map(|v| {
                format!(
                    "{} {} at α = {} ({} {} ({}), adjusted p {})",
                    v.hypothesis, v.verdict, v.alpha, v.estimate, v.interval, v.level, v.p_adjusted
                )
            })
            .collect()
    };
    if parts.is_empty() {
        "no comparison".into()
    } else {
        parts.join("; ")
    }
}

/// The verdict on the registered question set beside the one on the analyzed, deviated set
/// `r` (the registered analysis restricted to the questions the study's first `go` fixed, as
/// `r` records it in `registered_set`): "on the N registered questions (count entry #S): …; on
/// the deviated set of M: …", or, when the data do not allow it, why (the input that lacks
/// registered questions, how many and which). `None` when `r` records no registered set.
pub fn registered_set_text(r: &AnalysisRecord, scale: Scale) -> Option<String> {
    use crate::records::analysis::RegisteredOutcome;
    let rs = r.registered_set.as_ref()?;
    let registered = match &rs.outcome {
        RegisteredOutcome::Analyzed(a) => {
            let mut on = r.clone();
            on.comparisons = a.comparisons.clone();
            format!(
                "on the {} registered questions (count entry #{}): {}",
                a.topics.analyzed,
                rs.registered_seq,
                verdicts_text(&on, scale)
            )
        }
        RegisteredOutcome::Lacking(l) => format!(
            "no verdict on the {} registered questions (count entry #{}): {}",
            rs.questions,
            rs.registered_seq,
            l.text(rs.questions)
        ),
        RegisteredOutcome::Unavailable(why) => format!(
            "no verdict on the registered questions (count entry #{}): {}",
            rs.registered_seq, why
        ),
    };
    Some(format!(
        "{}; on the deviated set of {}: {}",
        registered,
        r.topics.analyzed,
        verdicts_text(r, scale)
    ))
}
