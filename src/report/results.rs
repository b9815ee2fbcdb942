//! The report's results section from the analysis record: per-system means, each comparison
//! with its intervals, tests and bootstrap picture, the registered hypotheses' answers, and the
//! randomized Tukey HSD table when it is the adjustment.

use super::card::{primary_bootstrap, Verdict};
use super::model::*;
use super::names::ShortNames;
use super::svg::{self, Histogram};
use crate::error::Result;
use crate::protocol::{Protocol, Scale};
use crate::records::analysis::{AchievedMde as Mde, Bootstrap, Comparison, HypothesisResult};
use crate::records::AnalysisRecord;
use std::collections::BTreeMap;

/// More systems than this make a study of "many systems": the summary then leads with a
/// ranking table, and bootstrap pictures are drawn only for the registered hypotheses.
pub const MANY_SYSTEMS: usize = 6;

/// Results section from the analysis record `r` under the protocol `p`, system names as `names`
/// gives them; each comparison's bootstrap picture goes into `svgs`.
///
/// Errors: a picture that cannot be drawn (exit 2).
pub fn results_view(
    r: &AnalysisRecord,
    p: &Protocol,
    names: &ShortNames,
    svgs: &mut BTreeMap<String, String>,
) -> Result<ResultsView> {
    let scale = p.target.scale;
    let settings = &r.settings;
    let topics = &r.topics;
    let many = r.systems.len() > MANY_SYSTEMS;
    Ok(ResultsView {
        present: true,
        metric: format!(
            "{} ({} scale)",
            p.target.metric,
            match scale {
                Scale::Points => "points, 0–100",
                Scale::Fraction => "fraction, 0–1",
                Scale::Unbounded => "unbounded, the values' own unit",
            }
        ),
        missing_policy: format!(
            "{} ({} topics in the scores, {} analyzed)",
            topics.policy,
            fmt_count(topics.in_scores as u64),
            fmt_count(topics.analyzed as u64)
        ),
        interval_desc: format!(
            "Intervals are {:.0}% percentile intervals ({} percentile) from {} bootstrap trials; the reversal rate is the share of resamples whose difference has the opposite sign to the observed one, ties counted separately.",
            settings.interval_level * 100.0,
            crate::stats::percentile::method_name(settings.percentile),
            fmt_count(settings.trials as u64)
        ),
        adjust: settings.adjust.to_string(),
        tukey: tukey_view(r, settings.alpha, scale, names),
        filter: r.topic_filter.as_ref().map(|f| f.statement.clone()).unwrap_or_default(),
        hypotheses: r
            .comparisons
            .iter()
            .filter_map(|c| hypothesis_view(c, scale, names))
            .collect(),
        estimator: estimator_text(r, p),
        samples: samples_text(r, p, names),
        systems: systems_view(r, scale, names),
        comparisons: comparisons_view(r, p, names, svgs)?,
        notes: notes_of(r).iter().map(|n| names.replace_in(n)).collect(),
        names_rule: if names.any() { names.rule() } else { String::new() },
        names: names
            .key()
            .iter()
            .map(|(short, full)| NameView {
                short: short.clone(),
                full: full.clone(),
            })
            .collect(),
        ranking: if many { ranking_view(r, scale, names) } else { Vec::new() },
        ranking_note: if many { ranking_note(r) } else { String::new() },
        pictures_note: if many {
            format!(
                "Bootstrap pictures are drawn for the comparisons a registered hypothesis names only: with {} systems and {} comparisons, the tables above give every interval.",
                r.systems.len(),
                fmt_count(r.comparisons.len() as u64)
            )
        } else {
            String::new()
        },
        // The split is named by the caller, which has the registration rules' verdict.
        split: String::new(),
    })
}

/// The systems ranked, highest first (rank 1), tied values sharing the mean of their ranks, each
/// with its interval (the bootstrap percentile interval of its estimate, `—` in a record without
/// one), and from the record's ranking its rank interval and P(rank 1). With a ranking the order
/// and the value shown are its estimates (the comparisons' estimator); a record written before
/// rankings were stored is ranked by mean, with `—` in the two columns.
fn ranking_view(r: &AnalysisRecord, scale: Scale, names: &ShortNames) -> Vec<RankView> {
    let ranked = r.ranking.as_ref().filter(|rk| rk.systems.len() == r.systems.len());
    let value = |k: usize| ranked.map_or(r.systems[k].mean, |rk| rk.systems[k].estimate);
    // Best first: the highest, or the lowest when lower is better.
    let sign = if lower_is_better(r) { -1.0 } else { 1.0 };
    let mut order: Vec<usize> = (0..r.systems.len()).collect();
    order.sort_by(|&a, &b| (sign * value(b)).total_cmp(&(sign * value(a))).then(a.cmp(&b)));
    let letters: BTreeMap<String, String> = r
        .tukey_hsd
        .as_ref()
        .map(|t| tukey_letters(r, t, r.settings.alpha).into_iter().collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(order.len());
    let mut i = 0;
    while i < order.len() {
        let v = value(order[i]);
        let tied = order[i..].iter().take_while(|&&k| value(k) == v).count();
        // Positions i+1 ..= i+tied share their value.
        let rank = (2 * i + tied + 1) as f64 / 2.0;
        for &k in &order[i..i + tied] {
            let sy = &r.systems[k];
            let place = ranked.map(|rk| &rk.systems[k]);
            out.push(RankView {
                rank: rank_text(rank),
                name: names.get(&sy.name).to_string(),
                mean: fmt_value(v, scale),
                interval: sy.interval.as_ref().map_or_else(
                    || "—".to_string(),
                    |iv| {
                        format!(
                            "[{}, {}]",
                            fmt_value(iv.bootstrap[0], scale),
                            fmt_value(iv.bootstrap[1], scale)
                        )
                    },
                ),
                rank_interval: place.map_or_else(
                    || "—".to_string(),
                    |p| format!("{}–{}", rank_text(p.interval[0]), rank_text(p.interval[1])),
                ),
                p_first: place.map_or_else(|| "—".to_string(), |p| format!("{:.3}", p.p_first)),
                group: letters.get(&sy.name).cloned().unwrap_or_default(),
            });
        }
        i += tied;
    }
    out
}

/// Whether the analysis ranked lower values first (its ranking, else its settings).
fn lower_is_better(r: &AnalysisRecord) -> bool {
    r.ranking
        .as_ref()
        .map_or(r.settings.lower_is_better, |rk| rk.lower_is_better)
}

/// A rank as people write it: `3`, or a shared mid-rank `2.5`.
fn rank_text(rank: f64) -> String {
    if rank.fract() == 0.0 {
        format!("{:.0}", rank)
    } else {
        format!("{:.1}", rank)
    }
}

/// What the ranking table's rank and intervals are, in one sentence.
fn ranking_note(r: &AnalysisRecord) -> String {
    let interval = r.systems.iter().find_map(|s| s.interval.as_ref()).map_or_else(
        || "no per-system interval is in this analysis record".to_string(),
        |iv| {
            format!(
                "the interval is each system's {:.0}% bootstrap percentile interval of its {} ({})",
                iv.level * 100.0,
                iv.estimator,
                iv.bootstrap_method
            )
        },
    );
    let ranks = r.ranking.as_ref().map_or_else(
        || "this analysis record has no rank intervals".to_string(),
        |rk| {
            format!(
                "the rank interval is the {:.0}% percentile interval of the system's rank over the B = {} paired bootstrap draws of all systems' estimates, and P(rank 1) the share of draws in which it ranks first, ties split (Hall & Miller 2009)",
                rk.level * 100.0,
                fmt_count(rk.trials as u64)
            )
        },
    );
    format!(
        "Ranked by mean, {} first (tied means share the mean of their ranks); {}; {}. Which systems the tests tell apart is under Results.",
        if lower_is_better(r) { "lowest (lower is better)" } else { "highest" },
        interval,
        ranks
    )
}

/// One row per system: its mean (and, with a topic filter, its mean over all topics), topics
/// and components.
fn systems_view(r: &AnalysisRecord, scale: Scale, names: &ShortNames) -> Vec<SystemView> {
    r.systems
        .iter()
        .map(|sy| SystemView {
            name: names.get(&sy.name).to_string(),
            mean: fmt_value(sy.mean, scale),
            unfiltered_mean: r
                .topic_filter
                .as_ref()
                .and_then(|f| f.unfiltered_means.iter().find(|(n, _)| n == &sy.name))
                .map(|(_, m)| fmt_value(*m, scale))
                .unwrap_or_default(),
            topics: fmt_count(sy.topics as u64),
            components: sy.components.map(|c| fmt_count(c as u64)).unwrap_or_else(|| "—".into()),
        })
        .collect()
}

/// One row per comparison, each with its bootstrap picture (drawn into `svgs`).
fn comparisons_view(
    r: &AnalysisRecord,
    p: &Protocol,
    names: &ShortNames,
    svgs: &mut BTreeMap<String, String>,
) -> Result<Vec<ComparisonView>> {
    let scale = p.target.scale;
    let many = r.systems.len() > MANY_SYSTEMS;
    let mut out = Vec::new();
    for (i, c) in r.comparisons.iter().enumerate() {
        let name = format!("{} − {}", names.get(&c.system), names.get(&c.baseline));
        let primary = primary_bootstrap(c);
        let picture = if many && c.hypothesis.is_none() {
            // With many systems only the registered hypotheses get a picture (one line says so).
            Err(String::new())
        } else {
            bootstrap_picture(&name, primary)?
        };
        let (file, svg_absent) = match picture {
            Ok(picture) => {
                let file = format!("bootstrap-{}-{}.svg", i + 1, file_safe(&c.system));
                svgs.insert(file.clone(), picture);
                (file, String::new())
            }
            Err(why) => (String::new(), why),
        };
        let mut flags = c.flags.clone();
        let m = &c.mde;
        if m.meets_target == Some(false) {
            flags.push(format!(
                "with {} {}s the detectable difference is {}, larger than the registered {}",
                m.n,
                m.unit,
                m.achieved.map(|v| fmt_value(v, scale)).unwrap_or_default(),
                // The target the analysis recorded (an amendment after it does not move it).
                fmt_value(m.target.unwrap_or(p.target.mde), scale)
            ));
        }
        out.push(ComparisonView {
            name,
            diff: fmt_diff(c.difference, scale),
            paired_ci: interval(&c.paired, scale),
            component_ci: c
                .component
                .as_ref()
                .map(|b| interval(b, scale))
                .unwrap_or_else(|| "—".into()),
            reversal: reversal(primary),
            ties: fmt_pct(primary.ties_share),
            t_p: c.t_test.p.map(fmt_p).unwrap_or_else(|| "—".into()),
            rand_p: fmt_p(c.randomization.p),
            adj_p: fmt_p(c.p_adjusted.p),
            effect: match (c.effect_size.estimate, c.effect_size.ci) {
                (Some(d), Some([lo, hi])) => format!("{:+.3} [{:+.3}, {:+.3}]", d, lo, hi),
                (Some(d), None) => format!("{:+.3}", d),
                _ => "—".into(),
            },
            flags: names.replace_in(&flags.join("; ")),
            svg: file,
            svg_absent,
        });
    }
    Ok(out)
}

/// The bootstrap distribution of comparison `name` as an SVG histogram with its interval and
/// the observed difference; `Err` with why it is left out, in one line, when it would carry no
/// information: the record holds no histogram, or every resample fell in one bin (one bar).
fn bootstrap_picture(name: &str, b: &Bootstrap) -> Result<std::result::Result<String, String>> {
    let h = &b.histogram;
    if h.counts.is_empty() {
        return Ok(Err(format!(
            "No bootstrap picture of {}: the analysis record holds no histogram of its resamples.",
            name
        )));
    }
    if h.counts.iter().filter(|&&c| c > 0).count() == 1 {
        return Ok(Err(format!(
            "No bootstrap picture of {}: every resample gave the same difference (to the histogram's bin width), so it would have one bar.",
            name
        )));
    }
    let width = if h.bin_width > 0.0 { h.bin_width } else { 1e-3 };
    let edges: Vec<f64> = (0..=h.counts.len()).map(|k| h.min + k as f64 * width).collect();
    let title = format!("{} ({} bootstrap)", name, b.unit);
    let histogram = Histogram {
        edges,
        counts: h.counts.clone(),
    };
    Ok(Ok(svg::bootstrap_svg(
        &title,
        &histogram,
        b.interval[0],
        b.interval[1],
        b.observed,
    )?))
}

/// The reversal rate, or a dash when the observed difference is zero.
fn reversal(b: &Bootstrap) -> String {
    b.reversal_rate
        .map(fmt_pct)
        .unwrap_or_else(|| "— (no difference)".into())
}

/// The registered hypothesis comparison `c` answers, if any, with its verdict and power.
fn hypothesis_view(c: &Comparison, scale: Scale, names: &ShortNames) -> Option<HypothesisView> {
    let h = c.hypothesis.as_ref()?;
    let primary = primary_bootstrap(c);
    let estimate = fmt_diff(c.difference, scale);
    let iv = interval(primary, scale);
    let m = &c.mde;
    let claim = super::card::claim_text(h, scale);
    Some(HypothesisView {
        name: h.name.clone(),
        family: h.family.clone(),
        comparison: format!("{} − {}", names.get(&c.system), names.get(&c.baseline)),
        direction: h.direction.map_or_else(|| "±margin".to_string(), |d| d.to_string()),
        claim: match h.direction {
            Some(d) if !claim.is_empty() => format!("{}, {} is better", claim, d),
            _ => claim,
        },
        verdict: match margin_verdict_text(h, &estimate, scale) {
            Some(v) => v,
            None => verdict_text(h, &estimate, &iv),
        },
        estimate,
        interval: iv,
        reversal: reversal(primary),
        p_adjusted: fmt_p(h.p_adjusted),
        outcome: Verdict::of(h),
        underpowered: matches!((m.achieved, m.target), (Some(a), Some(t)) if a > t),
        power: power_text(m, scale),
        amended: String::new(),
    })
}

/// The test behind a verdict: `at α = 0.05: difference +0.11 [+0.03, +0.19], two-sided test,
/// adjusted p = 0.0191 over 1 primary hypothesis`.
fn verdict_text(h: &HypothesisResult, estimate: &str, interval: &str) -> String {
    format!(
        "at α = {}: difference {} {}, {} test, adjusted {} over {}{}",
        h.alpha,
        estimate,
        interval,
        super::sections::sides_word(h.sides),
        crate::stats::pvalue::p_phrase(h.p_adjusted, 4),
        crate::text::plural(
            h.family_size as u64,
            &format!("{} hypothesis", h.family),
            &format!("{} hypotheses", h.family)
        ),
        if h.direction_holds {
            ""
        } else {
            "; the difference has the opposite sign to the one expected"
        }
    )
}

/// The test behind a margin hypothesis' verdict: `at α = 0.05: difference +0.0750 [+0.0137,
/// +0.1363] (90% t interval, df = 19), two one-sided paired t-tests (TOST) against ±0.2000,
/// adjusted p = 0.0011 over 1 primary hypothesis`, and for an inconclusive verdict the units that
/// would decide it; `None` for superiority (or a record without a judgement).
fn margin_verdict_text(h: &HypothesisResult, estimate: &str, scale: Scale) -> Option<String> {
    let j = h
        .judgement
        .as_ref()
        .filter(|_| h.kind != crate::records::analysis::HypothesisKind::Superiority)?;
    let m = h.margin?;
    let test = match h.kind {
        crate::records::analysis::HypothesisKind::Equivalence => {
            format!("two one-sided paired t-tests (TOST) against ±{}", fmt_value(m, scale))
        }
        _ => {
            let bound = h
                .margin_test
                .as_ref()
                .and_then(|t| t.tests.first())
                .map_or(m, |t| t.bound);
            format!("one-sided paired t-test against {}", fmt_diff(bound, scale))
        }
    };
    let mut text = format!(
        "at α = {}: difference {} [{}, {}] ({:.0}% {}), {}, adjusted {} over {}",
        h.alpha,
        estimate,
        fmt_diff(j.interval[0], scale),
        fmt_diff(j.interval[1], scale),
        100.0 * j.level,
        j.interval_method,
        test,
        crate::stats::pvalue::p_phrase(h.p_adjusted, 4),
        crate::text::plural(
            h.family_size as u64,
            &format!("{} hypothesis", h.family),
            &format!("{} hypotheses", h.family)
        ),
    );
    if !h.direction_holds {
        text.push_str("; the difference is not on the claimed side");
    }
    if let Some(n) = super::card::needed_text(h) {
        text.push_str("; ");
        text.push_str(&n);
    }
    Some(text)
}

/// The detectable difference achieved against the registered target, in words.
fn power_text(m: &Mde, scale: Scale) -> String {
    match (m.achieved, m.target) {
        (Some(a), Some(t)) if a <= t => format!(
            "detectable difference {} at {} {}s meets the registered {}",
            fmt_value(a, scale),
            m.n,
            m.unit,
            fmt_value(t, scale)
        ),
        (Some(a), Some(t)) => format!(
            "the detectable difference at {} {}s is {}, larger than the registered {}",
            m.n,
            m.unit,
            fmt_value(a, scale),
            fmt_value(t, scale)
        ),
        (Some(a), None) => format!("detectable difference {}", fmt_value(a, scale)),
        _ => format!(
            "detectable difference undefined ({})",
            m.flag.as_deref().unwrap_or("no data")
        ),
    }
}

/// The estimator, in words. The components' estimator applies to component resampling only:
/// where the registration resamples topics, it says so, so that "mean over topics" does not
/// read as a deviation from it.
fn estimator_text(r: &AnalysisRecord, p: &Protocol) -> String {
    let estimator = r
        .comparisons
        .first()
        .map(|c| c.estimator.clone())
        .filter(|e| !e.is_empty())
        .unwrap_or_else(|| "mean over topics".into());
    if p.analysis.resampling_unit == crate::protocol::ResamplingUnit::Topic && estimator == "mean over topics" {
        format!(
            "mean over topics (the registered resampling unit is the topic; the components' estimator, {}, applies to component resampling)",
            p.components.estimator.as_str()
        )
    } else {
        estimator
    }
}

/// The method line for repeated samples per topic (epochs, seeds), from the record's
/// `repeated_samples`: K (the least and the most per topic), that each topic's value is the mean
/// of its samples, the two-level bootstrap that gave the intervals of the repeated-samples
/// table, and each system's and comparison's variance split between topics and within topics
/// (Miller, "Adding Error Bars to Evals", 2024, §3). Without that field but with a registered
/// aggregation other than the mean: which sample each topic's value is. Empty otherwise.
fn samples_text(r: &AnalysisRecord, p: &Protocol, names: &ShortNames) -> String {
    use crate::protocol::SampleAggregation;
    let value = |a: SampleAggregation| match a {
        SampleAggregation::Mean => "the mean of its samples",
        SampleAggregation::First => "its first sample",
        SampleAggregation::Majority => "the value the majority of its samples have",
    };
    let Some(rs) = &r.repeated_samples else {
        return match p.scores.as_ref().map(|s| s.sample_aggregation) {
            Some(a) if !a.is_default() => format!(
                "Repeated samples: each topic's value is {} (no two-level bootstrap or variance split: they describe the mean of the samples).",
                value(a)
            ),
            _ => String::new(),
        };
    };
    let [lo, hi] = rs.samples_per_topic;
    let k = if lo == hi {
        format!("K = {} {}s per topic", lo, rs.unit)
    } else {
        format!("K = {} to {} {}s per topic (the least and the most)", lo, hi, rs.unit)
    };
    let split = |s: &crate::records::analysis::SampleSummary| match &s.split {
        Some(v) => format!(
            "{}: σ²_topic {:.4}, σ²_within {:.4}, {:.0}% of the SE² within topics",
            s.name,
            v.between,
            v.within,
            100.0 * v.within_share
        ),
        None => format!("{}: no topic has two {}s", s.name, rs.unit),
    };
    let splits: Vec<String> = rs.systems.iter().chain(&rs.comparisons).map(split).collect();
    names.replace_in(&format!(
        "Repeated samples: {}, each topic's value {}; intervals of the repeated samples: {}. Variance split between topics (σ²_topic) and within topics (σ²_within, one {}'s spread around its topic's mean): {}.",
        k,
        value(rs.aggregation),
        rs.method,
        rs.unit,
        splits.join("; ")
    ))
}

/// The analysis's notes, and how many missing scores were filled or topics dropped.
fn notes_of(r: &AnalysisRecord) -> Vec<String> {
    let topics = &r.topics;
    let mut notes = r.notes.clone();
    if topics.filled_with_zero > 0 {
        notes.push(format!("{} missing scores were filled with 0", topics.filled_with_zero));
    }
    if topics.dropped_missing > 0 {
        notes.push(format!(
            "{} topics missing for some system were dropped",
            topics.dropped_missing
        ));
    }
    notes
}

fn interval(b: &Bootstrap, scale: Scale) -> String {
    format!(
        "[{}, {}]",
        fmt_diff(b.interval[0], scale),
        fmt_diff(b.interval[1], scale)
    )
}

fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect()
}

/// The randomized Tukey HSD table: every pair with its difference and p, and which systems no
/// pair test tells apart at α (connected groups of indistinguishable systems).
fn tukey_view(r: &AnalysisRecord, alpha: f64, scale: Scale, names: &ShortNames) -> TukeyView {
    let Some(t) = &r.tukey_hsd else {
        return TukeyView::default();
    };
    let rows = t
        .pairs
        .iter()
        .map(|p| TukeyRowView {
            pair: format!("{} − {}", names.get(&p.system), names.get(&p.other)),
            difference: fmt_diff(p.difference, scale),
            p: fmt_p(p.p),
            distinguishable: if p.p < alpha { "yes".into() } else { "no".into() },
        })
        .collect();
    let listed: Vec<String> = tukey_letters(r, t, alpha)
        .into_iter()
        .map(|(name, letters)| format!("{} {}", name, letters))
        .collect();
    let pairs: Vec<(String, f64, f64)> = r
        .comparisons
        .iter()
        .filter(|c| c.p_adjusted.method == "tukey-hsd")
        .map(|c| {
            (
                format!("{} − {}", names.get(&c.system), names.get(&c.baseline)),
                c.p_adjusted.p,
                c.randomization.p,
            )
        })
        .collect();
    TukeyView {
        present: true,
        warning: crate::stats::tukey::below_pairwise_warning(&pairs).unwrap_or_default(),
        description: format!(
            "Randomized Tukey HSD ({}, {} {}s, {} assignments): {}",
            t.method, t.units, t.unit, t.assignments, t.statistic
        ),
        rows,
        groups: format!(
            "Tukey groups at α = {} (a compact letter display, best rank first: systems sharing a letter are not told apart, as in `pledge compare`): {}",
            alpha,
            names.replace_in(&listed.join("; "))
        ),
    }
}

/// The compact letter display of the Tukey HSD pairs at `alpha`, the letters `compare` prints
/// ([`crate::stats::rank::letters_by_rank`]): systems by their rank in the record's ranking (by
/// mean, best first, for a record without one), each `name: letters`, in rank order. Systems
/// sharing a letter are not told apart; unlike a transitive grouping, a chain of close systems
/// does not merge the best with the worst.
fn tukey_letters(r: &AnalysisRecord, t: &crate::records::analysis::TukeyHsd, alpha: f64) -> Vec<(String, String)> {
    let ranked = r.ranking.as_ref();
    let sign = if lower_is_better(r) { -1.0 } else { 1.0 };
    let rank_of = |name: &str| -> f64 {
        if let Some(s) = ranked.and_then(|rk| rk.systems.iter().find(|s| s.name == name)) {
            return s.rank;
        }
        // Without a ranking: the count of systems with a better mean, plus one.
        let mean = |n: &str| r.systems.iter().find(|s| s.name == n).map_or(0.0, |s| sign * s.mean);
        1.0 + t.systems.iter().filter(|o| mean(o) > mean(name)).count() as f64
    };
    let ranks: Vec<f64> = t.systems.iter().map(|s| rank_of(s)).collect();
    let p_of = |a: usize, b: usize| {
        let (x, y) = (&t.systems[a], &t.systems[b]);
        t.pairs
            .iter()
            .find(|p| (&p.system == x && &p.other == y) || (&p.system == y && &p.other == x))
            .map(|p| p.p)
    };
    let letters = crate::stats::rank::letters_by_rank(&ranks, alpha, p_of);
    let mut order: Vec<usize> = (0..ranks.len()).collect();
    order.sort_by(|&a, &b| ranks[a].total_cmp(&ranks[b]).then(a.cmp(&b)));
    order
        .into_iter()
        .map(|i| (t.systems[i].clone(), letters[i].clone()))
        .collect()
}
