//! The report's "Reproduce and verify" section: the reported analysis's own inputs, seed,
//! trials and options (never those of a later analysis), the inputs of the count its
//! assignment comes from, and the commands a reviewer runs in a clone. Every command is
//! read-only: it checks and recomputes, and appends nothing to the reviewer's ledger.

use super::model::{fmt_count, InputView, RenderedFrom, ReproduceView};
use crate::ledger::{InputRole, StoredEntry};
use crate::protocol::Protocol;
use crate::records::analysis::RunOptions;
use crate::records::AnalysisRecord;
use crate::text::shell_word;

/// What the section is built from.
pub struct ReproduceInputs<'a> {
    /// The registered protocol in force.
    pub protocol: &'a Protocol,
    /// The registration (or amendment) in force: its protocol path and tool.
    pub reg: &'a StoredEntry,
    /// The reported analysis's entry and record, when there is one.
    pub lead: Option<(&'a StoredEntry, &'a AnalysisRecord)>,
    /// Whether the reported analysis is the confirmatory one.
    pub confirmatory: bool,
    /// The count the report shows (its inputs and assignment).
    pub count: Option<&'a StoredEntry>,
    /// The last entry of the ledger the report is rendered from, and how many entries it has.
    pub tip: Option<&'a StoredEntry>,
    /// The number of entries up to that tip.
    pub entries: u64,
    /// Where the report is rendered from and written to.
    pub rendered: &'a RenderedFrom,
}

/// The section.
pub fn reproduce_view(x: &ReproduceInputs) -> ReproduceView {
    let p = x.protocol;
    let rng = x.lead.and_then(|(e, _)| e.entry.rng.clone());
    ReproduceView {
        tool: format!("{} {}", x.reg.entry.tool.name, x.reg.entry.tool.version),
        analysis: match x.lead {
            Some((e, _)) => format!(
                "entry #{} ({})",
                e.entry.seq,
                if x.confirmatory {
                    "the confirmatory analysis"
                } else {
                    "exploratory"
                }
            ),
            None => String::new(),
        },
        generator: rng
            .as_ref()
            .map(|r| format!("{} ({})", r.name, r.version))
            .unwrap_or_else(|| "none used".into()),
        seed: match (&rng, x.lead) {
            (Some(r), _) => r.seed.to_string(),
            (None, Some(_)) => "none recorded".into(),
            (None, None) => format!("{} (registered; nothing was analyzed)", p.analysis.seed),
        },
        trials: match x.lead {
            Some((_, r)) => fmt_count(r.settings.trials as u64),
            None => format!("{} (registered)", fmt_count(p.analysis.trials as u64)),
        },
        options: x
            .lead
            .and_then(|(_, r)| r.options.as_ref())
            .map(options_text)
            .unwrap_or_else(|| "none recorded".into()),
        ledger_commit: x.tip.map(|e| e.commit.clone()).unwrap_or_default(),
        ledger_tip: x.tip.map(|e| e.entry.entry_sha256.clone()).unwrap_or_default(),
        entries: x.entries,
        inputs: x.lead.map(|(e, _)| inputs_of(e, |_| true)).unwrap_or_default(),
        count: x.count.map(|c| format!("entry #{}", c.entry.seq)).unwrap_or_default(),
        count_inputs: x
            .count
            .map(|c| inputs_of(c, |r| r != InputRole::Protocol))
            .unwrap_or_default(),
        labels: labels_text(p),
        commands: commands(x),
    }
}

/// The inputs `e` recorded whose role `keep` admits, with their full SHA-256.
fn inputs_of(e: &StoredEntry, keep: impl Fn(InputRole) -> bool) -> Vec<InputView> {
    e.entry
        .inputs
        .iter()
        .filter(|(k, _)| keep(k.role))
        .map(|(k, h)| InputView {
            name: k.to_string(),
            sha256: h.clone(),
        })
        .collect()
}

/// The value labels the protocol registers, in words.
fn labels_text(p: &Protocol) -> String {
    let labels = p.labels();
    if labels.is_empty() {
        "none registered (the built-in CORRECT/INCORRECT, true/false, yes/no = 1/0 apply)".into()
    } else {
        labels
            .iter()
            .map(|(k, v)| format!("{} = {}", k, v))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The read-only commands: fetch the ledger (a clone does not), verify the protocol, recompute
/// every analysis and re-render this report from the ledger; recount without writing when a
/// count read questions. None appends an entry.
fn commands(x: &ReproduceInputs) -> Vec<String> {
    let path = x.reg.entry.protocol_path.clone().unwrap_or_default();
    let mut out = vec![format!(
        "git fetch origin '{}'   # in a clone: git does not fetch the ledger by itself",
        crate::ledger::LEDGER_REFSPEC
    )];
    let report = if x.rendered.report_dir.is_empty() {
        String::new()
    } else {
        format!(" --report {}", shell_word(&x.rendered.report_dir))
    };
    out.push(format!("pledge verify {} --rerun{}", shell_word(&path), report));
    if let Some(c) = x.count {
        if let Some(cmd) = count_command(&path, c) {
            out.push(cmd);
        }
    }
    out
}

/// `pledge components PROTOCOL --questions … --dry-run`, with the count's recorded inputs, and
/// the assignment's SHA-256 the ledger recorded to compare with; `None` when the count recorded
/// no questions file.
fn count_command(protocol: &str, c: &StoredEntry) -> Option<String> {
    let file_of = |role: InputRole| {
        c.entry
            .inputs
            .iter()
            .find(|(k, _)| k.role == role)
            .map(|(k, h)| (k.path.clone(), h.clone()))
    };
    let (questions, _) = file_of(InputRole::Questions)?;
    let mut cmd = format!("pledge components {}", shell_word(protocol));
    for (role, flag) in [(InputRole::Passages, "--passages"), (InputRole::Qrels, "--qrels")] {
        if let Some((p, _)) = file_of(role) {
            cmd.push_str(&format!(" {} {}", flag, shell_word(&p)));
        }
    }
    cmd.push_str(&format!(" --questions {}", shell_word(&questions)));
    if let Some((p, _)) = file_of(InputRole::Pairs) {
        cmd.push_str(&format!(" --pairs {}", shell_word(&p)));
    }
    cmd.push_str(" --dry-run");
    match file_of(InputRole::Assignment) {
        Some((_, h)) => cmd.push_str(&format!(
            "   # prints the assignment's SHA-256; the ledger records {}",
            h
        )),
        None => cmd.push_str("   # counts again, writing nothing"),
    }
    Some(cmd)
}

/// The options an analysis ran with, as the `pledge analyze` flags that gave them.
pub fn options_text(o: &RunOptions) -> String {
    let mut c: Vec<String> = Vec::new();
    let mut flag = |name: &str, v: &str| c.push(format!("--{} {}", name, shell_word(v)));
    match &o.trec {
        Some(t) => {
            flag("qrels", &t.qrels);
            for r in &t.runs {
                flag("run", r);
            }
            for r in &t.pool_runs {
                flag("pool-run", r);
            }
            flag("measure", &t.measure);
        }
        None => {
            for s in &o.scores {
                flag("scores", s);
            }
        }
    }
    let read = &o.read;
    let named = [
        ("measure", o.trec.is_none().then_some(()).and(read.measure.as_ref())),
        ("column", read.column.as_ref()),
        ("filter", read.filter.as_ref()),
        ("system-name", read.system.as_ref()),
        ("components", o.components.as_ref()),
        ("split", o.split.as_ref()),
        ("strata", o.strata.as_ref()),
        ("baseline", o.baseline.as_ref()),
    ];
    for (name, v) in named {
        if let Some(v) = v {
            flag(name, v);
        }
    }
    if let Some(f) = &read.format {
        flag("input-format", f.name());
    }
    for (k, v) in &read.labels {
        flag("label", &format!("{}={}", k, v));
    }
    if o.trec.as_ref().is_some_and(|t| t.pool_partial) {
        c.push("--pool-partial".into());
    }
    let overrides = serde_json::to_value(&o.overrides).unwrap_or_default();
    if let Some(m) = overrides.as_object().filter(|m| !m.is_empty()) {
        let set: Vec<String> = m.iter().map(|(k, v)| format!("{} = {}", k, v)).collect();
        c.push(format!("(settings other than the protocol's: {})", set.join(", ")));
    }
    if c.is_empty() {
        "none recorded".into()
    } else {
        c.join(" ")
    }
}
