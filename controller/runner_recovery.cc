// ExperimentRunner's recovery after a restart: trials a previous server
// left running are re-attached or ended, and trials it had ended but not
// yet signalled (it died in between) are stopped. Those the executor
// cannot tell about yet (its cluster does not answer) are left as they
// are and asked about again from Reconcile().
#include <spdlog/spdlog.h>

#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::ExperimentPhase;
using api::Trial;
using api::TrialPhase;

namespace {

// How often trials whose jobs the executor could not see are asked about
// again: a cluster controller's restart or a busy spell takes seconds.
constexpr int64_t kRecoveryRetryMs = 2000;

// Ended by this server's decision, stored before the signal was sent.
bool EndedBySignal(const Trial& t) {
  return (t.phase == TrialPhase::kKilled || t.phase == TrialPhase::kEarlyStopped) &&
         !t.job_id.empty();
}

}  // namespace

void ExperimentRunner::Recover() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!runner_run_) return;
  if (api::IsFinished(exp_.phase)) {
    // Its end was stored and some trial's was not (a refused write): they
    // end as its other trials did, and are stopped below.
    for (Trial& t : trials_) {
      if (!api::IsFinished(t.phase)) KillTrialLocked(t, "ExperimentFinished");
    }
  }
  const bool running = exp_.phase == ExperimentPhase::kRunning;
  std::vector<runner::RunningJob> jobs;
  std::vector<std::string> names;
  std::vector<bool> ended;  // stored as ended, its signal maybe never sent
  std::vector<runner::RunningJob> signalled;
  std::vector<std::string> signalled_names;
  for (const Trial& t : trials_) {
    if (EndedBySignal(t)) {
      signalled.push_back({BaseLaunchSpecLocked(t), t.job_id});
      signalled_names.push_back(t.name);
      continue;
    }
    // Running, queued in a cluster (Pending with a job), or Pending with
    // none: the server may have died between starting it and storing its
    // job, and its supervisor's record finds it (not a second start).
    if (!running || (t.phase != TrialPhase::kRunning && t.phase != TrialPhase::kPending)) {
      continue;
    }
    jobs.push_back({BaseLaunchSpecLocked(t), t.job_id});
    names.push_back(t.name);
    ended.push_back(false);
  }
  runner::Executor* const runner = executor();
  if (!signalled.empty() && runner) {
    // Only the live ones: re-reading every ended trial's log would cost
    // each restart more as the experiment grows.
    std::vector<bool> live = runner->StillRunning(signalled);
    for (size_t i = 0; i < signalled.size() && i < live.size(); ++i) {
      if (!live[i]) continue;
      jobs.push_back(std::move(signalled[i]));
      names.push_back(signalled_names[i]);
      ended.push_back(true);
    }
  }
  const std::string why = RecoverJobsLocked(std::move(jobs), names, ended);
  if (!recovery_pending_.empty()) {
    spdlog::warn("experiment {}: cannot tell whether the jobs of {} trial(s) still run ({}): "
                 "they keep their phase and are asked about again every {} s",
                 name_, recovery_pending_.size(), why, kRecoveryRetryMs / 1000);
  }
}

void ExperimentRunner::RetryRecoveryLocked() {
  const int64_t due = next_recovery_ms_.load();
  if (due == 0 || api::NowMillis() < due) return;
  runner::Executor* const runner = executor();
  if (!runner) return;  // shutting down: the next server asks
  std::vector<runner::RunningJob> jobs;
  std::vector<std::string> names;
  std::vector<bool> ended;
  for (const std::string& name : recovery_pending_) {
    Trial* t = FindLocked(name);
    if (!t) continue;
    // Stopped meanwhile (the trial or its experiment), which could not
    // reach a job the executor did not follow: stopped once found.
    const bool stopped = api::IsFinished(t->phase);
    if (!stopped && t->phase != TrialPhase::kRunning && t->phase != TrialPhase::kPending) {
      continue;
    }
    jobs.push_back({BaseLaunchSpecLocked(*t), t->job_id});
    names.push_back(name);
    ended.push_back(stopped);
  }
  recovery_pending_.clear();
  next_recovery_ms_ = 0;
  RecoverJobsLocked(std::move(jobs), names, ended);
  if (recovery_pending_.empty()) {
    spdlog::info("experiment {}: the executor answers again about its trials' jobs", name_);
  }
}

std::string ExperimentRunner::RecoverJobsLocked(std::vector<runner::RunningJob> jobs,
                                               const std::vector<std::string>& names,
                                               const std::vector<bool>& ended) {
  for (const std::string& name : names) {
    // A re-attached trial's log is read again from its start: what the
    // store holds already is not added twice.
    auto stored = deps_.store->ListObservations(name_, name);
    if (stored.ok() && !stored->empty()) replay_pending_[name] = std::move(*stored);
  }
  std::string why;
  if (jobs.empty()) return why;
  runner::Executor* const runner = executor();
  std::vector<runner::RecoveredJob> recovered =
      runner ? runner->Recover(jobs) : std::vector<runner::RecoveredJob>(jobs.size());
  for (size_t i = 0; i < names.size(); ++i) {
    Trial& t = *FindLocked(names[i]);
    const bool attached = i < recovered.size() && recovered[i].attached;
    if (i < recovered.size() && recovered[i].unknown) {
      // Not gone, only unseen: failing it would start another trial in
      // its place while its job runs on. It keeps its phase (and its
      // slot) until the executor can tell.
      replay_pending_.erase(t.name);
      recovery_pending_.insert(t.name);
      why = recovered[i].why;
      continue;
    }
    if (ended[i]) {
      // Followed to its exit, which keeps the stored phase; a previous
      // server's own child was killed by Recover() already. What it printed
      // after its end was decided is not stored: an early-stopped trial
      // that ran on for hours unwatched must not turn into the best.
      if (attached) {
        spdlog::warn("experiment {}: trial {} is {} but was still running: stopping it", name_,
                     t.name, api::ToString(t.phase));
        ended_leftovers_.insert(t.name);
        runner->Kill(name_, t.name);
      } else {
        replay_pending_.erase(t.name);
      }
      continue;
    }
    const bool unstarted = t.phase == TrialPhase::kPending && t.job_id.empty();
    if (attached) {
      spdlog::info("experiment {}: re-attached to running trial {}", name_, t.name);
      if (unstarted) {
        storage::TrialUpdate found;
        found.job_id = recovered[i].job_id;
        if (recovered[i].running) {
          found.phase = TrialPhase::kRunning;
          found.start_time_ms = api::NowMillis();
          found.reason = "";
          found.message = "";
        }
        RecordTrialLocked(t, found);
      }
      continue;
    }
    replay_pending_.erase(t.name);
    if (unstarted) continue;  // never started: Reconcile starts it
    // Gone, and what was left of it (provably it) killed.
    storage::TrialUpdate update;
    update.phase = TrialPhase::kFailed;
    update.reason = "ServerRestarted";
    update.message = "the server restarted and the trial's process was gone";
    update.completion_time_ms = api::NowMillis();
    RecordTrialLocked(t, update);
  }
  if (!recovery_pending_.empty()) next_recovery_ms_ = api::NowMillis() + kRecoveryRetryMs;
  return why;
}

}  // namespace hpt::controller
