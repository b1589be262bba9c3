// ExperimentRunner's runner-run trials: starting trials up to
// parallelTrialCount, and what the executor reports.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/experiment_status.h"
#include "api/quantity.h"
#include "api/trial_template.h"
#include "controller/experiment_runner.h"
#include "controller/trial_token.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

void ExperimentRunner::Reconcile() {
  Locked lock(this);
  waiting_for_resources_ = false;
  dirty_ = false;
  // Nothing new starts, and the experiment does not end, before the store
  // holds what already happened.
  if (!FlushHeldLocked()) return;
  RetryRecoveryLocked();  // whatever the phase: a stopped trial's job may run
  if (exp_.phase != ExperimentPhase::kRunning || !executor()) return;
  // A client-run experiment is here when the sweep retries its end or a
  // lease runs out.
  if (!runner_run_) ExpireLeasesLocked();
  if (FinishIfDoneLocked() || !runner_run_) return;
  for (Trial& t : trials_) {
    // A Pending trial with a job waits in a cluster's queue: started
    // already. One whose recovery is pending may have a job unseen yet.
    if (t.phase == TrialPhase::kPending && t.job_id.empty() && !ledger_.RecoveryPending(t.name) &&
        !StartTrialLocked(t)) {
      return;
    }
  }
  // Trials that cannot start at all (StartFailed) end at once: no exit
  // will come to reconcile again, so their room is filled here, until the
  // budget, the failure limit or the room runs out.
  while (true) {
    const api::TrialCounts counts = tally_.Counts(trials_);
    int room = exp_.spec.parallel_trial_count - counts.active();
    int budget = exp_.spec.max_trial_count - counts.run();
    int count = std::min(room, budget);
    if (count <= 0 || exhausted_) break;
    bool store_failed = false;
    auto created = CreateTrialsLocked(count, TrialPhase::kPending, &store_failed);
    if (!created.ok()) {
      if (store_failed) return;  // logged; the sweep asks again
      FinishLocked(ExperimentPhase::kFailed, "AlgorithmFailed", created.status().message());
      return;
    }
    if (created->empty()) break;
    bool all_ended = true;
    for (const Trial& c : *created) {
      Trial& t = *FindLocked(c.name);
      if (!StartTrialLocked(t)) return;  // waits for resources
      all_ended = all_ended && api::IsFinished(t.phase);
    }
    if (!all_ended || FinishIfDoneLocked()) return;
  }
  FinishIfDoneLocked();
}

runner::LaunchSpec ExperimentRunner::BaseLaunchSpecLocked(const Trial& trial) const {
  const api::TrialTemplate& tmpl = *exp_.spec.trial_template;
  runner::LaunchSpec launch;
  launch.experiment = name_;
  launch.trial = trial.name;
  launch.working_dir = tmpl.working_dir;
  launch.log_path = LogPath(trial.name);
  launch.max_log_bytes = deps_.max_log_bytes;
  launch.timeout_seconds = tmpl.timeout_seconds;
  launch.collector = exp_.spec.metrics_collector;
  launch.resources = tmpl.resources;
  for (const api::ObjectiveMetric& m : api::Objectives(exp_.spec.objective)) {
    launch.metric_names.push_back(m.metric_name);
  }
  for (const auto& m : exp_.spec.objective.additional_metric_names) {
    launch.metric_names.push_back(m);
  }
  return launch;
}

std::string ExperimentRunner::TrialTokenFor(const std::string& trial) const {
  if (!runner_run_ || deps_.token.empty()) return "";
  return TrialToken(deps_.token, name_, trial_token_salt_, trial);
}

bool ExperimentRunner::StartTrialLocked(Trial& trial) {
  const api::TrialTemplate& tmpl = *exp_.spec.trial_template;
  runner::LaunchSpec launch = BaseLaunchSpecLocked(trial);
  Status status;
  // An argument or variable that references an inactive conditional
  // parameter is left out (api::SubstituteActive).
  const std::vector<api::ParameterSpec>& params = exp_.spec.parameters;
  for (const auto& arg : tmpl.command) {
    auto s = api::SubstituteActive(arg, params, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else if (*s) launch.argv.push_back(**s);
  }
  for (const auto& [key, value] : tmpl.env) {
    auto s = api::SubstituteActive(value, params, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else if (*s) launch.env[key] = **s;
  }
  AddCheckpointLocked(trial, launch);
  if (!launch.argv.empty() && launch.argv[0] == "hpt" && !deps_.hpt_binary.empty()) {
    launch.argv[0] = deps_.hpt_binary;
  }
  launch.env["HPT_URL"] = deps_.server_url;
  launch.env["HPT_EXPERIMENT"] = name_;
  launch.env["HPT_TRIAL"] = trial.name;
  // A credential for this trial alone: the admin token never leaves the
  // server. (A token the server itself was started with must not reach
  // the trial either, when there is no trial token to replace it.)
  launch.env["HPT_TOKEN"] = TrialTokenFor(trial.name);

  StatusOr<runner::JobHandle> job =
      status.ok() ? executor()->Start(launch) : StatusOr<runner::JobHandle>(status);
  if (job.status().code() == StatusCode::kUnavailable) {
    waiting_for_resources_ = true;  // stays Pending; the sweep retries
    // Every Pending trial of the experiment (they share the template) says
    // what it waits for ("waiting for 1 GPU (0 of 2 free)").
    for (Trial& t : trials_) ApplyLocked(t, event::Waiting{job.status().message()});
    return false;
  }
  ApplyLocked(trial, event::Started{std::move(job)});  // the job runs, stored or not
  return true;
}

void ExperimentRunner::OnObservation(const std::string& trial,
                                     const api::Observation& observation) {
  Locked lock(this);
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Observed{observation});
}

void ExperimentRunner::OnRunning(const std::string& trial) {
  Locked lock(this);
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Running{});
}

void ExperimentRunner::OnExit(const std::string& trial, const runner::ExitInfo& info) {
  Locked lock(this);
  {
    MutexLock exits(&delivered_mu_);
    delivered_exits_.erase(trial);
  }
  // Its end is judged on everything it reported, held observations too; the
  // experiment ends only once they are stored (FlushHeldLocked).
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Exited{info});
}

}  // namespace hpt::controller
