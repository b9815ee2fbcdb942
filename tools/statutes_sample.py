#!/usr/bin/env python3
"""Rebuild tests/data/statutes-kr-100/ (the statute sample of Walk-through 2) from the full
statute set: 100 laws drawn with a fixed seed, every candidate question of those laws, their
articles, and the decoy articles the questions name (the decoys' laws are otherwise left out).

Usage: python3 tools/statutes_sample.py FULL_SET_DIR [OUT_DIR]
  FULL_SET_DIR holds docs.jsonl, passages.jsonl.gz and questions.jsonl.gz of the full set (its
  PROVENANCE is copied into tests/data/statutes-kr-100/PROVENANCE.txt); OUT_DIR defaults to
  tests/data/statutes-kr-100. The inputs are checked against the SHA-256 sums below first, and
  the outputs' decompressed bytes against theirs after. Standard library only.
"""

import gzip
import hashlib
import json
import os
import random
import sys

LAWS = 100
SEED = 20261205
INPUTS = {
    "docs.jsonl": "aae3c4c775bda5f43131ac1caef9936d6e75de04c7bbbad66a4c931b932a7f28",
    "passages.jsonl.gz": "2c737718402ee2d7a84ab10ff7795623d17f4fbdeaee444941222d84e7c1ba10",
    "questions.jsonl.gz": "67f99f8e1c6cde63fd17b52891573bc13aaa01e6f208fc476dfe884322f95be3",
}
# SHA-256 of the decompressed outputs (gzip's own bytes depend on the zlib version).
OUTPUTS = {
    "passages.jsonl.gz": "1a7b67dc81f7d91b045adc350512808f9a7454624d3a71dab67849bc7b02fa98",
    "questions.jsonl.gz": "4b8b7f816c3b4d24917712daa7fc142680c598bf94d54eaed9b59e12f6347a08",
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "tests/data/statutes-kr-100"
    for name, want in INPUTS.items():
        got = sha256(os.path.join(src, name))
        if got != want:
            sys.exit(f"error: {name}: SHA-256 {got}, expected {want} (another version of the full set)")
    with open(os.path.join(src, "docs.jsonl"), encoding="utf-8") as f:
        docs = sorted((json.loads(line)["doc"] for line in f), key=str)
    chosen = set(random.Random(SEED).sample(docs, LAWS))
    with gzip.open(os.path.join(src, "questions.jsonl.gz"), "rt", encoding="utf-8") as f:
        questions = [q for q in map(json.loads, f) if q["doc"] in chosen]
    needed = {p for q in questions for p in q["passages"] + [q["decoy"]]}
    with gzip.open(os.path.join(src, "passages.jsonl.gz"), "rt", encoding="utf-8") as f:
        passages = [p for p in map(json.loads, f) if p["doc"] in chosen or p["id"] in needed]
    os.makedirs(out, exist_ok=True)
    for name, rows in (("questions.jsonl.gz", questions), ("passages.jsonl.gz", passages)):
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        if digest != OUTPUTS[name]:
            sys.exit(f"error: {name}: decompressed SHA-256 {digest}, expected {OUTPUTS[name]}")
        with gzip.GzipFile(os.path.join(out, name), "wb", mtime=0) as f:
            f.write(data)
    print(f"{LAWS} laws, {len(questions)} questions, {len(passages)} passages -> {out}")


if __name__ == "__main__":
    main()
