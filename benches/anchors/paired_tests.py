"""The paired tests of `pledge compare` done with scipy on the same per-topic scores.

Reads `trec_eval -q` output files (`measure<TAB>topic<TAB>value`, one file per system, the
system named by the file's stem; the `all` rows are skipped), pairs each system with the
baseline by topic, and for each pair computes on the per-topic differences (system - baseline):
- `scipy.stats.bootstrap` (paired, percentile method, `n_resamples` = --trials) of the mean
  difference: its interval at --level;
- `scipy.stats.permutation_test` with `permutation_type="samples"` (the paired sign-flip
  randomization test, Monte-Carlo with --randomization-trials, two-sided);
- `scipy.stats.ttest_rel` and its interval.
Prints them as JSON (one object per comparison) on standard output.
"""

import argparse
import json
import os
import sys

import numpy as np
from scipy import stats


def read_scores(path, measure):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                sys.exit(f"{path}:{line_no}: expected measure<TAB>topic<TAB>value")
            name, topic, value = fields[0].strip(), fields[1].strip(), fields[2].strip()
            if name == measure and topic != "all":
                out[topic] = float(value)
    if not out:
        sys.exit(f"{path}: no per-topic `{measure}` rows")
    return out


def mean_difference(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scores", action="append", required=True, help="trec_eval -q file (repeat)")
    parser.add_argument("--measure", default="map")
    parser.add_argument("--baseline", required=True, help="system (file stem) compared against")
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--randomization-trials", type=int, default=10000)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    systems = {os.path.splitext(os.path.basename(p))[0]: read_scores(p, args.measure) for p in args.scores}
    if args.baseline not in systems:
        sys.exit(f"baseline {args.baseline} is not among the systems {sorted(systems)}")
    rng = np.random.default_rng(args.seed)
    base = systems[args.baseline]
    out = []
    for name in sorted(systems):
        if name == args.baseline:
            continue
        scores = systems[name]
        if scores.keys() != base.keys():
            sys.exit(f"{name} and {args.baseline} do not have the same topics")
        topics = sorted(base)
        a = np.array([scores[t] for t in topics])
        b = np.array([base[t] for t in topics])
        boot = stats.bootstrap(
            (a, b),
            mean_difference,
            paired=True,
            vectorized=True,
            n_resamples=args.trials,
            confidence_level=args.level,
            method="percentile",
            random_state=rng,
        )
        perm = stats.permutation_test(
            (a, b),
            mean_difference,
            permutation_type="samples",
            vectorized=True,
            n_resamples=args.randomization_trials,
            alternative="two-sided",
            random_state=rng,
        )
        t = stats.ttest_rel(a, b)
        ci = t.confidence_interval(args.level)
        out.append(
            {
                "system": name,
                "baseline": args.baseline,
                "difference": float(np.mean(a - b)),
                "bootstrap_interval": [float(boot.confidence_interval.low), float(boot.confidence_interval.high)],
                "randomization_p": float(perm.pvalue),
                "t": float(t.statistic),
                "t_p": float(t.pvalue),
                "t_interval": [float(ci.low), float(ci.high)],
            }
        )
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
