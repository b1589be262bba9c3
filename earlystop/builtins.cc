#include <memory>

#include "earlystop/hyperband_stop.h"
#include "earlystop/median_stop.h"
#include "earlystop/patient_stop.h"
#include "earlystop/percentile_stop.h"
#include "earlystop/policy.h"
#include "earlystop/successive_halving.h"
#include "earlystop/threshold_stop.h"

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
  const Registry<Policy>* policies = &registry;
  HPT_CHECK(registry
                .Register(PatientStop::kName,
                          [policies] {
                            return std::make_unique<PatientStop>(policies);
                          })
                .ok());
  HPT_CHECK(registry
                .Register(PercentileStop::kName,
                          [] { return std::make_unique<PercentileStop>(); })
                .ok());
  HPT_CHECK(registry
                .Register(SuccessiveHalving::kName,
                          [] { return std::make_unique<SuccessiveHalving>(); })
                .ok());
  HPT_CHECK(registry
                .Register(ThresholdStop::kName,
                          [] { return std::make_unique<ThresholdStop>(); })
                .ok());
}

}  // namespace hpt::earlystop
