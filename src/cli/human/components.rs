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
        row(&mut s, "(own passages only)", "-".into(), &c.before_rules);
        for r in &c.ablation {
            row(&mut s, &r.rule, r.links.to_string(), &r.counts);
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
        let _ = writeln!(s, "\n{}", stop_line(&self.stop));
        if let Some(asg) = &self.assignment {
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
        } else if self.stop.decision == StopDecision::Stop {
            let _ = writeln!(s, "No split assignment: the stop rule said stop.");
        }
        match &self.out {
            Some(out) => {
                let _ = writeln!(s, "Assignment written to {} (sha256 {})", out, self.out_sha256);
            }
            None => {
                let _ = writeln!(s, "Assignment (not written) sha256 {}", self.out_sha256);
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
