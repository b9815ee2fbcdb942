#!/usr/bin/env bash
# Builds the book (docs/ → target/book/) with mdbook and checks it: any error or warning of
# mdbook (a missing {{#include}} file, an unclosed HTML tag) fails, then every link of the built
# HTML must resolve (tools/linkcheck.py). Usage: bash tools/build_book.sh [MDBOOK]
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK="${1:-mdbook}"
mkdir -p target
log=target/book-build.log
"$MDBOOK" build docs >"$log" 2>&1 || { cat "$log"; echo "error: mdbook build failed" >&2; exit 1; }
if grep -E '(^|[[:space:]])(ERROR|WARN)[[:space:]]' "$log"; then
  echo "error: mdbook reported the problems above (see $log)" >&2
  exit 1
fi
python3 tools/linkcheck.py target/book
