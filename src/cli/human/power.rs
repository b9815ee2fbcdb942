//! Human-readable text of `pledge power`: every difference and SD carries its unit.

use super::Human;
use crate::ops::power::{Both, Report};
use crate::power::pilot::PilotEstimate;
use crate::power::sample_size::Detectable;
use crate::power::Requirement;
use crate::protocol::Scale;
use std::fmt::Write;

/// "fraction (0-1)" or "points (0-100)".
fn unit_name(s: Scale) -> &'static str {
    match s {
        Scale::Fraction => "fraction (0-1 scale)",
        Scale::Points => "points (0-100 scale)",
        Scale::Unbounded => "unbounded (the values' own unit)",
    }
}

/// A value in the scale's unit: `0.03` or `3 points`.
fn val(v: f64, s: Scale) -> String {
    let t = format!("{:.6}", v);
    let t = t.trim_end_matches('0').trim_end_matches('.').to_string();
    format!("{}{}", t, s.unit())
}

fn sides(n: u8) -> &'static str {
    if n == 1 {
        "one-sided"
    } else {
        "two-sided"
    }
}

fn design_line(o: &mut String, r: &Requirement) {
    let _ = writeln!(o, "  alpha {}, power {}, {}", r.alpha, r.power, sides(r.sides));
    if let (Some(m), Some(icc)) = (r.per_component, r.icc) {
        let _ = writeln!(
            o,
            "  clustering: m = {} questions per component, ICC {} -> design effect {:.4}",
            m, icc, r.design_effect
        );
    }
}

/// The topics needed at each number of samples per question.
fn samples_text(o: &mut String, p: &crate::power::samples::SamplesPower, method: &str, scale: Scale) {
    let Some(first) = p.rows.first() else { return };
    let _ = writeln!(
        o,
        "Topics needed to detect {} with K samples per question (σ_topic {:.4}, σ_within {:.4}; {}; α = {}, power {}, {}-sided; method {}):",
        val(first.t.mde, scale),
        p.sd_topic,
        p.sd_within,
        p.source,
        first.t.alpha,
        first.t.power,
        first.t.sides,
        method
    );
    let _ = writeln!(
        o,
        "  {:>10}  {:>12}  {:>12}  {:>12}",
        "K", "SD per topic", "topics (t)", "(normal)"
    );
    for r in &p.rows {
        let k = match r.samples_per_topic {
            Some(k) if k == p.samples_per_topic => format!("{} (asked)", k),
            Some(k) => k.to_string(),
            None => "unlimited".to_string(),
        };
        let _ = writeln!(
            o,
            "  {:>10}  {:>12.4}  {:>12}  {:>12}",
            k, r.sd, r.t.components, r.normal.components
        );
    }
    if let (Some(one), Some(asked)) = (
        p.rows.first(),
        p.rows.iter().find(|r| r.samples_per_topic == Some(p.samples_per_topic)),
    ) {
        let chosen = |r: &crate::power::samples::SamplesRow| {
            if method == "t" {
                r.t.components
            } else {
                r.normal.components
            }
        };
        let _ = writeln!(
            o,
            "Answer (method {}): {} topics with {} samples per question ({} with one)",
            method,
            chosen(asked),
            p.samples_per_topic,
            chosen(one)
        );
    }
}

fn req_line(o: &mut String, label: &str, r: &Requirement, what: &str) {
    let _ = write!(
        o,
        "  {:<30} {} {} (unrounded {:.6}",
        label, r.components, what, r.unrounded
    );
    if r.per_component.is_some() {
        let _ = write!(o, "; {:.6} independent questions", r.independent_n);
    }
    if r.at_minimum {
        let _ = write!(o, "; 2 is the smallest n with a t-test and already reaches the power");
    }
    let _ = writeln!(o, ")");
}

fn both_block(o: &mut String, b: &Both, method: &str, what: &str) {
    req_line(o, "paired t-test (non-central t):", &b.t, what);
    req_line(o, "normal approximation:", &b.normal, what);
    let chosen = if method == "t" { &b.t } else { &b.normal };
    let _ = writeln!(o, "Answer (method {}): {} {}", method, chosen.components, what);
}

impl Human for Report {
    fn human(&self) -> String {
        let mut o = String::new();
        match self {
            Report::Required {
                scale,
                method,
                requirements: b,
            } => required_text(&mut o, b, method, *scale),
            Report::Detectable { scale, detectable } => detectable_text(&mut o, detectable, *scale),
            Report::Anova { scale, anova: r } => anova_text(&mut o, r, *scale),
            Report::Margin { scale, method, margin } => margin_text(&mut o, margin, method, *scale),
            Report::Discordant {
                scale,
                method,
                discordant: d,
                requirements: b,
            } => discordant_text(&mut o, d, b, method, *scale),
            Report::Samples { scale, method, samples } => samples_text(&mut o, samples, method, *scale),
            Report::Pilot {
                scale,
                method,
                pilot,
                requirements,
                clustered,
                samples,
            } => {
                pilot_text(&mut o, pilot, *scale);
                if let Some(b) = requirements {
                    let _ = writeln!(
                        o,
                        "Components needed to detect {} (SD = component-level SD, components like the pilot's):",
                        val(b.t.mde, *scale)
                    );
                    design_line(&mut o, &b.t);
                    both_block(&mut o, b, method, "components");
                }
                if let Some(b) = clustered {
                    let _ = writeln!(o, "With the per-question SD and the pilot's ICC:");
                    design_line(&mut o, &b.t);
                    both_block(&mut o, b, method, "components");
                }
                if let Some(p) = samples {
                    samples_text(&mut o, p, method, *scale);
                }
            }
        }
        o
    }
}

/// Components needed for a difference, by both methods.
fn required_text(o: &mut String, b: &Both, method: &str, scale: Scale) {
    let r = &b.t;
    let _ = writeln!(o, "Components needed to detect a difference of {}", val(r.mde, scale));
    let _ = writeln!(o, "  unit: {}", unit_name(scale));
    let per = if r.per_component.is_some() {
        "question"
    } else {
        "component"
    };
    let _ = writeln!(
        o,
        "  SD of the per-{} paired difference {}, effect size d = {:.6}",
        per,
        val(r.sd, scale),
        r.effect_size
    );
    design_line(o, r);
    both_block(o, b, method, "components");
}

/// Components needed for a hypothesis with a margin (or its power at n), by both methods.
fn margin_text(o: &mut String, r: &crate::power::margin::MarginPower, method: &str, scale: Scale) {
    let claim = match r.kind {
        crate::protocol::HypothesisKind::Equivalence => format!("within ±{}", val(r.margin, scale)),
        _ => format!("margin {}", val(r.margin, scale)),
    };
    let _ = writeln!(
        o,
        "{} {} at an expected difference of {}",
        r.kind,
        claim,
        val(r.expected, scale)
    );
    let _ = writeln!(o, "  unit: {}", unit_name(scale));
    let per = if r.per_component.is_some() {
        "question"
    } else {
        "component"
    };
    let _ = write!(o, "  SD of the per-{} paired difference {}", per, val(r.sd, scale));
    match r.effect_size {
        Some(d) => {
            let _ = writeln!(o, ", shifted effect size d = {:.6}", d);
        }
        None => {
            let _ = writeln!(o);
        }
    }
    let _ = writeln!(o, "  alpha {} (each one-sided test), power {}", r.alpha, r.power);
    if let (Some(m), Some(icc)) = (r.per_component, r.icc) {
        let _ = writeln!(
            o,
            "  clustering: m = {} questions per component, ICC {} -> design effect {:.4}",
            m, icc, r.design_effect
        );
    }
    if let Some(at) = &r.at {
        let _ = writeln!(
            o,
            "Power at {} components ({:.4} independent units): {:.6} ({}), {:.6} (normal approximation)",
            at.components, at.effective_n, at.power_t, r.exact_method, at.power_normal
        );
        return;
    }
    for (label, need) in [(r.exact_method.as_str(), &r.t), ("normal approximation", &r.normal)] {
        if let Some(n) = need {
            let _ = writeln!(
                o,
                "  {}: {} components (unrounded {:.6}{})",
                label,
                n.components,
                n.unrounded,
                if n.at_minimum {
                    "; 2 is the smallest n and already reaches the power"
                } else {
                    ""
                }
            );
        }
    }
    let chosen = if method == "t" { &r.t } else { &r.normal };
    if let Some(n) = chosen {
        let _ = writeln!(o, "Answer (method {}): {} components", method, n.components);
    }
}

/// Topics needed by the one-way ANOVA topic-set design.
fn anova_text(o: &mut String, r: &crate::power::anova::AnovaRequirement, scale: Scale) {
    let _ = writeln!(
        o,
        "Topics needed to separate {} systems whose best and worst means differ by {} (one-way ANOVA, Sakai 2016)",
        r.systems,
        val(r.min_range, scale)
    );
    let _ = writeln!(o, "  unit: {}", unit_name(scale));
    let _ = writeln!(
        o,
        "  residual SD {} (variance {:.6}), Cohen's f = {:.6}; alpha {}, power {}",
        val(r.variance.sqrt(), scale),
        r.variance,
        r.effect_size_f,
        r.alpha,
        r.power
    );
    let _ = writeln!(
        o,
        "  non-central F: df {} and {}, achieved power {:.4} at {} topics (unrounded {:.6})",
        r.df_between, r.df_within, r.achieved_power, r.topics, r.unrounded
    );
    let _ = writeln!(o, "Answer: {} topics", r.topics);
}

/// Questions (or components) needed for paired binary accuracy from discordant shares.
fn discordant_text(o: &mut String, d: &crate::power::sample_size::Discordant, b: &Both, method: &str, scale: Scale) {
    let _ = writeln!(
        o,
        "Paired binary accuracy: questions needed to detect {}",
        val(b.t.mde, scale)
    );
    let _ = writeln!(o, "  unit: {}", unit_name(scale));
    let _ = writeln!(
        o,
        "  discordant shares p10 = {}, p01 = {} (expected difference {:.6} as a fraction)",
        d.p10, d.p01, d.expected_difference
    );
    let _ = writeln!(
        o,
        "  Var(d) = p10 + p01 - (p10 - p01)^2 = {:.6} (fraction^2); SD {}",
        d.variance,
        val(b.t.sd, scale)
    );
    design_line(o, &b.t);
    let what = if b.t.per_component.is_some() {
        "components"
    } else {
        "questions"
    };
    both_block(o, b, method, what);
}

fn detectable_text(o: &mut String, d: &Detectable, s: Scale) {
    for w in &d.warnings {
        let _ = writeln!(o, "warning: {}", w);
    }
    let _ = writeln!(o, "Difference detectable with {} components", d.components);
    let _ = writeln!(o, "  unit: {}", unit_name(s));
    let _ = writeln!(o, "  SD of the paired difference {}", val(d.sd, s));
    let _ = writeln!(o, "  alpha {}, power {}, {}", d.alpha, d.power, sides(d.sides));
    if let (Some(m), Some(icc)) = (d.per_component, d.icc) {
        let _ = writeln!(
            o,
            "  clustering: m = {}, ICC {} -> design effect {:.4}, effective sample size {:.4}",
            m, icc, d.design_effect, d.effective_n
        );
    }
    let _ = writeln!(o, "  paired t-test (non-central t):  MDE {}", val(d.mde_t, s));
    let _ = writeln!(o, "  normal approximation:           MDE {}", val(d.mde_normal, s));
    if let Some(p) = &d.at_mde {
        let _ = writeln!(
            o,
            "Power at a difference of {} (d = {:.6}): t-test {:.6}, normal {:.6}",
            val(p.mde, s),
            p.effect_size,
            p.power_t,
            p.power_normal
        );
    }
}

fn pilot_text(o: &mut String, p: &PilotEstimate, s: Scale) {
    let _ = writeln!(
        o,
        "Pilot: {} - {} on {} questions in {} components",
        p.systems[0], p.systems[1], p.questions, p.components
    );
    let _ = writeln!(o, "  unit: {}", unit_name(s));
    if p.missing > 0 || p.not_counted > 0 {
        let _ = writeln!(
            o,
            "  left out: {} without both scores, {} not counted by the cap",
            p.missing, p.not_counted
        );
    }
    let _ = writeln!(o, "  mean paired difference {}", val(p.mean_difference, s));
    let _ = writeln!(
        o,
        "  SD of the per-question paired difference {}",
        val(p.sd_question, s)
    );
    let _ = writeln!(
        o,
        "  SD of the component-level paired difference {}",
        val(p.sd_component, s)
    );
    match &p.icc {
        Some(i) => {
            let _ = writeln!(
                o,
                "  ICC (one-way ANOVA) {:.6}, used {:.6} (largest component {} questions)",
                i.estimate, i.used, p.max_per_component
            );
        }
        None => {
            let _ = writeln!(o, "  ICC: not estimated");
        }
    }
    for n in &p.notes {
        let _ = writeln!(o, "  note: {}", n);
    }
}
