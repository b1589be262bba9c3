// The runner-facing half of the Controller: recovery after a restart, the
// reconcile thread that keeps parallelTrialCount trials running, and the
// executor's callbacks.
#include <signal.h>

#include <chrono>
#include <iostream>

#include "api/experiment_status.h"
#include "api/trial_template.h"
#include "server/controller.h"
#include "server/trial_token.h"

namespace hpt::server {

using api::Experiment;
using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

namespace {

constexpr auto kTick = std::chrono::milliseconds(500);

std::string Key(const std::string& experiment, const std::string& trial) {
  return experiment + "/" + trial;
}

std::string JoinCsv(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace

Status Controller::Start(runner::Executor* executor) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    executor_ = executor;
    HPT_RETURN_IF_ERROR(RecoverLocked());
  }
  thread_ = std::thread([this] { ReconcileLoop(); });
  return Status::Ok();
}

void Controller::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(dirty_mu_);
    shutdown_ = true;
  }
  dirty_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status Controller::RecoverLocked() {
  // Rows this version cannot decode are left out of ListExperiments: said
  // once here, and listed by the API, rather than keeping the server down.
  if (auto unreadable = store_->ListUnreadableExperiments(); unreadable.ok()) {
    for (const auto& row : *unreadable) std::cerr << "hpt: skipped: " << row.error << "\n";
  }
  HPT_ASSIGN_OR_RETURN(std::vector<Experiment> experiments, store_->ListExperiments());
  for (const Experiment& exp : experiments) {
    if (exp.phase != ExperimentPhase::kRunning || !exp.spec.trial_template) continue;
    HPT_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_->ListTrials(exp.spec.name));
    for (const Trial& t : trials) {
      if (t.phase != TrialPhase::kRunning) continue;
      // Its output pipe died with the old server; nothing can be collected.
      // Only what provably is that trial is killed: a bare pid (from an
      // older hpt, or after a reboot) may be anyone's by now.
      if (!t.job_id.empty()) executor_->KillStale(t.job_id);
      storage::TrialUpdate update;
      update.phase = TrialPhase::kFailed;
      update.reason = "ServerRestarted";
      update.message = "the server restarted while the trial ran";
      update.completion_time_ms = api::NowMillis();
      HPT_RETURN_IF_ERROR(store_->UpdateTrial(exp.spec.name, t.name, update));
    }
    active_.insert(exp.spec.name);
    MarkDirty(exp.spec.name);
  }
  return Status::Ok();
}

void Controller::MarkDirty(const std::string& experiment) {
  {
    std::lock_guard<std::mutex> lock(dirty_mu_);
    dirty_.insert(experiment);
  }
  dirty_cv_.notify_one();
}

void Controller::ReconcileLoop() {
  auto last_sweep = std::chrono::steady_clock::now();
  while (true) {
    std::set<std::string> work;
    {
      std::unique_lock<std::mutex> lock(dirty_mu_);
      dirty_cv_.wait_for(lock, kTick, [&] { return shutdown_ || !dirty_.empty(); });
      if (shutdown_) return;
      work.swap(dirty_);
    }
    std::lock_guard<std::mutex> lock(mu_);
    // A periodic sweep starts trials that were waiting for GPUs.
    if (std::chrono::steady_clock::now() - last_sweep >= kTick) {
      work.insert(active_.begin(), active_.end());
      last_sweep = std::chrono::steady_clock::now();
    }
    for (const auto& name : work) ReconcileLocked(name);
  }
}

void Controller::ReconcileLocked(const std::string& name) {
  auto exp = store_->GetExperiment(name);
  if (!exp.ok() || exp->phase != ExperimentPhase::kRunning || !exp->spec.trial_template) {
    active_.erase(name);
    return;
  }
  auto trials = store_->ListTrials(name);
  if (!trials.ok()) return;
  if (FinishIfDoneLocked(*exp, *trials)) return;

  api::TrialCounts counts = api::CountTrials(*trials);
  for (const Trial& t : *trials) {
    if (t.phase == TrialPhase::kPending && !StartTrialLocked(*exp, t)) return;
  }
  int room = exp->spec.parallel_trial_count - counts.active();
  int budget = exp->spec.max_trial_count - counts.total;
  int count = std::min(room, budget);
  if (count > 0 && !exhausted_.count(name)) {
    auto created = CreateTrialsLocked(*exp, *trials, count, TrialPhase::kPending);
    if (!created.ok()) {
      FinishLocked(*exp, *trials, ExperimentPhase::kFailed, "AlgorithmFailed",
                   created.status().message());
      return;
    }
    for (const Trial& t : *created) {
      if (!StartTrialLocked(*exp, t)) break;
    }
    if (created->empty()) {
      auto refreshed = store_->ListTrials(name);
      if (refreshed.ok()) FinishIfDoneLocked(*exp, *refreshed);
    }
  }
}

bool Controller::StartTrialLocked(const Experiment& exp, const Trial& trial) {
  const api::TrialTemplate& tmpl = *exp.spec.trial_template;
  std::vector<int> gpus;
  if (tmpl.gpu > 0) {
    auto acquired = gpu_pool_.Acquire(tmpl.gpu);
    if (!acquired) return false;  // waits Pending; the sweep retries
    gpus = *acquired;
  }
  runner::LaunchSpec launch;
  launch.experiment = exp.spec.name;
  launch.trial = trial.name;
  launch.working_dir = tmpl.working_dir;
  launch.log_path = LogPath(exp.spec.name, trial.name);
  launch.max_log_bytes = options_.max_log_bytes;
  launch.timeout_seconds = tmpl.timeout_seconds;
  launch.collector = exp.spec.metrics_collector;
  launch.metric_names.push_back(exp.spec.objective.metric_name);
  for (const auto& m : exp.spec.objective.additional_metric_names) {
    launch.metric_names.push_back(m);
  }
  Status status;
  for (const auto& arg : tmpl.command) {
    auto s = api::Substitute(arg, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else launch.argv.push_back(*s);
  }
  for (const auto& [key, value] : tmpl.env) {
    auto s = api::Substitute(value, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else launch.env[key] = *s;
  }
  launch.env["HPT_URL"] = options_.server_url;
  launch.env["HPT_EXPERIMENT"] = exp.spec.name;
  launch.env["HPT_TRIAL"] = trial.name;
  // A credential for this trial alone: the admin token never leaves the server.
  if (!options_.token.empty()) {
    launch.env["HPT_TOKEN"] = TrialToken(options_.token, exp.spec.name, trial.name);
  }
  launch.env["CUDA_VISIBLE_DEVICES"] = JoinCsv(gpus);

  StatusOr<runner::JobHandle> job =
      status.ok() ? executor_->Start(launch) : StatusOr<runner::JobHandle>(status);
  storage::TrialUpdate update;
  update.start_time_ms = api::NowMillis();
  if (job.ok()) {
    update.phase = TrialPhase::kRunning;
    update.pid = job->pid;
    update.job_id = job->id;
    if (!gpus.empty()) trial_gpus_[Key(exp.spec.name, trial.name)] = gpus;
  } else {
    gpu_pool_.Release(gpus);
    update.phase = TrialPhase::kFailed;
    update.reason = "StartFailed";
    update.message = job.status().message();
    update.completion_time_ms = update.start_time_ms;
    MarkDirty(exp.spec.name);
  }
  Status s = store_->UpdateTrial(exp.spec.name, trial.name, update);
  (void)s;
  return true;
}

void Controller::OnObservation(const std::string& experiment, const std::string& trial,
                               const api::Observation& observation) {
  Status s = store_->AddObservations(experiment, trial, {observation});
  if (s.ok()) StopIfHopeless(experiment, trial);  // else: deleted meanwhile
}

void Controller::OnExit(const std::string& experiment, const std::string& trial,
                        const runner::ExitInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto gpus = trial_gpus_.find(Key(experiment, trial));
  if (gpus != trial_gpus_.end()) {
    gpu_pool_.Release(gpus->second);
    trial_gpus_.erase(gpus);
  }
  auto exp = store_->GetExperiment(experiment);
  auto t = store_->GetTrial(experiment, trial);
  if (!exp.ok() || !t.ok()) return;
  MarkDirty(experiment);
  if (api::IsFinished(t->phase)) return;  // already Killed or EarlyStopped

  storage::TrialUpdate update;
  update.completion_time_ms = api::NowMillis();
  update.exit_code = info.exit_code;
  const std::string tail = info.log_tail.empty() ? "" : "; log tail:\n" + info.log_tail;
  switch (info.kind) {
    case runner::ExitKind::kExited:
      if (info.exit_code == 0) {
        bool has_objective = api::ObjectiveValue(*t, exp->spec.objective).has_value();
        update.phase = has_objective ? TrialPhase::kSucceeded
                                     : TrialPhase::kMetricsUnavailable;
        update.reason = has_objective ? "Completed" : "MetricsUnavailable";
        if (!has_objective) {
          update.message = "exited 0 without reporting '" +
                           exp->spec.objective.metric_name + "'" + tail;
        }
      } else {
        update.phase = TrialPhase::kFailed;
        update.reason = "ExitCode";
        update.message = "exited with code " + std::to_string(info.exit_code) + tail;
      }
      break;
    case runner::ExitKind::kSignaled:
      update.phase = TrialPhase::kFailed;
      update.reason = "Signal";
      update.message = "killed by signal " + std::to_string(info.signal) + tail;
      break;
    case runner::ExitKind::kTimedOut:
      update.phase = TrialPhase::kFailed;
      update.reason = "Timeout";
      update.message = "ran past timeoutSeconds " +
                       std::to_string(exp->spec.trial_template
                                          ? exp->spec.trial_template->timeout_seconds
                                          : 0) + tail;
      break;
    case runner::ExitKind::kKilled:
      update.phase = TrialPhase::kKilled;
      update.reason = "Killed";
      break;
    case runner::ExitKind::kStartFailed:
      update.phase = TrialPhase::kFailed;
      update.reason = "StartFailed";
      update.message = info.log_tail;
      break;
  }
  Status s = store_->UpdateTrial(experiment, trial, update);
  (void)s;
}

}  // namespace hpt::server
