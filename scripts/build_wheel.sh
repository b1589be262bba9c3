#!/usr/bin/env bash
# Usage: build_wheel.sh HPT_BINARY OUT_DIR
# Builds the Python client's platform wheel (hpt-<VERSION>-py3-none-<platform>.whl)
# into OUT_DIR, carrying HPT_BINARY as hpt/_bin/hpt so that `pip install` of
# it, then hpt.local(), needs nothing else (python/setup.py). Replaces the
# hpt wheels already in OUT_DIR, so `pip install OUT_DIR/hpt-*.whl` names one.
# Offline, with Debian's pip, setuptools and wheel (scripts/install-deps.sh).
# Built from a copy, so that python/ stays clean. Prints the wheel's path.
# Exit status 3 when pip, setuptools or wheel is missing; 1 when the build fails.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: $0 HPT_BINARY OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$(realpath "$1")
out=$2
if [ ! -x "$binary" ] || [ -d "$binary" ]; then
  echo "build_wheel: $1 is not an executable hpt binary" >&2
  exit 2
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c "import setuptools, wheel" >/dev/null 2>&1 || ! "$py" -m pip --version >/dev/null 2>&1; then
  echo "build_wheel: no pip, setuptools or wheel for $py" \
       "(apt-get install python3-pip python3-setuptools python3-wheel)" >&2
  exit 3
fi

src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
# setup.py reads ../VERSION, as it does in the repository.
cp "$root/VERSION" "$src/VERSION"
cp -r "$root/python" "$src/python"
rm -rf "$src/python/build" "$src"/python/*.egg-info
find "$src/python" -name __pycache__ -prune -exec rm -rf {} +

mkdir -p "$out"
rm -f "$out"/hpt-*.whl
HPT_WHEEL_BINARY="$binary" "$py" -m pip --disable-pip-version-check wheel --no-deps \
  --no-build-isolation --no-index --no-cache-dir -q -w "$out" "$src/python" >&2
wheel=$(ls "$out"/hpt-*.whl)
echo "$wheel"
