// ExperimentRunner's core: carrying out the ledger's effects (one write
// policy), stops and the end conditions. Client-run trials (suggest,
// observations, complete) are in runner_client.cc, runner-run ones (start,
// exit) in runner_trials.cc, new trials in runner_new_trials.cc, early
// stopping in runner_stopping.cc.
#include "controller/experiment_runner.h"

#include <spdlog/spdlog.h>

#include "api/container.h"
#include "api/experiment_status.h"
#include "api/text.h"

#include <set>

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

namespace {

// The experiment's early-stopping policy; null when it has none.
std::unique_ptr<earlystop::Policy> PolicyFor(const api::ExperimentSpec& spec,
                                             const Registry<earlystop::Policy>* policies) {
  if (spec.early_stopping.name.empty()) return nullptr;
  auto policy = policies->Create(spec.early_stopping.name);
  return policy.ok() ? std::move(*policy) : nullptr;
}

}  // namespace

ExperimentRunner::ExperimentRunner(const RunnerDeps& deps, api::Experiment experiment,
                                   std::vector<api::Trial> trials)
    : deps_(deps),
      name_(api::KeyOf(experiment.spec)),
      ref_{experiment.spec.namespace_name, experiment.spec.name},
      runner_run_(experiment.spec.trial_template.has_value()),
      executor_name_(runner_run_ ? api::ExecutorNameOf(*experiment.spec.trial_template,
                                                       deps.default_executor)
                                 : deps.default_executor),
      trial_token_salt_(experiment.trial_token_salt),
      exp_(std::move(experiment)),
      trials_(std::move(trials)),
      tally_(exp_.spec.objective),
      ledger_(&exp_.spec, runner_run_),
      curves_(PolicyFor(exp_.spec, deps.policies), exp_.spec.objective.metric_name) {
  for (size_t i = 0; i < trials_.size(); ++i) index_[trials_[i].name] = i;
  // Client-run trials still Running after a restart: a full lease from now.
  if (!runner_run_) {
    for (Trial& t : trials_) {
      if (t.phase == api::TrialPhase::kRunning) ApplyLocked(t, event::Renewed{});
    }
  }
  PublishLocked();
}

// True while a trial waits for GPUs, a write the store refused waits, or a
// ledger deadline (a lease, a recovery to ask about again) has come.
bool ExperimentRunner::NeedsSweep() const {
  // Read without mu_ on purpose: the values are published at the end of
  // every locked call, so a stale one is at most one call old, and the
  // Reconcile() it triggers (or skips until the next sweep, 500 ms on)
  // decides again under the lock.
  const int64_t deadline = next_deadline_ms_.load();
  return waiting_for_resources_.load() || dirty_.load() ||
         (deadline > 0 && deps_.clock->NowMillis() >= deadline);
}

bool ExperimentRunner::Idle() {
  {
    MutexLock lock(&delivered_mu_);
    if (!delivered_exits_.empty()) return false;
  }
  Locked lock(this);
  if (!writing_.empty() || ledger_.HasHeld() || dirty_.load()) return false;
  if (runner_run_ && !api::IsFinished(exp_.phase)) return false;
  for (const Trial& t : trials_) {
    if (!api::IsFinished(t.phase)) return false;
  }
  return true;
}

runner::Executor* ExperimentRunner::executor() const {
  if ((deps_.stopping && deps_.stopping->load()) || !deps_.executors) return nullptr;
  auto it = deps_.executors->find(executor_name_);
  return it == deps_.executors->end() ? nullptr : it->second;
}

Trial* ExperimentRunner::FindLocked(const std::string& trial) {
  auto it = index_.find(trial);
  return it == index_.end() ? nullptr : &trials_[it->second];
}

// Applies `event` to the trial through the ledger and carries out what
// follows.
void ExperimentRunner::ApplyLocked(Trial& trial, const TrialEvent& event) {
  (void)CarryLocked(trial, ledger_.Apply(trial, event, Now()));
}

// Stores `effects`' writes in order, mirrors its update into the cached
// trial whatever the store says (a refused write is held by the ledger and
// retried by Reconcile()), kills, and judges. False: a write held.
bool ExperimentRunner::CarryLocked(Trial& trial, Effects effects) {
  if (!effects.note.empty()) spdlog::info("experiment {}: trial {} {}", name_, trial.name, effects.note);
  // executor() read once: it turns null when Shutdown() begins.
  if (runner::Executor* const e = effects.kill ? executor() : nullptr) e->Kill(name_, trial.name);
  Status stored = effects.unsure ? DropStoredLocked(trial, effects) : Status::Ok();
  bool observations_stored = false;
  if (stored.ok() && !effects.observations.empty()) {
    stored = deps_.store->AddObservations(name_, trial.name, effects.observations);
    if (stored.ok()) {
      observations_stored = true;
      for (const api::Observation& o : effects.observations) curves_.Append(trial, o);
      Status refreshed = RefreshTrialLocked(trial);
      if (!refreshed.ok()) spdlog::warn("experiment {}: {}", name_, refreshed.message());
    }
  }
  if (effects.update) {
    // After refused observations the fields wait too: never ahead of them.
    if (stored.ok()) stored = deps_.store->UpdateTrial(name_, trial.name, *effects.update);
    MirrorLocked(trial, *effects.update);
  }
  if (!stored.ok()) {
    spdlog::error("experiment {}: storing trial {} failed, held for a retry: {}", name_,
                  trial.name, stored.message());
    if (observations_stored) effects.observations.clear();  // only the refused part waits
    if (stored.code() == StatusCode::kUnavailable) effects.unsure = true;
    ledger_.Hold(trial.name, std::move(effects));
    dirty_ = true;
    return false;
  }
  if (effects.judge) StopIfHopelessLocked(trial);
  return true;
}

// Held writes the store may have taken before it answered Unavailable:
// the observations it holds already are not stored again.
Status ExperimentRunner::DropStoredLocked(const Trial& trial, Effects& effects) {
  HPT_ASSIGN_OR_RETURN(std::vector<api::Observation> stored,
                       deps_.store->ListObservations(name_, trial.name));
  DropStored(stored, &effects.observations);
  if (effects.update) DropStored(stored, &effects.update->observations);
  effects.unsure = false;
  return Status::Ok();
}

ExperimentRunner::Locked::Locked(ExperimentRunner* runner) : runner_(runner) {
  runner_->mu_.lock();
}

ExperimentRunner::Locked::~Locked() {
  runner_->PublishLocked();
  runner_->mu_.unlock();
}

// Publishes what NeedsSweep() reads; every locked entry point ends here:
// the ledger's next deadline (0: none) and whether a write waits.
void ExperimentRunner::PublishLocked() {
  next_deadline_ms_ = ledger_.NextDeadline();
  if (ledger_.HasHeld()) dirty_ = true;
}

// Writes a client's request asks for, answered with the store's error
// (nothing held: the client retries). Mirrored once stored.
Status ExperimentRunner::WriteNowLocked(Trial& trial, const storage::TrialUpdate& update) {
  HPT_RETURN_IF_ERROR(deps_.store->UpdateTrial(name_, trial.name, update));
  MirrorLocked(trial, update);
  return Status::Ok();
}

// Copies `update` into the cached trial, and its phase into the curves and
// the tally.
void ExperimentRunner::MirrorLocked(Trial& trial, const storage::TrialUpdate& update) {
  const TrialPhase from = trial.phase;
  storage::ApplyTrialUpdate(update, trial);
  if (!update.phase) return;
  curves_.SetPhase(trial.name, trial.phase);
  tally_.PhaseChanged(trials_, static_cast<size_t>(&trial - trials_.data()), from);
}

// Retries the held writes, oldest first; false while the store still
// refuses one.
bool ExperimentRunner::FlushHeldLocked() {
  // Trial by trial, each one's observations before its fields: a trial's
  // end is judged on what it reported.
  while (auto held = ledger_.TakeHeld()) {
    Trial* t = FindLocked(held->first);
    if (!t) continue;  // deleted meanwhile
    if (!CarryLocked(*t, std::move(held->second))) return false;
  }
  return true;
}

// The store keeps each trial's metric summaries as observations arrive.
Status ExperimentRunner::RefreshTrialLocked(Trial& trial) {
  HPT_ASSIGN_OR_RETURN(Trial stored, deps_.store->GetTrial(name_, trial.name));
  trial.metrics = std::move(stored.metrics);
  trial.outputs = std::move(stored.outputs);
  // A finished trial's value may be the best's: counted again when asked.
  if (api::IsFinished(trial.phase)) tally_.Invalidate();
  return Status::Ok();
}

Status ExperimentRunner::Stop() {
  Locked lock(this);
  if (api::IsFinished(exp_.phase)) {
    return FailedPrecondition("experiment '" + name_ + "' is already " +
                              api::ToString(exp_.phase));
  }
  FinishLocked(ExperimentPhase::kStopped, "StoppedByUser", "stopped on request");
  return Status::Ok();
}

void ExperimentRunner::NoteExitDelivered(const std::string& trial) {
  MutexLock lock(&delivered_mu_);
  delivered_exits_.insert(trial);
}

// Kills its active trials, ahead of the store's delete. The trials whose
// jobs were killed: their exits are still to come (those already delivered,
// NoteExitDelivered(), are not waited for again).
std::vector<std::string> ExperimentRunner::PrepareDelete() {
  Locked lock(this);
  std::set<std::string> delivered;
  {
    MutexLock exits(&delivered_mu_);
    delivered = delivered_exits_;
  }
  std::vector<std::string> jobs;
  if (exp_.spec.trial_template && executor()) {
    for (const Trial& t : trials_) {
      bool job = t.phase == TrialPhase::kRunning || !t.job_id.empty();
      if (!api::IsFinished(t.phase) && job && !delivered.count(t.name)) jobs.push_back(t.name);
    }
  }
  KillActiveLocked("ExperimentDeleted");
  return jobs;
}

Status ExperimentRunner::StopTrial(const std::string& trial) {
  Locked lock(this);
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (api::IsFinished(t->phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " + api::ToString(t->phase));
  }
  KillTrialLocked(*t, "StoppedByUser");
  return Status::Ok();
}

bool ExperimentRunner::FinishIfDoneLocked() {
  if (api::IsFinished(exp_.phase)) return true;
  const api::ExperimentSpec& spec = exp_.spec;
  const api::TrialCounts counts = tally_.Counts(trials_);
  if (auto best = tally_.Best(trials_)) {
    double value = *api::ObjectiveValue(trials_[*best], spec.objective);
    if (api::GoalReached(spec.objective, value)) {
      FinishLocked(ExperimentPhase::kSucceeded, "GoalReached",
                   "trial " + trials_[*best].name + " reached the goal");
      return true;
    }
  }
  if (counts.failures() > spec.max_failed_trial_count) {
    std::string message = std::to_string(counts.failures()) + " trials failed";
    if (counts.metrics_unavailable > 0) {
      // Say what they reported instead: most often a misspelt metric name.
      message = (counts.failed > 0 ? std::to_string(counts.failed) + " trials failed and " : "") +
                std::to_string(counts.metrics_unavailable) +
                " trials did not report the objective metric '" + spec.objective.metric_name + "'";
      for (const Trial& t : trials_) {
        if (t.phase == api::TrialPhase::kMetricsUnavailable) {
          const size_t tail = std::min(t.message.find("; log tail"), t.message.find('\n'));
          message += "; " + t.name + " " + t.message.substr(0, tail);
          break;
        }
      }
    }
    FinishLocked(ExperimentPhase::kFailed, "MaxFailedTrialsReached",
                 message + " (maxFailedTrialCount " +
                     std::to_string(spec.max_failed_trial_count) + ")");
    return true;
  }
  if (counts.active() > 0) return false;
  const bool out_of_trials = counts.run() >= spec.max_trial_count || exhausted_;
  if (out_of_trials && counts.total > 0 && !tally_.Best(trials_)) {
    // Done, with nothing to show: not a success, and the reason says why.
    if (counts.metrics_unavailable > 0) {
      std::set<std::string> seen;
      for (const Trial& t : trials_) {
        for (const auto& m : t.metrics) seen.insert(m.name);
      }
      std::vector<std::string> names(seen.begin(), seen.end());
      if (names.size() > 10) names.resize(10);
      FinishLocked(ExperimentPhase::kFailed, "ObjectiveNeverReported",
                   "no trial reported the objective metric '" + spec.objective.metric_name +
                       "' (metrics reported: " + (names.empty() ? "none" : api::Join(names, ", ")) +
                       ")");
    } else {
      FinishLocked(ExperimentPhase::kFailed, "NoTrialSucceeded",
                   "none of the " + std::to_string(counts.total) + " trials succeeded (" +
                       std::to_string(counts.failed) + " failed, " +
                       std::to_string(counts.killed) + " killed)");
    }
    return true;
  }
  if (counts.run() >= spec.max_trial_count) {
    FinishLocked(ExperimentPhase::kSucceeded, "MaxTrialsReached",
                 std::to_string(counts.run()) + " trials ran");
    return true;
  }
  if (exhausted_) {
    FinishLocked(ExperimentPhase::kSucceeded, "SearchSpaceExhausted",
                 "the algorithm has no new points to try");
    return true;
  }
  return false;
}

void ExperimentRunner::FinishLocked(ExperimentPhase phase, const std::string& reason,
                                    const std::string& message) {
  KillActiveLocked(EndReason(phase));
  if (deps_.admission) deps_.admission->Withdraw(name_);  // none of its trials waits now
  storage::ExperimentUpdate update;
  update.phase = phase;
  update.reason = reason;
  update.message = message;
  update.completion_time_ms = Now();
  Status s = deps_.store->UpdateExperiment(name_, update);
  if (!s.ok()) {
    // Left Running: the next event or sweep tries again.
    spdlog::error("experiment {}: storing its end ({}) failed: {}", name_, reason, s.message());
    dirty_ = true;
    return;
  }
  exp_.phase = phase;
  exp_.reason = reason;
  exp_.message = message;
  exp_.completion_time_ms = *update.completion_time_ms;
  spdlog::info("experiment {} {}: {}", name_, api::ToString(phase), message);
}

void ExperimentRunner::KillActiveLocked(const std::string& reason) {
  for (Trial& t : trials_) {
    if (!api::IsFinished(t.phase)) KillTrialLocked(t, reason);
  }
}

void ExperimentRunner::KillTrialLocked(Trial& t, const std::string& reason) {
  ApplyLocked(t, event::StopRequested{reason});
}

StatusOr<runner::LogRange> ExperimentRunner::ReadLog(runner::LogQuery query) const {
  runner::Executor* e = executor();
  if (!e) return Unavailable("the server is shutting down");
  query.log_path = LogPath(query.trial);
  return e->ReadLog(query);
}

std::string ExperimentRunner::LogPath(const std::string& trial) const {
  return api::ExperimentFolder(deps_.log_dir, name_) + "/" + trial + ".log";
}

}  // namespace hpt::controller
