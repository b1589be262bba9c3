// ExperimentRunner's runner-run trials: starting trials up to
// parallelTrialCount (their launch is trial_launch.h's), and what the
// executor reports.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/container.h"
#include "api/experiment_status.h"
#include "controller/checkpoints.h"
#include "controller/event_folders.h"
#include "controller/experiment_runner.h"
#include "controller/run_as_folders.h"
#include "controller/trial_launch.h"
#include "controller/trial_token.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

// Writes what the store refused before, asks the executor again about
// trials Recover() could not tell about, then starts Pending trials and
// asks for new ones up to parallelTrialCount, or ends the experiment. A
// no-op for a finished one; for a client-run one, the writes, its expired
// leases and its end.
void ExperimentRunner::Reconcile() {
  Locked lock(this);
  admission_wait_ = false;
  ReconcileLocked();
  // The broker keeps a waiter for it only while one of its trials waits.
  if (!admission_wait_ && deps_.admission) deps_.admission->Withdraw(name_);
}

void ExperimentRunner::ReconcileLocked() {
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

// What the server adds to a launch of `trial` (all but its checkpoint
// folder, which StartTrialLocked() looks up). Takes no lock of its own; the
// spec (its collector, for the events folder) is read under the runner's.
LaunchContext ExperimentRunner::LaunchContextFor(const Trial& trial) const {
  LaunchContext context;
  context.log_path = LogPath(trial.name);
  context.max_log_bytes = deps_.max_log_bytes;
  context.server_url = deps_.server_url;
  context.hpt_binary = deps_.hpt_binary;
  context.trial_token = TrialTokenFor(trial.name);
  context.run_as_user = deps_.RunAsUserOf(ref_.namespace_name);
  context.slurm_account = deps_.SlurmAccountOf(ref_.namespace_name);
  context.in_container = api::RunsInContainer(*exp_.spec.trial_template, deps_.containers,
                                              deps_.default_executor);
  context.events_folder = EventsFolder(exp_.spec, deps_.log_dir, trial.name);
  return context;
}

std::string ExperimentRunner::TrialTokenFor(const std::string& trial) const {
  if (!runner_run_ || deps_.token.empty()) return "";
  return TrialToken(deps_.token, name_, trial_token_salt_, trial);
}

// Launches a Pending trial once the admission broker lets it start. False
// when it may not yet (its fair share, its quota) or the executor has no
// room for it yet (GPUs): every Pending trial then says what it waits for,
// and the broker's call or the sweep retries. False too, and nothing
// done, once the server is shutting down.
bool ExperimentRunner::StartTrialLocked(Trial& trial) {
  // Read once: executor() turns null as Shutdown() begins, which may be
  // now; the executor itself outlives this call (Shutdown() waits for the
  // work in flight).
  runner::Executor* const executor = this->executor();
  if (!executor) return false;  // shutting down: the next server starts it
  AdmissionBroker* const broker = deps_.admission;
  if (broker) {
    const Decision decision = broker->TryAdmit(AdmissionRequestFor(trial));
    switch (decision.verdict) {
      case Verdict::kAdmitted:
        break;
      case Verdict::kNeverFits:
        ApplyLocked(trial, event::Started{FailedPrecondition(decision.message)});
        return true;  // ended: StartFailed
      case Verdict::kQuotaExceeded:
        WaitLocked(kQuotaExceededReason, decision.message);
        return false;
      case Verdict::kWaiting:
        WaitLocked(kWaitingReason, decision.message);
        return false;
    }
  }
  LaunchContext context = LaunchContextFor(trial);
  context.checkpoint_dir = CheckpointDirLocked(trial);
  StatusOr<runner::LaunchSpec> launch = BuildLaunch(exp_.spec, trial, context);
  if (launch.ok() && !launch->run_as_user.empty()) {
    // Its way to its checkpoint folder (and, under Slurm, to its log).
    if (Status opened = OpenExperimentFolders(deps_.log_dir, name_); !opened.ok()) {
      launch = opened;
    }
  }
  if (launch.ok() && !context.events_folder.empty()) {
    // Its own folder for its event files (event_folders.h), before it runs.
    StatusOr<runner::RunAs> owner = runner::RunAs{};
    if (!launch->run_as_user.empty()) owner = runner::ResolveRunAs(launch->run_as_user);
    Status made = owner.status();
    if (made.ok()) {
      made = PrepareEventsFolder(context.events_folder,
                                 launch->run_as_user.empty() ? nullptr : &*owner);
    }
    if (!made.ok()) {
      spdlog::warn("experiment {}: trial {} starts without its events folder: {}", name_,
                   trial.name, made.message());
    }
  }
  StatusOr<runner::JobHandle> job = launch.ok() ? executor->Start(*launch)
                                                : StatusOr<runner::JobHandle>(launch.status());
  if (job.status().code() == StatusCode::kUnavailable) {
    // Admitted, but the executor has no card for it (they are still held,
    // or fragmented): it waits again ("waiting for 1 GPU (0 of 2 free)").
    if (broker) broker->Refused(name_, trial.name, job.status().message());
    WaitLocked(kWaitingReason, job.status().message());
    return false;
  }
  if (!job.ok() && broker) broker->Release(name_, trial.name);  // it never ran
  event::Started started{std::move(job)};
  if (started.job.ok()) started.stored = StoredBeforeLocked(trial);
  ApplyLocked(trial, started);  // the job runs, stored or not
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

void ExperimentRunner::OnRequeued(const std::string& trial, const std::string& why) {
  Locked lock(this);
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Requeued{why, StoredBeforeLocked(*t)});
}

void ExperimentRunner::OnExit(const std::string& trial, const runner::ExitInfo& info) {
  Locked lock(this);
  {
    MutexLock exits(&delivered_mu_);
    delivered_exits_.erase(trial);
  }
  // Its resources are free (its processes are gone): the next waiter's.
  if (deps_.admission) deps_.admission->Release(name_, trial);
  // Its end is judged on everything it reported, held observations too; the
  // experiment ends only once they are stored (FlushHeldLocked).
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Exited{info});
}

}  // namespace hpt::controller
