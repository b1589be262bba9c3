#include "earlystop/percentile_stop.h"

#include "api/settings.h"
#include "api/spec_codec.h"
#include "earlystop/percentile_rule.h"

namespace hpt::earlystop {
namespace {

using PS = PercentileStop;

StatusOr<PercentileRule> ReadSettings(const api::AlgorithmSpec& spec) {
  api::SettingsReader r(spec.settings, api::kEarlyStoppingSettingsPath,
                        PS::kName,
                        {PS::kPercentile, PS::kNStartupTrials,
                         PS::kNWarmupSteps, PS::kIntervalSteps,
                         PS::kNMinTrials});
  PercentileRule rule;
  if (!r.Has(PS::kPercentile)) {
    r.Missing(PS::kPercentile,
              "the percentile of trials to keep, a number in [0, 100]");
  }
  rule.percentile =
      r.Number(PS::kPercentile, 50, {.min = 0, .max = 100});
  rule.n_startup_trials = r.Int(PS::kNStartupTrials, 5, {.min = 0});
  rule.n_warmup_steps = r.Int(PS::kNWarmupSteps, 0, {.min = 0});
  rule.interval_steps = r.Int(PS::kIntervalSteps, 1, {.min = 1});
  rule.n_min_trials = r.Int(PS::kNMinTrials, 1, {.min = 1});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return rule;
}

}  // namespace

Status PercentileStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec.early_stopping).status();
}

StatusOr<StopDecision> PercentileStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(PercentileRule rule, ReadSettings(spec.early_stopping));
  return JudgeByPercentile(
      spec, trial, others, rule,
      "the percentile-" + api::FormatDouble(rule.percentile) + " bar");
}

std::vector<std::string> PercentileStop::Notes(
    const api::ExperimentSpec& spec) const {
  StatusOr<PercentileRule> rule = ReadSettings(spec.early_stopping);
  if (!rule.ok()) return {};
  return PercentileRuleNotes(spec, *rule, kName);
}

}  // namespace hpt::earlystop
