#!/usr/bin/env bash
# Installs, builds, and runs every test (or those its arguments select for
# ctest). ctest prints its summary ("100% tests passed, 0 tests failed out
# of N"), then scripts/skip_report.py says how many tests ran, how many were
# skipped and why (no Slurm cluster, no cgroups, not root, a Python or
# browser test's own skip), grouped by reason.
# Exit status: ctest's when it failed. With HPT_REQUIRE_NO_SKIPS=1 (CI sets
# it), a skip whose reason tests/skips_allowed.txt does not list fails the
# run too, with one line naming the tests and their reasons.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
junit="$PWD/build/ctest-junit.xml"
rm -f "$junit"
status=0
# The output of passing tests whole in the JUnit file (ctest keeps 1 KiB by
# default): the skip reasons of the Python and node tests are in it. Our
# arguments go to ctest: `bash scripts/test.sh -R Slurm` runs a subset.
ctest --test-dir build --output-on-failure -j2 --output-junit "$junit" \
  --test-output-size-passed 8000000 --test-output-truncation middle "$@" || status=$?

gate=()
[ "${HPT_REQUIRE_NO_SKIPS:-0}" = 1 ] && gate=(--require-no-skips)
report=0
/usr/bin/python3 scripts/skip_report.py "$junit" --allowed tests/skips_allowed.txt "${gate[@]}" \
  || report=$?
[ "$status" -ne 0 ] && exit "$status"
[ "$report" -eq 0 ] || [ "${#gate[@]}" -eq 0 ] || exit 1
exit 0
