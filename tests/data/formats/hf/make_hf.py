"""Writes Hugging Face `datasets` files: the hub's hotpot_qa schema (from the bundled HotpotQA-10
distractor questions, mapped as the hub's hotpot_qa loader maps the original JSON) as Parquet and
JSON Lines, and the bundled HotpotQA-100 correctness table as Parquet and wide JSON Lines."""
import json, sys
import datasets

src = json.load(open(sys.argv[1]))
rows = []
for q in src:
    rows.append({
        "id": q["_id"], "question": q["question"], "answer": q["answer"], "type": q["type"], "level": q["level"],
        "supporting_facts": {"title": [t for t, _ in q["supporting_facts"]], "sent_id": [i for _, i in q["supporting_facts"]]},
        "context": {"title": [t for t, _ in q["context"]], "sentences": [s for _, s in q["context"]]},
    })
features = datasets.Features({
    "id": datasets.Value("string"), "question": datasets.Value("string"), "answer": datasets.Value("string"),
    "type": datasets.Value("string"), "level": datasets.Value("string"),
    "supporting_facts": datasets.features.Sequence({"title": datasets.Value("string"), "sent_id": datasets.Value("int32")}),
    "context": datasets.features.Sequence({"title": datasets.Value("string"), "sentences": datasets.features.Sequence(datasets.Value("string"))}),
})
ds = datasets.Dataset.from_list(rows, features=features)
ds.to_parquet("hotpot_qa-hub-10.parquet")
ds.to_json("hotpot_qa-hub-10.jsonl")
print(ds)

scores = datasets.Dataset.from_csv(sys.argv[2])
scores.to_parquet("hotpotqa-100-correctness.parquet")
scores.to_json("hotpotqa-100-correctness.jsonl")
print(scores)
