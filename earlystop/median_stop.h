#pragma once
// MedianStop ("medianstop"): the median stopping rule (Golovin et al.,
// Google Vizier, 2017) with Katib's setting names, comparing trials at the
// same step as Optuna's MedianPruner does.
//
// A running trial whose latest step s is >= start_step is stopped when its
// best objective value at steps <= s is strictly worse than the median of
// the values the Succeeded trials that reached step s had at step s. A
// trial's value at step s is its latest value at a step <= s; "reached step
// s" means it reported some step >= s and some step <= s. Nothing is
// decided until at least min_trials_required Succeeded trials qualify.
//
// Two departures from the rule as Vizier and Katib's documentation state
// it, both as Optuna's MedianPruner has it:
//  - Only Succeeded trials count, as in Katib's code. An EarlyStopped trial
//    is one this rule found below the median; counting it would pull the
//    median down, more with every trial stopped.
//  - The reference is each trial's value at step s, not its running average
//    (the mean of its values up to s). On a rising learning curve the
//    running average lags the value by about half the steps, so a trial
//    well behind every Succeeded trial at the same step still beat their
//    averages and ran on (compute-saved bench, bench/README.md).
// Katib's medianstop also takes the *mean* of the references; hpt takes
// the true median (for an even count, the mean of the two middle values),
// as the rule's name says, so one very bad trial does not shield others.
//
// Ties are not worse: a trial whose best equals the median continues, so
// flat curves that all sit at one value are never stopped. Steps are the
// steps trials report (e.g. epochs), not a count of reports.
//
// Settings (integers):
//   min_trials_required  >= 1, default 3
//   start_step           >= 1, default 4

#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class MedianStop : public Policy {
 public:
  static constexpr char kName[] = "medianstop";
  static constexpr char kMinTrialsRequired[] = "min_trials_required";
  static constexpr char kStartStep[] = "start_step";
  static constexpr int kDefaultMinTrialsRequired = 3;
  static constexpr int kDefaultStartStep = 4;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
};

}  // namespace hpt::earlystop
