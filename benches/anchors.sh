#!/usr/bin/env bash
# Times pledge side by side with the anchors that are installed, on the same inputs, in one run,
# and prints the ratios pledge/anchor (whole processes, paired runs, medians):
#   - near-duplicate join on the statute corpus: pledge components against a pure-Python exact
#     prefix-filter join (benches/anchors/exact_join.py, same pairs required), datasketch
#     MinHashLSH and rensa RMinHashLSH (recall of the exact pairs reported);
#   - trec_eval -q -m all_trec against pledge eval on the 17 TREC 2003 Robust runs (outputs
#     compared value by value);
#   - scipy.stats bootstrap / permutation_test / ttest_rel against pledge compare on the same
#     per-topic scores (p-values and intervals compared).
#
#   bash benches/anchors.sh [--install] [--venv DIR] [--data DIR] [--runs N] [--only GROUPS] [--json FILE]
#
#   --install     create the virtual environment DIR and install benches/anchors/requirements.txt
#                 into it with pip, and build trec_eval from source (git clone of $TREC_EVAL_REPO,
#                 default the usnistgov/trec_eval repository on GitHub, at trec_eval 10.0's
#                 commit) into target/anchors/trec_eval. The only step that downloads anything.
#   --venv DIR    the anchors' virtual environment (default target/anchors/venv)
#   --data DIR    the data directory (default ../shared/data): statutes-kr/, robust03/
#   --runs N      paired runs of each comparison (default 3)
#   --only G,...  components,trec,stats (default all three)
#   --json FILE   also write the figures as JSON
#   --anchors A,. the near-duplicate anchors: exact,datasketch,rensa (default all three)
#   --trials N    bootstrap and randomization trials of the paired tests (default 10000)
#
# Without --install nothing is downloaded: an anchor that is not installed is skipped with a
# message, and so is a group whose data is absent. trec_eval is $TREC_EVAL, else the one built by
# --install, else `trec_eval` on the PATH. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
TREC_EVAL_COMMIT=f4253652c8efd0d86ddffd0d163cc0a0f813111a # trec_eval 10.0
TREC_EVAL_REPO=${TREC_EVAL_REPO:-https://github.com/usnistgov/trec_eval.git}
VENV=target/anchors/venv
install=no
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --install) install=yes ;;
    --venv) VENV=$2; shift ;;
    --data | --runs | --only | --json | --anchors | --trials) pass+=("$1" "$2"); shift ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$install" = yes ]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r benches/anchors/requirements.txt
  te_src=target/anchors/trec_eval
  if [ ! -x "$te_src/trec_eval" ]; then
    rm -rf "$te_src"
    if git clone -q "$TREC_EVAL_REPO" "$te_src" && git -C "$te_src" checkout -q "$TREC_EVAL_COMMIT" &&
      make -s -C "$te_src" >/dev/null; then
      echo "built trec_eval at $TREC_EVAL_COMMIT in $te_src" >&2
    else
      echo "warning: could not build trec_eval from $TREC_EVAL_REPO; set TREC_EVAL to a trec_eval binary" >&2
    fi
  fi
fi

cargo build --profile profiling --locked --quiet
args=(--pledge target/profiling/pledge)
if [ -x "$VENV/bin/python" ]; then
  args+=(--python "$VENV/bin/python")
else
  echo "note: no virtual environment at $VENV: only the standard-library anchor runs (--install creates it)" >&2
fi
te=${TREC_EVAL:-}
if [ -z "$te" ] && [ -x target/anchors/trec_eval/trec_eval ]; then te=target/anchors/trec_eval/trec_eval; fi
if [ -z "$te" ]; then te=$(command -v trec_eval || true); fi
if [ -n "$te" ]; then args+=(--trec-eval "$te"); fi
exec python3 benches/anchors/run.py "${args[@]}" "${pass[@]}"
