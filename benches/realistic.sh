#!/usr/bin/env bash
# The realistic-corpus scaling bench: DPR-like Wikipedia passages made by tools/realistic_corpus.py
# (1 M, 5 M and 21 M passages by default), each counted by `pledge components --dry-run` under a
# 4 GiB and an 8 GiB memory limit, one run at a time; prints wall and CPU time, peak memory, how
# the join ran, the pairs and counts, and the growth exponent between sizes. With
# --compare-pairs the pairs of an in-memory and a partitioned run of one size must be identical.
#
#   bash benches/realistic.sh [--install] [--venv DIR] [--sizes 1M,5M,21M] [--limits 4GiB,8GiB]
#                             [--data DIR] [--timeout SECONDS] [--compare-pairs] [--json FILE]
#
#   --install   create the virtual environment DIR (default target/realistic/venv) with
#               benches/realistic/requirements.txt (NumPy, for the generator) from PyPI: the only
#               step that downloads anything.
#   --data DIR  where the corpora are made and kept (default target/realistic; 21 M passages take
#               about 5.4 GB as zstd, and the count's spill files up to the same again in TMPDIR).
#
# Needs zstd on the PATH. Not part of .ci/run. Measure on a quiet machine (load < 2, no builds).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/realistic/venv
install=no
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --install) install=yes ;;
    --venv) VENV=$2; shift ;;
    --sizes | --limits | --data | --timeout | --json | --seed) pass+=("$1" "$2"); shift ;;
    --compare-pairs) pass+=("$1") ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$install" = yes ]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r benches/realistic/requirements.txt
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import numpy" 2>/dev/null; then
  echo "error: no NumPy in $VENV (run with --install once)" >&2
  exit 2
fi
command -v zstd >/dev/null || { echo "error: zstd is needed (apt-get install zstd)" >&2; exit 2; }
cargo build --release --locked --quiet
exec python3 benches/realistic/run.py --python "$VENV/bin/python" "${pass[@]}"
