//! Text forms of `pledge eval`: means per run (and per topic with `-q`), and the trec_eval -q
//! layout.

use super::Human;
use crate::ops::eval::EvalOutcome;

/// [`EvalOutcome`] with the `-q` choice.
pub struct EvalText<'a>(pub &'a EvalOutcome, pub bool);

impl Human for EvalText<'_> {
    fn human(&self) -> String {
        human(self.0, self.1)
    }
}

/// The trec_eval -q layout, one block per run.
pub fn trec_blocks(ev: &EvalOutcome) -> String {
    ev.evaluation
        .runs
        .iter()
        .map(|r| crate::trec::trec_text(r, &ev.measures))
        .collect()
}

fn human(this: &EvalOutcome, per_topic: bool) -> String {
    let mut s = String::new();
    for r in &this.evaluation.runs {
        s.push_str(&format!(
            "run {} ({}): {} topics evaluated\n",
            r.tag,
            r.path,
            r.topics.len()
        ));
        if !r.not_in_qrels.is_empty() {
            s.push_str(&format!("  excluded, not in the qrels: {}\n", r.not_in_qrels.join(" ")));
        }
        if !r.missing_from_run.is_empty() {
            let how = if r.complete {
                "counted as 0 (-c)"
            } else {
                "not evaluated"
            };
            s.push_str(&format!(
                "  qrels topics missing from the run, {}: {}\n",
                how,
                r.missing_from_run.join(" ")
            ));
        }
        if per_topic {
            s.push_str(&format!("  {:<10}", "topic"));
            for m in &r.measures {
                s.push_str(&format!(" {:>12}", m));
            }
            s.push('\n');
            for t in &r.topics {
                s.push_str(&format!("  {:<10}", t.topic));
                for v in &t.values {
                    s.push_str(&format!(" {:>12.4}", v));
                }
                s.push('\n');
            }
        }
        for (m, v) in r.measures.iter().zip(&r.all) {
            s.push_str(&format!("  {:<16} {:.4}\n", m, v));
        }
    }
    if let Some(p) = &this.pool_bias {
        s.push_str(&format!("pool bias ({}):\n  {}\n", p.metric, p.statement));
        for r in &p.runs {
            s.push_str(&format!("  - {}\n", r.statement));
        }
    }
    s
}
