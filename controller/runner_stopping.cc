// ExperimentRunner's early stopping: the policy judges a runner-run trial
// as it reports, and advises a client-run one that asks (:shouldStop). The
// curves it reads are the CurveBook's (curve_book.h).
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

void ExperimentRunner::StopIfHopelessLocked(Trial& t) {
  if (!curves_.enabled() || t.phase != TrialPhase::kRunning) return;
  auto decision = curves_.Evaluate(exp_.spec, trials_, t.name, *deps_.store);
  if (!decision.ok() || !decision->stop) return;
  ApplyLocked(t, event::EarlyStop{decision->reason});
}

StatusOr<earlystop::StopDecision> ExperimentRunner::ShouldStop(const std::string& trial) {
  Locked lock(this);
  Trial* t = FindLocked(trial);
  if (!t) return NotFound("trial '" + trial + "' not found in experiment '" + name_ + "'");
  if (t->phase == TrialPhase::kEarlyStopped) return earlystop::StopDecision{true, t->message};
  if (api::IsFinished(t->phase)) return earlystop::StopDecision{};
  if (!runner_run_) ApplyLocked(*t, event::Renewed{});  // asking is a sign of life
  HPT_ASSIGN_OR_RETURN(earlystop::StopDecision decision,
                       curves_.Evaluate(exp_.spec, trials_, trial, *deps_.store));
  if (decision.stop && t->reason != "EarlyStopAdvised") {
    // Stored, so that the advice outlives a restart: the trial completes as
    // EarlyStopped.
    storage::TrialUpdate update;
    update.reason = "EarlyStopAdvised";
    update.message = decision.reason;
    HPT_RETURN_IF_ERROR(WriteNowLocked(*t, update));
  }
  return decision;
}

}  // namespace hpt::controller
