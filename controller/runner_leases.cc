// ExperimentRunner's leases on client-run trials. A client that asked for a
// trial and went away (a closed notebook, a killed worker) would otherwise
// hold its parallelTrialCount slot forever: each Running trial has a lease
// of trialLeaseSeconds, renewed by every report (an observation,
// :shouldStop, :heartbeat); when it runs out the trial ends Failed, reason
// Abandoned, and its slot is free (the ledger's event::LeaseTick). The
// leases live in memory: after a restart every Running trial gets a full
// lease again.
#include "api/experiment_status.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

// A client-run trial's sign of life (observations and :shouldStop renew it
// too). The lease's length in seconds (0: none).
StatusOr<int> ExperimentRunner::Heartbeat(const std::string& trial) {
  Locked lock(this);
  if (runner_run_) {
    return FailedPrecondition("trial '" + trial +
                              "' is run by the server, which watches its process; "
                              ":heartbeat is for client-run trials");
  }
  ExpireLeasesLocked();  // a heartbeat after the lease ran out is too late
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (api::IsFinished(t->phase)) {
    return FailedPrecondition("trial '" + trial + "' is already " + api::ToString(t->phase) +
                              (t->reason.empty() ? "" : " (" + t->reason + ")"));
  }
  ApplyLocked(*t, event::Renewed{});
  return exp_.spec.trial_lease_seconds;
}

// Fails the trials whose lease ran out (Abandoned); true when there were.
bool ExperimentRunner::ExpireLeasesLocked() {
  if (runner_run_ || api::IsFinished(exp_.phase)) return false;
  const int64_t due = ledger_.NextLeaseExpiry();
  if (due == 0 || Now() < due) return false;
  bool expired = false;
  for (Trial& t : trials_) {
    if (t.phase != TrialPhase::kRunning) continue;
    ApplyLocked(t, event::LeaseTick{});
    expired = expired || t.phase != TrialPhase::kRunning;
  }
  return expired;
}

}  // namespace hpt::controller
