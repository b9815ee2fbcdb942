//! Checks of a protocol that need more than the protocol itself (the measures pledge computes,
//! files next to it), made at registration so that a protocol that cannot be analyzed is never
//! registered.

use crate::error::Result;
use crate::protocol::{error_at_key, LoadedProtocol, ScoreLayout};
use crate::trec::Measure;

/// Names a user may mean, for a did-you-mean.
fn known_measures() -> Vec<String> {
    let mut v: Vec<String> = Measure::defaults().iter().map(|m| m.name()).collect();
    // trec_eval's command-line form: the cutoff after a dot (`P.10`, `ndcg_cut.10`).
    v.extend(Measure::defaults().iter().filter_map(|m| {
        let n = m.name();
        let (stem, k) = n.rsplit_once('_')?;
        k.chars().all(|c| c.is_ascii_digit()).then(|| format!("{}.{}", stem, k))
    }));
    v.sort();
    v.dedup();
    v
}

/// Whether the protocol's scores are per-topic values of a trec_eval measure (so the metric
/// must be one pledge computes), and the name of that measure.
pub fn measure_of(lp: &LoadedProtocol) -> Option<(String, &'static [&'static str])> {
    let p = &lp.protocol;
    let sc = p.scores.clone().unwrap_or_default();
    if let Some(m) = &sc.measure {
        return Some((m.clone(), &["scores", "measure"]));
    }
    let named_elsewhere = sc.column.is_some()
        || matches!(
            sc.layout,
            ScoreLayout::Long | ScoreLayout::Wide | ScoreLayout::PerSystem | ScoreLayout::Jsonl
        );
    (!named_elsewhere).then(|| (p.target.metric.clone(), &["target", "metric"][..]))
}

/// The metric of a format-2 protocol is one pledge can compute: a trec_eval measure (by name
/// or alias) unless `[scores]` declares where the values come from (a column, or a layout whose
/// cells are the scores). Format-1 protocols are not checked (as before format 2).
///
/// Errors (exit 2, at the key's line and column): an unknown measure, with the closest known
/// name and how to declare a score-file column instead.
pub fn metric(lp: &LoadedProtocol) -> Result<()> {
    if lp.protocol.schema_version < 2 {
        return Ok(());
    }
    let Some((name, keys)) = measure_of(lp) else {
        return Ok(());
    };
    match Measure::parse(&name) {
        Ok(ms) if ms.len() == 1 => Ok(()),
        Ok(ms) => Err(error_at_key(
            &lp.path,
            &lp.text,
            keys,
            format!("`{}` names {} measures; name one (e.g. `P.10`)", name, ms.len()),
        )),
        Err(_) => {
            let best = known_measures()
                .into_iter()
                .map(|k| {
                    (
                        strsim::jaro_winkler(&name.to_ascii_lowercase(), &k.to_ascii_lowercase()),
                        k,
                    )
                })
                .filter(|(s, _)| *s >= 0.75)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, k)| k);
            let mut e = error_at_key(
                &lp.path,
                &lp.text,
                keys,
                format!(
                    "`{}` is not a measure pledge computes (trec_eval names such as map, P.10, ndcg_cut.10)",
                    name
                ),
            );
            e = e.with_hint(match best {
                Some(b) => format!(
                    "did you mean `{}`? If the values are a column of your score files, declare it: [scores] column = \"{}\" (or layout = \"wide\" / \"long\")",
                    b, name
                ),
                None => format!(
                    "if the values are a column of your score files, declare it: [scores] column = \"{}\" (or layout = \"wide\" / \"long\")",
                    name
                ),
            });
            Err(e)
        }
    }
}

/// Refuses a path that could escape the repository when it names a file a protocol points to.
pub fn relative_file(lp: &LoadedProtocol, rel: &str, key: &[&str]) -> Result<std::path::PathBuf> {
    let p = std::path::Path::new(rel);
    if p.is_absolute() {
        return Err(error_at_key(
            &lp.path,
            &lp.text,
            key,
            format!("`{}` must be relative to the protocol file", rel),
        ));
    }
    let base = lp.path.parent().unwrap_or(std::path::Path::new("."));
    let full = base.join(p);
    if !full.is_file() {
        return Err(error_at_key(
            &lp.path,
            &lp.text,
            key,
            format!("`{}`: no such file (relative to the protocol file)", rel),
        )
        .with_hint("the pilot file must exist when the protocol is registered: it is hashed into the registration"));
    }
    Ok(full)
}
