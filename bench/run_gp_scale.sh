#!/usr/bin/env bash
# The GP at scale (bench/README.md, "GP at scale"): builds (Release), then,
# one after the other on the same machine,
#   1. bayesianoptimization's suggest latency at n = 1,000 / 5,000 / 10,000
#      beside hpt's tpe and Optuna's TPE,
#   2. regret after a random warm start of n = 1,000 and 5,000 trials,
#      bayesianoptimization against hpt's tpe (SEEDS seeds, STEPS steps),
#   3. importance's first and repeated call at 1,000 and 10,000 trials,
# and writes bench/out/gp_scale_{latency,quality,importance}.md.
#
#   bash bench/run_gp_scale.sh        # about 5 minutes on 2 cores
#
# Environment: BUILD_DIR (default build), JOBS (default 2), SEEDS (default
# 5), STEPS (default 20).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
out="$root/bench/out"
mkdir -p "$out"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPT_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target hpt_bench_gp_scale hpt_bench_importance_scale \
  -j "${JOBS:-2}" >&2

echo "run_gp_scale: suggest latency (hpt, then Optuna TPE) ..." >&2
"$build/bench/hpt_bench_gp_scale" latency --sizes 1000,1200,1201,5000,10000 \
  --calls 15 --optuna | tee "$out/gp_scale_latency.md"
echo "run_gp_scale: regret after a warm start ..." >&2
"$build/bench/hpt_bench_gp_scale" quality --sizes 1000,5000 \
  --seeds "${SEEDS:-5}" --steps "${STEPS:-20}" | tee "$out/gp_scale_quality.md"
echo "run_gp_scale: importance ..." >&2
"$build/bench/hpt_bench_importance_scale" --sizes 1000,10000 \
  | tee "$out/gp_scale_importance.md"
