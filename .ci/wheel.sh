#!/usr/bin/env bash
# Builds the Python wheel (maturin, `bindings = "bin"`) in a fresh virtual environment,
# pip-installs it there, and runs `pledge --version` and the demo from the venv's PATH.
# Not part of .ci/run (it needs maturin from PyPI); run it before a release.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet 'maturin>=1.5,<2'
# pyproject.toml's [tool.maturin] picks the `dist` profile and the static-zlib feature.
maturin build --locked --out "$work/dist"
python -m pip install --quiet "$work"/dist/pledge_eval-*.whl
command -v pledge
case "$(command -v pledge)" in
  "$work/venv/bin/pledge") ;;
  *) echo "error: pledge does not come from the venv" >&2; exit 1 ;;
esac
pledge --version
(cd "$work" && pledge demo demo >/dev/null && test -s demo/report/report.md)
if ldd "$(command -v pledge)" 2>/dev/null | grep -q 'libz\.so'; then
  echo "error: the wheel's pledge links the system zlib (expected it compiled in)" >&2; exit 1
fi
echo "wheel: $(basename "$work"/dist/pledge_eval-*.whl) ($(du -k "$work"/dist/pledge_eval-*.whl | cut -f1) KiB) installs pledge ($(du -k "$(command -v pledge)" | cut -f1) KiB); the demo wrote demo/report/report.md"
