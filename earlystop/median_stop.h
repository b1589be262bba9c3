#pragma once
// MedianStop ("medianstop"): the median stopping rule (Golovin et al.,
// Google Vizier, 2017) with Katib's setting names, deciding as Optuna's
// MedianPruner does, with its defaults: earlystop/percentile_rule.h at the
// 50th percentile. With the defaults, a trial whose best value by step s is
// worse than the median of the Succeeded trials' values at step s is
// stopped once 5 trials have Succeeded, from step 0 on: with 3 CV folds
// reported as steps 0, 1, 2, a bad trial stops after its first fold or two.
//
// Departures from the rule as Vizier and Katib's documentation state it,
// all as Optuna's MedianPruner has it:
//  - Only Succeeded trials count, as in Katib's code (an EarlyStopped trial
//    is one this rule found below the median).
//  - The reference is each trial's value at step s, not its running average
//    (the mean of its values up to s). On a rising learning curve the
//    running average lags the value by about half the steps, so a trial
//    well behind every Succeeded trial at the same step still beat their
//    averages and ran on (compute-saved bench, bench/README.md).
//  - The true median (for an even count, the mean of the two middle
//    values), not Katib's mean, so one very bad trial does not shield
//    others.
//
// Settings (integers); Katib's name or Optuna's, not both:
//   min_trials_required | n_startup_trials  >= 0, default 5: Succeeded
//       trials before anything is decided
//   start_step | n_warmup_steps  >= 0, default 0: the first step judged
//   interval_steps  >= 1, default 1
//   n_min_trials    >= 1, default 1: Succeeded trials that reached the step
// (hpt used to wait for step 4 and 3 trials: 3 folds were never pruned.)

#include <string>
#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class MedianStop : public Policy {
 public:
  static constexpr char kName[] = "medianstop";
  static constexpr char kMinTrialsRequired[] = "min_trials_required";
  static constexpr char kStartStep[] = "start_step";
  static constexpr char kNStartupTrials[] = "n_startup_trials";
  static constexpr char kNWarmupSteps[] = "n_warmup_steps";
  static constexpr char kIntervalSteps[] = "interval_steps";
  static constexpr char kNMinTrials[] = "n_min_trials";
  static constexpr int kDefaultMinTrialsRequired = 5;
  static constexpr int kDefaultStartStep = 0;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
  std::vector<std::string> Notes(
      const api::ExperimentSpec& spec) const override;
};

}  // namespace hpt::earlystop
