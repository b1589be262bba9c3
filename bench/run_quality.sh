#!/usr/bin/env bash
# The quality benchmark (bench/README.md, "Quality"): builds (Release),
# then, one after the other on the same machine,
#   1. bayesianoptimization's suggest latency (Google Benchmark) and
#      Optuna TPE's sampling latency at the same n,
#   2. random, sobol and bayesianoptimization through a real `hpt serve`,
#      and Optuna's TPE, on the benchmark functions,
# and writes bench/out/{bo_latency.json,tpe_latency.json,quality.md,
# quality_curves.json,quality.png}. Run from anywhere:
#
#   bash bench/run_quality.sh        # about 10 minutes on 2 cores
#
# Environment: BUILD_DIR (default build), JOBS (default 2), SEEDS
# (default 20), TRIALS (default 50).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
out="$root/bench/out"
mkdir -p "$out"

for module in optuna matplotlib; do
  if ! /usr/bin/python3 -c "import $module" 2>/dev/null; then
    echo "run_quality: installing python3-$module" >&2
    apt-get install -y "python3-$module" >&2
  fi
done

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPT_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target hpt hpt_bench_quality hpt_bench_bo_latency \
  -j "${JOBS:-2}" >&2

echo "run_quality: suggest latency (hpt, then Optuna TPE) ..." >&2
"$build/bench/hpt_bench_bo_latency" --benchmark_out="$out/bo_latency.json" \
  --benchmark_out_format=json
/usr/bin/python3 "$root/bench/quality_tpe.py" latency --out "$out/tpe_latency.json"

echo "run_quality: regret (hpt through its API, then Optuna TPE) ..." >&2
"$build/bench/hpt_bench_quality" --seeds "${SEEDS:-20}" --trials "${TRIALS:-50}" \
  --out "$out"
echo "run_quality: table in $out/quality.md, plot in $out/quality.png" >&2
