//! Checks: mid-ranks by hand; a 3 × 2 example enumerated by hand; the exact bootstrap
//! distribution of a 3 systems × 4 topics input (all 4^4 = 256 ordered resamples, each once)
//! against a large-B run of the real paired resampler; identical systems tie (property test).

use super::*;
use crate::protocol::{Estimator, ResamplingUnit};
use crate::stats::bootstrap::BootstrapSpec;
use crate::stats::system::{resampled, system_units, IntervalSpec};
use proptest::prelude::*;

fn names(k: usize) -> Vec<String> {
    (0..k).map(|i| format!("S{i}")).collect()
}

fn spec(trials: usize, seed: u64) -> IntervalSpec<'static> {
    IntervalSpec {
        component_of: None,
        unit: ResamplingUnit::Topic,
        estimator: Estimator::ComponentMean,
        scale_max: 1.0,
        bootstrap: BootstrapSpec {
            seed,
            stream_base: 0,
            trials,
            level: 0.95,
            percentile: Percentile::Linear,
            tie_tolerance: 1e-12,
        },
    }
}

/// Every system's draws from the real per-system resampler (paired: the same draws).
fn paired_draws(systems: &[Vec<f64>], sp: &IntervalSpec) -> Vec<Vec<f64>> {
    systems.iter().map(|v| resampled(&system_units(v, sp).0, sp)).collect()
}

/// Every ordered resample of n topics once (n^n of them, equally likely under the bootstrap):
/// each system's mean on each, in the same order for every system.
fn exact_draws(systems: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = systems[0].len();
    let total = n.pow(n as u32);
    systems
        .iter()
        .map(|v| {
            (0..total)
                .map(|mut code| {
                    let mut s = 0.0;
                    for _ in 0..n {
                        s += v[code % n];
                        code /= n;
                    }
                    s / n as f64
                })
                .collect()
        })
        .collect()
}

#[test]
fn mid_ranks_put_the_highest_first_and_share_ties() {
    assert_eq!(mid_ranks(&[0.2, 0.5, 0.2, 0.1]), vec![2.5, 1.0, 2.5, 4.0]);
    assert_eq!(mid_ranks(&[1.0, 1.0, 1.0]), vec![2.0, 2.0, 2.0]);
    assert!(mid_ranks(&[]).is_empty());
}

/// Four systems best first, 0 and 2, 0 and 3, 1 and 3 told apart: the longest runs of
/// consecutive systems with no pair apart are {0, 1}, {1, 2}, {2, 3}, so a, ab, bc, c; nothing
/// apart: one letter; everything apart: one letter each.
#[test]
fn group_letters_mark_runs_no_test_tells_apart() {
    let apart = |a: usize, b: usize| matches!((a.min(b), a.max(b)), (0, 2) | (0, 3) | (1, 3));
    assert_eq!(group_letters(&[0, 1, 2, 3], apart), ["a", "ab", "bc", "c"]);
    assert_eq!(group_letters(&[2, 0, 1], |_, _| false), ["a", "a", "a"]);
    assert_eq!(group_letters(&[2, 0, 1], |_, _| true), ["b", "c", "a"]);
}

/// By rank the systems are 2, 0, 3, 1, and only neighbours are not told apart (p 0.5 ≥ α; every
/// other pair 0.01): a chain that a transitive grouping would join into one group keeps three
/// letters, 2 = a, 0 = ab, 3 = bc, 1 = c; a pair without a p is not told apart.
#[test]
fn letters_by_rank_follow_the_ranks_and_keep_chains_apart() {
    let p = |a: usize, b: usize| {
        let near = matches!((a.min(b), a.max(b)), (0, 2) | (0, 3) | (1, 3));
        Some(if near { 0.5 } else { 0.01 })
    };
    assert_eq!(letters_by_rank(&[2.0, 4.0, 1.0, 3.0], 0.05, p), ["ab", "c", "a", "bc"]);
    assert_eq!(letters_by_rank(&[1.0, 2.0], 0.05, |_, _| None), ["a", "a"]);
}

/// A = [1, 0], B = [0, 1], C = [0.4, 0.4]: of the 4 resamples, (0, 0) ranks A, C, B; (1, 1)
/// ranks B, C, A; (0, 1) and (1, 0) give A = B = 0.5 > C. So P(A first) = 1/4 + 2·(1/2)/4 =
/// 1/2 = P(B first), P(C first) = 0; A's ranks {1, 1.5, 1.5, 3} give the 95% interval [1, 3]
/// and C's {2, 2, 3, 3} give [2, 3]. Observed: A = B = 0.5 share rank 1.5, C is 3.
#[test]
fn three_systems_two_topics_by_hand() {
    let sys = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.4, 0.4]];
    let r = rank_systems(&names(3), &[0.5, 0.5, 0.4], &exact_draws(&sys), 0.95).unwrap();
    let got: Vec<(f64, [f64; 2], f64)> = r.systems.iter().map(|s| (s.rank, s.interval, s.p_first)).collect();
    assert_eq!(
        got,
        vec![(1.5, [1.0, 3.0], 0.5), (1.5, [1.0, 3.0], 0.5), (3.0, [2.0, 3.0], 0.0)]
    );
    assert_eq!(r.trials, 4);
}

/// The same input when lower is better (a cost): C's 0.4 is rank 1 and A = B = 0.5 share 2.5.
/// Draws (0, 0) rank B, C, A; (1, 1) rank A, C, B; (0, 1) and (1, 0) give C < A = B. So P(C
/// first) = 1/2, P(A first) = P(B first) = 1/4; A's ranks {3, 1, 2.5, 2.5} give [1, 3], C's
/// {2, 2, 1, 1} give [1, 2].
#[test]
fn three_systems_two_topics_lower_is_better_by_hand() {
    let sys = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.4, 0.4]];
    let r = rank_systems_by(&names(3), &[0.5, 0.5, 0.4], &exact_draws(&sys), 0.95, true).unwrap();
    let got: Vec<(f64, [f64; 2], f64)> = r.systems.iter().map(|s| (s.rank, s.interval, s.p_first)).collect();
    assert_eq!(
        got,
        vec![(2.5, [1.0, 3.0], 0.25), (2.5, [1.0, 3.0], 0.25), (1.0, [1.0, 2.0], 0.5)]
    );
    assert!(r.lower_is_better && r.method.contains("1 = lowest: lower is better"));
    assert_eq!(r.systems[2].estimate, 0.4, "estimates are kept as they are");
}

/// Fewer than three systems, or draws that do not line up: no ranking.
#[test]
fn no_ranking_below_three_systems_or_without_draws() {
    assert!(rank_systems(&names(2), &[0.1, 0.2], &[vec![0.1], vec![0.2]], 0.95).is_none());
    assert!(rank_systems(&names(3), &[0.1, 0.2, 0.3], &[vec![], vec![], vec![]], 0.95).is_none());
    assert!(rank_systems(&names(3), &[0.1, 0.2, 0.3], &[vec![0.1], vec![0.2]], 0.95).is_none());
}

/// 3 systems × 4 topics (multiples of 1/8: every mean is exact in binary, so ties are exact in
/// both computations): the exact rank distribution over all 256 resamples, against the paired
/// resampler at B = 200,000 (Monte-Carlo SE of a share ≤ 0.0012: tolerance 0.006, 5 SE); the
/// rank intervals are equal (no quantile of the exact distribution sits within 0.006 of a
/// jump). Exact values: P(rank 1) × 256 counted here directly.
#[test]
fn exact_enumeration_matches_a_large_bootstrap() {
    let sys = vec![
        vec![0.875, 0.25, 0.625, 0.5],
        vec![0.75, 0.5, 0.25, 0.625],
        vec![0.125, 0.875, 0.25, 0.375],
    ];
    let est: Vec<f64> = sys.iter().map(|v| v.iter().sum::<f64>() / 4.0).collect();
    let exact_d = exact_draws(&sys);
    let exact = rank_systems(&names(3), &est, &exact_d, 0.95).unwrap();
    // Independent count of P(rank 1): draws where a system's mean is strictly highest, plus
    // half of the two-way ties and a third of three-way ties.
    for s in 0..3 {
        let mut share = 0.0;
        for (t, &mine) in exact_d[s].iter().enumerate() {
            let row: Vec<f64> = exact_d.iter().map(|d| d[t]).collect();
            let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let m = row.iter().filter(|&&x| x == top).count() as f64;
            if mine == top {
                share += 1.0 / m;
            }
        }
        assert!((exact.systems[s].p_first - share / 256.0).abs() < 1e-12);
    }
    let total: f64 = exact.systems.iter().map(|s| s.p_first).sum();
    assert!((total - 1.0).abs() < 1e-12);
    let mc = rank_systems(&names(3), &est, &paired_draws(&sys, &spec(200_000, 3)), 0.95).unwrap();
    for (e, m) in exact.systems.iter().zip(&mc.systems) {
        assert!((e.p_first - m.p_first).abs() < 0.006, "{e:?} vs {m:?}");
        assert_eq!(e.interval, m.interval, "{e:?} vs {m:?}");
        assert_eq!(e.rank, m.rank);
    }
    // The exact values themselves, pinned (the observed means are 0.5625, 0.53125, 0.40625).
    let got: Vec<f64> = exact.systems.iter().map(|s| s.rank).collect();
    assert_eq!(got, vec![1.0, 2.0, 3.0]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Identical systems tie: the same rank, the same rank interval and the same P(rank 1), in
    /// every position of the input, and the shares still sum to 1.
    #[test]
    fn identical_systems_tie(
        a in prop::collection::vec(0.0f64..1.0, 2..12),
        shift in prop::collection::vec(-0.3f64..0.3, 12),
        at in 0usize..3,
        seed in 0u64..1000,
    ) {
        let other: Vec<f64> = a.iter().zip(&shift).map(|(x, d)| (x + d).clamp(0.0, 1.0)).collect();
        let mut sys = vec![a.clone(), other];
        sys.insert(at, a.clone());
        let est: Vec<f64> = sys.iter().map(|v| system_units(v, &spec(1, 0)).0.estimate()).collect();
        let r = rank_systems(&names(3), &est, &paired_draws(&sys, &spec(500, seed)), 0.95).unwrap();
        let twins: Vec<&SystemRank> = (0..3).filter(|&i| sys[i] == a).map(|i| &r.systems[i]).collect();
        prop_assert!(twins.len() >= 2);
        for t in &twins[1..] {
            prop_assert_eq!(t.rank, twins[0].rank);
            prop_assert_eq!(t.interval, twins[0].interval);
            prop_assert_eq!(t.p_first, twins[0].p_first);
        }
        let total: f64 = r.systems.iter().map(|s| s.p_first).sum();
        prop_assert!((total - 1.0).abs() < 1e-9);
    }
}
