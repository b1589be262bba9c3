// TrialLedger's rows for trials that cannot run now (controller/
// trial_ledger.h): Waiting (no room, a quota), Preempt, and Requeued (its
// cluster's preemption). The exit of a preempted trial is OnExited's.
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

Effects TrialLedger::OnRequeued(const Trial& t, const event::Requeued& e) {
  Effects out;
  // Being preempted by hpt, its job cancelled: that exit decides.
  if (!runner_run_ || api::IsFinished(t.phase) || t.job_id.empty() || preempted_.count(t.name)) {
    return out;
  }
  // Its job, its grant (admission.h) and its place among the active trials
  // stay: Slurm runs the job again without asking anyone here.
  storage::TrialUpdate& update = out.update.emplace();
  update.phase = TrialPhase::kPending;
  update.reason = kPreemptedReason;
  update.message = RequeuedMessage(e.why);
  update.preemptions = t.preemptions + 1;  // counted apart from failures
  Resume(t.name, e.stored);
  out.note = e.why;
  return out;
}

std::string TrialLedger::RequeuedMessage(const std::string& why) {
  return why + "; it runs again as the same job, under its name, with its checkpoint folder";
}

void TrialLedger::Resume(const std::string& trial, const std::vector<api::Observation>& stored) {
  if (stored.empty()) return;
  auto& steps = resumed_[trial];
  for (const api::Observation& o : stored) {
    for (const auto& [metric, value] : o.metrics) steps.emplace(o.step, metric);
  }
}

}  // namespace hpt::controller
