//! Text form of `pledge components`.

use super::Human;
use crate::components::{self, stop::Decision, stop::StopDecision};
use crate::ops::components::ComponentsOutcome;
use std::fmt::Write;

/// The stop rule's verdict in one line (also printed on stderr when it says stop).
pub fn stop_line(d: &Decision) -> String {
    let what = match d.count {
        crate::protocol::StopCount::WithCandidates => "components with candidates",
        crate::protocol::StopCount::All => "components",
    };
    let parts: Vec<String> = d.splits.iter().map(|s| format!("{} {}", s.name, s.required)).collect();
    match d.required {
        None => format!(
            "counted {} {}; the protocol has no splits, so no stop rule applies",
            d.counted, what
        ),
        Some(r) => format!(
            "stop rule: {}: counted {} {}, required {} ({}, {})",
            d.decision.as_str().to_uppercase(),
            d.counted,
            what,
            r,
            parts.join(" + "),
            match d.required_rule {
                crate::protocol::StopRequired::SumOfSplits => "sum of splits",
                crate::protocol::StopRequired::EachSplit => "largest split",
            }
        ),
    }
}

impl Human for ComponentsOutcome {
    fn human(&self) -> String {
        let c = &self.count;
        let mut s = String::new();
        let _ = writeln!(s, "Components of study `{}` (unit: {})", self.study, c.unit);
        let _ = writeln!(
            s,
            "{} passages, {} candidate questions, {} units",
            c.passages, c.questions, c.units
        );
        if c.conflicting_titles > 0 {
            let _ = writeln!(
                s,
                "note: {} paragraph titles occur with differing texts; the first text is kept",
                c.conflicting_titles
            );
        }
        count_table(&mut s, c);
        if let Some(d) = &self.diagnostics {
            diagnostics(&mut s, d);
        }
        let _ = writeln!(s, "\n{}", stop_line(&self.stop));
        assignment_lines(&mut s, self);
        // Without a split assignment (a stop, or no --assign) the file holds each question's
        // component with the split columns empty: say so, rather than "assignment".
        let what = if self.assignment.is_some() {
            "Split assignment"
        } else {
            "Component file (each question's component; split columns empty, nothing assigned)"
        };
        match &self.out {
            Some(out) => {
                let _ = writeln!(s, "{} written to {} (sha256 {})", what, out, self.out_sha256);
            }
            None => {
                let _ = writeln!(s, "{} not written, sha256 {}", what, self.out_sha256);
            }
        }
        if self.dry_run {
            let _ = writeln!(s, "Dry run: nothing was written (no ledger entry, no assignment file).");
        } else {
            let e: Vec<String> = self.ledger_entries.iter().map(|n| format!("#{}", n)).collect();
            let _ = writeln!(
                s,
                "Ledger: {} {}",
                if e.len() == 1 { "entry" } else { "entries" },
                e.join(", ")
            );
        }
        s
    }
}

/// The count's table (links and components after each rule), its largest component and the
/// histogram of components by candidate questions.
fn count_table(s: &mut String, c: &components::CountResult) {
    let _ = writeln!(
        s,
        "\n{:<36} {:>9} {:>11} {:>16} {:>22}",
        "link rule", "links", "components", "with candidates", "largest (units/quest.)"
    );
    let row = |s: &mut String, name: &str, links: String, k: &components::count::Snapshot| {
        let _ = writeln!(
            s,
            "{:<36} {:>9} {:>11} {:>16} {:>22}",
            name,
            links,
            k.components,
            k.with_candidates,
            format!("{} / {}", k.largest_units, k.largest_questions)
        );
    };
    row(s, "(own passages only)", "-".into(), &c.before_rules);
    for r in &c.ablation {
        row(s, &r.rule, r.links.to_string(), &r.counts);
    }
    if let Some(l) = &c.largest {
        let _ = writeln!(
            s,
            "\nLargest component: {} ({} units, {} questions)",
            l.id, l.units, l.size
        );
    }
    let _ = writeln!(s, "Components by candidate questions (empty size bins left out):");
    for b in c.histogram.iter().filter(|b| b.components > 0) {
        let label = if b.min == b.max {
            b.min.to_string()
        } else {
            format!("{}-{}", b.min, b.max)
        };
        let _ = writeln!(
            s,
            "  {:>11}  {:>7} components  {:>7} questions",
            label, b.components, b.questions
        );
    }
}

/// The split assignment's lines, or why there is none after a stop.
fn assignment_lines(s: &mut String, o: &ComponentsOutcome) {
    if let Some(asg) = &o.assignment {
        let _ = writeln!(
            s,
            "\nAssigned (seed {}, at most {} counted per component, {}):",
            asg.seed,
            asg.max_per_component,
            match asg.keep {
                crate::protocol::Keep::FirstById => "first by id",
                crate::protocol::Keep::SeededSample => "seeded sample",
            }
        );
        for sp in &asg.splits {
            let _ = writeln!(
                s,
                "  {:<12} {:>6} components (required {}), {} questions, {} counted",
                sp.name, sp.components, sp.required, sp.questions, sp.counted
            );
        }
    } else if o.stop.decision == StopDecision::Stop {
        let _ = writeln!(s, "No split assignment: the stop rule said stop.");
    }
}

/// The sensitivity table and the bridges, under the statement that they change nothing.
fn diagnostics(s: &mut String, d: &components::Diagnostics) {
    let _ = writeln!(s, "\n{}", crate::report::diagnostics::STATEMENT);
    if let Some(k) = &d.sensitivity {
        let _ = writeln!(
            s,
            "\nSensitivity of the final count to rule `{}` (registered: shingle size {}, Jaccard >= {}; * marks it):",
            k.rule, k.registered_shingle_size, k.registered_jaccard
        );
        let _ = writeln!(
            s,
            "  {:>7} {:>8} {:>10} {:>11} {:>16} {:>22}",
            "shingle", "Jaccard", "pairs", "components", "with candidates", "largest (units/quest.)"
        );
        for p in &k.points {
            let _ = writeln!(
                s,
                "{} {:>7} {:>8.2} {:>10} {:>11} {:>16} {:>22}",
                if p.registered { "*" } else { " " },
                p.shingle_size,
                p.jaccard,
                p.pairs,
                p.counts.components,
                p.counts.with_candidates,
                format!("{} / {}", p.counts.largest_units, p.counts.largest_questions)
            );
        }
    }
    if let Some(b) = &d.bridges {
        let _ = writeln!(
            s,
            "\nTop {} of {} bridges (elements joining 2 or more units); largest component now {} units / {} questions:",
            b.top.len(),
            b.total,
            b.largest_units,
            b.largest_questions
        );
        let _ = writeln!(
            s,
            "  {:<8} {:<28} {:>8} {:>7} {:>9}  {:>26}",
            "kind", "passage or value", "passages", "units", "questions", "largest without it (u/q)"
        );
        for x in &b.top {
            let _ = writeln!(
                s,
                "  {:<8} {:<28} {:>8} {:>7} {:>9}  {:>26}",
                x.kind.as_str(),
                x.label,
                x.passages,
                x.units,
                x.questions,
                format!(
                    "{} / {} (-{} units)",
                    x.largest_units_without,
                    x.largest_questions_without,
                    b.largest_units.saturating_sub(x.largest_units_without)
                )
            );
            if !x.excerpt.is_empty() {
                let _ = writeln!(s, "           {}", x.excerpt);
            }
        }
    }
}
