#!/usr/bin/env bash
# Flakiness check: runs the controller's and the server's tests RUNS times in
# a row (default 5) while two CPU hogs run beside them, as on a loaded CI
# machine, and prints each run's counts and the tests that failed in any.
# Usage: bash scripts/flaky.sh [BUILD_DIR] [RUNS] [LABELS]
#   LABELS: ctest label regex (default '^(controller|server)$')
# Exit status: non-zero when any run had a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
labels=${3:-'^(controller|server)$'}
if [[ ! -f $build/CTestTestfile.cmake ]]; then
  echo "flaky: $build is not a configured build (run scripts/test.sh or cmake first)" >&2
  exit 2
fi
hogs=()
for _ in 1 2; do
  (while :; do :; done) &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT

declare -A failures
bad=0
for ((i = 1; i <= runs; i++)); do
  log=$(mktemp)
  start=$SECONDS
  ctest --test-dir "$build" -L "$labels" -j2 --timeout 300 >"$log" 2>&1
  summary=$(grep -E "tests passed, [0-9]+ tests failed out of" "$log" || echo "no summary")
  echo "run $i/$runs ($((SECONDS - start)) s, two CPU hogs): $summary"
  while read -r name; do
    [[ -n $name ]] && failures[$name]=$((${failures[$name]:-0} + 1)) && bad=1
  done < <(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log")
  rm -f "$log"
done
if ((bad)); then
  echo "flaky: tests that failed (times out of $runs):"
  for name in "${!failures[@]}"; do echo "  $name: ${failures[$name]}"; done
  exit 1
fi
echo "flaky: every test passed in all $runs runs"
