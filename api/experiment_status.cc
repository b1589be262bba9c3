#include "api/experiment_status.h"

namespace hpt::api {

TrialCounts CountTrials(const std::vector<Trial>& trials) {
  TrialCounts c;
  for (const auto& t : trials) {
    ++c.total;
    switch (t.phase) {
      case TrialPhase::kPending: ++c.pending; break;
      case TrialPhase::kRunning: ++c.running; break;
      case TrialPhase::kSucceeded: ++c.succeeded; break;
      case TrialPhase::kFailed: ++c.failed; break;
      case TrialPhase::kEarlyStopped: ++c.early_stopped; break;
      case TrialPhase::kMetricsUnavailable: ++c.metrics_unavailable; break;
      case TrialPhase::kKilled: ++c.killed; break;
    }
  }
  return c;
}

std::optional<size_t> BestTrialIndex(const std::vector<Trial>& trials,
                                     const Objective& objective) {
  std::optional<size_t> best;
  std::optional<double> best_value;
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    if (t.phase != TrialPhase::kSucceeded && t.phase != TrialPhase::kEarlyStopped) {
      continue;
    }
    auto v = ObjectiveValue(t, objective);
    if (!v) continue;
    if (!best_value || IsBetter(*v, *best_value, objective.type)) {
      best = i;
      best_value = v;
    }
  }
  return best;
}

bool GoalReached(const Objective& objective, double value) {
  if (!objective.goal) return false;
  return objective.type == ObjectiveType::kMinimize ? value <= *objective.goal
                                                    : value >= *objective.goal;
}

}  // namespace hpt::api
