# Oracle for pledge's ratio, corpus-BLEU and quantile estimators (pledge compare --estimator).
# Run from this directory: python estimators.py > estimators.md
# Writes estimators/bleu-*.csv (sacrebleu's per-sentence statistics, the columns pledge reads),
# estimators/f1-*.csv (per-topic tp, fp, fn) and estimators/latency.csv (a wide table).
import csv, math
import numpy as np, scipy, sacrebleu
from scipy import stats
from sacrebleu.metrics import BLEU

print("# Estimator oracles")
print()
print(f"python sacrebleu {sacrebleu.__version__}, numpy {np.__version__}, scipy {scipy.__version__}")
print()

refs = [
    "the cat sat on the mat by the door",
    "a quick brown fox jumps over the lazy dog",
    "we evaluate retrieval systems on many topics",
    "the results are reported with confidence intervals",
    "it rained all day in the small town",
    "please pass the salt and the pepper",
    "the committee approved the new budget on monday",
    "she reads a book every week",
]
systems = {
    "A": [
        "the cat sat on the mat near the door",
        "a quick brown fox jumped over the lazy dog",
        "we evaluate retrieval systems on many topics",
        "results are reported with confidence intervals",
        "it rained all day in a small town",
        "pass the salt and pepper please",
        "the committee approved a new budget on monday",
        "she reads one book every week",
    ],
    "B": [
        "a cat is sitting on the mat",
        "the fast brown fox jumps over a lazy dog",
        "we test retrieval systems on topics",
        "the results come with intervals",
        "it was raining the whole day in town",
        "give me the salt and the pepper",
        "the committee passed the budget monday",
        "every week she reads a book",
    ],
    # No 4-gram match but 4-grams guessed (sacrebleu's exp smoothing), and a brevity penalty.
    "C": [
        "cat sat on a mat",
        "quick brown fox over dog",
        "we evaluate systems",
        "results with confidence intervals",
        "it rained on town",
        "the salt and pepper",
        "committee approved budget",
        "she reads books",
    ],
    # Very short outputs: no 4-gram at all (total_4 = 0: sacrebleu stops there and scores 0).
    "D": [
        "cat on mat",
        "quick fox",
        "retrieval systems",
        "confidence intervals",
        "rained all day",
        "salt pepper",
        "committee budget",
        "reads a book",
    ],
}
cols = ["sys_len", "ref_len", "correct_1", "correct_2", "correct_3", "correct_4",
        "total_1", "total_2", "total_3", "total_4"]
print("## Corpus BLEU (sacrebleu BLEU().corpus_score, defaults: 13a, exp smoothing)")
print()
print("Per-sentence statistics from BLEU()._extract_corpus_statistics in estimators/bleu-NAME.csv;")
print("pledge's corpus BLEU from those counts must equal these to 1e-9.")
print()
for name, hyps in systems.items():
    bleu = BLEU()
    st = bleu._extract_corpus_statistics(hyps, [refs])
    with open(f"estimators/bleu-{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["topic"] + cols)
        for i, row in enumerate(st):
            w.writerow([f"s{i + 1}"] + [int(x) for x in row])
    score = BLEU().corpus_score(hyps, [refs]).score
    print(f"- corpus BLEU {name}: {score!r}")
print()

print("## Micro-F1 by hand (Σ 2TP / Σ (2TP + FP + FN))")
print()
f1 = {
    "A": [(3, 1, 0), (0, 2, 1), (5, 0, 1), (2, 2, 2), (4, 1, 0), (1, 0, 3)],
    "B": [(2, 0, 1), (1, 1, 0), (4, 2, 2), (3, 1, 1), (2, 3, 2), (2, 1, 2)],
}
for name, rows in f1.items():
    with open(f"estimators/f1-{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["topic", "tp", "fp", "fn"])
        for i, r in enumerate(rows):
            w.writerow([f"t{i + 1}", *r])
    tp = sum(r[0] for r in rows); fp = sum(r[1] for r in rows); fn = sum(r[2] for r in rows)
    print(f"- {name}: TP {tp}, FP {fp}, FN {fn}: micro-F1 = 2*{tp} / (2*{tp} + {fp} + {fn}) = "
          f"{2 * tp}/{2 * tp + fp + fn} = {2 * tp / (2 * tp + fp + fn)!r}")
print()

print("## Quantiles (numpy.quantile, method='linear' = Hyndman & Fan type 7, and 'inverted_cdf' = type 1)")
print()
lat = {
    "fast": [0.81, 1.20, 0.95, 3.40, 1.05, 0.88, 1.50, 0.99, 2.10, 1.12, 0.93, 1.31],
    "slow": [1.10, 1.45, 1.30, 5.20, 1.25, 1.02, 2.05, 1.40, 2.90, 1.33, 1.21, 1.70],
}
with open("estimators/latency.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["topic", "fast", "slow"])
    for i in range(len(lat["fast"])):
        w.writerow([f"q{i + 1}", lat["fast"][i], lat["slow"][i]])
for name, v in lat.items():
    for q in (0.5, 0.9):
        for m in ("linear", "inverted_cdf"):
            print(f"- {name} q {q} {m}: {float(np.quantile(v, q, method=m))!r}")
print()
print("## Bootstrap percentile intervals of the quantiles (scipy.stats.bootstrap, method='percentile',")
print("## n_resamples=10000, random_state=0; a different generator than pledge's, so they agree only")
print("## up to Monte-Carlo error)")
print()
for name, v in lat.items():
    for q in (0.5, 0.9):
        r = stats.bootstrap((np.array(v),), lambda x, axis: np.quantile(x, q, axis=axis),
                            n_resamples=10000, method="percentile", random_state=0)
        lo, hi = r.confidence_interval
        print(f"- {name} q {q}: [{float(lo)!r}, {float(hi)!r}] se {float(r.standard_error)!r}")
