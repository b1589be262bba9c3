#pragma once
// FUZZ_CHECK: an invariant a fuzz target asserts about the code under test.
// On failure it prints the condition and `detail` (what the input made of
// it) and aborts, which libFuzzer reports as a crash and saves the input.

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond, detail)                                             \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n  %s\n", __FILE__, \
                   __LINE__, #cond, std::string(detail).c_str());            \
      std::abort();                                                          \
    }                                                                        \
  } while (0)
