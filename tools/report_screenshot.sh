#!/usr/bin/env bash
# The screenshot of the HTML report shown in the book (docs/images/report.png), made from real
# output: runs `pledge demo` in a scratch directory, writes the report as HTML, and has headless
# Chromium (Debian's `chromium` package: apt-get install chromium) take a screenshot of it.
# Not part of CI (it needs a browser); rerun it when the report's layout changes.
#
# Usage: bash tools/report_screenshot.sh [PLEDGE] [CHROMIUM]
#   PLEDGE    the pledge binary (default: target/release/pledge, built by cargo build --release)
#   CHROMIUM  the browser (default: chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pledge="${1:-$root/target/release/pledge}"
chromium="${2:-chromium}"
out="$root/docs/images/report.png"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A fixed clock, so that the report shows the same dates every time.
export PLEDGE_NOW=2026-11-30T12:00:00Z
"$pledge" demo "$scratch/demo" >/dev/null
"$pledge" -C "$scratch/demo" report --out report --html report/report.html >/dev/null
mkdir -p "$(dirname "$out")"
# The flags this machine's closed network needs (no background connections, no first-run
# dialogs); a fresh profile directory each time.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$scratch/profile" --window-size=1100,1400 \
  --screenshot="$out" "file://$scratch/demo/report/report.html" 2>/dev/null
echo "wrote $out"
