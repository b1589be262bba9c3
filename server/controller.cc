#include "server/controller.h"

#include <filesystem>

#include "api/experiment_status.h"
#include "api/validation.h"

namespace hpt::server {

using api::Experiment;
using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

Controller::Controller(storage::Store* store,
                       const Registry<suggestion::Algorithm>* algorithms,
                       const Registry<earlystop::Policy>* policies,
                       ControllerOptions options)
    : store_(store),
      algorithms_(algorithms),
      policies_(policies),
      options_(std::move(options)),
      gpu_pool_(options_.gpus) {}

Controller::~Controller() { Shutdown(); }

Status ValidateWithAlgorithms(const api::ExperimentSpec& spec,
                              const Registry<suggestion::Algorithm>& algorithms,
                              const Registry<earlystop::Policy>& policies) {
  Status spec_status = api::ValidateSpec(spec);
  std::string problems = spec_status.ok() ? "" : spec_status.message();
  auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  if (!spec.algorithm.name.empty()) {
    auto algorithm = algorithms.Create(spec.algorithm.name);
    if (!algorithm.ok()) {
      add("algorithm.algorithmName: " + algorithm.status().message());
    } else if (spec_status.ok()) {
      // Algorithms may assume a structurally valid spec.
      Status s = (*algorithm)->Validate(spec);
      if (!s.ok()) add(s.message());
    }
  }
  if (!spec.early_stopping.name.empty()) {
    auto policy = policies.Create(spec.early_stopping.name);
    if (!policy.ok()) {
      add("earlyStopping.algorithmName: " + policy.status().message());
    } else if (spec_status.ok()) {
      Status s = (*policy)->Validate(spec);
      if (!s.ok()) add(s.message());
    }
  }
  if (problems.empty()) return Status::Ok();
  return InvalidArgument(problems);
}

Status Controller::Validate(const api::ExperimentSpec& spec) const {
  return ValidateWithAlgorithms(spec, *algorithms_, *policies_);
}

StatusOr<Experiment> Controller::CreateExperiment(const api::ExperimentSpec& spec) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  Experiment exp;
  exp.spec = spec;
  exp.creation_time_ms = api::NowMillis();
  if (spec.trial_template) {
    exp.phase = ExperimentPhase::kRunning;
    exp.start_time_ms = exp.creation_time_ms;
  }
  std::lock_guard<std::mutex> lock(mu_);
  HPT_RETURN_IF_ERROR(store_->CreateExperiment(exp));
  if (spec.trial_template) {
    active_.insert(spec.name);
    MarkDirty(spec.name);
  }
  return exp;
}

Status Controller::StopExperiment(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Experiment exp, store_->GetExperiment(name));
  if (api::IsFinished(exp.phase)) {
    return FailedPrecondition("experiment '" + name + "' is already " +
                              api::ToString(exp.phase));
  }
  HPT_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_->ListTrials(name));
  FinishLocked(exp, trials, ExperimentPhase::kStopped, "StoppedByUser",
               "stopped on request");
  return Status::Ok();
}

Status Controller::DeleteExperiment(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Experiment exp, store_->GetExperiment(name));
  HPT_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_->ListTrials(name));
  KillActiveLocked(name, trials, "ExperimentDeleted");
  HPT_RETURN_IF_ERROR(store_->DeleteExperiment(name));
  active_.erase(name);
  exhausted_.erase(name);
  {
    std::lock_guard<std::mutex> cache_lock(cache_mu_);
    experiments_.erase(name);
  }
  std::error_code ec;
  std::filesystem::remove_all(options_.log_dir + "/" + name, ec);
  return Status::Ok();
}

StatusOr<std::vector<Trial>> Controller::SuggestTrials(const std::string& name,
                                                       int count) {
  if (count < 1 || count > 1000) {
    return InvalidArgument("count: must be between 1 and 1000, not " +
                           std::to_string(count));
  }
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Experiment exp, store_->GetExperiment(name));
  if (exp.spec.trial_template) {
    return FailedPrecondition("experiment '" + name +
                              "' has a trialTemplate: the server runs its trials; "
                              ":suggest is for client-run experiments");
  }
  if (api::IsFinished(exp.phase)) return std::vector<Trial>{};
  if (exp.phase == ExperimentPhase::kCreated) {
    exp.phase = ExperimentPhase::kRunning;
    exp.start_time_ms = api::NowMillis();
    storage::ExperimentUpdate update;
    update.phase = exp.phase;
    update.start_time_ms = exp.start_time_ms;
    HPT_RETURN_IF_ERROR(store_->UpdateExperiment(name, update));
  }
  HPT_ASSIGN_OR_RETURN(std::vector<Trial>* history, ClientHistoryLocked(name));
  int budget = exp.spec.max_trial_count - static_cast<int>(history->size());
  if (budget <= 0 || exhausted_.count(name)) return std::vector<Trial>{};
  auto created = CreateTrialsLocked(exp, *history, std::min(count, budget),
                                    TrialPhase::kRunning);
  if (!created.ok()) return created.status();
  history->insert(history->end(), created->begin(), created->end());
  if (created->empty() && exhausted_.count(name)) {
    FinishIfDoneLocked(exp, *history);
  }
  return created;
}

Status Controller::AddObservations(const std::string& experiment,
                                   const std::string& trial,
                                   const std::vector<api::Observation>& observations) {
  HPT_ASSIGN_OR_RETURN(Trial t, store_->GetTrial(experiment, trial));
  if (api::IsFinished(t.phase)) {
    return FailedPrecondition("trial '" + trial + "' is " + api::ToString(t.phase) +
                              "; observations are taken only while it runs");
  }
  return store_->AddObservations(experiment, trial, observations);
}

Status Controller::CompleteTrial(const std::string& experiment,
                                 const std::string& trial,
                                 const Completion& completion) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Experiment exp, store_->GetExperiment(experiment));
  if (exp.spec.trial_template) {
    return FailedPrecondition("trial '" + trial +
                              "' is run by the server; it completes when its "
                              "process exits");
  }
  HPT_ASSIGN_OR_RETURN(Trial t, store_->GetTrial(experiment, trial));
  if (api::IsFinished(t.phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " +
                              api::ToString(t.phase));
  }
  storage::TrialUpdate update;
  update.completion_time_ms = api::NowMillis();
  if (completion.infeasible) {
    update.phase = TrialPhase::kFailed;
    update.reason = "Infeasible";
    update.message = completion.reason;
  } else {
    if (!completion.metrics.empty()) {
      HPT_ASSIGN_OR_RETURN(auto observations,
                           store_->ListObservations(experiment, trial));
      api::Observation final_obs;
      final_obs.step = observations.empty() ? 0 : observations.back().step + 1;
      final_obs.timestamp_ms = *update.completion_time_ms;
      final_obs.metrics = completion.metrics;
      HPT_RETURN_IF_ERROR(store_->AddObservations(experiment, trial, {final_obs}));
    }
    HPT_ASSIGN_OR_RETURN(t, store_->GetTrial(experiment, trial));
    bool has_objective = api::ObjectiveValue(t, exp.spec.objective).has_value();
    bool advised = stop_advised_.erase(experiment + "/" + trial) > 0;
    update.phase = has_objective ? (advised ? TrialPhase::kEarlyStopped : TrialPhase::kSucceeded)
                                 : TrialPhase::kMetricsUnavailable;
    update.reason = has_objective ? (advised ? "EarlyStopped" : "Completed")
                                  : "MetricsUnavailable";
    if (!has_objective) {
      update.message = "objective metric '" + exp.spec.objective.metric_name +
                       "' was never reported";
    }
  }
  HPT_RETURN_IF_ERROR(store_->UpdateTrial(experiment, trial, update));
  // Keep the cached history as the store now has it.
  t.phase = *update.phase;
  if (update.reason) t.reason = *update.reason;
  if (update.message) t.message = *update.message;
  t.completion_time_ms = *update.completion_time_ms;
  HPT_ASSIGN_OR_RETURN(std::vector<Trial>* history, ClientHistoryLocked(experiment));
  for (Trial& cached : *history) {
    if (cached.name == trial) cached = t;
  }
  FinishIfDoneLocked(exp, *history);
  return Status::Ok();
}

StatusOr<std::vector<Trial>*> Controller::ClientHistoryLocked(const std::string& name) {
  auto it = client_history_.find(name);
  if (it == client_history_.end()) {
    HPT_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_->ListTrials(name));
    it = client_history_.emplace(name, std::move(trials)).first;
  }
  return &it->second;
}

Status Controller::StopTrial(const std::string& experiment, const std::string& trial) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Trial t, store_->GetTrial(experiment, trial));
  if (api::IsFinished(t.phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " +
                              api::ToString(t.phase));
  }
  KillActiveLocked(experiment, {t}, "StoppedByUser");
  MarkDirty(experiment);
  return Status::Ok();
}

bool Controller::FinishIfDoneLocked(const Experiment& exp,
                                    const std::vector<Trial>& trials) {
  if (api::IsFinished(exp.phase)) return true;
  const api::ExperimentSpec& spec = exp.spec;
  api::TrialCounts counts = api::CountTrials(trials);
  if (auto best = api::BestTrialIndex(trials, spec.objective)) {
    double value = *api::ObjectiveValue(trials[*best], spec.objective);
    if (api::GoalReached(spec.objective, value)) {
      FinishLocked(exp, trials, ExperimentPhase::kSucceeded, "GoalReached",
                   "trial " + trials[*best].name + " reached the goal");
      return true;
    }
  }
  if (counts.failed > spec.max_failed_trial_count) {
    FinishLocked(exp, trials, ExperimentPhase::kFailed, "MaxFailedTrialsReached",
                 std::to_string(counts.failed) + " trials failed (maxFailedTrialCount " +
                     std::to_string(spec.max_failed_trial_count) + ")");
    return true;
  }
  if (counts.active() > 0) return false;
  if (counts.total >= spec.max_trial_count) {
    FinishLocked(exp, trials, ExperimentPhase::kSucceeded, "MaxTrialsReached",
                 std::to_string(counts.total) + " trials ran");
    return true;
  }
  if (exhausted_.count(spec.name)) {
    FinishLocked(exp, trials, ExperimentPhase::kSucceeded, "SearchSpaceExhausted",
                 "the algorithm has no new points to try");
    return true;
  }
  return false;
}

void Controller::FinishLocked(const Experiment& exp, const std::vector<Trial>& trials,
                              ExperimentPhase phase, const std::string& reason,
                              const std::string& message) {
  KillActiveLocked(exp.spec.name, trials, "ExperimentFinished");
  storage::ExperimentUpdate update;
  update.phase = phase;
  update.reason = reason;
  update.message = message;
  update.completion_time_ms = api::NowMillis();
  Status s = store_->UpdateExperiment(exp.spec.name, update);
  (void)s;  // a failed write leaves the experiment Running; the next event retries
  active_.erase(exp.spec.name);
}

void Controller::KillActiveLocked(const std::string& experiment,
                                  const std::vector<Trial>& trials,
                                  const std::string& reason) {
  for (const Trial& t : trials) {
    if (api::IsFinished(t.phase)) continue;
    storage::TrialUpdate update;
    update.phase = TrialPhase::kKilled;
    update.reason = reason;
    update.completion_time_ms = api::NowMillis();
    Status s = store_->UpdateTrial(experiment, t.name, update);
    (void)s;
    // The process's exit is reported later and keeps the Killed phase.
    if (t.phase == TrialPhase::kRunning && t.pid > 0 && executor_) {
      executor_->Kill(experiment, t.name);
    }
  }
  // Phases changed; `trials` may be that very cache, so drop it last.
  client_history_.erase(experiment);
}

StatusOr<std::vector<Trial>> Controller::CreateTrialsLocked(
    const Experiment& exp, const std::vector<Trial>& history, int count,
    TrialPhase phase) {
  HPT_ASSIGN_OR_RETURN(auto algorithm, algorithms_->Create(exp.spec.algorithm.name));
  auto suggestion = algorithm->Suggest(exp.spec, history, exp.algorithm_state, count);
  if (!suggestion.ok()) return suggestion.status();
  if (suggestion->exhausted) exhausted_.insert(exp.spec.name);
  std::vector<Trial> trials;
  int64_t now = api::NowMillis();
  for (size_t i = 0; i < suggestion->assignments.size() && int(i) < count; ++i) {
    Trial t;
    t.name = exp.spec.name + "-" + std::to_string(history.size() + i + 1);
    t.assignment = suggestion->assignments[i];
    t.phase = phase;
    t.creation_time_ms = now;
    if (phase == TrialPhase::kRunning) t.start_time_ms = now;
    trials.push_back(std::move(t));
  }
  if (!trials.empty() || suggestion->state != exp.algorithm_state) {
    HPT_RETURN_IF_ERROR(store_->CreateTrials(exp.spec.name, trials, suggestion->state));
  }
  return trials;
}

std::string Controller::LogPath(const std::string& experiment,
                                const std::string& trial) const {
  return options_.log_dir + "/" + experiment + "/" + trial + ".log";
}

int Controller::RunningProcesses() const {
  return executor_ ? executor_->Running() : 0;
}

}  // namespace hpt::server
