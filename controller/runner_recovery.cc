// ExperimentRunner's recovery after a restart: trials a previous server
// left running are re-attached or ended, and trials it had ended but not
// yet signalled (it died in between) are stopped. Those the executor
// cannot tell about yet (its cluster does not answer) are left as they
// are and asked about again from Reconcile(). What each answer means for
// the trial is the ledger's (event::Recovered).
#include <spdlog/spdlog.h>

#include "controller/experiment_runner.h"
#include "controller/trial_launch.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

namespace {

// Ended by this server's decision, stored before the signal was sent.
bool EndedBySignal(const Trial& t) {
  return (t.phase == TrialPhase::kKilled || t.phase == TrialPhase::kEarlyStopped) &&
         !t.job_id.empty();
}

bool Unfinished(const Trial& t) {
  return t.phase == TrialPhase::kRunning || t.phase == TrialPhase::kPending;
}

}  // namespace

// After a restart: trials stored as Running with a trialTemplate are handed
// to the executor to re-attach (their output since, and their end, are then
// delivered as if this server had started them); those it cannot (gone, or
// an executor that cannot re-attach) become Failed (ServerRestarted), what
// is left of them killed (identity checked). Trials stored as Killed or
// EarlyStopped whose job still runs (the previous server died before
// signalling them) are stopped, as are the unfinished trials of an
// experiment stored as ended. Trials the executor cannot tell about (its
// cluster does not answer) keep their phase, are not started again, and are
// asked about again by Reconcile() every few seconds until it can.
void ExperimentRunner::Recover() {
  Locked lock(this);
  if (!runner_run_) return;
  if (api::IsFinished(exp_.phase)) {
    // Its end was stored and some trial's was not (a refused write): they
    // end as its other trials did, and are stopped below.
    for (Trial& t : trials_) {
      if (!api::IsFinished(t.phase)) KillTrialLocked(t, EndReason(exp_.phase));
    }
  }
  const bool running = exp_.phase == ExperimentPhase::kRunning;
  std::vector<std::string> names;
  std::vector<bool> ended;  // stored as ended, its signal maybe never sent
  std::vector<runner::RunningJob> signalled;
  std::vector<std::string> signalled_names;
  for (const Trial& t : trials_) {
    if (EndedBySignal(t)) {
      signalled.push_back({BaseLaunch(exp_.spec, t, LaunchContextFor(t)), t.job_id});
      signalled_names.push_back(t.name);
      continue;
    }
    // Running, queued in a cluster (Pending with a job), or Pending with
    // none: the server may have died between starting it and storing its
    // job, and its supervisor's record finds it (not a second start).
    if (running && Unfinished(t)) {
      names.push_back(t.name);
      ended.push_back(false);
    }
  }
  runner::Executor* const runner = executor();
  if (!signalled.empty() && runner) {
    // Only the live ones: re-reading every ended trial's log would cost
    // each restart more as the experiment grows.
    std::vector<bool> live = runner->StillRunning(signalled);
    for (size_t i = 0; i < signalled.size() && i < live.size(); ++i) {
      if (!live[i]) continue;
      names.push_back(signalled_names[i]);
      ended.push_back(true);
    }
  }
  const std::string why = RecoverJobsLocked(names, ended);
  if (ledger_.RecoveryPendingCount() > 0) {
    spdlog::warn("experiment {}: cannot tell whether the jobs of {} trial(s) still run ({}): "
                 "they keep their phase and are asked about again every {} s",
                 name_, ledger_.RecoveryPendingCount(), why, kRecoveryRetryMs / 1000);
  }
}

// Asks again about the trials the ledger says are due.
void ExperimentRunner::RetryRecoveryLocked() {
  runner::Executor* const runner = executor();
  if (!runner) return;  // shutting down: the next server asks
  std::vector<std::string> names;
  std::vector<bool> ended;
  for (const std::string& name : ledger_.RecoveryDue(Now())) {
    const Trial* t = FindLocked(name);
    if (!t) continue;
    // Stopped meanwhile (the trial or its experiment), which could not
    // reach a job the executor did not follow: stopped once found.
    const bool stopped = api::IsFinished(t->phase);
    if (!stopped && !Unfinished(*t)) continue;
    names.push_back(name);
    ended.push_back(stopped);
  }
  if (names.empty()) return;
  RecoverJobsLocked(names, ended);
  if (ledger_.RecoveryPendingCount() == 0) {
    spdlog::info("experiment {}: the executor answers again about its trials' jobs", name_);
  }
}

// Asks the executor about `names`' jobs (`ended`: stored as ended, their
// jobs to be stopped) and applies its answers. What it said it could not
// tell ("" : nothing).
std::string ExperimentRunner::RecoverJobsLocked(const std::vector<std::string>& names,
                                               const std::vector<bool>& ended) {
  std::string why;
  if (names.empty()) return why;
  std::vector<runner::RunningJob> jobs;
  for (const std::string& name : names) {
    const Trial& t = *FindLocked(name);
    jobs.push_back({BaseLaunch(exp_.spec, t, LaunchContextFor(t)), t.job_id});
  }
  runner::Executor* const runner = executor();
  std::vector<runner::RecoveredJob> recovered =
      runner ? runner->Recover(jobs) : std::vector<runner::RecoveredJob>(jobs.size());
  recovered.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    Trial& t = *FindLocked(names[i]);
    event::Recovered answer{recovered[i], ended[i], {}};
    if (answer.job.attached && !answer.ended) {
      // Its output is read again from the start: the ledger drops what the
      // store holds already.
      auto stored = deps_.store->ListObservations(name_, t.name);
      if (stored.ok()) answer.stored = std::move(*stored);
    }
    if (answer.job.unknown) why = answer.job.why;
    ApplyLocked(t, answer);
    // It runs on, holding what it asked for: counted against its
    // namespace's quota and share as if admitted now.
    if (answer.job.attached && deps_.admission) {
      deps_.admission->Claim(AdmissionRequestFor(t), t.start_time_ms > 0 ? t.start_time_ms : Now());
    }
  }
  return why;
}

}  // namespace hpt::controller
