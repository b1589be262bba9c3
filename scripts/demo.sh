#!/usr/bin/env bash
# Installs, builds, and runs examples/quickstart end to end on an embedded
# server with a fresh SQLite database (hpt-data/demo/hpt.db), so the demo
# can be run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
rm -rf hpt-data/demo
mkdir -p hpt-data/demo
./build/cli/hpt run --db hpt-data/demo/hpt.db examples/quickstart/experiment.yaml
