#pragma once
// ThresholdStop ("threshold"): Optuna's ThresholdPruner. A running trial is
// stopped when its latest value is below `lower` or above `upper`: bounds
// on the metric itself, whatever the objective's direction (a loss that
// exceeds 10 has diverged whether it is minimized or a score maximized).
// Steps are checked as percentile_rule.h's IsPruningStep says (from step
// n_warmup_steps on, the first report in each interval_steps). Unlike
// Optuna, a non-finite value is not reported to policies (policy.h), so it
// does not stop the trial here.
//
// Settings:
//   lower, upper    numbers, lower <= upper; at least one is required
//   n_warmup_steps  an integer >= 0, default 0
//   interval_steps  an integer >= 1, default 1

#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class ThresholdStop : public Policy {
 public:
  static constexpr char kName[] = "threshold";
  static constexpr char kLower[] = "lower";
  static constexpr char kUpper[] = "upper";
  static constexpr char kNWarmupSteps[] = "n_warmup_steps";
  static constexpr char kIntervalSteps[] = "interval_steps";

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
};

}  // namespace hpt::earlystop
