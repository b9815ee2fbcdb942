"""Makes tests/data/formats/{ranx,pytrec_eval,ir_measures} from the bundled robust03 subset."""
import json
import pytrec_eval
from ranx import Qrels, Run, evaluate

qrels = Qrels.from_file("qrels.txt", kind="trec")
for name in ["InexpC2", "uic0301"]:
    run = Run.from_file(f"{name}.run", kind="trec")
    run.name = name
    run.save(f"{name}.ranx.json")
    run.save(f"{name}.ranx.parquet")
    # ranx's own per-query numbers, for the tests
    per_q = evaluate(qrels, run, "map", return_mean=False)
    print(name, "ranx map per query", dict(zip(run.keys(), [round(float(x), 6) for x in per_q])))
    print(name, "ranx mean map", evaluate(qrels, run, "map"))
qrels.save("qrels.ranx.json")
qrels.save("qrels.ranx.parquet")

with open("qrels.txt") as f:
    q = {}
    for line in f:
        t, _, d, r = line.split()
        q.setdefault(t, {})[d] = int(r)
for name in ["InexpC2", "uic0301"]:
    r = {}
    with open(f"{name}.run") as f:
        for line in f:
            t, _, d, _, s, _ = line.split()
            r.setdefault(t, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(q, {"map", "P_10", "ndcg_cut_10", "recip_rank"})
    res = ev.evaluate(r)
    with open(f"{name}.pytrec_eval.json", "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(name, "pytrec map", {k: round(v["map"], 6) for k, v in sorted(res.items())})
