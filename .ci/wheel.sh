#!/usr/bin/env bash
# Builds the Python wheel to distribute (maturin, `bindings = "pyo3"`, the `dist` profile, zlib
# compiled in) in a fresh virtual environment, pip-installs it there, and runs `pledge --version`,
# the demo and `import pledge` from the venv. .ci/run builds a release-profile wheel for the
# Python tests; this script is the slow, optimized build, run before a release.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet 'maturin>=1.5,<2'
# pyproject.toml's [tool.maturin] picks the `dist` profile; zlib is compiled in for a wheel that
# goes to other machines.
maturin build --locked --features static-zlib --out "$work/dist"
python -m pip install --quiet "$work"/dist/pledge_eval-*.whl
command -v pledge
case "$(command -v pledge)" in
  "$work/venv/bin/pledge") ;;
  *) echo "error: pledge does not come from the venv" >&2; exit 1 ;;
esac
pledge --version
(cd "$work" && pledge demo demo >/dev/null && test -s demo/report/report.md)
native="$(python -c 'import pledge._native as m; print(m.__file__)')"
python -c 'import pledge; print("import pledge", pledge.__version__)'
if ldd "$native" 2>/dev/null | grep -q 'libz\.so'; then
  echo "error: the wheel's extension module links the system zlib (expected it compiled in)" >&2; exit 1
fi
echo "wheel: $(basename "$work"/dist/pledge_eval-*.whl) ($(du -k "$work"/dist/pledge_eval-*.whl | cut -f1) KiB) installs pledge and import pledge (extension module $(du -k "$native" | cut -f1) KiB); the demo wrote demo/report/report.md"
