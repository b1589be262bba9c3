// ExperimentRunner's new trials: trials:enqueue'd assignments first, then
// the algorithm's suggestions, stored with its new state in one
// transaction (for runner-run trials from Reconcile(), client-run ones from
// Suggest()).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/conditions.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

// `count` new trials in `phase`, queued assignments first, then the
// algorithm's; `store_failed` (if given) tells a refused write from the
// algorithm's error.
StatusOr<std::vector<Trial>> ExperimentRunner::CreateTrialsLocked(int count, TrialPhase phase,
                                                                  bool* store_failed) {
  std::vector<Trial> created;
  const int64_t now = Now();
  const size_t existing = trials_.size();
  auto add = [&](const api::Assignment& assignment) {
    Trial t;
    t.index = static_cast<int64_t>(existing + created.size() + 1);  // the store's seq
    t.name = ref_.name + "-" + std::to_string(t.index);
    t.assignment = assignment;
    t.phase = phase;
    t.creation_time_ms = now;
    if (phase == TrialPhase::kRunning) t.start_time_ms = now;
    created.push_back(std::move(t));
  };
  // trials:enqueue'd assignments go first; the algorithm fills the rest,
  // seeing them as trials already created.
  const size_t from_queue = std::min(static_cast<size_t>(std::max(count, 0)), exp_.queue.size());
  for (size_t i = 0; i < from_queue; ++i) add(exp_.queue[i]);
  std::string state = exp_.algorithm_state;
  bool exhausted = false;
  std::vector<suggestion::Lineage> lineage;
  if (static_cast<int>(from_queue) < count && exp_.spec.parameters.empty() &&
      !exp_.spec.nas_config) {
    // Nothing to suggest yet: the trials define the parameters they ask
    // for (define-by-run, runner_define_by_run.cc). A neural architecture
    // search has no parameters either: its algorithm makes its trials.
    while (created.size() < size_t(count)) add({});
  } else if (static_cast<int>(from_queue) < count) {
    HPT_ASSIGN_OR_RETURN(auto algorithm, deps_.algorithms->Create(exp_.spec.algorithm.name));
    std::vector<Trial> with_queued;
    if (from_queue > 0) {
      with_queued = trials_;
      with_queued.insert(with_queued.end(), created.begin(), created.end());
    }
    auto suggestion = algorithm->Suggest(exp_.spec, from_queue > 0 ? with_queued : trials_,
                                         exp_.algorithm_state, count - static_cast<int>(from_queue));
    if (!suggestion.ok()) return suggestion.status();
    // Inactive conditional parameters never reach a trial, whatever the
    // algorithm handed back.
    const bool conditional = api::HasConditions(exp_.spec.parameters);
    for (size_t i = 0; i < suggestion->assignments.size() && created.size() < size_t(count); ++i) {
      add(conditional ? api::PruneInactive(exp_.spec.parameters, suggestion->assignments[i])
                      : suggestion->assignments[i]);
    }
    if (!suggestion->lineage.empty()) {
      lineage.assign(from_queue, suggestion::Lineage{});
      lineage.insert(lineage.end(), suggestion->lineage.begin(), suggestion->lineage.end());
    }
    state = std::move(suggestion->state);
    exhausted = suggestion->exhausted;
  }
  HPT_RETURN_IF_ERROR(PrepareCheckpointsLocked(created, lineage));
  if (!created.empty() || state != exp_.algorithm_state) {
    storage::NewTrials batch;
    batch.trials = created;
    batch.algorithm_state = state;
    if (from_queue > 0) batch.queue.emplace(exp_.queue.begin() + from_queue, exp_.queue.end());
    Status s = deps_.store->AddTrials(name_, batch);
    if (!s.ok()) {
      // Nothing changed: the same points are asked for again next time.
      spdlog::error("experiment {}: storing new trials failed: {}", name_, s.message());
      if (store_failed) *store_failed = true;
      dirty_ = true;
      return s;
    }
    if (batch.queue) exp_.queue = std::move(*batch.queue);
  }
  if (exhausted) exhausted_ = true;
  exp_.algorithm_state = std::move(state);
  for (const Trial& t : created) {
    index_[t.name] = trials_.size();
    trials_.push_back(t);
    tally_.Added(trials_, trials_.size() - 1);
  }
  return created;
}

}  // namespace hpt::controller
