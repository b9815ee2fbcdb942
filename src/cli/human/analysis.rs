//! The text form of an analysis result.

use super::Human;
use crate::stats::bootstrap::Bootstrap;
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
    if let Some(h) = &c.hypothesis {
        let _ = writeln!(
            out,
            "  hypothesis `{}` ({}, {} {}-sided): {} at alpha {} — adjusted {} over {} {} hypothesis(es), difference {}{}",
            h.name,
            h.family,
            h.direction,
            h.sides,
            if h.supported { "SUPPORTED" } else { "NOT SUPPORTED" },
            h.alpha,
            p_is(h.p_adjusted, 4),
            h.family_size,
            h.family,
            if h.direction_holds { "in the expected direction" } else { "against the expected direction" },
            match h.powered {
                Some(false) => "; UNDERPOWERED: the achieved detectable difference misses the registered target",
                _ => "",
            }
        );
    }
    let _ = writeln!(out, "  paired bootstrap:     {}", boot_line(&c.paired));
    if let Some(b) = &c.stratified {
        let _ = writeln!(out, "  stratified bootstrap: {}", boot_line(b));
    }
    if let Some(b) = &c.component {
        let _ = writeln!(out, "  component bootstrap:  {}", boot_line(b));
    }
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
    for f in &c.flags {
        let _ = writeln!(out, "  flag: {}", f);
    }
}

impl Human for AnalysisResult {
    fn human(&self) -> String {
        let mut out = String::new();
        let s = &self.settings;
        let _ = writeln!(out, "pledge {}: {}", self.mode, self.registration);
        let _ = writeln!(
            out,
            "metric {} ({}); generator {} ({}) seed {}; B = {} trials; percentile {}",
            s.metric,
            match s.scale {
                crate::protocol::Scale::Fraction => "fraction",
                crate::protocol::Scale::Points => "points",
            },
            self.generator.name,
            self.generator.version,
            self.generator.seed,
            s.trials,
            crate::stats::percentile::method_name(s.percentile)
        );
        let t = &self.topics;
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
        if let Some(c) = &self.components {
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
        if let Some(st) = &self.strata {
            let sizes: Vec<String> = st.sizes.iter().map(|(n, k)| format!("{} {}", n, k)).collect();
            let _ = writeln!(out, "strata by {}: {}", st.field, sizes.join(", "));
        }
        let w = self
            .systems
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(6)
            // A format width must fit in 16 bits; a longer name simply overflows its column.
            .clamp(6, 1000);
        let _ = writeln!(
            out,
            "\n{:<w$}  {:>8}  {:>6}  {:>10}",
            "system",
            "mean",
            "topics",
            "components",
            w = w
        );
        for sy in &self.systems {
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
        if let Some(f) = &self.topic_filter {
            let _ = writeln!(out, "\n{}", f.statement);
            for (name, m) in &f.unfiltered_means {
                let _ = writeln!(out, "  unfiltered mean of {}: {:.4}", name, m);
            }
        }
        let split = self.components.as_ref().and_then(|c| c.split.as_deref());
        for c in &self.comparisons {
            comparison(&mut out, c, split);
        }
        if let Some(t) = &self.tukey_hsd {
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
