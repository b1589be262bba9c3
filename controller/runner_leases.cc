// ExperimentRunner's leases on client-run trials. A client that asked for a
// trial and went away (a closed notebook, a killed worker) would otherwise
// hold its parallelTrialCount slot forever: each Running trial has a lease
// of trialLeaseSeconds, renewed by every report (an observation,
// :shouldStop, :heartbeat); when it runs out the trial ends Failed, reason
// Abandoned, and its slot is free. The leases live in memory: after a
// restart every Running trial gets a full lease again.
#include <spdlog/spdlog.h>

#include "api/experiment_status.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

void ExperimentRunner::RenewLeaseLocked(const std::string& trial) {
  const int64_t now = api::NowMillis();
  lease_renewed_ms_[trial] = now;
  if (exp_.spec.trial_lease_seconds <= 0) return;
  // Renewals only move expiries later, so the earliest one is still a
  // bound; a new trial may be the earliest.
  const int64_t expiry = now + int64_t{exp_.spec.trial_lease_seconds} * 1000;
  const int64_t next = next_lease_expiry_ms_.load();
  if (next == 0 || expiry < next) next_lease_expiry_ms_ = expiry;
}

StatusOr<int> ExperimentRunner::Heartbeat(const std::string& trial) {
  std::lock_guard<std::mutex> lock(mu_);
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
  RenewLeaseLocked(trial);
  return exp_.spec.trial_lease_seconds;
}

bool ExperimentRunner::ExpireLeasesLocked() {
  next_lease_expiry_ms_ = 0;
  const int64_t lease_ms = int64_t{exp_.spec.trial_lease_seconds} * 1000;
  if (runner_run_ || lease_ms <= 0 || api::IsFinished(exp_.phase)) return false;
  const int64_t now = api::NowMillis();
  int64_t next = 0;
  auto later = [&next](int64_t at) { next = next == 0 ? at : std::min(next, at); };
  bool expired = false;
  for (Trial& t : trials_) {
    if (t.phase != TrialPhase::kRunning) continue;
    // Running with no lease: loaded at start-up, so the lease starts now.
    auto [it, fresh] = lease_renewed_ms_.try_emplace(t.name, now);
    const int64_t expiry = it->second + lease_ms;
    if (expiry > now) {
      later(expiry);
      continue;
    }
    storage::TrialUpdate update;
    update.phase = TrialPhase::kFailed;
    update.reason = "Abandoned";
    update.message = "no report for " + std::to_string((now - it->second) / 1000) +
                     " s (trialLeaseSeconds " + std::to_string(exp_.spec.trial_lease_seconds) +
                     "): the client that asked for it stopped reporting; its slot is free";
    update.completion_time_ms = now;
    if (!UpdateTrialLocked(t, update).ok()) {  // logged; tried again soon
      later(now + 1000);
      continue;
    }
    spdlog::info("experiment {}: trial {} abandoned ({})", name_, t.name, *update.message);
    lease_renewed_ms_.erase(it);
    last_step_.erase(t.name);
    expired = true;
  }
  next_lease_expiry_ms_ = next;
  return expired;
}

}  // namespace hpt::controller
