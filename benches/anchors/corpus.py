"""Passages and shingles as pledge's near-duplicate rule makes them, in plain Python.

A passage file is JSON Lines (gzip when the name ends in .gz) of objects with "id" and "text".
A text is normalized (NFC, NFKC or none, as the protocol's `normalization`), and its shingles are
the set of its character (Unicode code point) n-grams; a non-empty text shorter than n has the
whole text as its only shingle, and an empty text has none (it is never a near-duplicate of
anything). This is the rule of pledge's `near-duplicate-passage` link rule, written again here so
the anchors read exactly the same sets.
"""

import gzip
import json
import sys
import unicodedata


def read_passages(path):
    """The passages of a JSON Lines file as two lists: ids and texts (file order)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    ids, texts = [], []
    with opener(path, "rt", encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                ids.append(str(rec["id"]))
                texts.append(rec["text"])
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}:{line_no}: expected a JSON object with \"id\" and \"text\" ({e})")
    return ids, texts


def normalize(text, normalization):
    """The text in the protocol's normalization form (`nfc`, `nfkc` or `none`)."""
    if normalization == "none":
        return text
    return unicodedata.normalize(normalization.upper(), text)


def shingles(text, n):
    """The set of character n-grams of `text` (the text itself when shorter than n, none when empty)."""
    if not text:
        return set()
    if len(text) < n:
        return {text}
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def shingle_sets(path, n, normalization):
    """Ids and shingle sets of the passages in `path`."""
    ids, texts = read_passages(path)
    return ids, [shingles(normalize(t, normalization), n) for t in texts]


def write_pairs(path, pairs):
    """Writes pairs of passage ids, one `a<TAB>b` line each."""
    with open(path, "w", encoding="utf-8") as f:
        for a, b in pairs:
            f.write(f"{a}\t{b}\n")


def add_arguments(parser):
    """The options every near-duplicate driver takes."""
    parser.add_argument("--passages", required=True, help="passages JSON Lines (.gz ok)")
    parser.add_argument("--shingle-size", type=int, default=5)
    parser.add_argument("--jaccard", type=float, default=0.8, help="threshold t: pairs with J >= t")
    parser.add_argument("--normalization", choices=["nfc", "nfkc", "none"], default="nfc")
    parser.add_argument("--out", help="write the pairs found here (a<TAB>b per line)")
