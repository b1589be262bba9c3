#pragma once
// Clock: where the controller, its sweep, client-run trials' leases and the
// recovery retries read the time. The server runs on RealClock(); tests
// inject tests/testing/fake_clock.h and advance it instead of sleeping.
//
// Thread safety: implementations must be callable from any thread.

#include <cstdint>

namespace hpt::api {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock milliseconds since the Unix epoch: what trials are stamped
  // with and what deadlines are measured in.
  virtual int64_t NowMillis() const = 0;
};

// The system clock; never null, lives for the whole process.
const Clock* RealClock();

}  // namespace hpt::api
