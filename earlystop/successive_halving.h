#pragma once
// SuccessiveHalving ("asha"): the asynchronous successive-halving rule
// (Li et al., ASHA, 2020) as a stop rule, as Optuna's
// SuccessiveHalvingPruner applies it. The resource is the step trials
// report (epochs, say).
//
// Rungs sit at steps min_resource * eta^k, k = 0, 1, ... A trial reaches a
// rung with its first report at a step >= the rung; its value there is that
// report's value. A running trial is judged at the highest rung its latest
// step has reached, against every trial (any phase, itself included) that
// reached that rung: with n of them, the top max(1, floor(n / eta))
// continue. Floor, so that a rung keeps at most 1/eta of its trials; at
// least one, so that the first trials to reach a rung are not all stopped
// for want of competition (the second of two is stopped when it is worse
// than the first). Ties keep every tied trial: a trial is stopped only when
// at least that many trials are strictly better, so flat identical curves
// are never stopped.
//
// The judgement is repeated on each report until the trial reaches the next
// rung: a trial that passed a rung early, when few had reached it, is
// stopped once enough later trials beat it there. Unlike ASHA there is no
// pausing; a trial either continues or stops for good.
// (The judgement is earlystop/rungs.h, which hyperband's brackets share.)
//
// Settings:
//   eta            a number > 1, default 3
//   min_resource   an integer >= 1, default 1: the first rung's step
//   resource_name  optional; since the resource is the reported step, it
//                  must equal the metrics collector's step key ("step",
//                  "epoch", ...) when given.

#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class SuccessiveHalving : public Policy {
 public:
  static constexpr char kName[] = "asha";
  static constexpr char kEta[] = "eta";
  static constexpr char kMinResource[] = "min_resource";
  static constexpr char kResourceName[] = "resource_name";
  static constexpr double kDefaultEta = 3;
  static constexpr int kDefaultMinResource = 1;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<StopDecision> ShouldStop(
      const api::ExperimentSpec& spec, const TrialCurve& trial,
      const std::vector<TrialCurve>& others) const override;
};

}  // namespace hpt::earlystop
