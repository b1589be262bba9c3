// TrialLedger's rows for trials that cannot run now (controller/
// trial_ledger.h): Waiting (no room, a quota) and Preempt. The exit of a
// preempted trial is OnExited's.
#include "api/experiment_status.h"
#include "controller/trial_ledger.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

Effects TrialLedger::OnWaiting(const Trial& t, const event::Waiting& e) {
  Effects out;
  if (t.phase != TrialPhase::kPending) return out;
  std::string reason = e.reason;
  std::string message = e.message;
  if (t.reason == kPreemptedReason && reason == kWaitingReason) {
    // Says it was preempted until it runs again (its quota aside).
    reason = kPreemptedReason;
    message = "preempted; " + message;
  }
  if (t.reason == reason && t.message == message) return out;
  out.update.emplace();
  out.update->reason = reason;
  out.update->message = message;
  return out;
}

Effects TrialLedger::OnPreempt(const Trial& t, const event::Preempt& e) {
  Effects out;
  if (!runner_run_ || api::IsFinished(t.phase) ||
      (t.phase != TrialPhase::kRunning && t.job_id.empty()) || preempted_.count(t.name)) return out;
  preempted_[t.name] = e.why;
  out.update.emplace();
  out.update->reason = kPreemptingReason;
  out.update->message = e.why;
  out.kill = true;  // SIGTERM, then SIGKILL after the executor's grace period
  out.note = e.why;
  return out;
}

}  // namespace hpt::controller
