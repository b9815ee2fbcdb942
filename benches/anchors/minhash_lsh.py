"""Near-duplicate pairs with MinHash LSH (datasketch or rensa), the approximate way most
deduplication pipelines find them, on the same shingle sets as pledge's exact join.

- datasketch: `MinHashLSH(threshold=t, num_perm=128)` (datasketch picks its bands and rows
  for t), `MinHash.bulk` over the shingles as UTF-8 bytes.
- rensa: `RMinHashLSH(threshold=t, num_perm=128, num_bands=16)`, i.e. 16 bands of 8 rows,
  `RMinHash.from_token_sets` (seed 42).

Every passage is inserted, then queried; each candidate pair the index returns is verified
with the exact Jaccard of the two shingle sets, so the pairs written are true pairs and what
LSH costs is recall (the harness compares them with the exact join's). Prints a JSON summary
(passages, candidate pairs, verified pairs) on standard output.
"""

import argparse
import json
import sys

import corpus


def datasketch_candidates(sets, t, num_perm):
    from datasketch import MinHash, MinHashLSH

    hashes = MinHash.bulk(([tok.encode("utf-8") for tok in s] for s in sets), num_perm=num_perm)
    lsh = MinHashLSH(threshold=t, num_perm=num_perm)
    with lsh.insertion_session() as session:
        for i, m in enumerate(hashes):
            if sets[i]:
                session.insert(i, m)
    for i, m in enumerate(hashes):
        if sets[i]:
            yield i, lsh.query(m)


def rensa_candidates(sets, t, num_perm, bands):
    from rensa import RMinHash, RMinHashLSH

    keep = [i for i, s in enumerate(sets) if s]
    hashes = RMinHash.from_token_sets([list(sets[i]) for i in keep], num_perm, 42)
    lsh = RMinHashLSH(t, num_perm, bands)
    lsh.insert_many(hashes, 0)
    for k, found in enumerate(lsh.query_all(hashes)):
        yield keep[k], [keep[j] for j in found]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus.add_arguments(parser)
    parser.add_argument("--library", choices=["datasketch", "rensa"], required=True)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--bands", type=int, default=16, help="rensa's number of bands")
    args = parser.parse_args()
    t = args.jaccard
    ids, sets = corpus.shingle_sets(args.passages, args.shingle_size, args.normalization)
    if args.library == "datasketch":
        found = datasketch_candidates(sets, t, args.num_perm)
    else:
        found = rensa_candidates(sets, t, args.num_perm, args.bands)
    candidates = set()
    for i, js in found:
        for j in js:
            if j != i:
                candidates.add((i, j) if i < j else (j, i))
    pairs = []
    for i, j in sorted(candidates):
        inter = len(sets[i] & sets[j])
        if inter / (len(sets[i]) + len(sets[j]) - inter) >= t:
            pairs.append((i, j))
    if args.out:
        corpus.write_pairs(args.out, ((ids[i], ids[j]) for i, j in pairs))
    json.dump({"passages": len(ids), "candidates": len(candidates), "pairs": len(pairs)}, sys.stdout)
    print()


if __name__ == "__main__":
    sys.exit(main())
