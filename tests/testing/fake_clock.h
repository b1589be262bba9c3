#pragma once
// FakeClock: an api::Clock that stands still until a test moves it, so
// that leases, sweeps and retries are tested by advancing time instead of
// waiting for it. Thread-safe: the controller reads it from its threads
// while the test advances it.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "api/clock.h"

namespace hpt::testing {

class FakeClock final : public api::Clock {
 public:
  // Starts at a fixed, plausible time (2026-01-01), not at the epoch: code
  // that treats 0 as "unset" must not be fooled.
  explicit FakeClock(int64_t start_ms = 1767225600000) : now_ms_(start_ms) {}

  int64_t NowMillis() const override { return now_ms_.load(); }
  void Advance(std::chrono::milliseconds by) { now_ms_ += by.count(); }
  void Set(int64_t ms) { now_ms_ = ms; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace hpt::testing
