#!/usr/bin/env bash
# Builds the benchmark (Release), measures the peer (Optuna on SQLite) and
# then hpt, and prints the table; the table is also written to
# bench/out/throughput.md. Run from anywhere:
#
#   bash bench/run_throughput.sh
#
# Environment: BUILD_DIR (default build), SECONDS_PER_MEASUREMENT (default 4),
# JOBS (default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
seconds="${SECONDS_PER_MEASUREMENT:-4}"
out="$root/bench/out"
mkdir -p "$out"

if ! /usr/bin/python3 -c 'import optuna' 2>/dev/null; then
  echo "run_throughput: installing python3-optuna (the peer)" >&2
  apt-get install -y python3-optuna >&2
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPT_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target hpt hpt_bench hpt_bench_bare -j "${JOBS:-2}" >&2

# One after the other, never together: they share the machine's cores.
echo "run_throughput: measuring the peer (Optuna on SQLite) ..." >&2
/usr/bin/python3 "$root/bench/optuna_peer.py" --out "$out/optuna.json" --seconds "$seconds"
"$build/bench/hpt_bench" --peer "$out/optuna.json" --out "$out/throughput.md" \
  --seconds "$seconds"
echo "run_throughput: table written to $out/throughput.md" >&2
