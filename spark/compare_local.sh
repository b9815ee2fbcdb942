#!/usr/bin/env bash
# Runs the Spark near-duplicate job on a local Spark (local[2]) and checks that its pairs are the
# Rust join's, then that `pledge components --pairs` gives the same counts as pledge's own join.
#
#   bash spark/compare_local.sh                 # the bundled statute sample (tests/data/components)
#   bash spark/compare_local.sh PASSAGES QUESTIONS [PROTOCOL]   # e.g. the full statute corpus
#
# Installs what it needs from the package registries: a Java runtime (Debian's
# openjdk-17-jre-headless, when `java` is missing) and pyspark (PyPI) into spark/.venv.
# Not part of `.ci/run`.
set -euo pipefail
cd "$(dirname "$0")/.."
PASSAGES=${1:-tests/data/components/passages.jsonl}
QUESTIONS=${2:-tests/data/components/questions.jsonl}
PROTOCOL=${3:-protocols/statutes-kr.toml}
PYSPARK_VERSION=3.5.3

if ! command -v java >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
if [ ! -x spark/.venv/bin/python ]; then
  python3 -m venv spark/.venv
fi
if ! spark/.venv/bin/python -c "import pyspark" 2>/dev/null; then
  spark/.venv/bin/pip install -q "pyspark==$PYSPARK_VERSION"
fi
cargo build --release --locked --quiet
PLEDGE=$PWD/target/release/pledge

# The near-duplicate rule of the protocol: shingle size, threshold, normalization.
read -r SIZE JACCARD NORM < <(python3 - "$PROTOCOL" <<'EOF'
import sys, tomllib
p = tomllib.load(open(sys.argv[1], "rb"))
rules = [r for r in p.get("link-rules", []) if r.get("kind") == "near-duplicate-passage"]
if len(rules) != 1:
    sys.exit(f"{sys.argv[1]}: expected one near-duplicate-passage rule, found {len(rules)}")
r = rules[0]
print(r.get("shingle-size", 5), r.get("jaccard", 0.8), r.get("normalization", "nfc"))
EOF
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$PROTOCOL" "$work/protocol.toml"

t0=$(date +%s.%N)
spark/.venv/bin/python spark/near_duplicates.py "$PASSAGES" "$work/spark.jsonl" \
  --shingle-size "$SIZE" --jaccard "$JACCARD" --normalization "$NORM" --master 'local[2]' 2>"$work/spark.log" \
  || { tail -20 "$work/spark.log"; exit 1; }
t1=$(date +%s.%N)

(cd "$work" && git init -q . && "$PLEDGE" init >/dev/null 2>&1 &&
  "$PLEDGE" components protocol.toml --passages "$OLDPWD/$PASSAGES" --questions "$OLDPWD/$QUESTIONS" \
    --dry-run --write-pairs rust.jsonl --format json >rust.json 2>/dev/null || test $? -eq 3)
t2=$(date +%s.%N)
(cd "$work" && "$PLEDGE" components protocol.toml --passages "$OLDPWD/$PASSAGES" --questions "$OLDPWD/$QUESTIONS" \
    --dry-run --pairs spark.jsonl --format json >spark-count.json 2>/dev/null || test $? -eq 3)

python3 - "$work" "$t0" "$t1" "$t2" <<'EOF'
import json, sys
work, t0, t1, t2 = sys.argv[1], *map(float, sys.argv[2:])
def pairs(path):
    out = set()
    for line in open(path, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            out.add((min(r["a"], r["b"]), max(r["a"], r["b"]), r["intersection"], r["union"]))
    return out
spark, rust = pairs(f"{work}/spark.jsonl"), pairs(f"{work}/rust.jsonl")
def counts(path):
    c = json.load(open(path))["count"]
    return [(r["rule"], r["components"], r["with_candidates"]) for r in c["ablation"]]
same_counts = counts(f"{work}/rust.json") == counts(f"{work}/spark-count.json")
print(f"spark pairs: {len(spark)}  rust pairs: {len(rust)}  identical (ids and sizes): {spark == rust}")
print(f"counts from --pairs equal pledge's own: {same_counts}  {counts(f'{work}/spark-count.json')}")
print(f"spark job {t1 - t0:.1f} s (local[2], includes JVM start), pledge components {t2 - t1:.1f} s")
sys.exit(0 if spark == rust and same_counts else 1)
EOF
