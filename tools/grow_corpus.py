#!/usr/bin/env python3
"""Synthetic boilerplate growth of a passage corpus, for scaling measurements of
`pledge components` (not a test).

Each law (the passages sharing a `doc` value) is kept and copied K-1 more times; copy c of law D
is the law `D~c`, its passages `D~c:<article>`, and each copy's texts get a random share of
0-2% of their characters replaced by characters drawn from the same text (seeded, so the same
arguments give the same file). The questions file is unchanged: its passages are the originals,
and the copies only grow the pool the near-duplicate join runs over.

Usage: tools/grow_corpus.py PASSAGES.jsonl.gz K OUT.jsonl.gz [--seed 1] [--max-edit 0.02]
"""

import argparse
import gzip
import json
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("passages")
    ap.add_argument("k", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-edit", type=float, default=0.02)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with gzip.open(a.passages, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    laws = {}
    for r in rows:
        laws.setdefault(r["doc"], []).append(r)
    with gzip.open(a.out, "wt", encoding="utf-8", compresslevel=1) as out:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
        for c in range(1, a.k):
            for doc, arts in laws.items():
                rate = rng.uniform(0, a.max_edit)
                for r in arts:
                    text = list(r["text"])
                    edits = sum(1 for _ in range(len(text)) if rng.random() < rate) if len(text) < 64 else round(rate * len(text))
                    for pos in rng.sample(range(len(text)), min(edits, len(text))):
                        text[pos] = text[rng.randrange(len(text))]
                    art = r["id"].split(":", 1)[1] if ":" in r["id"] else r["id"]
                    copy = dict(r, id=f"{doc}~{c}:{art}", doc=f"{doc}~{c}", text="".join(text))
                    out.write(json.dumps(copy, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
