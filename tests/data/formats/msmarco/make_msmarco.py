"""Makes tests/data/formats/msmarco/: the InexpC2 run of the robust03 subset as an MS MARCO
3-column run (qid<TAB>docid<TAB>rank, ranks 1.. in trec_eval's order, first 100 per query)
as Anserini/pyserini's MsMarcoWriter writes it, then pyserini's own converter turns it back into
a TREC run, and ir_measures evaluates that (the oracle for RR@10)."""
import subprocess, sys
import ir_measures
from ir_measures import RR, AP, nDCG

run = {}
for line in open("InexpC2.run"):
    q, _, d, _, s, _ = line.split()
    run.setdefault(q, []).append((d, float(s)))
with open("InexpC2.msmarco.tsv", "w") as f:
    for q in sorted(run):
        # trec_eval's order: score descending, then docno descending
        docs = sorted(run[q], key=lambda x: (x[1], x[0]), reverse=True)[:100]
        for rank, (d, _) in enumerate(docs, 1):
            f.write(f"{q}\t{d}\t{rank}\n")
subprocess.run([sys.executable, "-m", "pyserini.eval.convert_msmarco_run_to_trec_run",
                "--input", "InexpC2.msmarco.tsv", "--output", "InexpC2.msmarco.trec"], check=True)
qrels = list(ir_measures.read_trec_qrels("qrels.txt"))
trec = list(ir_measures.read_trec_run("InexpC2.msmarco.trec"))
print("ir_measures on pyserini's conversion:", ir_measures.calc_aggregate([RR@10, AP, nDCG@10], qrels, trec))
for m in ir_measures.iter_calc([RR@10], qrels, trec):
    print(m.query_id, m.measure, m.value)
