#include "earlystop/threshold_stop.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "earlystop/curve.h"
#include "earlystop/percentile_rule.h"

namespace hpt::earlystop {
namespace {

using TS = ThresholdStop;

struct Settings {
  std::optional<double> lower;
  std::optional<double> upper;
  int64_t n_warmup_steps = 0;
  int64_t interval_steps = 1;
};

StatusOr<Settings> ReadSettings(const api::AlgorithmSpec& spec) {
  api::SettingsReader r(spec.settings, api::kEarlyStoppingSettingsPath,
                        TS::kName,
                        {TS::kLower, TS::kUpper, TS::kNWarmupSteps,
                         TS::kIntervalSteps});
  Settings s;
  if (!r.Has(TS::kLower) && !r.Has(TS::kUpper)) {
    r.Missing("lower or upper",
              "a trial whose value leaves [lower, upper] is stopped");
  }
  s.lower = r.OptionalNumber(TS::kLower);
  s.upper = r.OptionalNumber(TS::kUpper);
  if (s.lower && s.upper && *s.lower > *s.upper) {
    r.Invalid(TS::kUpper, "upper must not be below lower " +
                              api::FormatDouble(*s.lower) + ", got " +
                              api::FormatDouble(*s.upper));
  }
  s.n_warmup_steps = r.Int(TS::kNWarmupSteps, 0, {.min = 0});
  s.interval_steps = r.Int(TS::kIntervalSteps, 1, {.min = 1});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

}  // namespace

Status ThresholdStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec.early_stopping).status();
}

StatusOr<StopDecision> ThresholdStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& /*others*/) const {
  HPT_ASSIGN_OR_RETURN(Settings s, ReadSettings(spec.early_stopping));
  if (api::IsFinished(trial.phase)) return StopDecision{};
  std::optional<int64_t> step = LastStep(trial);
  if (!step ||
      !IsPruningStep(trial, *step, s.n_warmup_steps, s.interval_steps)) {
    return StopDecision{};
  }
  const double value = *ValueAt(trial, *step);
  const std::string at = spec.objective.metric_name + " " +
                         api::FormatDouble(value) + " at step " +
                         std::to_string(*step);
  if (s.lower && value < *s.lower) {
    return StopDecision{true, at + " is below the lower threshold " +
                                  api::FormatDouble(*s.lower)};
  }
  if (s.upper && value > *s.upper) {
    return StopDecision{true, at + " is above the upper threshold " +
                                  api::FormatDouble(*s.upper)};
  }
  return StopDecision{};
}

}  // namespace hpt::earlystop
