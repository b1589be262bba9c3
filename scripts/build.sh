#!/usr/bin/env bash
# Installs what is missing, then builds hpt (Release) into ./build and the
# web dashboard into ./ui/dist (npm ci + ui/build.mjs). A failed dashboard
# build fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"

# The dashboard: dependencies pinned by ui/package-lock.json.
if ! command -v npm >/dev/null 2>&1; then
  echo "build: npm not found, so the dashboard cannot be built; run scripts/install-deps.sh as root" >&2
  exit 1
fi
if ! (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build); then
  echo "build: the dashboard build (ui/) FAILED; see the errors above" >&2
  exit 1
fi

# The Python client's platform wheel (build/python/hpt-*.whl), carrying the
# hpt binary just built, offline from Debian's pip, setuptools and wheel
# (scripts/build_wheel.sh). Optional: without them this prints a note and the
# build still succeeds.
wheel_status=0
wheel=$(bash scripts/build_wheel.sh build/cli/hpt build/python) || wheel_status=$?
if [ "$wheel_status" -eq 0 ]; then
  echo "build: Python wheel with the hpt binary: $wheel"
elif [ "$wheel_status" -eq 3 ]; then
  echo "build: note: no Python wheel (see above); the rest of the build is fine" >&2
else
  echo "build: note: the Python wheel did not build (see above; it needs setuptools >= 61" \
       "and python3-wheel); the rest of the build is fine" >&2
fi
