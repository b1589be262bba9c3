#include "api/clock.h"

#include <chrono>

namespace hpt::api {
namespace {

class SystemClock final : public Clock {
 public:
  int64_t NowMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const Clock* RealClock() {
  static const SystemClock clock;
  return &clock;
}

}  // namespace hpt::api
