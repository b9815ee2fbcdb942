//! The data a report template sees. Every number is already formatted in Rust, with its unit,
//! so a template never formats numbers and the same ledger always renders the same text.
//! Every string is plain text, never Markdown: the renderers (Markdown, HTML, LaTeX) escape it
//! and add the emphasis themselves.

use serde::Serialize;

/// Everything the template renders.
#[derive(Debug, Clone, Serialize)]
pub struct ReportData {
    /// The first screen: each primary hypothesis' verdict, whether the analysis is
    /// confirmatory, the deviations, the split and the witness status.
    pub card: super::card::VerdictCard,
    /// The ledger tip and template the report is rendered from (its stamp, which `pledge
    /// verify --report` re-renders from).
    pub rendered: RenderedFrom,
    /// Identity and registration.
    pub study: StudyView,
    /// Ledger verification result (a failure is shown at the top).
    pub verification: VerificationView,
    /// The three statements of an honest report: mean and topic count; interval and reversal rate;
    /// pool bias.
    pub summary: Vec<String>,
    /// Component count, ablation table and stop-rule decision.
    pub components: ComponentsView,
    /// Diagnostics of a count (sensitivity curve, bridges), when one was run with them.
    pub diagnostics: super::diagnostics::DiagnosticsView,
    /// Registered target and achieved detectable difference.
    pub power: PowerView,
    /// Per-system means and comparisons.
    pub results: ResultsView,
    /// Pool-bias statement.
    pub pool: PoolView,
    /// Amendments and deviations, in ledger order.
    pub changes: Vec<ChangeView>,
    /// Every count and every analysis of the study, in ledger order (history, not last-wins).
    pub history: HistoryView,
    /// How to reproduce and verify.
    pub reproduce: ReproduceView,
}

/// `study.*`.
#[derive(Debug, Clone, Serialize)]
pub struct StudyView {
    pub id: String,
    pub title: String,
    pub description: String,
    /// `registered-by` as the protocol declares it (free text, proven by nothing in itself).
    pub registered_by: String,
    /// What stands behind `registered_by`: declared, and how the registration commit is signed.
    pub registered_by_proof: String,
    pub protocol_path: String,
    pub protocol_sha256: String,
    /// The entry whose amended protocol is shown; 0 when it is the registered one.
    pub protocol_amended_seq: u64,
    /// The registered (first) protocol's SHA-256, shown beside an amended one.
    pub registered_protocol_sha256: String,
    pub registered_at: String,
    /// `witnessed by TSA X at T′ (timestamp entry #n)` or `time not witnessed`, and whether the
    /// registration's clock was fixed.
    pub time_witness: String,
    pub registered_seq: u64,
    /// The git commit checked out at registration, shortened to 12 hex digits; empty when the
    /// repository had no commit yet.
    pub registered_commit: String,
    pub data_access: String,
    /// Each later entry that declared less data access than was in force before it, in words.
    pub access_lowered: Vec<String>,
    /// Whether the registration itself declared `results-seen`.
    pub registered_after_results_seen: bool,
    /// The amendments made when results had been declared seen (by them or before them,
    /// `#N (time)`, comma-separated); empty when none.
    pub amended_after_results_seen: String,
}

/// `verification.*`.
#[derive(Debug, Clone, Serialize)]
pub struct VerificationView {
    pub ok: bool,
    /// "passed: …" or "FAILED with N finding(s) …".
    pub summary: String,
    pub findings: Vec<FindingView>,
}

/// One ledger verification finding: what is wrong, and its code (a `FindingCode` value).
#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub message: String,
    pub code: String,
}

/// One row of the rule ablation table.
#[derive(Debug, Clone, Serialize)]
pub struct AblationRow {
    pub rule: String,
    pub components: String,
    pub with_candidates: String,
    pub largest: String,
}

/// One step of the build funnel (`components.funnel`).
#[derive(Debug, Clone, Serialize)]
pub struct FunnelRow {
    /// The build attempt: `1 (entry #2)`.
    pub attempt: String,
    /// The step: candidates, repaired, after contamination rule, passed every check,
    /// components under link rule, stop-rule decision.
    pub step: String,
    /// The rule of the step, as registered.
    pub rule: String,
    /// What is left after it, with its unit.
    pub count: String,
}

/// `components.*`.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ComponentsView {
    pub present: bool,
    pub when: String,
    pub questions: String,
    pub units: String,
    pub rows: Vec<AblationRow>,
    /// The ablation as a Mermaid flowchart (for a Markdown viewer that draws Mermaid).
    pub mermaid: String,
    /// The same flowchart drawn as an SVG document (the HTML page shows it in place of the
    /// Mermaid block; an HTML template can print it with `| safe`).
    pub flowchart_svg: String,
    pub counted: String,
    pub counted_what: String,
    pub required: String,
    pub required_how: String,
    pub decision: String,
    /// The component-size histogram's file name; empty when it is left out.
    pub sizes_svg: String,
    /// Why the histogram is left out, in one line (see `sizes_svg`); empty when it is drawn.
    pub sizes_absent: String,
    /// When the protocol was amended after this count in what a count decides from (link
    /// rules, components, splits, stop rule, a derived requirement's target): the versions
    /// and every changed value, in words; empty otherwise.
    pub earlier_protocol: String,
    /// The build funnel over the study's build attempts ([`FunnelRow`]); empty when no count
    /// ran a contamination rule and there was one attempt at most.
    pub funnel: Vec<FunnelRow>,
}

/// `power.*`.
#[derive(Debug, Clone, Serialize)]
pub struct PowerView {
    pub target_mde: String,
    pub alpha: String,
    pub power: String,
    pub sides: String,
    pub sd: String,
    pub sd_source: String,
    pub required: String,
    pub achieved_mde: String,
    /// When the reported analysis ran under an earlier protocol whose power target differs from
    /// the one shown (an amendment came after it): that protocol's target in words, naming its
    /// entry; empty otherwise.
    pub at_analysis: String,
}

/// One system's row.
#[derive(Debug, Clone, Serialize)]
pub struct SystemView {
    pub name: String,
    pub mean: String,
    pub unfiltered_mean: String,
    pub topics: String,
    pub components: String,
}

/// One comparison's row.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonView {
    pub name: String,
    pub diff: String,
    pub paired_ci: String,
    pub component_ci: String,
    pub reversal: String,
    pub ties: String,
    pub t_p: String,
    pub rand_p: String,
    pub adj_p: String,
    pub effect: String,
    pub flags: String,
    /// The bootstrap picture's file name; empty when it is left out.
    pub svg: String,
    /// Why the picture is left out, in one line; empty when it is drawn.
    pub svg_absent: String,
}

/// One registered hypothesis and its answer.
#[derive(Debug, Clone, Serialize)]
pub struct HypothesisView {
    pub name: String,
    pub family: String,
    pub comparison: String,
    pub direction: String,
    /// What a margin hypothesis claims (`non-inferiority, margin 0.0200, greater is better`);
    /// empty for superiority.
    pub claim: String,
    pub estimate: String,
    pub interval: String,
    pub reversal: String,
    pub p_adjusted: String,
    /// The verdict at α.
    pub outcome: super::card::Verdict,
    /// The test behind the outcome: "at α = 0.05: difference …, adjusted p = … over …".
    pub verdict: String,
    /// Whether the achieved detectable difference is larger than the registered target.
    pub underpowered: bool,
    /// The detectable difference achieved against the registered target, in words.
    pub power: String,
    pub amended: String,
}

/// One pair of the randomized Tukey HSD test.
#[derive(Debug, Clone, Serialize)]
pub struct TukeyRowView {
    pub pair: String,
    pub difference: String,
    pub p: String,
    pub distinguishable: String,
}

/// `results.tukey`: the all-pairs table of the randomized Tukey HSD test, when it is the
/// adjustment.
#[derive(Debug, Clone, Serialize, Default)]
pub struct TukeyView {
    pub present: bool,
    pub description: String,
    pub rows: Vec<TukeyRowView>,
    pub groups: String,
    /// When a pair's Tukey-adjusted p is below its unadjusted randomization p: why, in one line
    /// (the numbers are not changed); empty otherwise.
    pub warning: String,
}

/// `results.*`.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ResultsView {
    pub tukey: TukeyView,
    pub filter: String,
    pub hypotheses: Vec<HypothesisView>,
    pub estimator: String,
    /// The method line for repeated samples per topic (aggregation or two-level bootstrap, K,
    /// variance split), empty without repeated samples.
    pub samples: String,
    pub present: bool,
    pub metric: String,
    pub missing_policy: String,
    pub interval_desc: String,
    pub adjust: String,
    pub systems: Vec<SystemView>,
    pub comparisons: Vec<ComparisonView>,
    pub notes: Vec<String>,
    /// The split analyzed, named in every result heading (empty when no split applies).
    pub split: String,
    /// How system names are shortened, in one sentence ending "The key:"; empty when no name
    /// is.
    pub names_rule: String,
    /// The key of shortened system names, in the systems' order; empty when no name is
    /// shortened (every name in the report is then the full one).
    pub names: Vec<NameView>,
    /// With many systems (more than six): every system ranked, for the summary; empty
    /// otherwise.
    pub ranking: Vec<RankView>,
    /// What the ranking's rank and interval are, in one sentence; empty without a ranking.
    pub ranking_note: String,
    /// With many systems: which comparisons have a bootstrap picture and why, in one sentence.
    pub pictures_note: String,
}

/// A shortened system name and the full one.
#[derive(Debug, Clone, Serialize)]
pub struct NameView {
    pub short: String,
    pub full: String,
}

/// One row of the ranking table.
#[derive(Debug, Clone, Serialize)]
pub struct RankView {
    /// 1 for the highest mean; tied means share the mean of their ranks (e.g. `2.5`).
    pub rank: String,
    pub name: String,
    pub mean: String,
    /// The system's bootstrap percentile interval, `[lo, hi]`, or `—`.
    pub interval: String,
    /// The percentile interval of its rank over the paired bootstrap draws, `best–worst`, or `—`.
    pub rank_interval: String,
    /// The share of draws in which it ranks first, or `—`.
    pub p_first: String,
    /// Its Tukey group letters (the compact letter display `compare` prints), empty without a
    /// Tukey HSD test.
    pub group: String,
}

/// `pool.*`.
#[derive(Debug, Clone, Serialize)]
pub struct PoolView {
    pub statement: String,
}

/// An amendment or deviation.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeView {
    pub seq: u64,
    pub time: String,
    pub kind: String,
    pub reason: String,
    pub fields: String,
}

/// One recorded count of the study.
#[derive(Debug, Clone, Serialize)]
pub struct CountHistoryView {
    pub seq: u64,
    pub time: String,
    pub decision: String,
    pub counted: String,
    pub required: String,
    /// The questions and passages files counted, each with its SHA-256 shortened to 12 digits.
    pub inputs: Vec<InputView>,
    pub reason: String,
}

/// One recorded analysis of the study.
#[derive(Debug, Clone, Serialize)]
pub struct AnalysisHistoryView {
    pub seq: u64,
    pub time: String,
    pub role: String,
    pub differed: String,
    pub reason: String,
    pub results: String,
}

/// `history.*`.
#[derive(Debug, Clone, Serialize, Default)]
pub struct HistoryView {
    pub counts: Vec<CountHistoryView>,
    pub analyses: Vec<AnalysisHistoryView>,
    pub lead: String,
}

/// An input file and its hash.
#[derive(Debug, Clone, Serialize)]
pub struct InputView {
    pub name: String,
    pub sha256: String,
}

/// `reproduce.*`: the reported analysis's own inputs, seed and options, and the read-only
/// commands a reviewer runs in a clone.
#[derive(Debug, Clone, Serialize)]
pub struct ReproduceView {
    pub tool: String,
    /// The analysis the inputs, seed and options are of: `entry #3 (confirmatory)`; empty
    /// when nothing was analyzed.
    pub analysis: String,
    pub generator: String,
    pub seed: String,
    pub trials: String,
    /// The analysis's options, as the `pledge analyze` flags that gave them.
    pub options: String,
    /// The commit id of the ledger's tip the report was rendered from.
    pub ledger_commit: String,
    /// That tip entry's `entry_sha256`.
    pub ledger_tip: String,
    pub entries: u64,
    /// The inputs the reported analysis read (its own entry's), role and path, with SHA-256.
    pub inputs: Vec<InputView>,
    /// The count the analysis's assignment comes from: `entry #2`; empty without one.
    pub count: String,
    /// The inputs that count read.
    pub count_inputs: Vec<InputView>,
    pub labels: String,
    /// Read-only commands: none of them appends to the ledger.
    pub commands: Vec<String>,
}

/// `rendered.*`: what the report is rendered from, as its stamp states it.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RenderedFrom {
    /// The pledge that rendered it, e.g. `pledge 0.1.0`.
    pub tool: String,
    /// The ledger tip: its commit id (hex).
    pub tip_commit: String,
    /// The tip entry's sequence number.
    pub tip_seq: u64,
    /// The template: `built-in`, or its path (relative to the repository root when inside it).
    pub template: String,
    /// SHA-256 of the template's text.
    pub template_sha256: String,
    /// The directory the report was written to, as the reviewer commands name it.
    pub report_dir: String,
}

/// Formats a value of the metric with its unit: 4 decimals on the fraction scale, 2 on points.
pub fn fmt_value(v: f64, scale: crate::protocol::Scale) -> String {
    match scale {
        crate::protocol::Scale::Fraction | crate::protocol::Scale::Unbounded => format!("{:.4}", v),
        crate::protocol::Scale::Points => format!("{:.2} points", v),
    }
}

/// Formats a difference, signed, with its unit.
pub fn fmt_diff(v: f64, scale: crate::protocol::Scale) -> String {
    match scale {
        crate::protocol::Scale::Fraction | crate::protocol::Scale::Unbounded => format!("{:+.4}", v),
        crate::protocol::Scale::Points => format!("{:+.2} points", v),
    }
}

/// Formats a share as a percentage with one decimal, e.g. `2.3%`.
pub fn fmt_pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// Formats a p-value: 4 decimals, or `< 0.0001` (see [`crate::stats::pvalue::format_p`]).
pub fn fmt_p(p: f64) -> String {
    crate::stats::pvalue::format_p(p, 4)
}

/// Formats an integer with thousands separators, e.g. `10,702`.
pub fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Scale;

    #[test]
    fn formats() {
        assert_eq!(fmt_count(10702), "10,702");
        assert_eq!(fmt_count(5), "5");
        assert_eq!(fmt_count(1000000), "1,000,000");
        assert_eq!(fmt_value(0.6813, Scale::Fraction), "0.6813");
        assert_eq!(fmt_diff(3.0, Scale::Points), "+3.00 points");
        assert_eq!(fmt_pct(0.02345), "2.3%");
        assert_eq!(fmt_p(0.00001), "< 0.0001");
    }
}
