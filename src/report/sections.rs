//! The report's sections, each built from ledger entries and the registered protocol.

use super::model::*;
use super::svg::{self, Histogram};
use crate::error::Result;
use crate::ledger::{Ledger, StoredEntry};
use crate::protocol::Protocol;
use serde_json::Value;
use std::collections::BTreeMap;

/// The ledger verification summary shown at the top of the report.
pub fn verification_view(ledger: &Ledger) -> Result<VerificationView> {
    let entries = ledger.entries()?;
    let mut findings = Vec::new();
    let mut prev = crate::ledger::GENESIS.to_string();
    for (i, e) in entries.iter().enumerate() {
        if e.entry.compute_sha256() != e.entry.entry_sha256 {
            findings.push(format!("entry #{}: its SHA-256 does not match its content", e.entry.seq));
        }
        if e.entry.prev_sha256 != prev {
            findings.push(format!("entry #{}: does not link to the previous entry", e.entry.seq));
        }
        if e.entry.seq != i as u64 + 1 {
            findings.push(format!("entry #{}: out of sequence (position {})", e.entry.seq, i + 1));
        }
        prev = e.entry.entry_sha256.clone();
    }
    let ok = findings.is_empty();
    let summary = if ok { format!("passed ({} entries, hash chain intact)", entries.len()) } else { format!("FAILED ({} findings)", findings.len()) };
    Ok(VerificationView { ok, summary, findings })
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_f64()
}

fn text(v: &Value, path: &[&str]) -> Option<String> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Component section from the latest count/stop/go entry.
pub fn components_view(e: &StoredEntry, _p: &Protocol, svgs: &mut BTreeMap<String, String>) -> Result<ComponentsView> {
    let r: Value = e.result.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null);
    let s = &e.entry.summary;
    let sizes: Vec<(u64, u64)> = Vec::new();
    let name = "component-sizes.svg".to_string();
    svgs.insert(name.clone(), svg::component_sizes_svg("Component sizes (questions per component)", &sizes)?);
    let _ = &r;
    Ok(ComponentsView {
        present: true,
        when: format!("on {} (ledger entry #{})", e.entry.time, e.entry.seq),
        questions: text(s, &["questions"]).unwrap_or_default(),
        units: String::new(),
        rows: vec![],
        mermaid: String::new(),
        counted: text(s, &["counted"]).unwrap_or_default(),
        counted_what: String::new(),
        required: text(s, &["required"]).unwrap_or_default(),
        required_how: String::new(),
        decision: e.entry.kind.as_str().to_string(),
        sizes_svg: name,
    })
}

/// Results section from the latest analyze entry.
pub fn results_view(e: &StoredEntry, p: &Protocol, svgs: &mut BTreeMap<String, String>) -> Result<ResultsView> {
    let _r: Value = e.result.as_deref().and_then(|b| serde_json::from_slice(b).ok()).unwrap_or(Value::Null);
    let _ = (svgs, Histogram { edges: vec![], counts: vec![] });
    Ok(ResultsView { present: true, metric: p.target.metric.clone(), ..Default::default() })
}

/// Power section: registered target and achieved MDE.
pub fn power_view(p: &Protocol, count: Option<&StoredEntry>, analyze: Option<&StoredEntry>) -> PowerView {
    let t = &p.target;
    PowerView {
        target_mde: fmt_value(t.mde, t.scale),
        alpha: format!("{}", t.alpha),
        power: format!("{}", t.power),
        sides: if t.sides == 1 { "one-sided".into() } else { "two-sided".into() },
        sd: t.sd.map(|s| fmt_value(s, t.scale)).unwrap_or_else(|| "not given".into()),
        sd_source: t.sd_source.clone().unwrap_or_else(|| "source not stated".into()),
        required: count.and_then(|c| text(&c.entry.summary, &["required"])).unwrap_or_else(|| "not counted".into()),
        achieved_mde: analyze.and_then(|a| num(&a.entry.summary, &["achieved_mde"])).map(|v| fmt_value(v, t.scale)).unwrap_or_else(|| "not analyzed".into()),
    }
}

/// Pool-bias statement: from the analysis (TREC runs) or the protocol's own statement.
pub fn pool_view(p: &Protocol, _analyze: Option<&StoredEntry>) -> PoolView {
    PoolView { statement: p.pool.statement.clone().unwrap_or_else(|| "The protocol does not state whether the evaluated systems contributed to the judgments.".into()) }
}

/// The three sentences.
pub fn summary(_p: &Protocol, _c: &ComponentsView, _r: &ResultsView, pool: &PoolView) -> Vec<String> {
    vec![pool.statement.clone()]
}

/// Reproduce section.
pub fn reproduce_view(p: &Protocol, mine: &[&StoredEntry], all: &[StoredEntry], reg: &StoredEntry) -> ReproduceView {
    let mut inputs = BTreeMap::new();
    for e in mine {
        for (k, v) in &e.entry.inputs {
            inputs.insert(k.clone(), v.clone());
        }
    }
    let rng = mine.iter().rev().find_map(|e| e.entry.rng.clone());
    let path = reg.entry.protocol_path.clone().unwrap_or_default();
    ReproduceView {
        tool: format!("{} {}", reg.entry.tool.name, env!("CARGO_PKG_VERSION")),
        generator: rng.as_ref().map(|r| format!("{} ({})", r.name, r.version)).unwrap_or_else(|| "none used".into()),
        seed: rng.as_ref().map(|r| r.seed.to_string()).unwrap_or_else(|| p.analysis.seed.to_string()),
        trials: p.analysis.trials.to_string(),
        ledger_tip: all.last().map(|e| e.entry.entry_sha256.clone()).unwrap_or_default(),
        entries: all.len() as u64,
        inputs: inputs.into_iter().map(|(name, sha256)| InputView { name, sha256 }).collect(),
        commands: vec![format!("pledge verify {}", path), "pledge export ledger.jsonl && pledge verify --ledger ledger.jsonl".into()],
    }
}
