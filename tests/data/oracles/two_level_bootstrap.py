"""Oracle for the two-level bootstrap and the variance split (src/stats/samples.rs).

Exact enumeration: every two-level resample of a tiny input (n topics drawn with replacement,
then each drawn topic's K_t samples drawn with replacement from its own), each with its exact
probability, gives the bootstrap distribution's exact mean and variance. The variance split
(Miller 2024, "Adding Error Bars to Evals", section 3) is computed by hand with numpy
(ddof=1). Run: python3 two_level_bootstrap.py > two-level-bootstrap.md
"""
import itertools
import sys
from fractions import Fraction

import numpy as np


def topic_mean_distribution(cell):
    """Exact distribution {value: probability} of one drawn topic's value."""
    def draws(x):
        k = len(x)
        out = {}
        for idx in itertools.product(range(k), repeat=k):
            v = sum(Fraction(x[i]) for i in idx) / k
            out[v] = out.get(v, 0) + Fraction(1, k ** k)
        return out
    if cell[0] == "paired":
        return draws(cell[1])
    a, b = draws(cell[1]), draws(cell[2])
    out = {}
    for va, pa in a.items():
        for vb, pb in b.items():
            out[va - vb] = out.get(va - vb, 0) + pa * pb
    return out


def exact(cells):
    """Mean and variance of theta* = mean of n drawn topics' values, by full enumeration."""
    n = len(cells)
    dists = [topic_mean_distribution(c) for c in cells]
    mean = Fraction(0)
    second = Fraction(0)
    count = 0
    for topics in itertools.product(range(n), repeat=n):
        for values in itertools.product(*[list(dists[t].items()) for t in topics]):
            p = Fraction(1, n ** n)
            s = Fraction(0)
            for v, q in values:
                p *= q
                s += v
            theta = s / n
            mean += p * theta
            second += p * theta * theta
            count += 1
    return mean, second - mean * mean, count


def split(cells):
    means = np.array([float(np.mean(c[1])) if c[0] == "paired" else float(np.mean(c[1]) - np.mean(c[2])) for c in cells])
    n = len(cells)
    s2m = means.var(ddof=1)
    within, of_mean = [], []
    for c in cells:
        if c[0] == "paired":
            if len(c[1]) >= 2:
                v = np.var(c[1], ddof=1)
                within.append(v)
                of_mean.append(v / len(c[1]))
        elif len(c[1]) >= 2 and len(c[2]) >= 2:
            va, vb = np.var(c[1], ddof=1), np.var(c[2], ddof=1)
            within.append(va + vb)
            of_mean.append(va / len(c[1]) + vb / len(c[2]))
    sw = float(np.mean(within))
    part = float(np.mean(of_mean))
    k = sw / part
    between = s2m - part
    return {
        "topics": n,
        "samples_per_topic": k,
        "between": between,
        "within": sw,
        "se": (s2m / n) ** 0.5,
        "within_share": min(max(part / s2m, 0.0), 1.0),
        "se_double_samples": ((max(between, 0) + sw / (2 * k)) / n) ** 0.5,
        "se_unlimited_samples": (max(between, 0) / n) ** 0.5,
    }


CASES = {
    # One system, 3 topics x 2 samples.
    "system": [("paired", [1, 0]), ("paired", [1, 1]), ("paired", [0, 0.5])],
    # A paired difference (seeds 1, 2 in both systems): A = [1,0],[1,1],[0,1]; B = [0,0],[0,0],[1,1]
    # give the per-seed differences [1,0], [1,1], [-1,0].
    "paired-difference": [("paired", [1, 0]), ("paired", [1, 1]), ("paired", [-1, 0])],
    # An unpaired difference on 2 topics: A [1, 0] vs B [0, 1, 1]; A [1, 1] vs B [0, 0.5].
    "unpaired-difference": [("unpaired", [1, 0], [0, 1, 1]), ("unpaired", [1, 1], [0, 0.5])],
}

# The variance split only (no enumeration): tests/cli/samples.rs's seeds table (system A, system
# B, and A - B: topics t1-t3 paired by seed, t4 not: A has seeds 1, 2 and B seed 1).
SPLITS = {
    "seeds-csv A": [("paired", [1, 0, 1]), ("paired", [0, 0, 1]), ("paired", [0, 1, 1]), ("paired", [1, 1])],
    "seeds-csv B": [("paired", [0, 0, 0]), ("paired", [1, 1, 0]), ("paired", [0, 1, 1]), ("paired", [0])],
    "seeds-csv A - B": [("paired", [1, 0, 1]), ("paired", [-1, -1, 1]), ("paired", [0, 0, 0]), ("unpaired", [1, 1], [0])],
}

if __name__ == "__main__":
    print("# Two-level bootstrap and variance split: oracle values\n")
    print("Made by `python3 two_level_bootstrap.py` (Python %s, numpy %s): exact enumeration of every"
          % (sys.version.split()[0], np.__version__))
    print("two-level resample (fractions), and the variance split by hand (numpy, ddof=1).\n")
    for name, cells in CASES.items():
        m, v, count = exact(cells)
        print("## %s\n" % name)
        print("cells: %r\n" % (cells,))
        print("- resample outcomes enumerated (topic draws x distinct topic values): %d" % count)
        print("- exact bootstrap mean: %r (%s)" % (float(m), m))
        print("- exact bootstrap variance: %r (%s)" % (float(v), v))
        for k, x in split(cells).items():
            print("- split %s: %r" % (k, x if isinstance(x, int) else float(x)))
        print()
    for name, cells in SPLITS.items():
        print("## %s (split only)\n" % name)
        print("cells: %r\n" % (cells,))
        for k, x in split(cells).items():
            print("- split %s: %r" % (k, x if isinstance(x, int) else float(x)))
        print()
