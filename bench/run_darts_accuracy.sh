#!/usr/bin/env bash
# DARTS on Fashion-MNIST on the CPU (2 cores): a short search on the first
# 4,000 training images (3 epochs of a 3-layer, 8-channel supernet, Katib's
# 7 primitives), then the searched genotype trained from scratch on all
# 60,000 training images (5 epochs, 5 layers, 16 channels, batch 96) and
# tested on the 10,000 test images; then a RandomGenotype with the very
# same evaluation budget, for comparison.
#
#   bash bench/run_darts_accuracy.sh [BUILD_DIR] [-- flags]
#
# Budget (measured on the 2-core machine, 2026-11-26): search 3 min, the
# searched genotype's evaluation 22 min (5 epochs), the random one's about
# as long: 45-50 minutes in all. --baseline 0 skips the random genotype,
# --searched 0 the search; --data-parallel 0 trains one network instead of
# one copy per thread. Smoke run (a minute):
#   bash bench/run_darts_accuracy.sh build -- --search-limit 256 \
#     --epochs 1 --eval-epochs 1 --eval-limit 2000 --test-limit 1000
# Needs Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
[[ "${1:-}" == "--" ]] && shift
BIN="$BUILD/bench/hpt_bench_darts_accuracy"
if [[ ! -x "$BIN" ]]; then
  echo "build it first: cmake --build $BUILD --target hpt_bench_darts_accuracy" >&2
  exit 1
fi
mkdir -p bench/out
LOG=bench/out/darts_accuracy.log
echo "progress: $LOG" >&2
"$BIN" --dataset fashion-mnist --search-limit 4000 --epochs 3 --layers 3 \
  --channels 8 --nodes 4 --batch 64 --eval-epochs 5 --eval-layers 5 \
  --eval-channels 16 --eval-batch 96 --threads 2 --seed 1 "$@" 2>"$LOG"
