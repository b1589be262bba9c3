#pragma once
// What an experiment's trials add up to: counts by phase and the best trial.
// Used by the controller's end conditions and by the API's status object.

#include <optional>
#include <vector>

#include "api/types.h"

namespace hpt::api {

struct TrialCounts {
  int pending = 0;
  int running = 0;
  int succeeded = 0;
  int failed = 0;
  int early_stopped = 0;
  int metrics_unavailable = 0;
  int killed = 0;
  int total = 0;

  int active() const { return pending + running; }
  // Finished trials that used up budget without failing.
  int completed() const { return succeeded + early_stopped + metrics_unavailable; }
};

TrialCounts CountTrials(const std::vector<Trial>& trials);

// Index of the best Succeeded or EarlyStopped trial with an objective value
// (the first one on ties), or nullopt.
std::optional<size_t> BestTrialIndex(const std::vector<Trial>& trials,
                                     const Objective& objective);

// True when `value` meets the goal (<= for minimize, >= for maximize).
bool GoalReached(const Objective& objective, double value);

}  // namespace hpt::api
