#include "earlystop/percentile_rule.h"

#include <algorithm>
#include <cmath>

#include "api/spec_codec.h"
#include "earlystop/curve.h"

namespace hpt::earlystop {

bool IsPruningStep(const TrialCurve& trial, int64_t step,
                   int64_t n_warmup_steps, int64_t interval_steps) {
  if (step < n_warmup_steps) return false;
  const int64_t check =
      (step - n_warmup_steps) / interval_steps * interval_steps +
      n_warmup_steps;
  // The report before this one: if it already reached `check`, the check
  // there was made then.
  int64_t previous = -1;
  for (const CurvePoint& p : trial.points) {
    if (p.step != step && p.step > previous && std::isfinite(p.value)) {
      previous = p.step;
    }
  }
  return previous < check;
}

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double rank = q / 100 * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * weight;
}

StopDecision JudgeByPercentile(const api::ExperimentSpec& spec,
                               const TrialCurve& trial,
                               const std::vector<TrialCurve>& others,
                               const PercentileRule& rule,
                               const std::string& what) {
  if (api::IsFinished(trial.phase)) return {};
  int64_t succeeded = 0;
  for (const TrialCurve& other : others) {
    if (other.name != trial.name &&
        other.phase == api::TrialPhase::kSucceeded) {
      ++succeeded;
    }
  }
  if (succeeded == 0 || succeeded < rule.n_startup_trials) return {};
  std::optional<int64_t> step = LastStep(trial);
  if (!step ||
      !IsPruningStep(trial, *step, rule.n_warmup_steps, rule.interval_steps)) {
    return {};
  }
  const api::ObjectiveType type = spec.objective.type;
  // Set: the trial has a finite point at *step.
  const double best = *BestUpTo(trial, *step, type);

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
  if (values.empty() ||
      static_cast<int64_t>(values.size()) < rule.n_min_trials) {
    return {};
  }
  const bool maximize = type == api::ObjectiveType::kMaximize;
  const double bar =
      Percentile(values, maximize ? 100 - rule.percentile : rule.percentile);
  if (!api::IsBetter(bar, best, type)) return {};
  return {true, "best " + spec.objective.metric_name + " " +
                    api::FormatDouble(best) + " by step " +
                    std::to_string(*step) + " is worse than " + what + " " +
                    api::FormatDouble(bar) + " of " +
                    std::to_string(values.size()) +
                    " succeeded trials' values at that step"};
}

std::vector<std::string> PercentileRuleNotes(const api::ExperimentSpec& spec,
                                             const PercentileRule& rule,
                                             const std::string& policy) {
  std::vector<std::string> notes;
  const int64_t max_trials = spec.max_trial_count;
  if (max_trials <= 0) return notes;
  // A trial is judged while it runs, so at most maxTrialCount - 1 others
  // can have Succeeded by then.
  if (rule.n_startup_trials >= max_trials) {
    notes.push_back("earlyStopping: " + policy + " waits for " +
                    std::to_string(rule.n_startup_trials) +
                    " succeeded trials (n_startup_trials) but maxTrialCount "
                    "is " + std::to_string(max_trials) +
                    ", so it can never stop a trial");
  } else if (rule.n_min_trials >= max_trials) {
    notes.push_back("earlyStopping: " + policy + " needs " +
                    std::to_string(rule.n_min_trials) +
                    " succeeded trials at a step (n_min_trials) but "
                    "maxTrialCount is " + std::to_string(max_trials) +
                    ", so it can never stop a trial");
  }
  return notes;
}

}  // namespace hpt::earlystop
