#pragma once
// What an experiment's trials add up to: counts by phase and the best trial.
// Used by the controller's end conditions and by the API's status object.

#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace hpt::api {

// The reason of a trial added by trials:import or warm start: it ran
// elsewhere, and maxTrialCount does not count it.
inline constexpr char kImportedReason[] = "Imported";

struct TrialCounts {
  int pending = 0;
  int running = 0;
  int succeeded = 0;
  int failed = 0;
  int early_stopped = 0;
  int metrics_unavailable = 0;
  int killed = 0;
  int total = 0;
  int imported = 0;  // of total: trials with kImportedReason

  int active() const { return pending + running; }
  // The trials this experiment ran itself: what maxTrialCount limits.
  int run() const { return total - imported; }
  // Finished trials that used up budget without failing.
  int completed() const { return succeeded + early_stopped + metrics_unavailable; }
  // What maxFailedTrialCount limits: failed trials, and trials that never
  // reported the objective (a wrong metric name must not burn the budget).
  int failures() const { return failed + metrics_unavailable; }
};

TrialCounts CountTrials(const std::vector<Trial>& trials);

// Index of the best Succeeded or EarlyStopped trial with an objective value
// that is not infeasible (api/constraints.h) (the first one on ties), or
// nullopt.
std::optional<size_t> BestTrialIndex(const std::vector<Trial>& trials,
                                     const Objective& objective);

// "acc, loss": the metrics `trial` reported, or "none" — for messages that
// say what was seen instead of the objective.
std::string ReportedMetrics(const Trial& trial);

// Something a person should see while the experiment runs, before it ends
// for it: the API's status.warnings[] ({reason, message, trial}).
struct ExperimentWarning {
  std::string reason;   // "MetricsUnavailable"
  std::string message;  // one line
  std::string trial;    // the first trial it is about
};

// The experiment's warnings, computed from its trials (nothing is stored):
// while any trial ended MetricsUnavailable, one "MetricsUnavailable"
// warning with how many did, what the first of them reported instead and
// the closest name ("did you mean 'val_loss'?"), and that each counts
// towards maxFailedTrialCount. Empty when there is nothing to say.
std::vector<ExperimentWarning> ExperimentWarnings(const std::vector<Trial>& trials,
                                                  const ExperimentSpec& spec);

// True when `value` meets the goal (<= for minimize, >= for maximize).
bool GoalReached(const Objective& objective, double value);

// CountTrials and BestTrialIndex of a growing list of trials, kept up to
// date as trials are added and change phase, for a caller that asks after
// every change (a runner, after every completion: rescanning would make n
// completions cost O(n^2)). Not thread-safe; the caller passes the same
// list every time.
class TrialTally {
 public:
  explicit TrialTally(Objective objective) : objective_(std::move(objective)) {}

  // trials[index] was just appended.
  void Added(const std::vector<Trial>& trials, size_t index);
  // trials[index] changed phase from `from` (its metrics as they are now).
  void PhaseChanged(const std::vector<Trial>& trials, size_t index, TrialPhase from);
  // Something else changed (a finished trial's metrics): the next read
  // rescans.
  void Invalidate() { valid_ = false; }

  const TrialCounts& Counts(const std::vector<Trial>& trials);
  std::optional<size_t> Best(const std::vector<Trial>& trials);

 private:
  void Rescan(const std::vector<Trial>& trials);
  void Consider(const std::vector<Trial>& trials, size_t index);

  const Objective objective_;
  bool valid_ = false;
  TrialCounts counts_;
  std::optional<size_t> best_;
  double best_value_ = 0;
};

}  // namespace hpt::api
