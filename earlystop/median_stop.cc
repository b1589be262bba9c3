#include "earlystop/median_stop.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "earlystop/curve.h"

namespace hpt::earlystop {
namespace {

struct Settings {
  int64_t min_trials_required = MedianStop::kDefaultMinTrialsRequired;
  int64_t start_step = MedianStop::kDefaultStartStep;
};

StatusOr<Settings> ReadSettings(const api::AlgorithmSpec& spec) {
  api::SettingsReader r(
      spec.settings, api::kEarlyStoppingSettingsPath, MedianStop::kName,
      {MedianStop::kMinTrialsRequired, MedianStop::kStartStep});
  Settings s;
  s.min_trials_required =
      r.Int(MedianStop::kMinTrialsRequired,
            MedianStop::kDefaultMinTrialsRequired, {.min = 1});
  s.start_step =
      r.Int(MedianStop::kStartStep, MedianStop::kDefaultStartStep, {.min = 1});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return values[mid];
  return (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

Status MedianStop::Validate(const api::ExperimentSpec& spec) const {
  return ReadSettings(spec.early_stopping).status();
}

StatusOr<StopDecision> MedianStop::ShouldStop(
    const api::ExperimentSpec& spec, const TrialCurve& trial,
    const std::vector<TrialCurve>& others) const {
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec.early_stopping));
  if (api::IsFinished(trial.phase)) return StopDecision{};
  std::optional<int64_t> step = LastStep(trial);
  if (!step || *step < settings.start_step) return StopDecision{};
  const api::ObjectiveType type = spec.objective.type;
  // Set: the trial has a finite point at *step.
  double best = *BestUpTo(trial, *step, type);

  std::vector<double> values;
  for (const TrialCurve& other : others) {
    if (other.name == trial.name ||
        other.phase != api::TrialPhase::kSucceeded) {
      continue;
    }
    std::optional<int64_t> last = LastStep(other);
    if (!last || *last < *step) continue;
    if (std::optional<double> value = ValueAt(other, *step)) {
      values.push_back(*value);
    }
  }
  if (static_cast<int64_t>(values.size()) < settings.min_trials_required) {
    return StopDecision{};
  }
  double median = Median(values);
  if (!api::IsBetter(median, best, type)) return StopDecision{};
  return StopDecision{
      true, "best " + spec.objective.metric_name + " " +
                api::FormatDouble(best) + " by step " + std::to_string(*step) +
                " is worse than the median " + api::FormatDouble(median) +
                " of " + std::to_string(values.size()) +
                " succeeded trials' values at that step"};
}

}  // namespace hpt::earlystop
