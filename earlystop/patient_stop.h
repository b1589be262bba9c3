#pragma once
// PatientStop ("patient"): Optuna's PatientPruner. A running trial that has
// not improved for `patience` reports is stopped, or, when it wraps another
// policy, handed to that policy to decide.
//
// With the trial's reported steps in order, "before" is every step but the
// last patience + 1 and "after" those last patience + 1. The trial has not
// improved when the best value after is worse than the best value before by
// more than min_delta (minimizing: min(before) + min_delta < min(after);
// maximizing: max(before) - min_delta > max(after)). With no more than
// patience + 1 reports nothing is decided.
//
// Settings:
//   patience        required, an integer >= 0
//   min_delta       a number >= 0, default 0
//   wrapped_pruner  optional, the name of the policy to ask when the trial
//                   has not improved (any registered one but patient);
//                   absent: stop. Every other setting is that policy's
//                   (e.g. patience, wrapped_pruner=medianstop,
//                   n_startup_trials) and is validated by it.

#include <vector>

#include "api/registry.h"
#include "earlystop/policy.h"

namespace hpt::earlystop {

class PatientStop : public Policy {
 public:
  static constexpr char kName[] = "patient";
  static constexpr char kPatience[] = "patience";
  static constexpr char kMinDelta[] = "min_delta";
  static constexpr char kWrappedPruner[] = "wrapped_pruner";

  // `policies` creates the wrapped policy; it must outlive this one.
  explicit PatientStop(const Registry<Policy>* policies)
      : policies_(policies) {}

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
  std::vector<std::string> Notes(
      const api::ExperimentSpec& spec) const override;

 private:
  const Registry<Policy>* policies_;
};

}  // namespace hpt::earlystop
