//! The text form of an analysis result.

use super::Human;
use crate::protocol::Direction;
use crate::stats::bootstrap::Bootstrap;
use crate::stats::margin::{HypothesisKind, MarginTest};
use crate::stats::system::SystemInterval;
use crate::stats::{AnalysisResult, Comparison};
use std::fmt::Write;

fn num(x: f64) -> String {
    format!("{:+.4}", x)
}

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn boot_line(b: &Bootstrap) -> String {
    let rev = b.reversal_rate.map_or("n/a (zero difference)".to_string(), pct);
    format!(
        "diff {}  median {}  {:.0}% interval [{}, {}]  reversal {}  ties {}  ({} {}s, B = {})",
        num(b.observed),
        num(b.median),
        100.0 * b.level,
        num(b.interval[0]),
        num(b.interval[1]),
        rev,
        pct(b.ties_share),
        b.units,
        b.unit.split(' ').next().unwrap_or("unit"),
        b.trials
    )
}

fn p_is(p: f64, decimals: usize) -> String {
    crate::stats::pvalue::p_phrase(p, decimals)
}

/// One comparison's lines; its heading names the split analyzed, when the analysis read one.
fn comparison(out: &mut String, c: &Comparison, split: Option<&str>) {
    let _ = writeln!(
        out,
        "\n{} − {}  (difference {}; {}{})",
        c.system,
        c.baseline,
        num(c.difference),
        if c.estimator.is_empty() {
            "mean over topics"
        } else {
            &c.estimator
        },
        split.map_or(String::new(), |s| format!("; split {s}"))
    );
    hypothesis_line(out, c);
    let _ = writeln!(out, "  paired bootstrap:     {}", boot_line(&c.paired));
    if let Some(b) = &c.stratified {
        let _ = writeln!(out, "  stratified bootstrap: {}", boot_line(b));
    }
    if let Some(b) = &c.component {
        let _ = writeln!(out, "  component bootstrap:  {}", boot_line(b));
    }
    t_test_lines(out, c);
    effect_line(out, c);
    randomization_line(out, c);
    mde_line(out, c);
    detail_lines(out, c);
    for f in &c.flags {
        let _ = writeln!(out, "  flag: {}", f);
    }
}

/// The hypothesis' answer, when the comparison answers one: the verdict and why, the margin
/// test, the units a study would need when inconclusive.
fn hypothesis_line(out: &mut String, c: &Comparison) {
    let Some(h) = &c.hypothesis else { return };
    let verdict = match &h.judgement {
        Some(j) => j.verdict.as_str().to_uppercase(),
        None if h.supported => "SUPPORTED".into(),
        None => "NOT SUPPORTED".into(),
    };
    let claim = match (h.kind, h.margin, h.direction) {
        (HypothesisKind::Superiority, _, Some(d)) => format!("{} {}-sided", d, h.sides),
        (kind, Some(m), Some(d)) => format!("{}, margin {}, {} is better", kind, m, d),
        (kind, Some(m), None) => format!("{}, margin ±{}", kind, m),
        (kind, _, _) => kind.to_string(),
    };
    let _ = writeln!(
        out,
        "  hypothesis `{}` ({}, {}): {} at alpha {} — adjusted {} over {} {} hypothesis(es), difference {}{}",
        h.name,
        h.family,
        claim,
        verdict,
        h.alpha,
        p_is(h.p_adjusted, 4),
        h.family_size,
        h.family,
        match (h.kind.has_margin(), h.direction_holds) {
            (false, true) => "in the expected direction",
            (false, false) => "against the expected direction",
            (true, true) => "on the claimed side",
            (true, false) => "not on the claimed side",
        },
        match h.powered {
            Some(false) => "; UNDERPOWERED: the achieved detectable difference misses the registered target",
            _ => "",
        }
    );
    if let Some(m) = &h.margin_test {
        margin_lines(out, m);
    }
    if let Some(j) = &h.judgement {
        let _ = writeln!(
            out,
            "    verdict: {}: {} ({:.0}% {} [{}, {}])",
            j.verdict,
            j.reason,
            100.0 * j.level,
            j.interval_method,
            num(j.interval[0]),
            num(j.interval[1])
        );
        if let Some(n) = &j.needed {
            let _ = writeln!(
                out,
                "    deciding it would take about {} {}s at the observed SD {:.4} and power {} ({})",
                n.units, n.unit, n.sd, n.power, n.method
            );
        }
    }
}

/// The one-sided t-tests of a margin hypothesis and its intervals at 1 − 2α.
fn margin_lines(out: &mut String, m: &MarginTest) {
    for t in &m.tests {
        let _ = writeln!(
            out,
            "    one-sided t-test H1: difference {} {}: {}",
            if t.alternative == Direction::Greater { ">" } else { "<" },
            num(t.bound),
            match (t.t, t.p) {
                (Some(tv), Some(p)) => format!("t = {:.4}, df = {}, {}", tv, m.df, p_is(p, 4)),
                _ => m.flag.clone().unwrap_or_else(|| "undefined".into()),
            }
        );
    }
    let _ = writeln!(
        out,
        "    {:.0}% intervals (the tests' level): t {}, bootstrap [{}, {}]",
        100.0 * m.level,
        m.t_interval
            .map_or("undefined".to_string(), |[a, b]| format!("[{}, {}]", num(a), num(b))),
        num(m.bootstrap_interval[0]),
        num(m.bootstrap_interval[1])
    );
}

/// The paired t-test on the primary units, and the cluster-robust SE when components are known.
fn t_test_lines(out: &mut String, c: &Comparison) {
    let t = &c.t_test;
    match (t.t, t.p, t.ci) {
        (Some(tv), Some(p), Some(ci)) => {
            let _ = writeln!(
                out,
                "  paired t-test ({}s): t = {:.4}, df = {}, {}, {:.0}% CI [{}, {}]",
                c.primary_unit,
                tv,
                t.df,
                p_is(p, 4),
                100.0 * t.level,
                num(ci[0]),
                num(ci[1])
            );
        }
        _ => {
            let _ = writeln!(out, "  paired t-test: {}", t.flag.as_deref().unwrap_or("undefined"));
        }
    }
    if let Some(cr) = &c.cluster_robust {
        let _ = writeln!(
            out,
            "  cluster-robust SE (CRV1): {:.4} over {} components (naive {:.4}){}",
            cr.se,
            cr.clusters,
            cr.naive_se,
            cr.test.p.map_or(String::new(), |p| format!(", {}", p_is(p, 4)))
        );
    }
}

/// d_z with its interval.
fn effect_line(out: &mut String, c: &Comparison) {
    let e = &c.effect_size;
    match (e.estimate, e.ci) {
        (Some(d), Some(ci)) => {
            let _ = writeln!(
                out,
                "  effect size d_z = {:.4}, {:.0}% CI [{:.4}, {:.4}] ({} {}s)",
                d,
                100.0 * e.level,
                ci[0],
                ci[1],
                e.n,
                e.unit
            );
        }
        (Some(d), None) => {
            let _ = writeln!(out, "  effect size d_z = {:.4}", d);
        }
        _ => {
            let _ = writeln!(out, "  effect size: {}", e.flag.as_deref().unwrap_or("undefined"));
        }
    }
}

/// The sign-flip test and its adjusted p.
fn randomization_line(out: &mut String, c: &Comparison) {
    let r = &c.randomization;
    let _ = writeln!(
        out,
        "  randomization test ({}, {} {}s, ties in {}): {}; {}-adjusted {} ({} comparisons)",
        r.method,
        r.units,
        c.primary_unit,
        r.ties,
        p_is(r.p, 6),
        c.p_adjusted.method,
        p_is(c.p_adjusted.p, 6),
        c.p_adjusted.family
    );
}

/// The achieved detectable difference beside the registered target.
fn mde_line(out: &mut String, c: &Comparison) {
    let m = &c.mde;
    match m.achieved {
        Some(a) => {
            let target = match (m.target, m.meets_target) {
                (Some(t), Some(true)) => format!(" (registered target {}: met)", t),
                (Some(t), _) => format!(" (registered target {}: NOT met)", t),
                _ => String::new(),
            };
            let _ = writeln!(out, "  achieved MDE at n = {} {}s: {:.4}{}", m.n, m.unit, a, target);
        }
        None => {
            let _ = writeln!(out, "  achieved MDE: {}", m.flag.as_deref().unwrap_or("undefined"));
        }
    }
}

/// The settings, the topic and component accounting, the strata.
fn header(out: &mut String, r: &AnalysisResult) {
    let s = &r.settings;
    let _ = writeln!(out, "pledge {}: {}", r.mode, r.registration);
    let _ = writeln!(
        out,
        "metric {} ({}); generator {} ({}) seed {}; B = {} trials; percentile {}",
        s.metric,
        s.scale,
        r.generator.name,
        r.generator.version,
        r.generator.seed,
        s.trials,
        crate::stats::percentile::method_name(s.percentile)
    );
    let t = &r.topics;
    let _ = writeln!(
        out,
        "topics: {} analyzed of {} scored (missing-topics = {}: {} filled with 0, {} dropped; {} left out by the assignment)",
        t.analyzed,
        t.in_scores,
        match t.policy {
            crate::protocol::MissingTopics::Error => "error",
            crate::protocol::MissingTopics::Zero => "zero",
            crate::protocol::MissingTopics::Intersection => "intersection",
        }, t.filled_with_zero, t.dropped_missing, t.excluded_by_assignment
    );
    if let Some(c) = &r.components {
        let _ = writeln!(
            out,
            "components: {} ({} questions, largest {}; cap {}){}",
            c.components,
            c.questions,
            c.largest,
            c.cap,
            c.split.as_ref().map_or(String::new(), |s| format!("; split {s}"))
        );
    }
    if let Some(st) = &r.strata {
        let sizes: Vec<String> = st.sizes.iter().map(|(n, k)| format!("{} {}", n, k)).collect();
        let _ = writeln!(out, "strata by {}: {}", st.field, sizes.join(", "));
    }
}

/// The systems' table, and the unfiltered means under a topic filter.
fn systems_table(out: &mut String, r: &AnalysisResult) {
    let w = r
        .systems
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(6)
        // A format width must fit in 16 bits; a longer name simply overflows its column.
        .clamp(6, 1000);
    match r.systems.first().and_then(|s| s.interval.as_ref()) {
        Some(first) => interval_table(out, r, first, w),
        None => plain_table(out, r, w),
    }
    if let Some(f) = &r.topic_filter {
        let _ = writeln!(out, "\n{}", f.statement);
        for (name, m) in &f.unfiltered_means {
            let _ = writeln!(out, "  unfiltered mean of {}: {:.4}", name, m);
        }
    }
}

/// The short name of an interval's method, for the table.
fn short_method(i: &SystemInterval) -> String {
    if i.wilson.is_some() {
        "Wilson".into()
    } else if i.method.contains("CRV1") {
        format!("CRV1, {} df", i.df)
    } else {
        format!("t, {} df", i.df)
    }
}

fn bracket(iv: Option<[f64; 2]>) -> String {
    iv.map_or("undefined".to_string(), |[a, b]| format!("[{:.4}, {:.4}]", a, b))
}

/// A rank as people write it: `3`, or a shared mid-rank `2.5`.
fn rank_text(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{:.0}", r)
    } else {
        format!("{:.1}", r)
    }
}

/// The systems in the table's order (by rank when ranked, else as given), with each one's
/// ranking columns: rank, rank interval, P(rank 1) and Tukey group (empty strings when absent).
fn table_rows(r: &AnalysisResult) -> Vec<(usize, [String; 4])> {
    let Some(rk) = &r.ranking else {
        return (0..r.systems.len()).map(|i| (i, Default::default())).collect();
    };
    let mut order: Vec<usize> = (0..rk.systems.len()).collect();
    order.sort_by(|&a, &b| rk.systems[a].rank.total_cmp(&rk.systems[b].rank).then(a.cmp(&b)));
    let groups = r.tukey_hsd.as_ref().map(|t| {
        let name = |i: usize| rk.systems[i].name.as_str();
        let ranks: Vec<f64> = rk.systems.iter().map(|s| s.rank).collect();
        crate::stats::rank::letters_by_rank(&ranks, r.settings.alpha, |a, b| t.p_of(name(a), name(b)))
    });
    order
        .iter()
        .map(|&i| {
            let s = &rk.systems[i];
            let group = groups.as_ref().map_or(String::new(), |g| g[i].clone());
            let cols = [
                rank_text(s.rank),
                format!("[{}, {}]", rank_text(s.interval[0]), rank_text(s.interval[1])),
                format!("{:.3}", s.p_first),
                group,
            ];
            (r.systems.iter().position(|x| x.name == s.name).unwrap_or(i), cols)
        })
        .collect()
}

/// The title of the systems' table: the estimator, the intervals' methods and, when ranked,
/// what the rank columns are.
fn table_title(out: &mut String, r: &AnalysisResult, first: &SystemInterval) {
    let ranked = r.ranking.as_ref().map_or(String::new(), |rk| {
        format!(
            "; ranked, 1 = {}: rank interval = {:.0}% percentile interval of the rank over the B = {} paired draws, P(rank 1) = share of draws ranked first{}",
            if rk.lower_is_better { "lowest (lower is better)" } else { "highest" },
            100.0 * rk.level,
            rk.trials,
            match r.tukey_hsd {
                Some(_) => format!(
                    ", group = systems sharing a letter are not told apart by the Tukey HSD test at alpha {} (a letter per longest run of consecutive ranks with no pair apart)",
                    r.settings.alpha
                ),
                None => String::new(),
            }
        )
    });
    let _ = writeln!(
        out,
        "\n{}: {} ({:.0}% intervals; SE and interval: {}{}; bootstrap: {}{})",
        if r.ranking.is_some() { "ranking" } else { "systems" },
        first.estimator,
        100.0 * first.level,
        first.method,
        if first.wilson.is_some() {
            "; Wilson score interval for 0/1 scores"
        } else {
            ""
        },
        first.bootstrap_method,
        ranked
    );
}

/// Every system's estimate with its SE and intervals, all under one estimator (the
/// comparisons'); with three or more systems ranked by it, with the rank interval, P(rank 1)
/// and the Tukey group first and last; other means, when they differ, on lines of their own
/// below.
fn interval_table(out: &mut String, r: &AnalysisResult, first: &SystemInterval, w: usize) {
    table_title(out, r, first);
    let ranked = r.ranking.is_some();
    let grouped = ranked && r.tukey_hsd.is_some();
    let _ = writeln!(
        out,
        "{}{:<w$}  {:>8}  {:>8}  {:>20}  {:<12}  {:>20}  {:>6}  {:>10}{}",
        if ranked { "rank  " } else { "" },
        "system",
        "estimate",
        "SE",
        "interval",
        "method",
        "bootstrap",
        "topics",
        "components",
        match (ranked, grouped) {
            (true, true) => format!("  {:>13}  {:>9}  group", "rank interval", "P(rank 1)"),
            (true, false) => format!("  {:>13}  {:>9}", "rank interval", "P(rank 1)"),
            _ => String::new(),
        },
        w = w
    );
    for (k, cols) in table_rows(r) {
        let sy = &r.systems[k];
        let Some(i) = &sy.interval else { continue };
        let _ = writeln!(
            out,
            "{}{:<w$}  {:>8.4}  {:>8.4}  {:>20}  {:<12}  {:>20}  {:>6}  {:>10}{}",
            if ranked {
                format!("{:<4}  ", cols[0])
            } else {
                String::new()
            },
            sy.name,
            i.estimate,
            i.se,
            bracket(i.wilson.or(i.interval)),
            short_method(i),
            bracket(Some(i.bootstrap)),
            sy.topics,
            sy.components.map_or("-".to_string(), |c| c.to_string()),
            match (ranked, grouped) {
                (true, true) => format!("  {:>13}  {:>9}  {}", cols[1], cols[2], cols[3]),
                (true, false) => format!("  {:>13}  {:>9}", cols[1], cols[2]),
                _ => String::new(),
            },
            w = w
        );
    }
    if first.estimator != "mean over topics" {
        let means: Vec<String> = r.systems.iter().map(|s| format!("{} {:.4}", s.name, s.mean)).collect();
        let _ = writeln!(
            out,
            "  question-weighted means over the analyzed topics (another estimator, not the one compared): {}",
            means.join(", ")
        );
    }
}

/// The systems' table of a record without per-system intervals.
fn plain_table(out: &mut String, r: &AnalysisResult, w: usize) {
    let _ = writeln!(
        out,
        "\n{:<w$}  {:>8}  {:>6}  {:>10}",
        "system",
        "mean",
        "topics",
        "components",
        w = w
    );
    for sy in &r.systems {
        let _ = writeln!(
            out,
            "{:<w$}  {:>8.4}  {:>6}  {:>10}",
            sy.name,
            sy.mean,
            sy.topics,
            sy.components.map_or("-".to_string(), |c| c.to_string()),
            w = w
        );
    }
}

/// Wins, ties and losses over topics, the correlation and both SEs, McNemar for 0/1 scores.
fn detail_lines(out: &mut String, c: &Comparison) {
    let Some(d) = &c.detail else { return };
    let _ = writeln!(
        out,
        "  over topics: {} wins, {} ties, {} losses; correlation r = {:.4}; SE of the difference: paired {:.4}, unpaired {:.4}",
        d.wins, d.ties, d.losses, d.correlation, d.paired_se, d.unpaired_se
    );
    if let Some(m) = &d.mcnemar {
        let relation = match (c.primary_unit.as_str(), c.randomization.method.as_str()) {
            ("topic", "exact") => " (the exact randomization test above is McNemar's exact test)",
            ("topic", _) => " (the Monte-Carlo randomization test above estimates McNemar's exact p)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  McNemar's test (0/1 scores; {} topics where only {} scores 1, {} where only {} does): exact {}, {}{}",
            m.b,
            c.system,
            m.c,
            c.baseline,
            p_is(m.exact_p, 4),
            p_is(m.mid_p, 4).replacen('p', "mid-p", 1),
            relation
        );
    }
}

/// The randomized Tukey HSD test over all pairs, when it ran, and the warning when a pair's
/// Tukey-adjusted p is below its own randomization p.
fn tukey_block(out: &mut String, r: &AnalysisResult) {
    let Some(t) = &r.tukey_hsd else { return };
    let pairs: Vec<(String, f64, f64)> = r
        .comparisons
        .iter()
        .filter(|c| c.p_adjusted.method == "tukey-hsd")
        .map(|c| {
            (
                format!("{} − {}", c.system, c.baseline),
                c.p_adjusted.p,
                c.randomization.p,
            )
        })
        .collect();
    if let Some(w) = crate::stats::tukey::below_pairwise_warning(&pairs) {
        let _ = writeln!(
            out,
            "
warning: {}",
            w
        );
    }
    let _ = writeln!(
        out,
        "\nrandomized Tukey HSD ({}, {} {}s, {} assignments, ties in {}):",
        t.method, t.units, t.unit, t.assignments, t.ties
    );
    for p in &t.pairs {
        let _ = writeln!(
            out,
            "  {} − {}: {}  {}",
            p.system,
            p.other,
            num(p.difference),
            p_is(p.p, 4)
        );
    }
}

/// The family across metrics: how its p-values were adjusted, then each further metric's system
/// means and comparisons.
fn family_block(out: &mut String, r: &AnalysisResult, split: Option<&str>) {
    let Some(f) = &r.metric_family else { return };
    let _ = writeln!(
        out,
        "\nfamily across metrics: {} over {} p-values of {} metrics ({}), α = {}{}; every adjusted p and verdict above and below is adjusted in it",
        f.method,
        f.size,
        f.metrics.len(),
        f.metrics.join(", "),
        f.alpha,
        if f.secondary_size > 0 {
            format!(" (secondary hypotheses: {} p-values, a family of their own)", f.secondary_size)
        } else {
            String::new()
        }
    );
    for m in &f.others {
        let means: Vec<String> = m
            .systems
            .iter()
            .map(|s| format!("{} {}", s.name, num(s.mean)))
            .collect();
        let _ = writeln!(out, "\nmetric {}: mean {}", m.metric, means.join(", "));
        for c in &m.comparisons {
            comparison(out, c, split);
        }
    }
}

impl Human for AnalysisResult {
    fn human(&self) -> String {
        let mut out = String::new();
        header(&mut out, self);
        systems_table(&mut out, self);
        let split = self.components.as_ref().and_then(|c| c.split.as_deref());
        for c in &self.comparisons {
            comparison(&mut out, c, split);
        }
        family_block(&mut out, self, split);
        tukey_block(&mut out, self);
        super::samples::block(&mut out, self.repeated_samples.as_ref(), self.settings.interval_level);
        if let Some(pb) = &self.pool_bias {
            let _ = writeln!(out, "\npool bias: {}", pb.statement);
        }
        if !self.notes.is_empty() {
            let _ = writeln!(out);
            for n in &self.notes {
                let _ = writeln!(out, "note: {}", n);
            }
        }
        out
    }
}
