#!/usr/bin/env bash
# Installs, builds, and runs every test; ctest prints its summary
# ("100% tests passed, 0 tests failed out of N") and its exit status is ours.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
ctest --test-dir build --output-on-failure -j2
