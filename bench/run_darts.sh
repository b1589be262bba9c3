#!/usr/bin/env bash
# One DARTS supernet training step (first order: alpha step + weight step),
# hpt on libtorch against the same supernet and step in Python PyTorch
# (Debian's /usr/bin/python3, python3-torch), same threads and shapes.
#
#   bash bench/run_darts.sh [BUILD_DIR] [-- extra flags for both sides]
#   e.g. bash bench/run_darts.sh build -- --batch 32 --layers 5 --threads 2
#
# Prints each side's row, then the ratio hpt / python (images per second;
# > 1 means hpt is faster). The Python side runs twice: as Katib's trial
# writes the supernet ("katib") and with hpt's two savings ("shared": one
# ReLU per state, "none" skipped), to tell those apart from the language.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
[[ "${1:-}" == "--" ]] && shift
FLAGS=("$@")
BIN=${HPT_STEP_BIN:-$BUILD/bench/hpt_bench_darts_step}
# The peer's interpreter: Debian's python3-torch here; bench/run_darts_gpu.sh
# names the GPU machine's PyTorch.
PYTHON=${PYTHON:-/usr/bin/python3}
if [[ ! -x "$BIN" ]]; then
  echo "build it first: cmake --build $BUILD --target hpt_bench_darts_step" >&2
  exit 1
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "| side | batch | C | layers | nodes | image | threads | weights | alpha | ms/step (median) | ms/step (mean) | images/s |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"
# The machine's speed drifts by up to a third between runs of a minute
# (both sides alike), so the sides take turns, ROUNDS times, and each
# side's median images/s is compared.
for ((round = 1; round <= ${ROUNDS:-3}; ++round)); do
  "$BIN" "${FLAGS[@]}" | tee -a "$out" | grep '^| hpt'
  "$PYTHON" bench/darts_step_peer.py --style katib "${FLAGS[@]}" | tee -a "$out" | grep '^| python'
  "$PYTHON" bench/darts_step_peer.py --style shared "${FLAGS[@]}" | tee -a "$out" | grep '^| python'
done

"$PYTHON" - "$out" <<'PY'
import statistics
import sys
rows, speeds = {}, {}
for line in open(sys.argv[1]):
    if line.startswith("RESULT"):
        kv = dict(f.split("=") for f in line.split()[1:])
        rows[kv["side"]] = kv
        speeds.setdefault(kv["side"], []).append(float(kv["images_per_s"]))
median = {side: statistics.median(v) for side, v in speeds.items()}
hpt = rows["hpt"]
print()
print("| hpt / python | weights equal | rounds | median images/s (hpt, python) | ratio |")
print("|---|---|---:|---|---:|")
for side in ("python-katib", "python-shared"):
    py = rows[side]
    same = hpt["weights"] == py["weights"] and hpt["alphas"] == py["alphas"]
    print("| vs %s | %s | %d | %.1f, %.1f | %.2fx |" % (
        side, "yes" if same else "NO", len(speeds[side]), median["hpt"],
        median[side], median["hpt"] / median[side]))
PY
