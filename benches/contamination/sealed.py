"""A sealed set the size of a passages file, for benches/contamination.sh.

Reads a passages file (JSON Lines {id, text, ...}, gzip or plain) and writes as many sealed
passages {id: "sealed-N", text}: passage N's text verbatim when N is divisible by 4 (a
contaminated passage the check must find), else its words in reverse order (the same words and
length, few shared 5-grams). Deterministic; standard library only.

Usage: python3 sealed.py PASSAGES > sealed.jsonl
"""
import gzip
import json
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f):
            if not line.strip():
                continue
            text = json.loads(line)["text"]
            if n % 4:
                text = " ".join(reversed(text.split()))
            sys.stdout.write(json.dumps({"id": f"sealed-{n}", "text": text}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
