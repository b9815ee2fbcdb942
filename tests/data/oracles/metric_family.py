# Oracle for pledge's one multiplicity family across metrics ([family], compare with several
# --measure): statsmodels multipletests on the same p-values pledge computed for each metric.
# The raw p-values are pledge's exact randomization p-values (2^10 sign assignments of the 10
# topics of tests/data/trec/robust03_qrels.subset.txt.gz), copied from its JSON output; the
# adjusted ones are statsmodels'.  Run: python metric_family.py > metric-family.md
import numpy as np, statsmodels
from statsmodels.stats.multitest import multipletests

# analyze: [family] metrics ndcg_cut.10, recall.100, holm; the primary hypotheses in family order
# (uic0301 beats InexpC2, humR03dc beats InexpC2) for ndcg_cut.10, then for recall.100; each
# the two-sided randomization p (target.sides = 2).
ANALYZE = [0.064453125, 0.4609375, 0.0546875, 0.8203125]
# compare --measure ndcg_cut.10 --measure recall.100 --measure P.10 --baseline InexpC2 --adjust
# bh: (uic0301, humR03dc) against InexpC2 per measure, each the two-sided randomization p.
COMPARE = [0.064453125, 0.4609375, 0.0546875, 0.8203125, 0.203125, 0.3125]

print("# Reference values: one multiplicity family across metrics")
print()
print("Made by `metric_family.py` (this directory) with numpy", np.__version__, "and statsmodels",
      statsmodels.__version__ + ": `multipletests(p, method=...)` on the p-values pledge")
print("computed (exact randomization tests), asserted by `tests/cli/family.rs` to 1e-12.")
print()
print("```text")
for name, p, method in [("analyze", ANALYZE, "holm"), ("compare", COMPARE, "fdr_bh")]:
    rej, adj, _, _ = multipletests(p, alpha=0.05, method=method)
    print(f"{name} raw {[float(x) for x in p]!r}")
    print(f"{name} {method} {[float(x) for x in adj]!r} reject {[bool(x) for x in rej]!r}")
print("```")
