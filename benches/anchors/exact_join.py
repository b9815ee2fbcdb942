"""Exact near-duplicate join in pure Python (standard library only): every pair of passages whose
shingle sets have Jaccard >= t.

Method: AllPairs (Bayardo, Ma & Srikant, "Scaling up all pairs similarity search", WWW 2007)
with the prefix and length filters. Tokens are ranked by ascending document frequency (ties in the
order first seen, which follows Python's set order: fixed by PYTHONHASHSEED; the pairs never
depend on it); the sets are probed in ascending size. If J(x, y) >= t then x and y share at
least ceil(t*|x|) tokens, so the first |x| - ceil(t*|x|) + 1 tokens of x and of y in that order
share one (prefix filter); a set y probed before x has t*|x| <= |y| <= |x| (length filter, which
also drops y from the index for every later probe), and only its first |y| - ceil(2t/(1+t)*|y|) + 1
tokens need indexing, since J >= t means an overlap of at least t/(1+t)*(|x| + |y|).
Each candidate is verified with the exact fraction |x & y| / |x | y| >= t. No hashing to
fingerprints, no sampling: every pair is found. An independent implementation, written for
`benches/anchors.sh`; it shares nothing with pledge but the definition of the sets.

Prints a JSON summary (passages, pairs, candidates verified) on standard output.
"""

import argparse
import json
import math
import sys
from collections import Counter
from operator import itemgetter

import corpus


def exact_join(sets, t):
    """Pairs (i, j), i < j, of `sets` (Python sets of shingles) with Jaccard >= t, and the number
    of candidates verified."""
    freq = Counter()
    for s in sets:
        freq.update(s)
    # Stable sort: ties keep the order in which the tokens were first seen.
    order = sorted(freq.items(), key=itemgetter(1))
    rank = {tok: r for r, (tok, _) in enumerate(order)}
    del order, freq
    ranked = [sorted(map(rank.__getitem__, s)) for s in sets]
    del rank
    as_sets = [set(r) for r in ranked]
    by_size = sorted(range(len(sets)), key=lambda i: (len(ranked[i]), i))
    index = {}  # token -> [first live position, set ids in ascending size]
    pairs = []
    verified = 0
    for x in by_size:
        tx = ranked[x]
        lx = len(tx)
        if lx == 0:
            continue
        # 1e-6 margins: rounding may only let a candidate too many through, never drop a pair.
        need = min(max(math.ceil(t * lx - 1e-6), 1), lx)
        min_len = t * lx - 1e-6
        cands = set()
        for tok in tx[: lx - need + 1]:
            entry = index.get(tok)
            if entry is None:
                continue
            posting = entry[1]
            start = entry[0]
            # Sizes only grow, so a set too small for x is too small for every later probe.
            while start < len(posting) and len(ranked[posting[start]]) < min_len:
                start += 1
            entry[0] = start
            cands.update(posting[start:])
        sx = as_sets[x]
        for y in cands:
            verified += 1
            ly = len(ranked[y])
            inter = len(sx & as_sets[y])
            if inter / (lx + ly - inter) >= t:
                pairs.append((y, x) if y < x else (x, y))
        # Indexing prefix: a later (larger) y needs overlap >= t/(1+t)*(|x|+|y|) >= 2t/(1+t)*|x|.
        index_need = min(max(math.ceil(2 * t / (1 + t) * lx - 1e-6), 1), lx)
        for tok in tx[: lx - index_need + 1]:
            entry = index.get(tok)
            if entry is None:
                index[tok] = [0, [x]]
            else:
                entry[1].append(x)
    pairs.sort()
    return pairs, verified


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus.add_arguments(parser)
    args = parser.parse_args()
    if not 0 < args.jaccard <= 1:
        sys.exit("--jaccard must be in (0, 1]")
    ids, sets = corpus.shingle_sets(args.passages, args.shingle_size, args.normalization)
    pairs, verified = exact_join(sets, args.jaccard)
    if args.out:
        corpus.write_pairs(args.out, ((ids[i], ids[j]) for i, j in pairs))
    json.dump({"passages": len(ids), "pairs": len(pairs), "verified": verified}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
