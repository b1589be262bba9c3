#pragma once
// MedianStop ("medianstop"): the median stopping rule of Google Vizier
// (Golovin et al., 2017), with Katib's setting names.
//
// A running trial whose latest step s is >= start_step is stopped when its
// best objective value at steps <= s is strictly worse than the median of
// the running averages (the mean of the values at steps <= s) of the
// completed trials that reached step s. Completed means Succeeded or
// EarlyStopped; "reached step s" means the trial reported some step >= s
// and some step <= s. Nothing is decided until at least
// min_trials_required completed trials qualify.
//
// Katib's medianstop compares with the *mean* of those running averages;
// hpt uses the true median (for an even count, the mean of the two middle
// values), as the rule's name and Vizier's paper say. One very bad
// completed trial therefore does not shield every other bad trial.
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
