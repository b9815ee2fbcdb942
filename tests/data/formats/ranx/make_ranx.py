"""Makes tests/data/formats/ranx/{*.ranx.lz4,*.run-scores.json} from the bundled robust03 subset."""
import json
import ranx
from ranx import Qrels, Run, evaluate

print("ranx", ranx.__version__ if hasattr(ranx, "__version__") else "?")
qrels = Qrels.from_file("qrels.txt", kind="trec")
for name in ["InexpC2", "uic0301"]:
    run = Run.from_file(f"{name}.run", kind="trec")
    run.name = name
    run.save(f"{name}.ranx.lz4")
    means = evaluate(qrels, run, ["map", "ndcg@10", "precision@10"])
    print(name, "ranx means", means)
    # run.scores: ranx keeps each metric's per-query values on the run after evaluate()
    with open(f"{name}.run-scores.json", "w") as f:
        json.dump(run.scores, f, indent=2)

