//! The pool-bias statement: whether the evaluated runs contributed to the judgment pool
//! (Zobel, SIGIR 1998), and how much of each run's top k was judged. It never asserts what
//! nobody registered: without `[pool] contributors` the contribution is unknown, and the
//! protocol's own `[pool] statement` is shown as the registration's words. Built from the
//! recorded figures (`judged@k` per run), not from the sentence an older analysis stored.

use super::model::PoolView;
use crate::protocol::Protocol;
use crate::records::analysis::PoolBias;
use crate::records::AnalysisRecord;

/// The statement for `p`'s `[pool]` and the pool-bias figures of the analysis, when it
/// evaluated TREC runs.
pub fn pool_view(p: &Protocol, analysis: Option<&AnalysisRecord>) -> PoolView {
    statement(p, analysis.and_then(|a| a.pool_bias.as_ref()))
}

/// As [`pool_view`], from the figures themselves.
fn statement(p: &Protocol, pool_bias: Option<&PoolBias>) -> PoolView {
    let registered = p
        .pool
        .statement
        .as_deref()
        .map(|s| format!("The registered pool statement: {}", s.trim()));
    let measured = pool_bias.map(|pb| measured(p, pb));
    let statement = match (measured, registered) {
        (Some(m), Some(r)) => format!("{} {}", m, r),
        (Some(m), None) => m,
        (None, Some(r)) => r,
        (None, None) if p.pool.contributors.is_empty() => {
            "The protocol names no runs that contributed to the judgment pool and states nothing about it: whether the evaluated systems contributed to the judgments is unknown.".into()
        }
        (None, None) => format!(
            "Runs the protocol names as contributors to the judgment pool: {}. No qrels and runs were analyzed, so judged@k was not measured.",
            p.pool.contributors.join(", ")
        ),
    };
    PoolView { statement }
}

/// What the analysis measured: with registered contributors, the recorded statement (which
/// says how many contributed and the leave-one-run-out figure); without, that the contribution
/// is unknown, and the judged@k range measured.
fn measured(p: &Protocol, pb: &PoolBias) -> String {
    if !p.pool.contributors.is_empty() {
        return pb.statement.clone();
    }
    let n = pb.runs.len();
    let mut s = format!(
        "The protocol names no runs that contributed to the judgment pool, so whether the {} evaluated {} contributed is unknown.",
        n,
        if n == 1 { "run" } else { "runs" }
    );
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let lo = pb.runs.iter().map(|r| r.judged_at_k).fold(f64::INFINITY, f64::min);
    let hi = pb.runs.iter().map(|r| r.judged_at_k).fold(f64::NEG_INFINITY, f64::max);
    let worst = pb.runs.iter().map(|r| r.unjudged_at_k).fold(0.0, f64::max);
    if n > 0 {
        s.push_str(&format!(
            " Measured on the qrels: judged@{k} ranges from {} to {} across runs; at most {} of a run's top {k} was unjudged and counted as non-relevant by {}.",
            pct(lo),
            pct(hi),
            pct(worst),
            pb.metric,
            k = pb.judged_k
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::analysis::RunPoolBias;

    fn run(tag: &str, judged: f64, unjudged: f64) -> RunPoolBias {
        RunPoolBias {
            tag: tag.into(),
            contributor: false,
            topics: 50,
            judged_at_k: judged,
            unjudged_at_k: unjudged,
            mean: 0.3,
            leave_one_out: None,
            statement: String::new(),
        }
    }

    fn protocol(pool: &str) -> Protocol {
        let text = format!(
            "{}\n{}",
            include_str!("../../protocols/hotpotqa.toml")
                .split("[pool]")
                .next()
                .unwrap(),
            pool
        );
        crate::protocol::parse(&text, std::path::Path::new("p.toml")).unwrap()
    }

    #[test]
    fn without_contributors_the_contribution_is_unknown_and_the_registered_words_are_shown() {
        let p = protocol("[pool]\nstatement = \"TREC 2004 robust runs, pooled to depth 100\"\n");
        let pb = PoolBias {
            metric: "map".into(),
            judged_k: 10,
            depth: None,
            runs: vec![run("a", 0.998, 0.002), run("b", 1.0, 0.0)],
            statement: "0 of the 2 evaluated runs contributed to the judgment pool".into(),
            missing_contributors: vec![],
        };
        let v = statement(&p, Some(&pb));
        assert_eq!(
            v.statement,
            "The protocol names no runs that contributed to the judgment pool, so whether the 2 evaluated runs contributed is unknown. Measured on the qrels: judged@10 ranges from 99.8% to 100.0% across runs; at most 0.2% of a run's top 10 was unjudged and counted as non-relevant by map. The registered pool statement: TREC 2004 robust runs, pooled to depth 100"
        );
        assert!(!v.statement.contains("0 of the 2"));
        let none = protocol("");
        assert_eq!(
            pool_view(&none, None).statement,
            "The protocol names no runs that contributed to the judgment pool and states nothing about it: whether the evaluated systems contributed to the judgments is unknown."
        );
    }
}
