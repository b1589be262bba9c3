#pragma once
// TimeScale(): how much slower than usual this test run is expected to be,
// from HPT_TEST_TIME_SCALE (default 1). scripts/sanitize.sh sets it (TSan
// runs code 5-15x slower); tests that bound how long something may take
// multiply their bounds by it, so that a sanitizer run checks the same
// behaviour instead of the machine's speed.

#include <chrono>
#include <cstdlib>
#include <string>

namespace hpt::testing {

inline double TimeScale() {
  const char* v = std::getenv("HPT_TEST_TIME_SCALE");
  if (!v || !*v) return 1.0;
  try {
    const double scale = std::stod(v);
    return scale >= 1.0 ? scale : 1.0;
  } catch (...) {
    return 1.0;
  }
}

// `d` stretched by TimeScale().
template <typename Rep, typename Period>
std::chrono::milliseconds Scaled(std::chrono::duration<Rep, Period> d) {
  return std::chrono::milliseconds(static_cast<int64_t>(
      std::chrono::duration<double, std::milli>(d).count() * TimeScale()));
}

}  // namespace hpt::testing
