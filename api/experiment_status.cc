#include "api/experiment_status.h"

#include <algorithm>
#include "api/constraints.h"

namespace hpt::api {

namespace {

int& CountOf(TrialCounts& c, TrialPhase phase) {
  switch (phase) {
    case TrialPhase::kPending: return c.pending;
    case TrialPhase::kRunning: return c.running;
    case TrialPhase::kSucceeded: return c.succeeded;
    case TrialPhase::kFailed: return c.failed;
    case TrialPhase::kEarlyStopped: return c.early_stopped;
    case TrialPhase::kMetricsUnavailable: return c.metrics_unavailable;
    case TrialPhase::kKilled: return c.killed;
  }
  return c.killed;
}

// Infeasible trials (a constraint value above 0) are never the best.
bool CountsForBest(const Trial& t) {
  return (t.phase == TrialPhase::kSucceeded || t.phase == TrialPhase::kEarlyStopped) &&
         IsFeasible(t);
}

}  // namespace

TrialCounts CountTrials(const std::vector<Trial>& trials) {
  TrialCounts c;
  for (const auto& t : trials) {
    ++c.total;
    if (t.reason == kImportedReason) ++c.imported;
    ++CountOf(c, t.phase);
  }
  return c;
}

std::optional<size_t> BestTrialIndex(const std::vector<Trial>& trials,
                                     const Objective& objective) {
  std::optional<size_t> best;
  std::optional<double> best_value;
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    if (!CountsForBest(t)) continue;
    auto v = ObjectiveValue(t, objective);
    if (!v) continue;
    if (!best_value || IsBetter(*v, *best_value, objective.type)) {
      best = i;
      best_value = v;
    }
  }
  return best;
}

std::string ReportedMetrics(const Trial& trial) {
  std::string out;
  for (const auto& m : trial.metrics) out += (out.empty() ? "" : ", ") + m.name;
  return out.empty() ? "none" : out;
}

std::vector<ExperimentWarning> ExperimentWarnings(const std::vector<Trial>& trials,
                                                  const ExperimentSpec& spec) {
  const Trial* first = nullptr;
  int count = 0;
  for (const Trial& t : trials) {
    if (t.phase != TrialPhase::kMetricsUnavailable) continue;
    ++count;
    if (!first || t.index < first->index) first = &t;
  }
  if (!first) return {};
  // The trial's message (controller/trial_exit.cc) says what it reported
  // and the closest name: "... (it reported: none; other names with a
  // number: val_loss; did you mean 'val_loss'?)"; its log tail is left out.
  std::string reported = ReportedMetrics(*first);
  const std::string& m = first->message;
  const std::string marker = "(it reported: ";
  // Metric names hold no ')' (api/input_limits.h, the collector's
  // pattern), so the first one after the marker closes it.
  const size_t end = std::min(m.find("; log tail"), m.find('\n'));
  const size_t at = m.find(marker);
  if (at != std::string::npos && at < end) {
    const size_t close = m.find(')', at);
    if (close != std::string::npos && close < end) {
      reported = m.substr(at + marker.size(), close - at - marker.size());
    }
  }
  std::string missing = MissingObjective(*first, spec.objective);
  if (missing.empty()) missing = spec.objective.metric_name;
  ExperimentWarning w;
  w.reason = "MetricsUnavailable";
  w.trial = first->name;
  w.message = std::to_string(count) + (count == 1 ? " trial" : " trials") +
              " did not report the objective metric '" +
missing + "': " + first->name + " reported " +
              reported + "; each such trial counts towards maxFailedTrialCount (" +
              std::to_string(spec.max_failed_trial_count) + ")";
  return {w};
}

bool GoalReached(const Objective& objective, double value) {
  if (!objective.goal) return false;
  return objective.type == ObjectiveType::kMinimize ? value <= *objective.goal
                                                    : value >= *objective.goal;
}

void TrialTally::Rescan(const std::vector<Trial>& trials) {
  counts_ = CountTrials(trials);
  best_ = BestTrialIndex(trials, objective_);
  if (best_) best_value_ = *ObjectiveValue(trials[*best_], objective_);
  valid_ = true;
}

void TrialTally::Consider(const std::vector<Trial>& trials, size_t index) {
  if (!CountsForBest(trials[index])) return;
  auto v = ObjectiveValue(trials[index], objective_);
  if (!v) return;
  // The first on ties, as BestTrialIndex.
  if (!best_ || IsBetter(*v, best_value_, objective_.type) ||
      (*v == best_value_ && index < *best_)) {
    best_ = index;
    best_value_ = *v;
  }
}

void TrialTally::Added(const std::vector<Trial>& trials, size_t index) {
  if (!valid_) return;
  ++counts_.total;
  if (trials[index].reason == kImportedReason) ++counts_.imported;
  ++CountOf(counts_, trials[index].phase);
  Consider(trials, index);
}

void TrialTally::PhaseChanged(const std::vector<Trial>& trials, size_t index, TrialPhase from) {
  if (!valid_ || from == trials[index].phase) return;
  --CountOf(counts_, from);
  ++CountOf(counts_, trials[index].phase);
  if (best_ && *best_ == index) {
    valid_ = false;  // the best left the running: rescan
    return;
  }
  Consider(trials, index);
}

const TrialCounts& TrialTally::Counts(const std::vector<Trial>& trials) {
  if (!valid_) Rescan(trials);
  return counts_;
}

std::optional<size_t> TrialTally::Best(const std::vector<Trial>& trials) {
  if (!valid_) Rescan(trials);
  return best_;
}

}  // namespace hpt::api
