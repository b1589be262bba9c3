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
