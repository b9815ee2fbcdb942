"""PyTerrier per-query evaluation of two TREC runs (robust03 subset), saved as pandas CSV."""
import pandas as pd
import pyterrier as pt

qrels = pt.io.read_qrels("qrels.txt")
# The runs are precomputed, so the topics only name the queries (no retrieval is run).
topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})
runs = [pt.io.read_results(f"{n}.run") for n in ["InexpC2", "uic0301"]]
res = pt.Experiment(runs, topics, qrels, eval_metrics=["map", "ndcg_cut_10", "P_10"],
                    names=["InexpC2", "uic0301"], perquery=True)
res.to_csv("pyterrier-perquery.csv", index=False)
print(res.head())
print(pt.Experiment(runs, topics, qrels, eval_metrics=["map"], names=["InexpC2", "uic0301"]))
