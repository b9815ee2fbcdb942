"""Exact near-duplicate passage pairs on Apache Spark, for `pledge components --pairs`.

Finds every pair of passages whose character n-gram shingle sets have Jaccard >= t, exactly as
pledge's `near-duplicate-passage` link rule does on one machine, and writes them as JSON Lines:

    {"a": "<passage id>", "b": "<passage id>", "intersection": I, "union": U, "jaccard": J}

one line per pair, a < b by passage order in the input, sorted. `pledge components PROTOCOL
--pairs FILE` then counts components from these pairs instead of running its own join (and checks
a random sample of them exactly against the passages).

Method: the partitioned prefix-filter join of Vernica, Carey & Li, "Efficient parallel
set-similarity joins using MapReduce" (SIGMOD 2010): stage 1 orders shingles by ascending
document frequency (ties by the shingle), stage 2 sends each passage to the groups of its prefix
tokens (the first |x| - ceil(t*|x|) + 1 tokens: two sets with Jaccard >= t share one of them,
Bayardo et al. WWW 2007) and pairs the passages within a group under the length filter
t*|x| <= |y| <= |x|, stage 3 verifies each distinct candidate pair exactly by joining back the
full sets. No hashing or sampling: every pair is found.

Shingles, as pledge: the text is normalized (NFC, NFKC or none), a shingle is a run of n Unicode
scalar values, a non-empty text shorter than n has the whole text as its one shingle, an empty
text has none and is similar to nothing. J(a, b) = |a & b| / |a | b| >= t in double precision.

Passages: JSON Lines (optionally .gz) with `id` and `text` fields (pledge's JSON Lines passage
layout; other fields are ignored).

Usage:
    spark-submit spark/near_duplicates.py PASSAGES OUT.jsonl [--shingle-size 5] [--jaccard 0.8]
        [--normalization nfc|nfkc|none] [--master local[2]] [--driver-memory 4g]
"""

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import unicodedata


def normalize(text, form):
    if form == "none":
        return text
    return unicodedata.normalize(form.upper(), text)


def shingles(text, n):
    """The distinct character n-grams of `text` (pledge's `components::shingle::shingles`)."""
    if not text:
        return []
    if len(text) < n:
        return [text]
    return sorted({text[i : i + n] for i in range(len(text) - n + 1)})


def min_overlap(size, t):
    """ceil(t*size) with pledge's 1e-6 safety margin, clamped to [1, size]."""
    return min(max(math.ceil(t * size - 1e-6), 1), size)


def similar(inter, a, b, t):
    if a == 0 or b == 0:
        return False
    return inter / (a + b - inter) >= t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("passages")
    ap.add_argument("out")
    ap.add_argument("--shingle-size", type=int, default=5)
    ap.add_argument("--jaccard", type=float, default=0.8)
    ap.add_argument("--normalization", choices=["nfc", "nfkc", "none"], default="nfc")
    ap.add_argument("--master", default=None)
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--driver-memory", default="4g", help="spark.driver.memory (local mode runs in the driver)")
    args = ap.parse_args(argv)
    if not 0 < args.jaccard <= 1:
        ap.error("--jaccard must be in (0, 1]")
    if args.shingle_size < 1:
        ap.error("--shingle-size must be at least 1")

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("pledge-near-duplicates")
    if args.master:
        builder = builder.master(args.master)
    builder = builder.config("spark.driver.memory", args.driver_memory).config("spark.ui.showConsoleProgress", "false")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sc = spark.sparkContext
    n, t, form = args.shingle_size, args.jaccard, args.normalization

    lines = sc.textFile(args.passages)

    def parse(indexed):
        line, order = indexed
        rec = json.loads(line)
        return (order, rec["id"], shingles(normalize(rec.get("text") or "", form), n))

    # (order, id, shingles): `order` is the passage's line number, so pairs come out as pledge
    # orders them (a before b in the file).
    # A .gz file is one partition: number the lines first, then spread them over the cores.
    parts = args.partitions or 4 * sc.defaultParallelism
    recs = lines.filter(lambda l: l.strip()).zipWithIndex().repartition(parts).map(parse).cache()
    ids = dict(recs.map(lambda r: (r[0], r[1])).collect())

    # Stage 1: global token order, ascending document frequency, ties by the shingle.
    df = recs.flatMap(lambda r: [(s, 1) for s in r[2]]).reduceByKey(lambda a, b: a + b)
    ranked = df.map(lambda kv: ((kv[1], kv[0]), kv[0])).sortByKey().map(lambda kv: kv[1]).zipWithIndex()
    rank_of = sc.broadcast(dict(ranked.collect()))

    sets = recs.map(lambda r: (r[0], sorted(rank_of.value[s] for s in r[2]))).filter(lambda kv: kv[1]).cache()

    # Stage 2: candidates from shared prefix tokens, under the length filter.
    def prefix_tokens(kv):
        order, toks = kv
        k = len(toks) - min_overlap(len(toks), t) + 1
        return [(tok, (len(toks), order)) for tok in toks[:k]]

    def pairs_in_group(kv):
        members = sorted(kv[1])
        out = []
        for j in range(len(members)):
            size_x, x = members[j]
            for i in range(j - 1, -1, -1):
                size_y, y = members[i]
                if size_y < t * size_x - 1e-6:
                    break
                out.append((min(x, y), max(x, y)))
        return out

    candidates = sets.flatMap(prefix_tokens).groupByKey().flatMap(pairs_in_group).distinct()

    # Stage 3: verify each candidate exactly against the full sets.
    def intersection(a, b):
        i = j = k = 0
        while i < len(a) and j < len(b):
            if a[i] < b[j]:
                i += 1
            elif a[i] > b[j]:
                j += 1
            else:
                k += 1
                i += 1
                j += 1
        return k

    def verify(row):
        (a, b), (sa, sb) = row
        inter = intersection(sa, sb)
        if similar(inter, len(sa), len(sb), t):
            u = len(sa) + len(sb) - inter
            return [(a, b, inter, u)]
        return []

    with_a = candidates.join(sets).map(lambda kv: (kv[1][0], (kv[0], kv[1][1])))
    with_b = with_a.join(sets).map(lambda kv: ((kv[1][0][0], kv[0]), (kv[1][0][1], kv[1][1])))
    found = sorted(with_b.flatMap(verify).collect())

    tmp = tempfile.NamedTemporaryFile("w", delete=False, dir=os.path.dirname(os.path.abspath(args.out)) or ".")
    with tmp:
        for a, b, inter, u in found:
            tmp.write(
                json.dumps(
                    {"a": ids[a], "b": ids[b], "intersection": inter, "union": u, "jaccard": inter / u},
                    ensure_ascii=False,
                )
                + "\n"
            )
    shutil.move(tmp.name, args.out)
    print(f"{len(found)} pairs with Jaccard >= {t} ({n}-gram shingles, {form}) -> {args.out}", file=sys.stderr)
    spark.stop()


if __name__ == "__main__":
    main()
