#pragma once
// HyperbandStop ("hyperband" as an earlyStopping policy): Hyperband's
// brackets (Li et al., 2018) as a stop rule on trials that each run to at
// most r_l steps, as Optuna's HyperbandPruner applies them. Unlike the
// "hyperband" algorithm (suggestion/hyperband.h, Katib's), nothing is
// restarted: a trial that survives a rung trains on from where it is.
//
// With s_max = the largest s such that min_resource * eta^s <= r_l, there
// are s_max + 1 brackets, b = 0, ..., s_max. Bracket b is successive
// halving (earlystop/rungs.h, as asha judges) with rungs at
// min_resource * eta^(b + k) below r_l, among the trials of bracket b
// only: bracket 0 is the most aggressive, bracket s_max stops nothing when
// min_resource * eta^s_max = r_l. Each trial belongs to one bracket, chosen
// from its name by a fixed hash (FNV-1a), in proportion to Hyperband's
// bracket sizes n = ceil((s_max + 1) / (s + 1) * eta^s), s = s_max - b
// (eta 3, r_l 27: 27 : 12 : 6 : 4). A trial's bracket depends on its name
// only, so the rule stays a pure function of the curves.
//
// Settings:
//   r_l            required: the step a trial reaches when it runs to the
//                  end (its budget), a number >= min_resource
//   eta            a number > 1, default 3
//   min_resource   an integer >= 1, default 1: bracket 0's first rung
//   resource_name  optional; must equal the metrics collector's step key,
//                  as for asha

#include <cstdint>
#include <string_view>
#include <vector>

#include "earlystop/policy.h"

namespace hpt::earlystop {

class HyperbandStop : public Policy {
 public:
  static constexpr char kName[] = "hyperband";
  static constexpr char kRl[] = "r_l";
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

// Hyperband's bracket sizes, bracket 0 (s = s_max) first, for eta > 1 and
// r_l >= min_resource >= 1: the weights by which trials are spread.
std::vector<int64_t> HyperbandBracketWeights(double eta, double min_resource,
                                             double r_l);

// The bracket of the trial called `name` under `weights`: FNV-1a (64 bit)
// of the name, modulo the weights' sum, placed among their running sums.
int HyperbandBracketOf(std::string_view name,
                       const std::vector<int64_t>& weights);

}  // namespace hpt::earlystop
