#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan) into
# build-fuzz/ and runs each one for SECONDS (default 600) from a work copy
# of its corpus, then prints a table: target, runs, coverage, result. Exits
# non-zero when any target crashed, hung, ran out of memory or reported a
# sanitizer error; the inputs are kept under build-fuzz/crashes/<target>/.
#
#   scripts/fuzz.sh [options] [SECONDS] [TARGET...]
#     TARGET        spec_json spec_yaml katib metrics_parser request_path tfevents
#                   (default: all)
#     --jobs N      run N targets at a time (default 1)
#     --merge       then minimise work + repo corpus into fuzz/corpus/<target>
#     --build-only  configure and build, run nothing
#     --no-build    use the fuzzers already built
#     --no-install  do not run scripts/install-deps.sh
#     --build-dir D build there instead of build-fuzz
#   HPT_BUILD_LOCK=FILE  hold flock(FILE) while compiling.
#
# Reproduce a finding: build-fuzz/fuzz/fuzz_<target> <crash file>
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(spec_json spec_yaml katib metrics_parser request_path tfevents)
seconds=600
jobs=1
merge=0
build=1
run=1
install=1
build_dir=build-fuzz
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift ;;
    --merge) merge=1 ;;
    --build-only) run=0 ;;
    --no-build) build=0 ;;
    --no-install) install=0 ;;
    --build-dir) build_dir="$2"; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    [0-9]*) seconds="$1" ;;
    *)
      if [[ " ${all_targets[*]} " != *" $1 "* ]]; then
        echo "fuzz: unknown target or option '$1' (targets: ${all_targets[*]})" >&2
        exit 2
      fi
      targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
build_dir="$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)"

if [ "$build" = 1 ]; then
  [ "$install" = 0 ] || bash scripts/install-deps.sh
  cxx="$(command -v clang++-14 || command -v clang++ || true)"
  if [ -z "$cxx" ]; then
    echo "fuzz: clang++ not found (Debian: clang libclang-rt-14-dev)" >&2
    exit 1
  fi
  # RelWithDebInfo without -DNDEBUG: assert()s (nlohmann's among them) stay on.
  cmake -S . -B "$build_dir" -DCMAKE_CXX_COMPILER="$cxx" -DHPT_FUZZ=ON -DHPT_WITH_TORCH=OFF \
    -DHPT_BUILD_TESTS=OFF -DHPT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" >/dev/null
  lock=()
  [ -z "${HPT_BUILD_LOCK:-}" ] || lock=(flock "$HPT_BUILD_LOCK")
  "${lock[@]}" cmake --build "$build_dir" -j"$(nproc)" \
    --target "${targets[@]/#/fuzz_}"
fi
[ "$run" = 1 ] || exit 0

dict_for() {
  case "$1" in
    spec_json) echo fuzz/json.dict ;;
    spec_yaml|katib) echo fuzz/yaml.dict ;;
    metrics_parser) echo fuzz/metrics.dict ;;
    request_path) echo fuzz/path.dict ;;
    tfevents) echo fuzz/tfevents.dict ;;
  esac
}

# One target: first the named inputs in fuzz/regressions/<target>, each
# once and whole (some are larger than the fuzzer's -max_len); then
# fuzzing from the work corpus = repo corpus + what earlier runs found.
run_target() {
  local t="$1" bin="$build_dir/fuzz/fuzz_$1"
  local work="$build_dir/work/$t" crashes="$build_dir/crashes/$t"
  local log="$build_dir/logs/$t.log"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  cp -n fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  local options=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$crashes/")
  local rc=0
  export UBSAN_OPTIONS=print_stacktrace=1
  if [ -d fuzz/regressions/"$t" ]; then
    "$bin" "${options[@]}" fuzz/regressions/"$t"/* >"$log" 2>&1 || rc=$?
  fi
  if [ "$rc" = 0 ]; then
    "$bin" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -dict="$(dict_for "$t")" "$work" >>"$log" 2>&1 || rc=$?
  fi
  echo "$rc" >"$log.rc"
}

summarise() {
  local t="$1" log="$build_dir/logs/$1.log"
  local rc runs cov ft corp result
  rc="$(cat "$log.rc")"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  [ -n "$runs" ] || runs="$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  corp="$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)"
  result=ok
  if [ "$rc" != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|(FUZZ|HPT)_CHECK failed' "$log"; then
    local artifact
    artifact="$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | tail -1)"
    result="FAILED (rc $rc) ${artifact:-see $log}"
  fi
  printf '%-16s %12s %7s %8s %12s  %s\n' "$t" "${runs:--}" "${cov:--}" "${ft:--}" \
    "${corp:--}" "$result"
  [ "$result" = ok ]
}

echo "fuzz: ${targets[*]} for ${seconds}s each, $jobs at a time; logs in $build_dir/logs"
running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

failed=0
printf '%-16s %12s %7s %8s %12s  %s\n' target runs cov ft corpus result
for t in "${targets[@]}"; do
  summarise "$t" || failed=1
done

if [ "$merge" = 1 ]; then
  for t in "${targets[@]}"; do
    out="$build_dir/merge/$t"
    rm -rf "$out" && mkdir -p "$out" fuzz/corpus/"$t"
    # Edges only (no hit counts): a corpus small enough to keep in git.
    "$build_dir/fuzz/fuzz_$t" -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 \
      "$out" fuzz/corpus/"$t" "$build_dir/work/$t" >"$build_dir/logs/$t.merge.log" 2>&1
    rm -rf fuzz/corpus/"$t" && cp -r "$out" fuzz/corpus/"$t"
    echo "fuzz: fuzz/corpus/$t: $(ls fuzz/corpus/"$t" | wc -l) inputs," \
      "$(cat fuzz/corpus/"$t"/* | wc -c) bytes"
  done
fi
exit "$failed"
