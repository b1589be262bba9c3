#include "earlystop/median_stop.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "api/spec_codec.h"
#include "earlystop/curve.h"
#include "earlystop/settings.h"

namespace hpt::earlystop {
namespace {

struct Settings {
  int64_t min_trials_required = MedianStop::kDefaultMinTrialsRequired;
  int64_t start_step = MedianStop::kDefaultStartStep;
};

// An integer setting that must be at least `lowest`.
Status ReadAtLeast(const api::EarlyStoppingSpec& spec, const char* name,
                   int64_t lowest, int64_t* out) {
  HPT_ASSIGN_OR_RETURN(std::optional<int64_t> value, IntSetting(spec, name));
  if (!value) return Status::Ok();
  if (*value < lowest) {
    return InvalidArgument(SettingPath(*FindSetting(spec, name)) +
                           ".value: " + name + " must be at least " +
                           std::to_string(lowest) + ", got " +
                           std::to_string(*value));
  }
  *out = *value;
  return Status::Ok();
}

StatusOr<Settings> ReadSettings(const api::EarlyStoppingSpec& spec) {
  HPT_RETURN_IF_ERROR(CheckSettingNames(
      spec, MedianStop::kName,
      {MedianStop::kMinTrialsRequired, MedianStop::kStartStep}));
  Settings s;
  HPT_RETURN_IF_ERROR(ReadAtLeast(spec, MedianStop::kMinTrialsRequired, 1,
                                  &s.min_trials_required));
  HPT_RETURN_IF_ERROR(
      ReadAtLeast(spec, MedianStop::kStartStep, 1, &s.start_step));
  return s;
}

bool IsCompleted(api::TrialPhase phase) {
  return phase == api::TrialPhase::kSucceeded ||
         phase == api::TrialPhase::kEarlyStopped;
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

  std::vector<double> averages;
  for (const TrialCurve& other : others) {
    if (other.name == trial.name || !IsCompleted(other.phase)) continue;
    std::optional<int64_t> last = LastStep(other);
    if (!last || *last < *step) continue;
    if (std::optional<double> mean = MeanUpTo(other, *step)) {
      averages.push_back(*mean);
    }
  }
  if (static_cast<int64_t>(averages.size()) < settings.min_trials_required) {
    return StopDecision{};
  }
  double median = Median(averages);
  if (!api::IsBetter(median, best, type)) return StopDecision{};
  return StopDecision{
      true, "best " + spec.objective.metric_name + " " +
                api::FormatDouble(best) + " by step " + std::to_string(*step) +
                " is worse than the median " + api::FormatDouble(median) +
                " of " + std::to_string(averages.size()) +
                " completed trials' running averages at that step"};
}

}  // namespace hpt::earlystop
