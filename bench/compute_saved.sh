#!/usr/bin/env bash
# Compute saved by early stopping: builds hpt (Release) unless HPT_BINARY
# names one, then runs bench/compute_saved.py, which prints the table and
# writes it to bench/out/compute_saved.md (raw curves: compute_saved.json).
# About 15 minutes on 2 idle cores (50 under heavy load). Run from anywhere:
#
#   bash bench/compute_saved.sh [--seeds 5] [--epoch-seconds 0.05] ...
#
# Environment: HPT_BINARY (skip the build), BUILD_DIR (default build),
# JOBS (default 2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if ! /usr/bin/python3 -c 'import optuna, sklearn' 2>/dev/null; then
  echo "compute_saved: installing python3-optuna and python3-sklearn" >&2
  apt-get install -y python3-optuna python3-sklearn >&2
fi

if [[ -z "${HPT_BINARY:-}" ]]; then
  build="${BUILD_DIR:-$root/build}"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target hpt -j "${JOBS:-2}" >&2
  HPT_BINARY="$build/cli/hpt"
fi

exec /usr/bin/python3 "$root/bench/compute_saved.py" --hpt "$HPT_BINARY" "$@"
