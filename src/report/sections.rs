//! The report's sections, each built from ledger entries and the registered protocol. Stored
//! results are read as JSON (the shapes written by `pledge components`, `CountResult` and
//! `Decision`, and by `pledge analyze`, `AnalysisResult`), so a report renders from the ledger
//! alone.

use super::model::*;
use super::svg::{self, Histogram};
use crate::error::{Error, Result};
use crate::ledger::StoredEntry;
use crate::protocol::{Protocol, Scale};
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    if cur.is_null() {
        None
    } else {
        Some(cur)
    }
}

pub(super) fn num(v: &Value, path: &[&str]) -> Option<f64> {
    at(v, path)?.as_f64()
}

fn int(v: &Value, path: &[&str]) -> Option<u64> {
    at(v, path)?.as_u64()
}

fn s(v: &Value, path: &[&str]) -> Option<String> {
    at(v, path)?.as_str().map(str::to_string)
}

/// The stored `result.json` of an entry, parsed.
pub(super) fn result_json(e: &StoredEntry) -> Result<Value> {
    let bytes = e.result.as_deref().ok_or_else(|| {
        Error::input(format!(
            "ledger entry #{} ({}) holds no result",
            e.entry.seq,
            e.entry.kind.as_str()
        ))
    })?;
    serde_json::from_slice(bytes)
        .map_err(|err| Error::input(format!("ledger entry #{}: result.json is not JSON", e.entry.seq)).caused_by(err))
}

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

/// Component section from the latest count/stop/go entry.
pub fn components_view(e: &StoredEntry, p: &Protocol, svgs: &mut BTreeMap<String, String>) -> Result<ComponentsView> {
    let r = result_json(e)?;
    let count = at(&r, &["count"]).cloned().unwrap_or(Value::Null);
    let stop = at(&r, &["stop"]).cloned().unwrap_or(Value::Null);
    let unit = s(&count, &["unit"]).unwrap_or_else(|| p.components.unit.clone());
    let questions = int(&count, &["questions"]).unwrap_or(0);
    let units = int(&count, &["units"]).unwrap_or(0);
    let mut rows = Vec::new();
    if let Some(b) = at(&count, &["before_rules"]) {
        let (lu, lq) = (
            int(b, &["largest_units"]).unwrap_or(0),
            int(b, &["largest_questions"]).unwrap_or(0),
        );
        rows.push(AblationRow {
            rule: "(each question with its own passages, no rule)".into(),
            components: fmt_count(int(b, &["components"]).unwrap_or(0)),
            with_candidates: fmt_count(int(b, &["with_candidates"]).unwrap_or(0)),
            largest: largest_text(&unit, lu, lq),
        });
    }
    let start = if unit == "question" {
        format!("{} candidate questions", fmt_count(questions))
    } else {
        format!(
            "{} candidate questions<br/>{} {}",
            fmt_count(questions),
            fmt_count(units),
            unit_word(&unit, units)
        )
    };
    let mut chart = vec![format!("flowchart TB\n  R0[\"{}\"]", start)];
    for (i, row) in at(&count, &["ablation"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let name = s(row, &["rule"]).unwrap_or_default();
        let comps = int(row, &["components"]).unwrap_or(0);
        let with = int(row, &["with_candidates"]).unwrap_or(0);
        let lu = int(row, &["largest_units"]).unwrap_or(0);
        let lq = int(row, &["largest_questions"]).unwrap_or(0);
        rows.push(AblationRow {
            rule: name.clone(),
            components: fmt_count(comps),
            with_candidates: fmt_count(with),
            largest: largest_text(&unit, lu, lq),
        });
        chart.push(format!(
            "  R{} --> R{}[\"{}<br/>{} components ({} with candidates)\"]",
            i,
            i + 1,
            name.replace('"', "'"),
            fmt_count(comps),
            fmt_count(with)
        ));
    }
    let mut sizes: Vec<(u64, u64)> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for b in at(&count, &["histogram"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let (lo, hi, n) = (
            int(&b, &["min"]).unwrap_or(0),
            int(&b, &["max"]).unwrap_or(0),
            int(&b, &["components"]).unwrap_or(0),
        );
        sizes.push((lo, n));
        labels.push(if lo == hi {
            lo.to_string()
        } else {
            format!("{}–{}", lo, hi)
        });
    }
    let name = "component-sizes.svg".to_string();
    svgs.insert(
        name.clone(),
        svg::component_sizes_svg("Components by number of candidate questions", &sizes, &labels)?,
    );
    let decision = s(&stop, &["decision"]).unwrap_or_else(|| e.entry.kind.as_str().to_string());
    let counted = int(&stop, &["counted"]).unwrap_or(0);
    let required = int(&stop, &["required"]);
    let splits: Vec<String> = at(&stop, &["splits"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|sp| {
            let how = match at(sp, &["power"]) {
                Some(pw) => format!(
                    "from the target by the {} method, {:.2} unrounded",
                    s(pw, &["method"]).unwrap_or_default(),
                    num(pw, &["unrounded"]).unwrap_or(0.0)
                ),
                None => "given in the protocol".into(),
            };
            format!(
                "{} {} ({})",
                s(sp, &["name"]).unwrap_or_default(),
                fmt_count(int(sp, &["required"]).unwrap_or(0)),
                how
            )
        })
        .collect();
    let rule = s(&stop, &["required_rule"]).unwrap_or_default();
    Ok(ComponentsView {
        present: true,
        when: format!("at {} (ledger entry #{})", e.entry.time, e.entry.seq),
        questions: fmt_count(questions),
        units: if unit == "question" {
            "each question its own node".into()
        } else {
            format!("{} {}", fmt_count(units), unit_word(&unit, units))
        },
        rows,
        mermaid: chart.join("\n"),
        counted: fmt_count(counted),
        counted_what: match s(&stop, &["count"]).as_deref() {
            Some("all") => "all components".into(),
            _ => "components holding at least one candidate question".into(),
        },
        required: required.map(fmt_count).unwrap_or_else(|| "none set".into()),
        required_how: if splits.is_empty() {
            "no splits registered".into()
        } else {
            format!("{}: {}", rule, splits.join("; "))
        },
        decision: match decision.as_str() {
            "stop" => format!(
                "stop — {} counted < {} required",
                fmt_count(counted),
                required.map(fmt_count).unwrap_or_default()
            ),
            "go" => format!(
                "go — {} counted ≥ {} required",
                fmt_count(counted),
                required.map(fmt_count).unwrap_or_default()
            ),
            other => other.to_string(),
        },
        sizes_svg: name,
    })
}

fn interval(b: &Value, scale: Scale) -> String {
    match (
        num(b, &["interval", "0"]).or_else(|| at(b, &["interval"]).and_then(|v| v.get(0)).and_then(Value::as_f64)),
        at(b, &["interval"]).and_then(|v| v.get(1)).and_then(Value::as_f64),
    ) {
        (Some(lo), Some(hi)) => format!("[{}, {}]", fmt_diff(lo, scale), fmt_diff(hi, scale)),
        _ => "—".into(),
    }
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
        .collect()
}

/// Results section from the latest analyze entry.
pub fn results_view(e: &StoredEntry, p: &Protocol, svgs: &mut BTreeMap<String, String>) -> Result<ResultsView> {
    let r = result_json(e)?;
    let scale = p.target.scale;
    let settings = at(&r, &["settings"]).cloned().unwrap_or(Value::Null);
    let systems = at(&r, &["systems"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let systems = systems
        .iter()
        .map(|sy| SystemView {
            name: s(sy, &["name"]).unwrap_or_default(),
            mean: num(sy, &["mean"])
                .map(|m| fmt_value(m, scale))
                .unwrap_or_else(|| "—".into()),
            topics: int(sy, &["topics"]).map(fmt_count).unwrap_or_else(|| "—".into()),
            components: int(sy, &["components"]).map(fmt_count).unwrap_or_else(|| "—".into()),
        })
        .collect();
    let mut comparisons = Vec::new();
    for (i, c) in at(&r, &["comparisons"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let name = format!(
            "{} − {}",
            s(c, &["system"]).unwrap_or_default(),
            s(c, &["baseline"]).unwrap_or_default()
        );
        let paired = at(c, &["paired"]).cloned().unwrap_or(Value::Null);
        let comp = at(c, &["component"]).cloned();
        let primary = if s(c, &["primary_unit"]).as_deref() == Some("component") {
            comp.clone().unwrap_or(paired.clone())
        } else {
            paired.clone()
        };
        let file = format!(
            "bootstrap-{}-{}.svg",
            i + 1,
            file_safe(&s(c, &["system"]).unwrap_or_default())
        );
        if let Some(h) = at(&primary, &["histogram"]) {
            let counts: Vec<u64> = h
                .get("counts")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let (min, w) = (num(h, &["min"]).unwrap_or(0.0), num(h, &["bin_width"]).unwrap_or(0.0));
            let width = if w > 0.0 { w } else { 1e-3 };
            let edges: Vec<f64> = (0..=counts.len()).map(|k| min + k as f64 * width).collect();
            let iv = at(&primary, &["interval"]);
            let lo = iv.and_then(|v| v.get(0)).and_then(Value::as_f64).unwrap_or(min);
            let hi = iv.and_then(|v| v.get(1)).and_then(Value::as_f64).unwrap_or(min);
            if !counts.is_empty() {
                let title = format!("{} ({} bootstrap)", name, s(&primary, &["unit"]).unwrap_or_default());
                svgs.insert(
                    file.clone(),
                    svg::bootstrap_svg(
                        &title,
                        &Histogram { edges, counts },
                        lo,
                        hi,
                        num(&primary, &["observed"]).unwrap_or(0.0),
                    )?,
                );
            }
        }
        let mut flags: Vec<String> = at(c, &["flags"])
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|f| f.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        if let Some(m) = at(c, &["mde"]) {
            if m.get("meets_target").and_then(Value::as_bool) == Some(false) {
                flags.push(format!(
                    "with {} {}s the detectable difference is {}, larger than the registered {}",
                    int(m, &["n"]).unwrap_or(0),
                    s(m, &["unit"]).unwrap_or_default(),
                    num(m, &["achieved"]).map(|v| fmt_value(v, scale)).unwrap_or_default(),
                    fmt_value(p.target.mde, scale)
                ));
            }
        }
        comparisons.push(ComparisonView {
            name,
            diff: num(c, &["difference"])
                .map(|d| fmt_diff(d, scale))
                .unwrap_or_else(|| "—".into()),
            paired_ci: interval(&paired, scale),
            component_ci: comp.as_ref().map(|b| interval(b, scale)).unwrap_or_else(|| "—".into()),
            reversal: num(&primary, &["reversal_rate"])
                .map(fmt_pct)
                .unwrap_or_else(|| "— (no difference)".into()),
            ties: num(&primary, &["ties_share"])
                .map(fmt_pct)
                .unwrap_or_else(|| "—".into()),
            t_p: num(c, &["t_test", "p"]).map(fmt_p).unwrap_or_else(|| "—".into()),
            rand_p: num(c, &["randomization", "p"]).map(fmt_p).unwrap_or_else(|| "—".into()),
            adj_p: num(c, &["p_adjusted", "p"]).map(fmt_p).unwrap_or_else(|| "—".into()),
            flags: flags.join("; "),
            svg: file,
        });
    }
    let level = num(&settings, &["interval_level"]).unwrap_or(p.analysis.interval_level);
    let topics = at(&r, &["topics"]).cloned().unwrap_or(Value::Null);
    let mut notes: Vec<String> = at(&r, &["notes"])
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if let Some(n) = int(&topics, &["filled_with_zero"]).filter(|n| *n > 0) {
        notes.push(format!("{} missing scores were filled with 0", n));
    }
    if let Some(n) = int(&topics, &["dropped_missing"]).filter(|n| *n > 0) {
        notes.push(format!("{} topics missing for some system were dropped", n));
    }
    Ok(ResultsView {
        present: true,
        metric: format!("{} ({} scale)", p.target.metric, if scale == Scale::Points { "points, 0–100" } else { "fraction, 0–1" }),
        missing_policy: format!(
            "{} ({} topics in the scores, {} analyzed)",
            s(&topics, &["policy"]).unwrap_or_else(|| "error".into()),
            int(&topics, &["in_scores"]).map(fmt_count).unwrap_or_default(),
            int(&topics, &["analyzed"]).map(fmt_count).unwrap_or_default()
        ),
        interval_desc: format!(
            "Intervals are {:.0}% percentile intervals ({} percentile) from {} bootstrap trials; the reversal rate is the share of resamples whose difference has the opposite sign to the observed one, ties counted separately.",
            level * 100.0,
            s(&settings, &["percentile"]).unwrap_or_else(|| "linear".into()),
            fmt_count(int(&settings, &["trials"]).unwrap_or(p.analysis.trials as u64))
        ),
        adjust: s(&settings, &["adjust"]).unwrap_or_else(|| "holm".into()),
        systems,
        comparisons,
        notes,
    })
}

/// Power section: registered target and the detectable difference achieved.
pub fn power_view(p: &Protocol, count: Option<&StoredEntry>, analyze: Option<&StoredEntry>) -> PowerView {
    let t = &p.target;
    let required = count
        .and_then(|c| int(&c.entry.summary, &["required"]))
        .map(fmt_count)
        .unwrap_or_else(|| "not counted".into());
    let achieved = analyze
        .and_then(|a| result_json(a).ok())
        .and_then(|r| at(&r, &["comparisons"]).and_then(Value::as_array).cloned())
        .map(|cs| {
            let parts: Vec<String> = cs
                .iter()
                .filter_map(|c| {
                    let m = c.get("mde")?;
                    let v = num(m, &["achieved"])?;
                    Some(format!(
                        "{} − {}: {} (σ̂ = {})",
                        s(c, &["system"]).unwrap_or_default(),
                        s(c, &["baseline"]).unwrap_or_default(),
                        fmt_value(v, t.scale),
                        fmt_value(num(m, &["sd"]).unwrap_or(0.0), t.scale)
                    ))
                })
                .collect();
            let n = cs
                .first()
                .and_then(|c| c.get("mde"))
                .map(|m| format!("{} {}s", int(m, &["n"]).unwrap_or(0), s(m, &["unit"]).unwrap_or_default()));
            if parts.is_empty() {
                "not computed".to_string()
            } else {
                format!(
                    "at {}, by the normal approximation (z₁₋α/₂ + z₁₋β)·σ̂/√n, σ̂ = SD of the comparison's paired differences: {}",
                    n.unwrap_or_default(),
                    parts.join("; ")
                )
            }
        })
        .unwrap_or_else(|| "not analyzed".into());
    PowerView {
        target_mde: fmt_value(t.mde, t.scale),
        alpha: format!("{}", t.alpha),
        power: format!("{}", t.power),
        sides: if t.sides == 1 {
            "one-sided".into()
        } else {
            "two-sided".into()
        },
        sd: t
            .sd
            .map(|v| fmt_value(v, t.scale))
            .unwrap_or_else(|| "not given".into()),
        sd_source: t.sd_source.clone().unwrap_or_else(|| "source not stated".into()),
        required,
        achieved_mde: achieved,
    }
}

/// Pool-bias statement: from the analysis of TREC runs when it holds one, else the protocol's.
pub fn pool_view(p: &Protocol, analyze: Option<&StoredEntry>) -> PoolView {
    let from_runs = analyze
        .and_then(|a| result_json(a).ok())
        .and_then(|r| s(&r, &["pool_bias", "statement"]));
    let statement = from_runs.or_else(|| p.pool.statement.clone()).unwrap_or_else(|| {
        if p.pool.contributors.is_empty() {
            "The protocol does not state whether the evaluated systems contributed to the judgments.".into()
        } else {
            format!(
                "Runs that contributed to the judgment pool: {}.",
                p.pool.contributors.join(", ")
            )
        }
    });
    PoolView { statement }
}

/// The seed article's three sentences.
pub fn summary(p: &Protocol, c: &ComponentsView, r: &ResultsView, pool: &PoolView) -> Vec<String> {
    let mut out = Vec::new();
    if r.present {
        let means: Vec<String> = r.systems.iter().map(|s| format!("{} {}", s.name, s.mean)).collect();
        let topics = r.systems.first().map(|s| s.topics.clone()).unwrap_or_default();
        out.push(format!(
            "Mean {} over {} topics: {}.",
            p.target.metric,
            topics,
            means.join(", ")
        ));
        for cmp in &r.comparisons {
            out.push(format!(
                "{}: difference {}, paired interval {}, reversal rate {} of resamples.",
                cmp.name, cmp.diff, cmp.paired_ci, cmp.reversal
            ));
        }
    } else if c.present {
        out.push(format!("No analysis was run: the stop rule decided {}.", c.decision));
    }
    out.push(pool.statement.clone());
    out
}

/// The reproduce section: tool, generator, seed, inputs and the commands.
pub fn reproduce_view(p: &Protocol, mine: &[&StoredEntry], all: &[StoredEntry], reg: &StoredEntry) -> ReproduceView {
    let mut inputs = BTreeMap::new();
    for e in mine {
        for (k, v) in &e.entry.inputs {
            inputs.insert(k.clone(), v.clone());
        }
    }
    let rng = mine
        .iter()
        .rev()
        .find(|e| e.entry.kind == crate::ledger::EntryKind::Analyze)
        .and_then(|e| e.entry.rng.clone());
    let path = reg.entry.protocol_path.clone().unwrap_or_default();
    let file_of = |prefix: &str| inputs.keys().find_map(|k| k.strip_prefix(prefix).map(str::to_string));
    let mut commands = vec![format!("pledge verify {}", path)];
    if let Some(q) = file_of("questions:") {
        let passages = file_of("passages:")
            .map(|x| format!(" --passages {}", x))
            .unwrap_or_default();
        let out = file_of("assignment:")
            .map(|x| format!(" --out {}.check", x))
            .unwrap_or_default();
        commands.push(format!(
            "pledge components {}{} --questions {}{} --dry-run",
            path, passages, q, out
        ));
    }
    commands.push("pledge verify --rerun".into());
    commands.push("pledge export ledger.jsonl && pledge verify --ledger ledger.jsonl".into());
    ReproduceView {
        tool: format!("{} {}", reg.entry.tool.name, reg.entry.tool.version),
        generator: rng
            .as_ref()
            .map(|r| format!("{} ({})", r.name, r.version))
            .unwrap_or_else(|| "none used".into()),
        seed: rng
            .as_ref()
            .map(|r| r.seed.to_string())
            .unwrap_or_else(|| p.analysis.seed.to_string()),
        trials: fmt_count(p.analysis.trials as u64),
        ledger_tip: all.last().map(|e| e.entry.entry_sha256.clone()).unwrap_or_default(),
        entries: all.len() as u64,
        inputs: inputs
            .into_iter()
            .map(|(name, sha256)| InputView { name, sha256 })
            .collect(),
        commands,
    }
}

/// The ledger verification result shown at the top of the report (see
/// [`crate::ledger::verify_ledger`]): every finding listed, a failure never hidden.
pub fn verification_view(ledger: &crate::ledger::Ledger) -> Result<VerificationView> {
    let v = crate::ledger::verify_ledger(ledger, None)?;
    let findings: Vec<String> = v
        .findings
        .iter()
        .map(|f| format!("{} (`{}`)", f.message, f.code))
        .collect();
    let summary = if v.ok {
        format!(
            "passed: {} entries, hash chain intact, tip `{}`",
            v.entries,
            v.tip.as_deref().map(|t| &t[..t.len().min(12)]).unwrap_or("-")
        )
    } else {
        format!("**FAILED** with {} finding(s), listed at the top", findings.len())
    };
    Ok(VerificationView {
        ok: v.ok,
        summary,
        findings,
    })
}
