// ExperimentRunner's warm start: trials:enqueue and trials:import.
#include <spdlog/spdlog.h>

#include <set>

#include "api/assignment_check.h"
#include "api/json_reader.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

namespace {

std::string Key(const api::Assignment& a) {
  std::string key;
  for (const auto& p : a) key += p.name + '\x1f' + p.value + '\x1e';
  return key;
}

}  // namespace

// Assignments suggested before the algorithm is asked again, oldest first
// (Optuna's enqueue_trial); each is checked (a bad one, named trials[i],
// changes nothing); `skip_if_exists` drops those equal to a trial or an
// already queued one. FailedPrecondition for a finished experiment.
StatusOr<EnqueueResult> ExperimentRunner::Enqueue(const std::vector<api::Assignment>& assignments,
                                                  bool skip_if_exists) {
  Locked lock(this);
  if (api::IsFinished(exp_.phase)) {
    return FailedPrecondition("experiment '" + name_ + "' is " + api::ToString(exp_.phase) +
                              "; raise maxTrialCount (PATCH) to run it again first");
  }
  std::set<std::string> seen;
  if (skip_if_exists) {
    for (const Trial& t : trials_) seen.insert(Key(t.assignment));
    for (const auto& a : exp_.queue) seen.insert(Key(a));
  }
  EnqueueResult result;
  for (size_t i = 0; i < assignments.size(); ++i) {
    HPT_ASSIGN_OR_RETURN(
        api::Assignment checked,
        api::CheckAssignment(exp_.spec, assignments[i],
                             api::JsonReader::Path("trials", i) + ".parameterAssignments"));
    if (skip_if_exists && !seen.insert(Key(checked)).second) {
      ++result.skipped;
      continue;
    }
    result.queued.push_back(std::move(checked));
  }
  std::vector<api::Assignment> queue = exp_.queue;
  queue.insert(queue.end(), result.queued.begin(), result.queued.end());
  storage::ExperimentUpdate update;
  update.queue = queue;
  HPT_RETURN_IF_ERROR(deps_.store->UpdateExperiment(name_, update));
  exp_.queue = std::move(queue);
  result.queue_length = exp_.queue.size();
  // A search space the algorithm had exhausted has new points again.
  if (!result.queued.empty()) exhausted_ = false;
  return result;
}

// Finished trials with known results, stored in one transaction with reason
// Imported; maxTrialCount does not count them, the algorithm's history
// does. All checked first (named trials[i]).
StatusOr<std::vector<Trial>> ExperimentRunner::Import(const std::vector<ImportedTrial>& imports) {
  Locked lock(this);
  const std::vector<api::ObjectiveMetric> objectives = api::Objectives(exp_.spec.objective);
  storage::NewTrials batch;
  const int64_t now = Now();
  for (size_t i = 0; i < imports.size(); ++i) {
    const ImportedTrial& in = imports[i];
    const std::string path = in.path.empty() ? api::JsonReader::Path("trials", i) : in.path;
    if (in.phase != TrialPhase::kSucceeded && in.phase != TrialPhase::kEarlyStopped) {
      return InvalidArgument(path + ".phase: an imported trial is Succeeded or EarlyStopped, not " +
                             api::ToString(in.phase));
    }
    HPT_ASSIGN_OR_RETURN(api::Assignment checked,
                         api::CheckAssignment(exp_.spec, in.assignment,
                                              path + ".parameterAssignments"));
    if (in.phase == TrialPhase::kSucceeded) {
      for (const auto& m : objectives) {
        bool reported = false;
        for (const auto& o : in.observations) reported = reported || o.metrics.count(m.metric_name);
        if (!reported) {
          return InvalidArgument(path + ".metrics: the objective metric '" + m.metric_name +
                                 "' is missing (a Succeeded trial reports every objective)");
        }
      }
    }
    if (in.observations.empty()) {
      return InvalidArgument(path + ".metrics: an imported trial needs at least one metric");
    }
    Trial t;
    t.index = static_cast<int64_t>(trials_.size() + batch.trials.size() + 1);
    t.name = exp_.spec.name + "-" + std::to_string(t.index);
    t.assignment = std::move(checked);
    t.phase = in.phase;
    t.reason = api::kImportedReason;
    t.message = in.source.empty() ? "imported" : "imported from " + in.source;
    t.creation_time_ms = t.start_time_ms = t.completion_time_ms = now;
    batch.trials.push_back(std::move(t));
    batch.observations.push_back(in.observations);
  }
  if (batch.trials.empty()) return std::vector<Trial>{};
  HPT_RETURN_IF_ERROR(deps_.store->AddTrials(name_, batch));
  // Read back: the store computed their metric summaries.
  std::vector<Trial> added;
  for (const Trial& t : batch.trials) {
    auto stored = deps_.store->GetTrial(name_, t.name);
    Trial copy = stored.ok() ? *stored : t;
    index_[copy.name] = trials_.size();
    trials_.push_back(copy);
    tally_.Added(trials_, trials_.size() - 1);
    added.push_back(std::move(copy));
  }
  curves_.Reload();  // early stopping reads the new curves too
  spdlog::info("experiment {}: imported {} trials", name_, added.size());
  return added;
}

}  // namespace hpt::controller
