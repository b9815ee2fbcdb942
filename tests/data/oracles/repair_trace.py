"""Oracle for pledge's repair-trace test (`pledge trace`, src/gate/trace/).

Reads the design pledge exports (`pledge trace ... --export-design FILE`: a JSON header line,
then one line per passage with its set, fold, pledge's out-of-fold score and its sparse
features), so both sides fit the SAME features and folds. Per fold it fits scikit-learn's
LogisticRegression(penalty="l2", C=C, solver="lbfgs", tol=1e-12, max_iter=100000,
fit_intercept=True) (scikit-learn does not penalize the intercept, nor does pledge) on the other
folds, scores the held-out passages with decision_function, pools the out-of-fold scores and
computes roc_auc_score(replacement, score). The interval is DeLong's, from the widely used numpy
implementation of Sun & Xu's fast algorithm (compute_midrank / fastDeLong below, as in
yandexdataschool/roc_comparison), AUC +- z * sqrt(var) with z = scipy.stats.norm.ppf((1 + level)
/ 2), clipped to [0, 1].

Usage: python repair_trace.py DESIGN.jsonl   (prints the values block of repair-trace.md)
"""
import json
import sys

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score


def compute_midrank(x):
    """Midranks (1-based) of x: Sun & Xu (2014), as in roc_comparison's compare_auc_delong_xu."""
    J = np.argsort(x, kind="mergesort")
    Z = x[J]
    N = len(x)
    T = np.zeros(N, dtype=float)
    i = 0
    while i < N:
        j = i
        while j < N and Z[j] == Z[i]:
            j += 1
        T[i:j] = 0.5 * (i + j - 1)
        i = j
    T2 = np.empty(N, dtype=float)
    T2[J] = T + 1
    return T2


def fast_delong(predictions_sorted_transposed, label_1_count):
    """AUC and DeLong covariance: roc_comparison's fastDeLong (positives first)."""
    m = label_1_count
    n = predictions_sorted_transposed.shape[1] - m
    positive_examples = predictions_sorted_transposed[:, :m]
    negative_examples = predictions_sorted_transposed[:, m:]
    k = predictions_sorted_transposed.shape[0]
    tx = np.empty([k, m], dtype=float)
    ty = np.empty([k, n], dtype=float)
    tz = np.empty([k, m + n], dtype=float)
    for r in range(k):
        tx[r, :] = compute_midrank(positive_examples[r, :])
        ty[r, :] = compute_midrank(negative_examples[r, :])
        tz[r, :] = compute_midrank(predictions_sorted_transposed[r, :])
    aucs = tz[:, :m].sum(axis=1) / m / n - float(m + 1.0) / 2.0 / n
    v01 = (tz[:, :m] - tx[:, :]) / n
    v10 = 1.0 - (tz[:, m:] - ty[:, :]) / m
    sx = np.cov(v01)
    sy = np.cov(v10)
    delongcov = sx / m + sy / n
    return aucs, delongcov


def main(path):
    lines = [json.loads(l) for l in open(path, encoding="utf-8")]
    head, rows = lines[0], lines[1:]
    d = head["features"]
    k = head["folds"]
    C = head["regularization-c"]
    level = head["confidence"]
    n = len(rows)
    data, ind, ptr = [], [], [0]
    for r in rows:
        for j, v in r["x"]:
            ind.append(j)
            data.append(v)
        ptr.append(len(ind))
    X = sp.csr_matrix((data, ind, ptr), shape=(n, d))
    y = np.array([1 if r["set"] == "replacement" else 0 for r in rows])
    folds = np.array([r["fold"] for r in rows])
    scores = np.full(n, np.nan)
    for f in range(k):
        tr, te = folds != f, folds == f
        clf = LogisticRegression(C=C, solver="lbfgs", tol=1e-12, max_iter=100000, fit_intercept=True)
        clf.fit(X[tr], y[tr])
        scores[te] = clf.decision_function(X[te])
    auc = roc_auc_score(y, scores)
    order = np.argsort(-y, kind="mergesort")  # positives (replacements) first
    m = int(y.sum())
    aucs, cov = fast_delong(scores[order][np.newaxis, :], m)
    var = float(cov)
    z = norm.ppf(0.5 + level / 2)
    lo, hi = max(0.0, float(auc - z * np.sqrt(var))), min(1.0, float(auc + z * np.sqrt(var)))
    pledge = np.array([r["score"] for r in rows])
    print(f"python {sys.version.split()[0]} numpy {np.__version__} scipy {scipy.__version__} scikit-learn {sklearn.__version__}")
    print(f"passages {n} replacements {m} features {d} folds {k} C {C!r} confidence {level!r}")
    print(f"auc {float(auc)!r}")
    print(f"delong-auc {float(aucs[0])!r}")
    print(f"delong-variance {var!r}")
    print(f"lower {lo!r}")
    print(f"upper {hi!r}")
    print(f"max |pledge score - sklearn score| {float(np.max(np.abs(pledge - scores))):.3e}")


if __name__ == "__main__":
    main(sys.argv[1])
