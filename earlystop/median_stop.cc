#include "earlystop/median_stop.h"

#include <cstdint>

#include "api/settings.h"
#include "earlystop/percentile_rule.h"

namespace hpt::earlystop {
namespace {

using MS = MedianStop;

// Katib's name, else Optuna's for the same setting, else `fallback`; both
// given is a problem naming the second.
int64_t Either(api::SettingsReader& r, const char* katib, const char* optuna,
               int64_t fallback) {
  if (r.Has(katib) && r.Has(optuna)) {
    r.Invalid(optuna, std::string(optuna) + " is " + katib +
                          " under Optuna's name; give one of them");
  }
  const char* name = r.Has(katib) ? katib : optuna;
  return r.Int(name, fallback, {.min = 0});
}

StatusOr<PercentileRule> ReadSettings(const api::AlgorithmSpec& spec) {
  api::SettingsReader r(spec.settings, api::kEarlyStoppingSettingsPath,
                        MS::kName,
                        {MS::kMinTrialsRequired, MS::kStartStep,
                         MS::kNStartupTrials, MS::kNWarmupSteps,
                         MS::kIntervalSteps, MS::kNMinTrials});
  PercentileRule rule;
  rule.percentile = 50;
  rule.n_startup_trials = Either(r, MS::kMinTrialsRequired,
                                 MS::kNStartupTrials,
                                 MS::kDefaultMinTrialsRequired);
  rule.n_warmup_steps = Either(r, MS::kStartStep, MS::kNWarmupSteps,
                               MS::kDefaultStartStep);
  rule.interval_steps = r.Int(MS::kIntervalSteps, 1, {.min = 1});
  rule.n_min_trials = r.Int(MS::kNMinTrials, 1, {.min = 1});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return rule;
}

}  // namespace

Status MedianStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec.early_stopping).status();
}

StatusOr<StopDecision> MedianStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(PercentileRule rule, ReadSettings(spec.early_stopping));
  return JudgeByPercentile(spec, trial, others, rule, "the median");
}

std::vector<std::string> MedianStop::Notes(
    const api::ExperimentSpec& spec) const {
  StatusOr<PercentileRule> rule = ReadSettings(spec.early_stopping);
  if (!rule.ok()) return {};
  return PercentileRuleNotes(spec, *rule, kName);
}

}  // namespace hpt::earlystop
