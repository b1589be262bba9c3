#!/usr/bin/env bash
# Builds hpt with sanitizers and runs the C++ tests under them:
#   asan  build-asan, ASan + UBSan + LeakSanitizer: every C++ test (unit and
#         integration; the integration tests start build-asan's own `hpt`).
#   tsan  build-tsan, ThreadSanitizer: the tests of the threaded parts
#         (controller, the importance worker, server, CLI's embedded
#         server, security, trial runner, storage, the Slurm executor on
#         its local cluster).
# Usage: bash scripts/sanitize.sh [asan|tsan|all]     (default: all)
#
# Any sanitizer report fails the run, whether it comes from a test binary or
# from an `hpt` a test started: reports go to build-<kind>/sanitizer-reports/
# (or, a test binary's, to its output), are printed at the end and counted. The
# dashboard, Python and fuzz tests are not C++ and are skipped. Suppressions
# (third-party code only, each with its reason) are in scripts/sanitizers/.
# HPT_SANITIZE_JOBS sets the build and ctest parallelism (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

mode=${1:-all}
case "$mode" in
  asan) kinds=(asan) ;;
  tsan) kinds=(tsan) ;;
  all) kinds=(asan tsan) ;;
  *)
    echo "usage: bash scripts/sanitize.sh [asan|tsan|all]" >&2
    exit 2
    ;;
esac
jobs=${HPT_SANITIZE_JOBS:-2}
supp=$root/scripts/sanitizers
# Builds share the machine: one at a time, behind the others' lock.
lock=/tmp/hpt-build.lock

bash scripts/install-deps.sh || exit 1
ulimit -c 0  # abort_on_error=1 must not leave core files behind

# Labels are the test folders (tests/CMakeLists.txt) plus ui/python/fuzz.
not_cxx='^(ui|browser|python|fuzz)$'
tsan_folders='^(controller|analytics|server|security|cli|trial-runner|storage|slurm)$'

declare -A result_tests result_failed result_reports result_seconds result_status

run_kind() {
  local kind=$1 dir=build-$1 flags torch=ON scale
  case "$kind" in
    asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined" scale=3 ;;
    # Without libtorch, which is not instrumented: nas_test segfaulted
    # under TSan as the build listed its tests, and none of the threaded
    # parts TSan checks use it.
    tsan) flags="-fsanitize=thread" torch=OFF scale=10 ;;
  esac
  flags="$flags -fno-omit-frame-pointer"
  local reports=$root/$dir/sanitizer-reports
  rm -rf "$reports" && mkdir -p "$reports"

  # One set of options for the build (gtest discovery runs the test
  # binaries) and the tests. halt_on_error/abort_on_error: the first report
  # ends the process with SIGABRT, so a test that started it fails too.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:log_path=$reports/report"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp:log_path=$reports/report"
  # ignore_noninstrumented_modules: memcpy/new/delete that cpprestsdk,
  # spdlog or SQLite (built without TSan) call are not checked, since TSan
  # cannot see those libraries' atomics; their locks still count.
  # Tests that bound how long something takes stretch their bounds by this
  # (tests/testing/time_scale.h): the sanitizer's slowness, not a bug.
  export HPT_TEST_TIME_SCALE=$scale
  export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:history_size=4:ignore_noninstrumented_modules=1:suppressions=$supp/tsan.supp:print_suppressions=0:log_path=$reports/report"

  echo "== sanitize: configuring and building $dir ($flags)"
  if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPT_BUILD_BENCH=OFF \
      -DHPT_WITH_TORCH="$torch" \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
      -DCMAKE_SHARED_LINKER_FLAGS="$flags"; then
    result_status[$kind]="configure failed"
    return 1
  fi
  if ! flock "$lock" nice -n 10 cmake --build "$dir" -j"$jobs"; then
    result_status[$kind]="build failed"
    return 1
  fi
  # Reports written while gtest listed the tests count as well; keep them.

  local select=(-LE "$not_cxx")
  [ "$kind" = tsan ] && select=(-L "$tsan_folders" -LE "$not_cxx")
  echo "== sanitize: ctest in $dir ${select[*]}"
  local log=$root/$dir/sanitize-ctest.log start=$SECONDS rc
  nice -n 10 ctest --test-dir "$dir" -j"$jobs" "${select[@]}" --output-on-failure \
    2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  result_seconds[$kind]=$((SECONDS - start))

  local summary
  summary=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -1)
  result_tests[$kind]=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
  result_failed[$kind]=$(sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/' <<<"$summary")
  [ -n "${result_tests[$kind]}" ] || { result_tests[$kind]=0; result_failed[$kind]=0; }

  # A report starts with one of these lines, whether it went to a report
  # file or (a test binary's own) to the test output that ctest printed.
  local start='runtime error:|ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer'
  local files=("$reports"/*) count
  [ -e "${files[0]}" ] || files=()
  if [ "${#files[@]}" -gt 0 ]; then
    echo "== sanitize: report files in $reports:"
    for f in "${files[@]}"; do
      echo "---- $f"
      cat "$f"
    done
  fi
  count=$(cat "$log" "${files[@]}" | grep -cE "$start")
  result_reports[$kind]=$count
  if [ "$rc" -eq 0 ] && [ "$count" -eq 0 ]; then
    result_status[$kind]=clean
  else
    result_status[$kind]=FAILED
  fi
}

overall=0
for kind in "${kinds[@]}"; do
  run_kind "$kind" || true
  [ "${result_status[$kind]}" = clean ] || overall=1
done

echo
printf '%-6s %-34s %6s %7s %7s %8s  %s\n' kind tests run passed reports seconds result
for kind in "${kinds[@]}"; do
  case "$kind" in
    asan) what="ASan+UBSan+LSan, all C++ tests" ;;
    tsan) what="TSan, threaded parts" ;;
  esac
  tests=${result_tests[$kind]:-0}
  failed=${result_failed[$kind]:-0}
  printf '%-6s %-34s %6s %7s %7s %8s  %s\n' "$kind" "$what" "$tests" \
    "$((tests - failed))" "${result_reports[$kind]:--}" "${result_seconds[$kind]:--}" \
    "${result_status[$kind]}"
done
exit "$overall"
