//! Range and consistency checks of a parsed protocol. Each finding carries the key path so the
//! loader can name the line.

use super::{LinkKind, Protocol, Required};

/// One segment of a key path (`target.alpha`, `link-rules[1].jaccard`).
#[derive(Debug, Clone, PartialEq)]
pub enum PathSeg {
    /// A table key.
    Key(String),
    /// An array index (0-based).
    Index(usize),
}

fn k(parts: &[&str]) -> Vec<PathSeg> {
    parts.iter().map(|p| PathSeg::Key(p.to_string())).collect()
}

fn ki(table: &str, i: usize, key: &str) -> Vec<PathSeg> {
    vec![PathSeg::Key(table.into()), PathSeg::Index(i), PathSeg::Key(key.into())]
}

/// The serde (kebab-case) name of a unit enum value.
fn kebab<T: serde::Serialize>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

fn open01(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// The largest number of bootstrap or randomization trials accepted (memory grows with it:
/// 8 bytes per bootstrap trial).
pub const MAX_TRIALS: u32 = 10_000_000;

/// Longest accepted study id, in characters.
pub const MAX_STUDY_ID: usize = 100;

/// Whether `id` is a safe study id: 1 to [`MAX_STUDY_ID`] ASCII letters, digits, `.`, `_` or
/// `-`, the first a letter or digit. Such an id can name a file (`ID.components.csv`) without
/// leaving its directory (no `/`, `\`, `..` prefix, NUL, or leading `-` read as a flag).
pub fn is_safe_study_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_STUDY_ID
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

/// Whether `url` is an `http://` or `https://` URL with a non-empty host and no whitespace (the
/// URLs a Time-Stamping Authority answers at, RFC 3161 section 3.4).
pub fn is_http_url(url: &str) -> bool {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(r) => {
            let host = r.split(['/', '?', '#']).next().unwrap_or("");
            let host = host.rsplit('@').next().unwrap_or("");
            !host.is_empty() && !host.starts_with(':') && !url.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

/// All problems found, in file order as far as possible; empty when the protocol is valid.
pub fn validate(p: &Protocol) -> Vec<(Vec<PathSeg>, String)> {
    let mut out = Problems::new();
    schema(p, &mut out);
    study(p, &mut out);
    target(p, &mut out);
    components(p, &mut out);
    splits(p, &mut out);
    analysis(p, &mut out);
    scores(p, &mut out);
    hypotheses(p, &mut out);
    witness_filter_pool(p, &mut out);
    contamination(p, &mut out);
    build(p, &mut out);
    repair_trace(p, &mut out);
    family(p, &mut out);
    out
}

/// Problems found so far: each a key path and a message.
type Problems = Vec<(Vec<PathSeg>, String)>;

/// The format version, and format-2 keys in a format-1 file.
fn schema(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    if !super::SCHEMA_VERSIONS.contains(&p.schema_version) {
        bad(
            k(&["schema-version"]),
            format!("schema-version {} is not supported (expected 1 or 2)", p.schema_version),
        );
    }
    if p.schema_version == 1 {
        let v2 = [
            (p.scores.is_some(), k(&["scores"]), "[scores]"),
            (!p.hypotheses.is_empty(), k(&["hypotheses"]), "[[hypotheses]]"),
            (
                !p.analysis.systems.is_empty(),
                k(&["analysis", "systems"]),
                "analysis.systems",
            ),
            (p.topic_filter.is_some(), k(&["topic-filter"]), "[topic-filter]"),
            (p.witness.is_some(), k(&["witness"]), "[witness]"),
            (
                !p.contamination_rules.is_empty(),
                k(&["contamination-rules"]),
                "[[contamination-rules]]",
            ),
            (p.build.is_some(), k(&["build"]), "[build]"),
            (p.repair_trace.is_some(), k(&["repair-trace"]), "[repair-trace]"),
            (p.family.is_some(), k(&["family"]), "[family]"),
            (
                p.target.lower_is_better,
                k(&["target", "lower-is-better"]),
                "target.lower-is-better",
            ),
            (
                p.target.samples_per_topic.is_some(),
                k(&["target", "samples-per-topic"]),
                "target.samples-per-topic",
            ),
            (
                p.target.sd_within.is_some(),
                k(&["target", "sd-within"]),
                "target.sd-within",
            ),
        ];
        for (present, path, name) in v2 {
            if present {
                bad(path, format!("{} needs schema-version = 2", name));
            }
        }
    }
}

/// `[study]`: a safe, non-empty id.
fn study(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    if p.study.id.trim().is_empty() {
        bad(k(&["study", "id"]), "study.id must not be empty".into());
    } else if !is_safe_study_id(&p.study.id) {
        bad(
            k(&["study", "id"]),
            format!(
                "study.id `{}` is not a safe name: use 1 to {} ASCII letters, digits, `.`, `_` or `-`, starting with a letter or digit (it names output files and refs)",
                crate::text::short(&p.study.id, 80),
                MAX_STUDY_ID
            ),
        );
    }
}

/// `[target]`: the power target's ranges.
fn target(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    let t = &p.target;
    let max = t.scale.max();
    if !(t.mde > 0.0 && t.mde <= max) {
        bad(
            k(&["target", "mde"]),
            format!(
                "target.mde must be > 0 and ≤ {} on the {} scale, got {}",
                max,
                kebab(&t.scale),
                t.mde
            ),
        );
    }
    if !open01(t.alpha) {
        bad(
            k(&["target", "alpha"]),
            format!("target.alpha must be in (0, 1), got {}", t.alpha),
        );
    }
    if !open01(t.power) {
        bad(
            k(&["target", "power"]),
            format!("target.power must be in (0, 1), got {}", t.power),
        );
    }
    if t.sides != 1 && t.sides != 2 {
        bad(
            k(&["target", "sides"]),
            format!("target.sides must be 1 or 2, got {}", t.sides),
        );
    }
    if let Some(sd) = t.sd {
        if !(sd > 0.0 && sd.is_finite()) {
            bad(k(&["target", "sd"]), format!("target.sd must be > 0, got {}", sd));
        }
    }
    if let Some(icc) = t.icc {
        if !(0.0..=1.0).contains(&icc) {
            bad(
                k(&["target", "icc"]),
                format!("target.icc must be in [0, 1], got {}", icc),
            );
        }
    }
    repeated_samples(t, &mut bad);
}

/// `target.samples-per-topic` and `target.sd-within`: both or neither, K ≥ 1, σ_within finite,
/// ≥ 0 and at most the scale's maximum.
fn repeated_samples(t: &super::Target, bad: &mut impl FnMut(Vec<PathSeg>, String)) {
    match (t.samples_per_topic, t.sd_within) {
        (Some(0), _) => bad(
            k(&["target", "samples-per-topic"]),
            "target.samples-per-topic must be at least 1, got 0".into(),
        ),
        (Some(_), None) => bad(
            k(&["target", "samples-per-topic"]),
            "target.samples-per-topic needs target.sd-within (the SD of one sample's paired difference around its question's mean)".into(),
        ),
        (None, Some(_)) => bad(
            k(&["target", "sd-within"]),
            "target.sd-within needs target.samples-per-topic (the samples per question K)".into(),
        ),
        _ => {}
    }
    if let Some(w) = t.sd_within {
        if !(w.is_finite() && w >= 0.0 && w <= t.scale.max()) {
            bad(
                k(&["target", "sd-within"]),
                format!(
                    "target.sd-within must be ≥ 0 and ≤ {} on the {} scale, got {}",
                    t.scale.max(),
                    kebab(&t.scale),
                    w
                ),
            );
        }
    }
}

/// `[components]` and `[[link-rules]]`: ranges, and the keys each rule kind takes.
fn components(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    if p.components.max_per_component < 1 {
        bad(
            k(&["components", "max-per-component"]),
            "components.max-per-component must be ≥ 1".into(),
        );
    }
    if p.components.unit.trim().is_empty() {
        bad(
            k(&["components", "unit"]),
            "components.unit must be `question` or a field name".into(),
        );
    }
    for (i, r) in p.link_rules.iter().enumerate() {
        if let Some(n) = r.shingle_size {
            if n < 1 {
                bad(ki("link-rules", i, "shingle-size"), "shingle-size must be ≥ 1".into());
            }
        }
        if let Some(j) = r.jaccard {
            if !(j > 0.0 && j <= 1.0) {
                bad(
                    ki("link-rules", i, "jaccard"),
                    format!("jaccard must be in (0, 1], got {}", j),
                );
            }
        }
        let near = r.kind == LinkKind::NearDuplicatePassage;
        if !near && (r.shingle_size.is_some() || r.jaccard.is_some()) {
            bad(
                ki("link-rules", i, "kind"),
                format!(
                    "shingle-size and jaccard apply only to kind = \"near-duplicate-passage\", not \"{}\"",
                    kebab(&r.kind)
                ),
            );
        }
        match (r.kind, &r.field) {
            (LinkKind::SharedField, None) => {
                bad(ki("link-rules", i, "kind"), "a shared-field rule needs `field`".into())
            }
            (LinkKind::SharedField, Some(_)) => {}
            (_, Some(_)) => bad(
                ki("link-rules", i, "field"),
                "`field` applies only to kind = \"shared-field\"".into(),
            ),
            _ => {}
        }
    }
}

/// `[[splits]]`: unique names, derivable requirements, shares.
fn splits(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    let t = &p.target;
    let mut names = std::collections::BTreeSet::new();
    let mut share_sum = 0.0;
    for (i, s) in p.splits.iter().enumerate() {
        if !names.insert(s.name.as_str()) {
            bad(ki("splits", i, "name"), format!("split `{}` is named twice", s.name));
        }
        if let Required::Derived(_) = s.required_components {
            if t.sd.is_none() && t.pilot.is_none() {
                bad(
                    ki("splits", i, "required-components"),
                    "\"from-target\" needs target.sd (or target.pilot)".into(),
                );
            }
        }
        if let Some(sh) = s.share {
            if !(sh > 0.0 && sh <= 1.0) {
                bad(ki("splits", i, "share"), format!("share must be in (0, 1], got {}", sh));
            }
            share_sum += sh;
        }
    }
    if share_sum > 1.0 + 1e-9 {
        bad(k(&["splits"]), format!("split shares add up to {} > 1", share_sum));
    }
}

/// `[analysis]`: trial counts, level, tolerance, the registered systems.
fn analysis(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    let a = &p.analysis;
    if !(1..=MAX_TRIALS).contains(&a.trials) {
        bad(
            k(&["analysis", "trials"]),
            format!("analysis.trials must be in 1..={}, got {}", MAX_TRIALS, a.trials),
        );
    }
    if !(1..=MAX_TRIALS).contains(&a.randomization_trials) {
        bad(
            k(&["analysis", "randomization-trials"]),
            format!(
                "analysis.randomization-trials must be in 1..={}, got {}",
                MAX_TRIALS, a.randomization_trials
            ),
        );
    }
    if !open01(a.interval_level) {
        bad(
            k(&["analysis", "interval-level"]),
            format!("analysis.interval-level must be in (0, 1), got {}", a.interval_level),
        );
    }
    if !(a.tie_tolerance >= 0.0 && a.tie_tolerance.is_finite()) {
        bad(
            k(&["analysis", "tie-tolerance"]),
            "analysis.tie-tolerance must be ≥ 0".into(),
        );
    }
    let mut systems = std::collections::BTreeSet::new();
    for (i, name) in p.analysis.systems.iter().enumerate() {
        if name.trim().is_empty() {
            bad(
                vec![
                    PathSeg::Key("analysis".into()),
                    PathSeg::Key("systems".into()),
                    PathSeg::Index(i),
                ],
                "a system name must not be empty".into(),
            );
        } else if !systems.insert(name.as_str()) {
            bad(
                vec![
                    PathSeg::Key("analysis".into()),
                    PathSeg::Key("systems".into()),
                    PathSeg::Index(i),
                ],
                format!("system `{}` is listed twice", name),
            );
        }
    }
}

/// `[scores]`: a measure or a column, finite labels.
fn scores(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    if let Some(sc) = &p.scores {
        if sc.measure.is_some() && sc.column.is_some() {
            bad(
                k(&["scores", "column"]),
                "[scores] takes a measure (TREC runs, trec_eval output) or a column, not both".into(),
            );
        }
        for (label, v) in &sc.labels {
            if !v.is_finite() {
                bad(
                    vec![
                        PathSeg::Key("scores".into()),
                        PathSeg::Key("labels".into()),
                        PathSeg::Key(label.clone()),
                    ],
                    format!("label `{}` must map to a finite number", label),
                );
            }
        }
    }
}

/// `[[hypotheses]]`: names, sides, systems among the registered ones, a primary one.
fn hypotheses(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    let systems: std::collections::BTreeSet<&str> = p
        .analysis
        .systems
        .iter()
        .map(String::as_str)
        .filter(|s| !s.trim().is_empty())
        .collect();
    let mut names = std::collections::BTreeSet::new();
    for (i, h) in p.hypotheses.iter().enumerate() {
        if h.name.trim().is_empty() || !names.insert(h.name.as_str()) {
            bad(
                ki("hypotheses", i, "name"),
                format!("hypothesis name `{}` is empty or used twice", h.name),
            );
        }
        if h.system == h.comparator {
            bad(
                ki("hypotheses", i, "comparator"),
                format!("hypothesis `{}` compares `{}` with itself", h.name, h.system),
            );
        }
        if let Some(sd) = h.sides {
            if sd != 1 && sd != 2 {
                bad(
                    ki("hypotheses", i, "sides"),
                    format!("sides must be 1 or 2, got {}", sd),
                );
            }
        }
        for (key, msg) in hypothesis_kind(p, h) {
            bad(ki("hypotheses", i, key), msg);
        }
        for (key, sys) in [("system", &h.system), ("comparator", &h.comparator)] {
            if !systems.is_empty() && !systems.contains(sys.as_str()) {
                bad(
                    ki("hypotheses", i, key),
                    format!(
                        "hypothesis `{}` names `{}`, which is not among analysis.systems",
                        h.name, sys
                    ),
                );
            }
        }
    }
    if !p.hypotheses.is_empty() && !p.hypotheses.iter().any(|h| h.primary) {
        bad(
            k(&["hypotheses"]),
            "no hypothesis is primary: mark the ones the study answers with primary = true".into(),
        );
    }
    if !p.hypotheses.is_empty() && p.analysis.baseline.is_some() {
        bad(
            k(&["analysis", "baseline"]),
            "analysis.baseline and [[hypotheses]] both say what is compared: keep the hypotheses".into(),
        );
    }
}

/// The keys a hypothesis' kind takes: a margin for the margin kinds only, within the scale; a
/// direction except for equivalence; sides for superiority only; no Tukey HSD adjustment with a
/// margin. Each problem as (the hypothesis' key, message).
fn hypothesis_kind(p: &Protocol, h: &super::Hypothesis) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let kind = h.kind;
    let max = p.target.scale.max();
    match (kind.has_margin(), h.margin) {
        (false, Some(_)) => out.push((
            "margin",
            format!(
                "hypothesis `{}`: margin applies only to kind = \"non-inferiority\", \"superiority-by-margin\" or \"equivalence\", not \"{}\"",
                h.name, kind
            ),
        )),
        (true, None) => out.push((
            "kind",
            format!(
                "hypothesis `{}`: kind = \"{}\" needs a margin (in the metric's unit, as target.mde)",
                h.name, kind
            ),
        )),
        (true, Some(m)) if !(m > 0.0 && m <= max) => out.push((
            "margin",
            format!(
                "hypothesis `{}`: margin must be > 0 and ≤ {} on the {} scale, got {}",
                h.name,
                max,
                kebab(&p.target.scale),
                m
            ),
        )),
        _ => {}
    }
    match (kind == super::HypothesisKind::Equivalence, h.direction) {
        (true, Some(_)) => out.push((
            "direction",
            format!(
                "hypothesis `{}`: an equivalence hypothesis has no direction (it claims |system − comparator| < margin)",
                h.name
            ),
        )),
        (false, None) => out.push((
            "direction",
            format!(
                "hypothesis `{}`: missing key direction (\"greater\" or \"less\": which way is better)",
                h.name
            ),
        )),
        _ => {}
    }
    if kind.has_margin() && h.sides.is_some() {
        out.push((
            "sides",
            format!(
                "hypothesis `{}`: sides applies only to kind = \"superiority\" (kind = \"{}\" is tested one-sided at target.alpha)",
                h.name, kind
            ),
        ));
    }
    if kind.has_margin() && p.analysis.adjust == super::Adjust::TukeyHsd {
        out.push((
            "kind",
            format!(
                "hypothesis `{}`: kind = \"{}\" is tested with shifted t-tests; analysis.adjust = \"tukey-hsd\" tests differences of 0 only (use holm, bonferroni, bh or none)",
                h.name, kind
            ),
        ));
    }
    out
}

/// `[witness]`, `[topic-filter]` and `[pool]`.
fn witness_filter_pool(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    if let Some(url) = p.witness.as_ref().and_then(|w| w.tsa.as_deref()) {
        if !is_http_url(url) {
            bad(
                k(&["witness", "tsa"]),
                format!(
                    "witness.tsa must be an http:// or https:// URL with a host, e.g. https://freetsa.org/tsr, got `{}`",
                    url
                ),
            );
        }
    }
    if let Some(f) = &p.topic_filter {
        for (key, v) in [
            ("drop-all-at-least", f.drop_all_at_least),
            ("drop-all-at-most", f.drop_all_at_most),
        ] {
            if let Some(x) = v {
                if !x.is_finite() || x < 0.0 || x > p.target.scale.max() {
                    bad(
                        k(&["topic-filter", key]),
                        format!(
                            "topic-filter.{} must be within the {} scale, got {}",
                            key, p.target.scale, x
                        ),
                    );
                }
            }
        }
        if f.is_empty() {
            bad(
                k(&["topic-filter"]),
                "[topic-filter] needs drop-all-at-least or drop-all-at-most".into(),
            );
        }
    }
    if p.pool.judged_k < 1 {
        bad(k(&["pool", "judged-k"]), "pool.judged-k must be ≥ 1".into());
    }
}

/// Whether `s` is 64 lowercase hex digits (a SHA-256 as pledge prints it).
fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `[[contamination-rules]]`: unique names, roles, the pinned fingerprint and key, ranges.
fn contamination(p: &Protocol, out: &mut Problems) {
    let mut bad = |path: Vec<PathSeg>, msg: String| out.push((path, msg));
    let mut names = std::collections::BTreeSet::new();
    for (i, r) in p.contamination_rules.iter().enumerate() {
        let at = |key: &str| ki("contamination-rules", i, key);
        if r.name.trim().is_empty() || !names.insert(r.name.as_str()) {
            bad(
                at("name"),
                format!(
                    "contamination rule names must be non-empty and unique, got `{}`",
                    r.name
                ),
            );
        }
        let mut roles = r.roles.clone();
        roles.sort();
        roles.dedup();
        if r.roles.is_empty() || roles.len() != r.roles.len() {
            bad(
                at("roles"),
                "roles must list supporting, distractors or decoys, each at most once".into(),
            );
        }
        if r.fingerprint.trim().is_empty() {
            bad(
                at("fingerprint"),
                "fingerprint must name the file `pledge fingerprint` wrote".into(),
            );
        }
        for (key, v) in [
            ("fingerprint-sha256", &r.fingerprint_sha256),
            ("key-sha256", &r.key_sha256),
        ] {
            if !is_sha256_hex(v) {
                bad(
                    at(key),
                    format!(
                        "{} must be 64 lowercase hex digits (as `pledge fingerprint` prints it), got `{}`",
                        key, v
                    ),
                );
            }
        }
        if r.shingle_size < 1 {
            bad(at("shingle-size"), "shingle-size must be ≥ 1".into());
        }
        if !(r.threshold > 0.0 && r.threshold <= 1.0) {
            bad(
                at("threshold"),
                format!("threshold must be in (0, 1], got {}", r.threshold),
            );
        }
        if let Some(s) = r.stop_share.filter(|s| !(*s > 0.0 && *s <= 1.0)) {
            bad(at("stop-share"), format!("stop-share must be in (0, 1], got {}", s));
        }
        if r.stop_count == Some(0) {
            bad(at("stop-count"), "stop-count must be ≥ 1".into());
        }
    }
}

/// `[build]`: at least one attempt; what an attempt may change listed, each once.
fn build(p: &Protocol, out: &mut Problems) {
    let Some(b) = &p.build else { return };
    if b.attempts < 1 {
        out.push((
            k(&["build", "attempts"]),
            "attempts must be ≥ 1 (the first count is attempt 1)".into(),
        ));
    }
    let mut seen = b.attempt_may_change.clone();
    seen.sort();
    seen.dedup();
    if b.attempt_may_change.is_empty() || seen.len() != b.attempt_may_change.len() {
        out.push((
            k(&["build", "attempt-may-change"]),
            "attempt-may-change must list contaminated-distractors, contaminated-decoys or anything, each at most once"
                .into(),
        ));
    }
}

/// `[repair-trace]`: n ≥ 1, C > 0, k ≥ 2 folds, the level in (0, 1), the threshold in (0.5, 1].
fn repair_trace(p: &Protocol, out: &mut Problems) {
    let Some(t) = &p.repair_trace else { return };
    let mut bad = |key: &str, msg: String| out.push((k(&["repair-trace", key]), msg));
    if t.ngram_size < 1 {
        bad("ngram-size", "ngram-size must be ≥ 1".into());
    }
    if !(t.regularization_c > 0.0 && t.regularization_c.is_finite()) {
        bad(
            "regularization-c",
            format!(
                "regularization-c must be a finite number > 0, got {}",
                t.regularization_c
            ),
        );
    }
    if t.folds < 2 {
        bad("folds", format!("folds must be ≥ 2, got {}", t.folds));
    }
    if !(t.confidence > 0.0 && t.confidence < 1.0) {
        bad(
            "confidence",
            format!("confidence must be in (0, 1), got {}", t.confidence),
        );
    }
    if !(t.threshold > 0.5 && t.threshold <= 1.0) {
        bad(
            "threshold",
            format!(
                "threshold must be an AUC in (0.5, 1] (0.5 is chance), got {}",
                t.threshold
            ),
        );
    }
}

/// `[family]`: at least two metrics, each once, the first `target.metric`; `holm` or `bh`; α in
/// (0, 1).
fn family(p: &Protocol, out: &mut Problems) {
    let Some(f) = &p.family else { return };
    let mut bad = |key: &str, msg: String| out.push((k(&["family", key]), msg));
    if f.metrics.len() < 2 {
        bad(
            "metrics",
            format!(
                "metrics: a family across metrics needs at least two metrics, got {}",
                f.metrics.len()
            ),
        );
    }
    if let Some(first) = f.metrics.first() {
        if first != &p.target.metric {
            bad(
                "metrics",
                format!(
                    "metrics: the first metric of the family must be target.metric (`{}`), got `{}`",
                    p.target.metric, first
                ),
            );
        }
    }
    for (i, m) in f.metrics.iter().enumerate() {
        if m.trim().is_empty() {
            bad("metrics", format!("metrics: metric {} of the family is empty", i + 1));
        } else if f.metrics[..i].contains(m) {
            bad("metrics", format!("metrics: metric `{}` is listed twice", m));
        }
    }
    if !matches!(f.adjust, super::Adjust::Holm | super::Adjust::Bh) {
        bad(
            "adjust",
            format!(
                "adjust: the family's adjustment must be `holm` or `bh` (a correction of p-values across metrics), got `{}`",
                kebab(&f.adjust)
            ),
        );
    }
    if let Some(a) = f.alpha {
        if !open01(a) {
            bad("alpha", format!("alpha must be in (0, 1), got {}", a));
        }
    }
}
