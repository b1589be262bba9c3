# ctest (label "fuzz"): four fuzzers briefly (6 s each; `bash scripts/fuzz.sh`
# runs them for 10 minutes each) from a work copy of its corpus, when clang with libFuzzer is installed. The main build is g++, so
# the fuzzers are built by scripts/fuzz.sh in a clang build of their own
# (<build>/fuzz-clang), once, by the fixture test fuzz.build.
# Skip them with `ctest -LE fuzz`.

find_program(HPT_FUZZ_CLANGXX NAMES clang++-14 clang++)
set(hpt_fuzz_runtime "")
if(HPT_FUZZ_CLANGXX)
  execute_process(COMMAND ${HPT_FUZZ_CLANGXX} --print-runtime-dir
                  OUTPUT_VARIABLE hpt_fuzz_runtime_dir
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(GLOB hpt_fuzz_runtime "${hpt_fuzz_runtime_dir}/libclang_rt.fuzzer*.a")
endif()

if(NOT hpt_fuzz_runtime)
  message(STATUS "fuzz: clang++ with libFuzzer not found (Debian: clang "
                 "libclang-rt-14-dev); the fuzz tests are not registered")
else()
  set(hpt_fuzz_script ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh)
  set(hpt_fuzz_dir ${CMAKE_BINARY_DIR}/fuzz-clang)
  # tfevents and metrics_parser are left to scripts/fuzz.sh: they link
  # trial-runner, whose instrumented build alone took over a minute of the
  # test command's 30 (which measured 32.5 with them).
  set(hpt_fuzz_ctest_targets spec_json spec_yaml katib request_path)
  add_test(NAME fuzz.build
           COMMAND bash ${hpt_fuzz_script} --no-install --build-only
                   --build-dir ${hpt_fuzz_dir} ${hpt_fuzz_ctest_targets})
  set_tests_properties(fuzz.build PROPERTIES
                       FIXTURES_SETUP hpt_fuzz_build LABELS fuzz TIMEOUT 1800)
  foreach(target ${hpt_fuzz_ctest_targets})
    add_test(NAME fuzz.${target}
             COMMAND bash ${hpt_fuzz_script} --no-build --build-dir ${hpt_fuzz_dir}
                     6 ${target})
    set_tests_properties(fuzz.${target} PROPERTIES
                         FIXTURES_REQUIRED hpt_fuzz_build LABELS fuzz TIMEOUT 300)
  endforeach()
endif()
