#include <memory>

#include "earlystop/hyperband_stop.h"
#include "earlystop/median_stop.h"
#include "earlystop/policy.h"
#include "earlystop/successive_halving.h"

namespace hpt::earlystop {

void RegisterBuiltins(Registry<Policy>& registry) {
  // A name registered twice is a start-up bug, not a user error.
  HPT_CHECK(registry
                .Register(HyperbandStop::kName,
                          [] { return std::make_unique<HyperbandStop>(); })
                .ok());
  HPT_CHECK(registry
                .Register(MedianStop::kName,
                          [] { return std::make_unique<MedianStop>(); })
                .ok());
  HPT_CHECK(registry
                .Register(SuccessiveHalving::kName,
                          [] { return std::make_unique<SuccessiveHalving>(); })
                .ok());
}

}  // namespace hpt::earlystop
