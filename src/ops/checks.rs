//! Checks of a protocol that need more than the protocol itself (the measures pledge computes,
//! files next to it), made at registration so that a protocol that cannot be analyzed is never
//! registered.

use crate::error::Result;
use crate::protocol::{error_at_key, LoadedProtocol, ScoreLayout};

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
    match crate::trec::measures::resolve_per_topic(&name) {
        Ok(_) => Ok(()),
        Err(e) => {
            let declare = format!(
                "if the values are a column of your score files, declare it: [scores] column = \"{}\" (or layout = \"wide\" / \"long\")",
                name
            );
            let mut out = error_at_key(&lp.path, &lp.text, keys, e.message.clone());
            out = out.with_hint(match &e.hint {
                Some(h) => format!("{}; {}", h, declare),
                None => declare,
            });
            Err(out)
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

/// A `required-components = "from-target"` split can be met: the components the protocol's
/// `[target]` and primary hypothesis ask for ([`crate::power::required_by_protocol`], with σ = `target.sd`, else
/// `pilot_sd`, the registered pilot's estimate) are a feasible count. Without such a split,
/// nothing is checked. A protocol whose stop rule could never be evaluated is refused at
/// registration rather than at the first `components` run.
///
/// Errors (exit 2, at the line and column of the key at fault: `target.sd` or `target.mde` out
/// of range, the `[target]` table for α, power or sides, else `target.mde`): the requirement is
/// infeasible (e.g. a minimum detectable difference so small that no count of components
/// reaches the power) or cannot be computed.
pub fn target_feasible(lp: &LoadedProtocol, pilot_sd: Option<f64>) -> Result<()> {
    let p = &lp.protocol;
    if !p
        .splits
        .iter()
        .any(|s| matches!(s.required_components, crate::protocol::Required::Derived(_)))
    {
        return Ok(());
    }
    let mut sized = p.clone();
    if sized.target.sd.is_none() {
        sized.target.sd = pilot_sd;
    }
    let target = &sized.target;
    match crate::power::required_by_protocol(&sized) {
        Ok(_) => Ok(()),
        Err(e) => {
            // The key at fault: σ out of range (when the protocol gives it), δ out of range, α,
            // power or sides (the table), else δ too small for any count.
            use crate::power::inputs::{check_mde, check_sd, Design};
            let keys: &[&str] = match target.sd {
                None => &["target"],
                Some(sd) if p.target.sd.is_some() && check_sd(sd, target.scale).is_err() => &["target", "sd"],
                _ if check_mde(target.mde, target.scale).is_err() => &["target", "mde"],
                _ if Design::new(target.alpha, target.power, target.sides).is_err() => &["target"],
                _ => &["target", "mde"],
            };
            Err(error_at_key(&lp.path, &lp.text, keys, e.message).with_hint(
                "a split says required-components = \"from-target\": choose a target the power calculation can meet (a larger target.mde, a smaller target.power) or give the split a number of components",
            ))
        }
    }
}

/// The warning for a protocol whose `[study] registered-by` is still
/// [`PLACEHOLDER_AUTHOR`](super::new::PLACEHOLDER_AUTHOR), the value `pledge new` writes when no
/// git identity is known: the ledger and every report would name it as who registered the study.
/// `None` when the protocol names someone else. The text starts with `FILE:LINE:COL`.
pub fn placeholder_author(lp: &LoadedProtocol) -> Option<String> {
    let placeholder = super::new::PLACEHOLDER_AUTHOR;
    (lp.protocol.study.registered_by.trim() == placeholder).then(|| {
        let msg = format!(
            "registered-by is still the placeholder `{}`: the ledger and every report name it as who registered the study",
            placeholder
        );
        error_at_key(&lp.path, &lp.text, &["study", "registered-by"], msg).message
    })
}
