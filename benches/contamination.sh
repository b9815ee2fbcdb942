#!/usr/bin/env bash
# The contamination check against sealed data on the statute corpus (74,588 passages, all three
# roles) against a sealed set of the same size (benches/contamination/sealed.py: every fourth
# passage verbatim, the others with their words reversed), paired with a components count on the
# same inputs: the gated count (check + count) against the plain count, and the check's share
# (gated − plain) / plain, whose target is ≤ 1.5.
#
#   bash benches/contamination.sh [--data DIR] [--callgrind] [--runs N]
#
#   --data DIR    the statute data (default ../shared/data/statutes-kr)
#   --callgrind   measure instruction counts (valgrind --tool=callgrind, one thread each, the same
#                 inputs) instead of whole-process times: usable on a busy machine
#   --runs N      paired runs (default 11): whole-process wall and CPU times, the plain and the
#                 gated count in turn, medians and the median of the pairs' ratios (quiet machine only)
#
# The fingerprint is made once, before the measurement (`pledge fingerprint`, not timed). Needs
# python3 (standard library); --callgrind needs valgrind. PLEDGE=BINARY
# measures that build instead of building the profiling one. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=../shared/data/statutes-kr
mode=times
runs=11
while [ $# -gt 0 ]; do
  case "$1" in
    --data) DATA=$2; shift ;;
    --callgrind) mode=callgrind ;;
    --runs) runs=$2; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -f "$DATA/passages.jsonl.gz" ] || { echo "error: no $DATA/passages.jsonl.gz (see --data)" >&2; exit 2; }
if [ -n "${PLEDGE:-}" ]; then
  P=$PLEDGE
else
  cargo build --profile profiling --locked --quiet
  P=target/profiling/pledge
fi
W=target/contamination-bench
mkdir -p "$W"
[ -f "$W/sealed.jsonl" ] || python3 benches/contamination/sealed.py "$DATA/passages.jsonl.gz" > "$W/sealed.jsonl"
printf 'pledge contamination bench key, 32+ bytes long.' > "$W/sealed.key"
fp=$("$P" fingerprint "$W/sealed.jsonl" --key "$W/sealed.key" --shingle-size 5 -o "$W/sealed.fp" --format json)
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$fp" "$1"; }
cp protocols/statutes-kr.toml "$W/plain.toml"
{
  sed 's/^schema-version = 1$/schema-version = 2/' protocols/statutes-kr.toml
  cat <<TOML

[[contamination-rules]]
name = "against the sealed set"
roles = ["supporting", "distractors", "decoys"]
fingerprint = "sealed.fp"
fingerprint-sha256 = "$(field fingerprint_sha256)"
key-sha256 = "$(field key_sha256)"
shingle-size = 5
threshold = 0.8
TOML
} > "$W/gated.toml"
inputs=(--passages "$DATA/passages.jsonl.gz" --questions "$DATA/questions.jsonl.gz" --dry-run)
plain=("$P" components "$W/plain.toml" "${inputs[@]}")
gated=("$P" components "$W/gated.toml" "${inputs[@]}" --sealed-key "$W/sealed.key")
"${gated[@]}" --format json > "$W/gated.json" || [ $? -eq 3 ]
python3 -c "import json; c=json.load(open('$W/gated.json'))['contamination']; print('contamination: candidates', c['candidates'], 'passed', c['passed'])"
if [ "$mode" = callgrind ]; then
  ir() {
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$W/$1.cg" "${@:2}" >/dev/null 2>"$W/$1.log" || true
    grep -m1 '^summary:' "$W/$1.cg" | awk '{print $2}'
  }
  a=$(ir plain "${plain[@]}")
  b=$(ir gated "${gated[@]}")
  python3 -c "a,b=$a,$b; print(f'instructions: plain count {a:,}, gated count {b:,}; gated/plain {b/a:.3f}; check/count {(b-a)/a:.3f} (target <= 1.5)')"
else
  # Each run's wall clock and its child's user + system time (getrusage), plain and gated in
  # turn after one warm-up each, so that a drift of the machine's speed hits both alike.
  python3 - "$runs" "${#plain[@]}" "${plain[@]}" "${gated[@]}" <<'PY'
import resource, statistics, subprocess, sys, time
runs, n = int(sys.argv[1]), int(sys.argv[2])
plain, gated = sys.argv[3:3 + n], sys.argv[3 + n:]
def once(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code not in (0, 3):
        sys.exit(f"error: {cmd[1]} exited {code}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu
once(plain), once(gated)
pairs = [(once(plain), once(gated)) for _ in range(runs)]
med = statistics.median
for name, k in (("plain count", 0), ("gated count", 1)):
    print(f"{name}: wall {med(p[k][0] for p in pairs):.3f} s, CPU {med(p[k][1] for p in pairs):.3f} s (medians of {runs})")
wall = med(g[0] / p[0] for p, g in pairs)
cpu = med(g[1] / p[1] for p, g in pairs)
print(f"gated/plain: wall {wall:.3f}, CPU {cpu:.3f}; check/count: wall {wall - 1:.3f}, CPU {cpu - 1:.3f} (target <= 1.5)")
PY
fi
