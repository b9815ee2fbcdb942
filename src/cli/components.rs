//! `pledge components`: count components under the registered link rules, apply the stop rule,
//! optionally assign whole components to splits; record the decision in the ledger.

use super::{resolve, Ctx, Outcome};
use crate::assignment;
use crate::components::{self, assign::Assignment, stop::Decision, CountResult, Progress};
use crate::error::exit;
use crate::ledger::{Draft, EntryKind, Ledger, RngInfo};
use crate::output::{render, Format, Human};
use crate::study;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

/// Arguments of `pledge components`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The registered protocol TOML file.
    pub protocol: PathBuf,
    /// Passages: JSON Lines {id, text, ...} (gzip accepted). Optional with a HotpotQA or MuSiQue
    /// questions file, whose paragraphs are then the passages.
    #[arg(long)]
    pub passages: Option<PathBuf>,
    /// Candidate questions: JSON Lines {id, passages, decoys|decoy, ...}, or HotpotQA / MuSiQue.
    #[arg(long)]
    pub questions: PathBuf,
    /// Qrels whose relevant documents are each question's passages (BEIR queries.jsonl with
    /// qrels/SPLIT.tsv); `-` for any one of the inputs reads standard input.
    #[arg(long)]
    pub qrels: Option<PathBuf>,
    /// Also assign whole components to the protocol's splits (only when the stop rule says go).
    #[arg(long)]
    pub assign: bool,
    /// Where to write the question -> component CSV [default: <study-id>.components.csv].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Count without writing to the ledger (works on an unregistered draft protocol).
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// What the command prints.
#[derive(Debug, Serialize)]
struct Report {
    study: String,
    dry_run: bool,
    count: CountResult,
    stop: Decision,
    assignment: Option<Assignment>,
    out: String,
    out_sha256: String,
    ledger_entries: Vec<u64>,
}

struct Bar(indicatif::ProgressBar);

impl Progress for Bar {
    fn start(&self, stage: &str, total: u64) {
        self.0.reset();
        self.0.set_length(total);
        self.0.set_message(stage.to_string());
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

fn bar(ctx: &Ctx) -> Bar {
    let b = if ctx.stderr_is_tty {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template("{msg:>22} [{bar:40}] {pos}/{len} ({eta})") {
        b.set_style(style.progress_chars("=> "));
    }
    Bar(b)
}

pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let lp = study::load_protocol(&resolve(ctx, &a.protocol))?;
    let ledger = if a.dry_run {
        None
    } else {
        let l = Ledger::open(&ctx.cwd)?;
        study::check_registered(&l.entries()?, &lp)?;
        Some(l)
    };
    let passages = a.passages.as_ref().map(|p| resolve(ctx, p));
    let questions = resolve(ctx, &a.questions);
    let limits = crate::input::Limits::default();
    let named = [a.passages.as_deref(), Some(a.questions.as_path()), a.qrels.as_deref()];
    if named.iter().flatten().filter(|p| crate::input::is_stdin(p)).count() > 1 {
        return Err(crate::error::Error::input(
            "`-` (standard input) can be given only once",
        ));
    }
    let p_in = a
        .passages
        .as_ref()
        .map(|p| super::inputs::open(ctx, p, limits))
        .transpose()?;
    let q_in = super::inputs::open(ctx, &a.questions, limits)?;
    let r_in = a
        .qrels
        .as_ref()
        .map(|p| super::inputs::open(ctx, p, limits))
        .transpose()?;
    let (corpus, _layout) = components::read::read_corpus_inputs(p_in.as_ref(), &q_in, r_in.as_ref())?;
    for n in &corpus.notes {
        eprintln!("note: {}", n);
    }
    let progress = bar(ctx);
    let result = components::count(&lp.protocol, &corpus, &progress)?;
    progress.finish();
    let decision = components::stop::decide(&lp.protocol, &result)?;
    let assignment = if a.assign && decision.decision != "stop" {
        Some(components::assign::assign(&lp.protocol, &result, &decision.splits)?)
    } else {
        None
    };
    let out = match &a.out {
        Some(p) => resolve(ctx, p),
        None => ctx.cwd.join(format!("{}.components.csv", lp.protocol.study.id)),
    };
    let rows = assignment.as_ref().map_or(&result.rows, |x| &x.rows);
    let bytes = assignment::to_csv(rows);
    crate::io::write_atomic(&out, &bytes)?;
    let out_sha = crate::io::sha256_hex(&bytes);
    let mut report = Report {
        study: lp.protocol.study.id.clone(),
        dry_run: a.dry_run,
        count: result,
        stop: decision,
        assignment,
        out: out.display().to_string(),
        out_sha256: out_sha.clone(),
        ledger_entries: vec![],
    };
    if let Some(ledger) = &ledger {
        let mut inputs = BTreeMap::new();
        // The hashes are of exactly the bytes read (standard input included).
        if let (Some(p), Some(i)) = (&passages, &p_in) {
            inputs.insert(format!("passages:{}", study::repo_relative(ledger, p)), i.sha256());
        }
        inputs.insert(
            format!("questions:{}", study::repo_relative(ledger, &questions)),
            q_in.sha256(),
        );
        if let (Some(p), Some(i)) = (&a.qrels, &r_in) {
            inputs.insert(
                format!("qrels:{}", study::repo_relative(ledger, &resolve(ctx, p))),
                i.sha256(),
            );
        }
        inputs.insert(
            format!("assignment:{}", study::repo_relative(ledger, &out)),
            out_sha.clone(),
        );
        let kind = match report.stop.decision.as_str() {
            "stop" => EntryKind::Stop,
            "go" => EntryKind::Go,
            _ => EntryKind::Count,
        };
        let draft = Draft {
            kind: Some(kind),
            study_id: report.study.clone(),
            protocol_sha256: Some(lp.hash.sha256.clone()),
            protocol_path: Some(study::repo_relative(ledger, &lp.path)),
            inputs: inputs.clone(),
            summary: serde_json::json!({
                "decision": report.stop.decision,
                "counted": report.stop.counted,
                "required": report.stop.required,
                "count": report.stop.count,
                "required_rule": report.stop.required_rule,
                "splits": report.stop.splits,
                "components": report.count.components,
                "with_candidates": report.count.with_candidates,
                "questions": report.count.questions,
                "assignment_sha256": out_sha,
            }),
            result: Some(serde_json::json!({ "count": report.count, "stop": report.stop })),
            ..Draft::default()
        };
        report.ledger_entries.push(ledger.append(&draft, ctx.now)?.seq);
        if let Some(asg) = &report.assignment {
            let draft = Draft {
                kind: Some(EntryKind::Assign),
                rng: Some(RngInfo::chacha8(asg.seed)),
                summary: serde_json::json!({
                    "splits": asg.splits,
                    "max_per_component": asg.max_per_component,
                    "keep": asg.keep,
                    "assignment_sha256": out_sha,
                }),
                result: Some(serde_json::to_value(asg).unwrap_or_default()),
                ..draft
            };
            report.ledger_entries.push(ledger.append(&draft, ctx.now)?.seq);
        }
    }
    let code = if report.stop.decision == "stop" {
        eprintln!("{}", stop_line(&report.stop));
        exit::STOP
    } else {
        exit::OK
    };
    Ok((code, render(&report, a.format)))
}

fn stop_line(d: &Decision) -> String {
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
            d.decision.to_uppercase(),
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

impl Human for Report {
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
        } else if self.stop.decision == "stop" {
            let _ = writeln!(s, "No split assignment: the stop rule said stop.");
        }
        let _ = writeln!(s, "Assignment written to {} (sha256 {})", self.out, self.out_sha256);
        if self.dry_run {
            let _ = writeln!(s, "Dry run: nothing was written to the ledger.");
        } else {
            let e: Vec<String> = self.ledger_entries.iter().map(|n| format!("#{}", n)).collect();
            let _ = writeln!(s, "Ledger: entry {}", e.join(", "));
        }
        s
    }
}
