"""Writes a BEIR-format dataset (corpus.jsonl, queries.jsonl, qrels/test.tsv) from the bundled
HotpotQA-10 questions with BEIR's own writers (beir.util.write_to_json / write_to_tsv), then
reads it back with BEIR's GenericDataLoader. beir.util imports torch at module level without
using it in these writers; torch is stubbed so that the writers run without it."""
import json, sys, types
sys.modules["torch"] = types.ModuleType("torch")
from beir import util
from beir.datasets.data_loader import GenericDataLoader

src = json.load(open(sys.argv[1]))
corpus, queries, qrels, ids = {}, {}, {}, {}
for q in src:
    support = {t for t, _ in q["supporting_facts"]}
    queries[q["_id"]] = q["question"]
    for title, sents in q["context"]:
        if title not in ids:
            ids[title] = f"hp{len(ids):04d}"
            corpus[ids[title]] = {"title": title, "text": "".join(sents)}
        qrels.setdefault(q["_id"], {})[ids[title]] = 1 if title in support else 0
import os
os.makedirs("scifact-like/qrels", exist_ok=True)
util.write_to_json("scifact-like/corpus.jsonl", corpus)
util.write_to_json("scifact-like/queries.jsonl", queries)
util.write_to_tsv("scifact-like/qrels/test.tsv", qrels)
c, q, r = GenericDataLoader("scifact-like").load(split="test")
print("BEIR GenericDataLoader:", len(c), "documents,", len(q), "queries,", sum(len(v) for v in r.values()), "judgments,",
      sum(1 for v in r.values() for s in v.values() if s > 0), "relevant")
