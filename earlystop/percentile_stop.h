#pragma once
// PercentileStop ("percentile"): Optuna's PercentilePruner. A running trial
// whose best value so far is worse than the given percentile of the
// Succeeded trials' values at the same step is stopped; percentile 25 keeps
// the top quarter, whichever the objective's direction. The rule, its step
// checks and its departures from Optuna are earlystop/percentile_rule.h.
//
// Settings, with Optuna's names and defaults:
//   percentile        required, a number in [0, 100]
//   n_startup_trials  an integer >= 0, default 5
//   n_warmup_steps    an integer >= 0, default 0
//   interval_steps    an integer >= 1, default 1
//   n_min_trials      an integer >= 1, default 1

#include <string>
#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class PercentileStop : public Policy {
 public:
  static constexpr char kName[] = "percentile";
  static constexpr char kPercentile[] = "percentile";
  static constexpr char kNStartupTrials[] = "n_startup_trials";
  static constexpr char kNWarmupSteps[] = "n_warmup_steps";
  static constexpr char kIntervalSteps[] = "interval_steps";
  static constexpr char kNMinTrials[] = "n_min_trials";

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
  std::vector<std::string> Notes(
      const api::ExperimentSpec& spec) const override;
};

}  // namespace hpt::earlystop
