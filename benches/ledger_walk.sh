#!/usr/bin/env bash
# Benchmark (not a test): `pledge log`, `verify` and `export` against git's own walks of the same
# commits, on an N-entry ledger (default 10,000) with packed objects, as a clone has them.
#
# Builds the ledger through the library (`cargo bench --bench ledger` with PLEDGE_BENCH_REPO: N
# notes, as `pledge note --reason "entry I"` writes them, unsigned) in a scratch repository, runs
# `git gc`, then times RUNS whole-process runs of each command, in turn (wall clock and the
# child's user + system time from getrusage, through Python's standard library), and prints the
# median CPU and wall seconds of each and the ratios of the medians:
#   - `pledge log` against `git log refs/pledge/ledger` (one commit object per entry),
#   - `pledge verify` and `pledge export FILE` against `git log -p refs/pledge/ledger` (each
#     entry's commit, tree and files).
# On a shared machine quote the medians, and rerun when the spread is wide.
#
# Usage: bash benches/ledger_walk.sh [N] [RUNS]     (needs git and python3)
set -euo pipefail
N=${1:-10000}
RUNS=${2:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in git python3 awk; do
  command -v "$tool" >/dev/null || { echo "ledger_walk: $tool is not installed; skipped"; exit 0; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && cargo build --profile profiling --locked -q &&
  PLEDGE_BENCH_REPO="$work/repo" PLEDGE_BENCH_ENTRIES="$N" cargo bench --locked -q --bench ledger)
P=$root/target/profiling/pledge
cd "$work/repo"
git gc -q
echo "$(git rev-list --count refs/pledge/ledger) entries, $(git count-objects -v | awk '/in-pack/ {print $2}') packed objects"

# Appends "wall cpu" seconds of one run of a command (output discarded) to the file $1.
run() {
  local out=$1
  shift
  python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f %.4f" % (wall, r.ru_utime + r.ru_stime))' "$@" >>"$out"
}

# Median of column $2 of file $1.
median() {
  awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# Times command A (label $1, file $2) and command B (label $3, file $4) in turn, RUNS times each
# after one warm-up run of each; the commands follow after `--`, A's then `--` then B's.
pair() {
  local la=$1 fa=$2 lb=$3 fb=$4
  shift 4
  local a=() b=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  : >"$fa"
  : >"$fb"
  "${a[@]}" >/dev/null 2>&1 || true
  "${b[@]}" >/dev/null 2>&1 || true
  for _ in $(seq "$RUNS"); do
    run "$fa" "${a[@]}"
    run "$fb" "${b[@]}"
  done
  local ca wa cb wb
  ca=$(median "$fa" 2) wa=$(median "$fa" 1) cb=$(median "$fb" 2) wb=$(median "$fb" 1)
  printf '%-34s cpu %6.3f s  wall %6.3f s\n' "$la" "$ca" "$wa"
  printf '%-34s cpu %6.3f s  wall %6.3f s\n' "$lb" "$cb" "$wb"
  printf '%-34s cpu %6.2fx   wall %6.2fx\n' "  ratio" "$(echo "$ca $cb" | awk '{print ($2 > 0 ? $1 / $2 : 0)}')" \
    "$(echo "$wa $wb" | awk '{print ($2 > 0 ? $1 / $2 : 0)}')"
}

echo "medians of $RUNS runs each (CPU = user + system):"
pair "pledge log" "$work/a" "git log refs/pledge/ledger" "$work/b" \
  "$P" log -- git log refs/pledge/ledger
pair "pledge verify" "$work/a" "git log -p refs/pledge/ledger" "$work/b" \
  "$P" verify -- git log -p refs/pledge/ledger
pair "pledge export" "$work/a" "git log -p refs/pledge/ledger" "$work/b" \
  "$P" export "$work/ledger.jsonl" -- git log -p refs/pledge/ledger
