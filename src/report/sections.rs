//! The report's sections, each built from the registered protocol and the typed records the
//! commands stored in the ledger ([`crate::records`]), so a report renders from the ledger alone.

use super::flowchart::Flowchart;
use super::model::*;
use super::svg;
use crate::error::Result;
use crate::ledger::StoredEntry;
use crate::protocol::{Protocol, StopCount};
use crate::records::StopDecision;
use crate::records::{AnalysisRecord, CountRecord};
use std::collections::BTreeMap;

fn unit_word(unit: &str, n: u64) -> String {
    match (unit, n) {
        ("question", 1) => "question".into(),
        ("question", _) => "questions".into(),
        (u, 1) => format!("unit ({})", u),
        (u, _) => format!("units ({})", u),
    }
}

/// "1,619 units (doc), 15,614 questions", or "3 questions" when the unit is the question.
fn largest_text(unit: &str, units: u64, questions: u64) -> String {
    if unit == "question" {
        format!("{} {}", fmt_count(questions), unit_word(unit, questions))
    } else {
        format!(
            "{} {}, {} questions",
            fmt_count(units),
            unit_word(unit, units),
            fmt_count(questions)
        )
    }
}

/// The ablation row label of a rule whose pairs were read from a file: how many were checked
/// exactly and, when some lines repeated a pair, how many.
fn listed_rule(rule: &str, c: &crate::records::count::SampleCheck) -> String {
    format!(
        "{} (pairs read from a file; {} of {} checked exactly{})",
        rule,
        fmt_count(c.checked as u64),
        fmt_count(c.pairs as u64),
        match c.repeated_lines {
            0 => String::new(),
            1 => "; 1 line repeated a pair".to_string(),
            n => format!("; {} lines repeated a pair", fmt_count(n as u64)),
        }
    )
}

/// The build gate's steps as flowchart nodes before the count's (the candidates, then what each
/// contamination rule left); the last one, to link the count's first node to, or `None` without
/// a contamination rule.
fn gate_nodes(chart: &mut Flowchart, r: &CountRecord) -> Option<usize> {
    let c = r.contamination.as_ref()?;
    let mut last = chart.node(vec![format!("{} candidate questions", fmt_count(c.candidates as u64))]);
    for rule in &c.rules {
        let next = chart.node(vec![
            format!("after contamination rule {}", rule.rule),
            format!("{} left", fmt_count(rule.remaining as u64)),
        ]);
        chart.edge(last, next);
        last = next;
    }
    Some(last)
}

/// Component section from the latest count/stop/go entry `e` and its record `r`; the picture
/// of component sizes goes into `svgs`.
///
/// Errors: a picture that cannot be drawn (exit 2).
pub fn components_view(
    e: &StoredEntry,
    r: &CountRecord,
    svgs: &mut BTreeMap<String, String>,
) -> Result<ComponentsView> {
    let count = &r.count;
    let stop = &r.stop;
    let unit = count.unit.as_str();
    let units = count.units as u64;
    let (rows, chart) = ablation(r);
    let (sizes_svg, sizes_absent) = match sizes_absent(r) {
        Some(why) => (String::new(), why),
        None => {
            let name = "component-sizes.svg".to_string();
            svgs.insert(name.clone(), sizes_picture(r)?);
            (name, String::new())
        }
    };
    Ok(ComponentsView {
        present: true,
        when: format!("at {} (ledger entry #{})", e.entry.time, e.entry.seq),
        questions: fmt_count(count.questions as u64),
        units: if unit == "question" {
            "each question its own node".into()
        } else {
            format!("{} {}", fmt_count(units), unit_word(unit, units))
        },
        rows,
        mermaid: chart.mermaid(),
        flowchart_svg: chart.svg(),
        counted: fmt_count(stop.counted as u64),
        counted_what: match stop.count {
            StopCount::All => "all components".into(),
            StopCount::WithCandidates => "components holding at least one candidate question".into(),
        },
        required: stop.required.map(fmt_count).unwrap_or_else(|| "none set".into()),
        required_how: required_how(r),
        decision: decision_text(r),
        sizes_svg,
        sizes_absent,
        earlier_protocol: String::new(),
        funnel: Vec::new(),
    })
}

/// The ablation table (no rule, then each link rule added in order) and the same steps as a
/// flowchart.
fn ablation(r: &CountRecord) -> (Vec<AblationRow>, Flowchart) {
    let count = &r.count;
    let unit = count.unit.as_str();
    let (questions, units) = (count.questions as u64, count.units as u64);
    let b = &count.before_rules;
    let mut rows = vec![AblationRow {
        rule: "(each question with its own passages, no rule)".into(),
        components: fmt_count(b.components as u64),
        with_candidates: fmt_count(b.with_candidates as u64),
        largest: largest_text(unit, b.largest_units as u64, b.largest_questions as u64),
    }];
    let mut start = vec![format!("{} candidate questions", fmt_count(questions))];
    if unit != "question" {
        start.push(format!("{} {}", fmt_count(units), unit_word(unit, units)));
    }
    let mut chart = Flowchart::new();
    let gate = gate_nodes(&mut chart, r);
    let mut last = chart.node(start);
    if let Some(g) = gate {
        chart.edge(g, last);
    }
    for row in &count.ablation {
        let k = &row.counts;
        rows.push(AblationRow {
            rule: match &row.listed {
                Some(c) => listed_rule(&row.rule, c),
                None => row.rule.clone(),
            },
            components: fmt_count(k.components as u64),
            with_candidates: fmt_count(k.with_candidates as u64),
            largest: largest_text(unit, k.largest_units as u64, k.largest_questions as u64),
        });
        let next = chart.node(vec![
            row.rule.clone(),
            format!(
                "{} components ({} with candidates)",
                fmt_count(k.components as u64),
                fmt_count(k.with_candidates as u64)
            ),
        ]);
        chart.edge(last, next);
        last = next;
    }
    (rows, chart)
}

/// Why the histogram of component sizes is left out, in one line, when it would carry no
/// information: every candidate-holding component falls in one bin (a one-bar histogram, e.g.
/// every component one question) or there is none; `None` when it has two bars or more.
fn sizes_absent(r: &CountRecord) -> Option<String> {
    let bars: Vec<&crate::records::count::Bin> = r.count.histogram.iter().filter(|b| b.components > 0).collect();
    let plural = |n: usize, one: &str, many: &str| crate::text::plural(n as u64, one, many);
    match bars.as_slice() {
        [] => Some("No histogram of component sizes: no component holds a candidate question.".into()),
        [b] => {
            let size = if b.min == b.max {
                plural(b.min, "candidate question", "candidate questions")
            } else {
                format!("{}–{} candidate questions", b.min, b.max)
            };
            let each = match b.components {
                1 => "the only component holds".to_string(),
                n => format!("all {} components hold", fmt_count(n as u64)),
            };
            Some(format!(
                "No histogram of component sizes: {} {}, so it would have one bar.",
                each, size
            ))
        }
        _ => None,
    }
}

/// The histogram of component sizes (by number of candidate questions) as an SVG.
fn sizes_picture(r: &CountRecord) -> Result<String> {
    let mut sizes: Vec<(u64, u64)> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for bin in &r.count.histogram {
        sizes.push((bin.min as u64, bin.components as u64));
        labels.push(if bin.min == bin.max {
            bin.min.to_string()
        } else {
            format!("{}–{}", bin.min, bin.max)
        });
    }
    svg::component_sizes_svg("Components by number of candidate questions", &sizes, &labels)
}

/// How the required count was reached: the rule and each split's requirement and its source.
fn required_how(r: &CountRecord) -> String {
    let splits: Vec<String> = r
        .stop
        .splits
        .iter()
        .map(|sp| {
            let how = match &sp.power {
                Some(pw) => format!(
                    "from the target by the {} method, {:.2} unrounded",
                    pw.method, pw.unrounded
                ),
                None => "given in the protocol".into(),
            };
            format!("{} {} ({})", sp.name, fmt_count(sp.required), how)
        })
        .collect();
    if splits.is_empty() {
        "no splits registered".into()
    } else {
        format!("{}: {}", r.stop.required_rule, splits.join("; "))
    }
}

/// The stop rule's decision with the counted and required numbers.
pub(super) fn decision_text(r: &CountRecord) -> String {
    if let Some(rule) = r.contamination.as_ref().and_then(|c| c.stopped_by.as_ref()) {
        return format!("stop — contamination rule `{}` reached its stop threshold", rule);
    }
    let (counted, required) = (
        fmt_count(r.stop.counted as u64),
        r.stop.required.map(fmt_count).unwrap_or_default(),
    );
    match r.stop.decision {
        StopDecision::Stop => format!("stop — {} counted < {} required", counted, required),
        StopDecision::Go => format!("go — {} counted ≥ {} required", counted, required),
        StopDecision::Count => StopDecision::Count.to_string(),
    }
}

/// Power section: registered target, the count's requirement and the detectable difference
/// achieved by the analysis.
pub fn power_view(p: &Protocol, count: Option<&CountRecord>, analysis: Option<&AnalysisRecord>) -> PowerView {
    let t = &p.target;
    let required = count
        .and_then(|c| c.stop.required)
        .map(fmt_count)
        .unwrap_or_else(|| "not counted".into());
    let achieved = match analysis {
        None => "not analyzed".to_string(),
        Some(a) => {
            let parts = if a.systems.len() > super::results::MANY_SYSTEMS {
                achieved_range(a, t.scale)
            } else {
                a.comparisons
                    .iter()
                    .filter_map(|c| {
                        let v = c.mde.achieved?;
                        Some(format!(
                            "{} − {}: {} (σ̂ = {})",
                            c.system,
                            c.baseline,
                            fmt_value(v, t.scale),
                            fmt_value(c.mde.sd, t.scale)
                        ))
                    })
                    .collect()
            };
            let n = a
                .comparisons
                .first()
                .map(|c| format!("{} {}s", c.mde.n, c.mde.unit))
                .unwrap_or_default();
            if parts.is_empty() {
                "not computed".to_string()
            } else {
                format!(
                    "at {}, by the normal approximation (z₁₋α/₂ + z₁₋β)·σ̂/√n, σ̂ = SD of the comparison's paired differences: {}",
                    n,
                    parts.join("; ")
                )
            }
        }
    };
    PowerView {
        target_mde: fmt_value(t.mde, t.scale),
        alpha: format!("{}", t.alpha),
        power: format!("{}", t.power),
        sides: sides_word(t.sides).into(),
        sd: t
            .sd
            .map(|v| fmt_value(v, t.scale))
            .unwrap_or_else(|| "not given".into()),
        sd_source: t.sd_source.clone().unwrap_or_else(|| "source not stated".into()),
        required,
        achieved_mde: achieved,
        at_analysis: String::new(),
    }
}

/// With many systems, the detectable differences achieved as one range: the smallest and the
/// largest with their comparisons and how many comparisons it spans (empty when none is
/// defined).
fn achieved_range(a: &AnalysisRecord, scale: crate::protocol::Scale) -> Vec<String> {
    let defined: Vec<(f64, &crate::records::analysis::Comparison)> = a
        .comparisons
        .iter()
        .filter_map(|c| c.mde.achieved.map(|v| (v, c)))
        .collect();
    let lowest = defined.iter().min_by(|x, y| x.0.total_cmp(&y.0));
    let highest = defined.iter().max_by(|x, y| x.0.total_cmp(&y.0));
    match (lowest, highest) {
        (Some(lo), Some(hi)) => vec![format!(
            "from {} ({} − {}) to {} ({} − {}) over {} comparisons",
            fmt_value(lo.0, scale),
            lo.1.system,
            lo.1.baseline,
            fmt_value(hi.0, scale),
            hi.1.system,
            hi.1.baseline,
            fmt_count(defined.len() as u64)
        )],
        _ => Vec::new(),
    }
}

/// `one-sided` for a one-sided test (`sides` = 1), else `two-sided`.
pub(super) fn sides_word(sides: u8) -> &'static str {
    if sides == 1 {
        "one-sided"
    } else {
        "two-sided"
    }
}

/// The power target of the protocol an analysis ran under (`then`, from entry `entry`), when it
/// differs from the one the report shows (`now`, amended after the analysis): `the analysis
/// (entry #A) ran under entry #R's protocol: minimum detectable difference X; α, power, sides
/// …; assumed SD …`. Empty when the two targets are the same.
pub fn power_at_analysis(
    then: &crate::protocol::Target,
    now: &crate::protocol::Target,
    entry: &StoredEntry,
    analysis: &StoredEntry,
) -> String {
    // Only what the row shows is compared (a changed `sd-source` or `method` alone is not a
    // different target to read beside the table).
    let shown = |t: &crate::protocol::Target| (t.mde, t.scale, t.alpha, t.power, t.sides, t.sd);
    if shown(then) == shown(now) {
        return String::new();
    }
    format!(
        "the analysis (entry #{}) ran under entry #{}'s protocol: minimum detectable difference {}; α, power, sides {}, {}, {}; assumed SD {}",
        analysis.entry.seq,
        entry.entry.seq,
        fmt_value(then.mde, then.scale),
        then.alpha,
        then.power,
        sides_word(then.sides),
        then.sd.map(|v| fmt_value(v, then.scale)).unwrap_or_else(|| "not given".into()),
    )
}

/// The three parts of an honest report: mean and topic count, interval and reversal rate, pool
/// bias (Sakai-style reporting; see the module docs of [`crate::stats`]).
pub fn summary(p: &Protocol, c: &ComponentsView, r: &ResultsView, pool: &PoolView) -> Vec<String> {
    let mut out = Vec::new();
    if r.present {
        let topics = r.systems.first().map(|s| s.topics.clone()).unwrap_or_default();
        if r.ranking.is_empty() {
            let means: Vec<String> = r.systems.iter().map(|s| format!("{} {}", s.name, s.mean)).collect();
            out.push(format!(
                "Mean {} over {} topics: {}.",
                p.target.metric,
                topics,
                means.join(", ")
            ));
        } else {
            out.push(format!(
                "Mean {} over {} topics of {} systems: ranked in the table below.",
                p.target.metric,
                topics,
                r.systems.len()
            ));
        }
        // With a ranking, only the comparisons a registered hypothesis names are listed here.
        let listed = |name: &str| r.ranking.is_empty() || r.hypotheses.iter().any(|h| h.comparison == name);
        let rest = r.comparisons.iter().filter(|c| !listed(&c.name)).count();
        for cmp in r.comparisons.iter().filter(|c| listed(&c.name)) {
            out.push(format!(
                "{}: difference {}, paired interval {}, reversal rate {} of resamples.",
                cmp.name, cmp.diff, cmp.paired_ci, cmp.reversal
            ));
        }
        if rest > 0 {
            let other = if rest < r.comparisons.len() { "other " } else { "" };
            let (noun, verb) = if rest == 1 {
                ("comparison", "is")
            } else {
                ("comparisons", "are")
            };
            out.push(format!(
                "{} {}pairwise {} {} under Results.",
                fmt_count(rest as u64),
                other,
                noun,
                verb
            ));
        }
    } else if c.present {
        out.push(format!("No analysis was run: the stop rule decided {}.", c.decision));
    }
    out.push(pool.statement.clone());
    out
}

/// The ledger verification result `v` as the report shows it (see
/// [`crate::ledger::verify_at`]): every finding listed, a failure never hidden.
pub fn verification_view(v: &crate::ledger::VerifyReport) -> VerificationView {
    let findings: Vec<FindingView> = v
        .findings
        .iter()
        .map(|f| FindingView {
            message: f.message.clone(),
            code: f.code.to_string(),
        })
        .collect();
    let summary = if v.ok {
        format!(
            "passed: {} entries, hash chain intact, tip {}",
            v.entries,
            v.tip.as_deref().map(|t| crate::text::short(t, 12)).unwrap_or("-")
        )
    } else {
        format!("FAILED with {} finding(s), listed at the top", findings.len())
    };
    VerificationView {
        ok: v.ok,
        summary,
        findings,
    }
}

/// What a deviation entry overrode, in words (empty for other entries).
pub fn deviation_fields(e: &StoredEntry) -> String {
    if e.entry.kind != crate::ledger::EntryKind::Deviation {
        return String::new();
    }
    match crate::records::read_summary::<crate::records::DeviationSummary>(&e.entry, "deviation") {
        Ok(s) => s
            .overridden
            .into_iter()
            .chain(s.fields.iter().map(|f| f.to_string()))
            .collect::<Vec<_>>()
            .join("; "),
        Err(_) => String::new(),
    }
}

/// What amendment `e` changed against the registration or amendment before it (`prev`): each
/// protocol value that differs ([`crate::protocol::changes`]) and the declared data access when it
/// differs from the level in force before it (`access`), joined by `; `; `the protocol text is unchanged` when nothing does.
pub fn amendment_fields(prev: Option<&StoredEntry>, e: &StoredEntry, access: &AccessHistory) -> String {
    let mut out = match (
        prev.and_then(|p| p.protocol_text.as_deref()),
        e.protocol_text.as_deref(),
    ) {
        (Some(a), Some(b)) => crate::protocol::changes(a, b),
        _ => vec!["the protocol (an earlier text is not in the ledger)".into()],
    };
    let pilot = |x: &StoredEntry| -> Vec<String> {
        x.entry
            .inputs
            .iter()
            .filter(|(k, _)| k.role == crate::ledger::InputRole::Pilot)
            .map(|(k, h)| format!("{} (sha256 {})", k.path, crate::text::short(h, 12)))
            .collect()
    };
    if let Some(p) = prev {
        let (a, b) = (pilot(p), pilot(e));
        if a != b {
            let show = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
            out.push(format!("pilot file: {} → {}", show(&a), show(&b)));
        }
    }
    if let Some(&before) = access.before.get(&e.entry.seq) {
        if before != e.entry.data_access {
            out.push(format!(
                "declared data access: {} → {}{}",
                before.as_str(),
                e.entry.data_access.as_str(),
                if e.entry.data_access < before { " (lowered)" } else { "" }
            ));
        }
    }
    if out.is_empty() {
        "nothing: the protocol text is unchanged".into()
    } else {
        out.join("; ")
    }
}

/// The deviation recorded with entry `e` (the entry just before it in the same append), if any.
fn deviation_of<'a>(mine: &[&'a StoredEntry], e: &StoredEntry) -> Option<&'a StoredEntry> {
    mine.iter()
        .find(|d| d.entry.kind == crate::ledger::EntryKind::Deviation && d.entry.seq + 1 == e.entry.seq)
        .copied()
}

/// Every count and every analysis of the study, in ledger order: counts with their decision
/// and inputs; analyses as the registration rules classify them (`review`: confirmatory,
/// confirmatory with deviations, exploratory), with what differed and why.
///
/// Errors: an entry's summary that does not read as its kind's (exit 2).
pub fn history_view(mine: &[&StoredEntry], review: &crate::ledger::rules::Review, p: &Protocol) -> Result<HistoryView> {
    let study = mine.first().map(|e| e.entry.study_id.as_str()).unwrap_or("");
    let lead = review.registered_analysis(study);
    use crate::ledger::EntryKind;
    let mut counts = Vec::new();
    let mut analyses = Vec::new();
    for e in mine {
        let dev = deviation_of(mine, e);
        let reason = dev
            .and_then(|d| d.entry.reason.clone())
            .map(|r| r.replace('\n', " "))
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "—".into());
        match e.entry.kind {
            EntryKind::Count | EntryKind::Stop | EntryKind::Go => counts.push(count_history(e, reason)?),
            EntryKind::Analyze => analyses.push(analysis_history(mine, e, dev, review, p, reason)?),
            _ => {}
        }
    }
    let lead = match (lead, analyses.first()) {
        (Some(c), _) if c.departures.is_empty() => format!(
            "The results below are the confirmatory analysis (entry #{}): the first one that matches the registration.",
            c.seq
        ),
        (Some(c), _) => format!(
            "The results below are the study's registered analysis (entry #{}), {}.",
            c.seq,
            c.headline()
        ),
        (None, Some(a)) => format!(
            "No analysis matches the registration: the results below are the first analysis (entry #{}), which is exploratory.",
            a.seq
        ),
        (None, None) => String::new(),
    };
    Ok(HistoryView { counts, analyses, lead })
}

/// One count of the history: its decision, numbers, questions and passages files, and reason.
fn count_history(e: &StoredEntry, reason: String) -> Result<CountHistoryView> {
    use crate::ledger::InputRole;
    let s: crate::records::CountSummary = crate::records::read_summary(&e.entry, "count")?;
    let inputs: Vec<InputView> = e
        .entry
        .inputs
        .iter()
        .filter(|(k, _)| matches!(k.role, InputRole::Questions | InputRole::Passages))
        .map(|(k, h)| InputView {
            name: k.to_string(),
            sha256: crate::text::short(h, 12).to_string(),
        })
        .collect();
    Ok(CountHistoryView {
        seq: e.entry.seq,
        time: e.entry.time.clone(),
        decision: s.decision.to_string(),
        counted: fmt_count(s.counted as u64),
        required: s.required.map(fmt_count).unwrap_or_else(|| "—".into()),
        inputs,
        reason,
    })
}

/// One analysis of the history: confirmatory or exploratory, what differed from the
/// registration (its deviation `dev`, the amendments before it), why, and its results.
fn analysis_history(
    mine: &[&StoredEntry],
    e: &StoredEntry,
    dev: Option<&StoredEntry>,
    review: &crate::ledger::rules::Review,
    p: &Protocol,
    reason: String,
) -> Result<AnalysisHistoryView> {
    use crate::ledger::rules::Classification;
    let s: crate::records::AnalyzeSummary = crate::records::read_summary(&e.entry, "analyze")?;
    // The role is the registration rules' classification of this analysis.
    let role = review
        .verdict(e.entry.seq)
        .and_then(|v| v.analysis.as_ref())
        .map_or("exploratory", |a| match a.classification {
            Classification::Confirmatory => "confirmatory",
            Classification::ConfirmatoryWithDeviations => "confirmatory with deviations",
            Classification::Exploratory => "exploratory",
        });
    let scale = p.target.scale;
    let results: Vec<String> = s
        .comparisons
        .iter()
        .map(|c| {
            format!(
                "{} − {} {} [{}, {}]",
                c.system,
                c.baseline,
                fmt_diff(c.difference, scale),
                fmt_diff(c.interval[0], scale),
                fmt_diff(c.interval[1], scale)
            )
        })
        .collect();
    Ok(AnalysisHistoryView {
        seq: e.entry.seq,
        time: e.entry.time.clone(),
        role: role.into(),
        differed: differed(mine, e, dev),
        reason,
        results: results.join("; "),
    })
}

/// What analysis `e` did otherwise than the registration: its deviation's fields, or
/// `nothing: as registered`, each with the amendments made before it.
fn differed(mine: &[&StoredEntry], e: &StoredEntry, dev: Option<&StoredEntry>) -> String {
    let amendments: Vec<String> = mine
        .iter()
        .filter(|r| r.entry.seq < e.entry.seq && r.entry.kind == crate::ledger::EntryKind::Amend)
        .map(|r| format!("#{}", r.entry.seq))
        .collect();
    let against = match amendments.len() {
        0 => String::new(),
        1 => format!(", with amendment {}", amendments[0]),
        _ => format!(", with amendments {}", amendments.join(", ")),
    };
    let Some(d) = dev else {
        return format!("nothing: as registered{}", against);
    };
    let f = deviation_fields(d);
    let f = if f.is_empty() {
        "declared a deviation".to_string()
    } else {
        f
    };
    if against.is_empty() {
        f
    } else {
        format!("{} (from the registration{})", f, against)
    }
}

/// Hypotheses changed by an amendment made after results were seen (the amend entry declares
/// `results-seen`): each name with the mark the report puts on it.
pub fn amended_hypotheses(mine: &[&StoredEntry], access: &AccessHistory) -> Result<Vec<(String, String)>> {
    use crate::ledger::EntryKind;
    let mut out = Vec::new();
    let mut prev: Option<Protocol> = None;
    for e in mine {
        if !matches!(e.entry.kind, EntryKind::Register | EntryKind::Amend) {
            continue;
        }
        let Some(text) = e.protocol_text.as_deref() else {
            continue;
        };
        let p = crate::protocol::parse(text, std::path::Path::new("protocol.toml (ledger)"))?;
        // Results seen by this amendment or declared seen before it (a later, lower level
        // does not take that back).
        if let (Some(old), EntryKind::Amend, true) = (&prev, e.entry.kind, access.results_seen_by(e.entry.seq)) {
            let mut names: Vec<&String> = p.hypotheses.iter().map(|h| &h.name).collect();
            names.extend(old.hypotheses.iter().map(|h| &h.name));
            names.sort();
            names.dedup();
            for n in names {
                let before = old.hypotheses.iter().find(|h| &h.name == n);
                let after = p.hypotheses.iter().find(|h| &h.name == n);
                if before != after {
                    out.push((
                        n.clone(),
                        format!(
                            "⚠ changed by amendment #{} ({}) after results were seen.",
                            e.entry.seq, e.entry.time
                        ),
                    ));
                }
            }
        }
        prev = Some(p);
    }
    Ok(out)
}

/// The data access declared for a study, read entry by entry (its own entries and the
/// ledger-wide ones, first to last, as [`crate::ledger::AccessLevels`] reads them).
#[derive(Debug, Default)]
pub struct AccessHistory {
    /// Per entry (by `seq`): the highest level declared up to and including it. A level, once
    /// declared, cannot be taken back: results seen stay seen whatever a later entry says.
    pub highest: BTreeMap<u64, crate::ledger::DataAccess>,
    /// Per entry (by `seq`): the level in force just before it.
    pub before: BTreeMap<u64, crate::ledger::DataAccess>,
    /// Each entry that declared less than the level in force before it, in words.
    pub lowered: Vec<String>,
}

impl AccessHistory {
    /// The history of `study_id` over `entries` (the whole ledger, in order).
    pub fn of(entries: &[StoredEntry], study_id: &str) -> AccessHistory {
        let mut levels = crate::ledger::AccessLevels::default();
        let mut out = AccessHistory::default();
        let mut highest = crate::ledger::DataAccess::default();
        for e in entries
            .iter()
            .map(|s| &s.entry)
            .filter(|e| e.study_id == study_id || e.study_id.is_empty())
        {
            let before = levels.in_force(study_id);
            // Nothing is below `nothing-run`, the level before the first entry.
            if e.data_access < before {
                out.lowered.push(format!(
                    "entry #{} ({}, {}) declared data access \"{}\" after \"{}\" was declared",
                    e.seq,
                    e.kind.as_str(),
                    e.time,
                    e.data_access.as_str(),
                    before.as_str()
                ));
            }
            out.before.insert(e.seq, before);
            highest = highest.max(e.data_access);
            out.highest.insert(e.seq, highest);
            levels.push(e);
        }
        out
    }

    /// The first entry (by `seq`) at which results had been declared seen, if any.
    pub fn first_results_seen(&self) -> Option<u64> {
        self.highest
            .iter()
            .find(|(_, a)| **a == crate::ledger::DataAccess::ResultsSeen)
            .map(|(s, _)| *s)
    }

    /// Whether results had been declared seen by entry `seq` (inclusive).
    pub fn results_seen_by(&self, seq: u64) -> bool {
        self.highest
            .range(..=seq)
            .next_back()
            .is_some_and(|(_, a)| *a == crate::ledger::DataAccess::ResultsSeen)
    }
}

/// When `count` was made under another protocol version than the one in force (`reg`, its
/// parsed `protocol`) and an amendment since changed what a count decides from
/// ([`crate::protocol::count_basis_changes`]), or on another pilot file than `reg` registers
/// ([`crate::ledger::rules::pilot_change`]): a sentence naming both entries and each change; empty
/// otherwise (also when the count records no protocol hash).
pub fn earlier_protocol(mine: &[&StoredEntry], count: &StoredEntry, reg: &StoredEntry, protocol: &Protocol) -> String {
    let Some(sha) = count.entry.protocol_sha256.as_deref() else {
        return String::new();
    };
    let pilot = crate::ledger::rules::pilot_change(protocol, &count.entry.inputs, &reg.entry.inputs);
    let then = mine.iter().rev().find(|e| {
        e.entry.seq < count.entry.seq
            && matches!(
                e.entry.kind,
                crate::ledger::EntryKind::Register | crate::ledger::EntryKind::Amend
            )
            && e.entry.protocol_sha256.as_deref() == Some(sha)
    });
    let mut changes = Vec::new();
    if reg.entry.protocol_sha256.as_deref() != Some(sha) {
        let path = std::path::Path::new(count.entry.protocol_path.as_deref().unwrap_or("protocol.toml"));
        let parsed = then.and_then(|t| {
            let text = t.protocol_text.as_deref()?;
            Some((text, crate::protocol::parse(text, path).ok()?))
        });
        let (Some((old_text, old)), Some(new_text)) = (parsed, reg.protocol_text.as_deref()) else {
            return format!(
                "The count above (entry #{}) was made under a protocol version whose text this ledger does not hold in a readable form (SHA-256 {}); entry #{} is in force.",
                count.entry.seq,
                crate::text::short(sha, 12),
                reg.entry.seq
            );
        };
        changes = crate::protocol::count_basis_changes(&old, old_text, protocol, new_text);
    }
    changes.extend(pilot);
    if changes.is_empty() {
        return String::new();
    }
    format!(
        "The count above (entry #{}) was made under {}; the registration in force (entry #{}) counts otherwise: {}. The study was not counted again under it, so the decision above is not the amended protocol's.",
        count.entry.seq,
        match then {
            Some(t) => format!("entry #{}'s protocol", t.entry.seq),
            None => "an earlier registration".to_string(),
        },
        reg.entry.seq,
        changes.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::count::SampleCheck;

    #[test]
    fn a_listed_rule_says_what_was_checked_and_repeated() {
        let c = |repeated_lines| SampleCheck {
            pairs: 59_875,
            checked: 1_000,
            seed: 7,
            repeated_lines,
        };
        assert_eq!(
            listed_rule("near", &c(0)),
            "near (pairs read from a file; 1,000 of 59,875 checked exactly)"
        );
        assert_eq!(
            listed_rule("near", &c(1)),
            "near (pairs read from a file; 1,000 of 59,875 checked exactly; 1 line repeated a pair)"
        );
        assert_eq!(
            listed_rule("near", &c(1_204)),
            "near (pairs read from a file; 1,000 of 59,875 checked exactly; 1,204 lines repeated a pair)"
        );
    }
}
