// ExperimentRunner's resume: raising (or lowering) maxTrialCount,
// parallelTrialCount and maxFailedTrialCount of a running or finished
// experiment, as Katib users do by editing the experiment. A finished one
// whose new limits leave room runs again. Its user attributes change in the
// same write.
#include "api/experiment_status.h"
#include "controller/builtins.h"
#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::ExperimentPhase;

StatusOr<api::Experiment> ExperimentRunner::UpdateLimits(const Limits& limits) {
  Locked lock(this);
  api::ExperimentSpec spec = exp_.spec;
  if (limits.max_trial_count) spec.max_trial_count = *limits.max_trial_count;
  if (limits.parallel_trial_count) spec.parallel_trial_count = *limits.parallel_trial_count;
  if (limits.max_failed_trial_count) spec.max_failed_trial_count = *limits.max_failed_trial_count;
  if (limits.trial_lease_seconds) spec.trial_lease_seconds = *limits.trial_lease_seconds;
  // A failure budget above the trial budget is that budget (as a spec's).
  if (spec.max_trial_count > 0) {
    spec.max_failed_trial_count = std::min(spec.max_failed_trial_count, spec.max_trial_count);
  }
  HPT_RETURN_IF_ERROR(ValidateWithAlgorithms(spec, *deps_.algorithms, *deps_.policies));
  const api::TrialCounts counts = tally_.Counts(trials_);
  if (spec.max_trial_count < counts.run()) {
    return InvalidArgument("maxTrialCount: " + std::to_string(spec.max_trial_count) +
                           " is below the " + std::to_string(counts.run()) +
                           " trials the experiment has run");
  }
  storage::ExperimentUpdate update;
  update.spec = spec;
  if (limits.user_attrs) {
    HPT_ASSIGN_OR_RETURN(update.user_attrs,
                         api::MergeUserAttrs(exp_.user_attrs, *limits.user_attrs, "userAttrs"));
  }
  // A finished experiment runs again when the new limits leave it room
  // (not one that reached its goal: that one is done), and only when the
  // PATCH asks for it: a maxTrialCount (what `hpt resume` sends), or a
  // failure budget raised above the failures that ended it. A user's stop
  // is not undone by a new lease length.
  const bool asked = limits.max_trial_count.has_value() ||
                     (exp_.reason == "MaxFailedTrialsReached" &&
                      limits.max_failed_trial_count.has_value());
  const bool reopen = asked && api::IsFinished(exp_.phase) && exp_.reason != "GoalReached" &&
                      counts.run() < spec.max_trial_count && !exhausted_ &&
                      counts.failures() <= spec.max_failed_trial_count;
  if (reopen) {
    update.phase = ExperimentPhase::kRunning;
    update.reason = "Resumed";
    update.message = "resumed with maxTrialCount " + std::to_string(spec.max_trial_count);
    update.completion_time_ms = 0;
  }
  HPT_RETURN_IF_ERROR(deps_.store->UpdateExperiment(name_, update));
  exp_.spec = spec;
  if (update.user_attrs) exp_.user_attrs = *update.user_attrs;
  // Leases are measured against the new length at once (the ledger reads
  // the spec at each event; PublishLocked tells the sweep).
  if (reopen) {
    exp_.phase = *update.phase;
    exp_.reason = *update.reason;
    exp_.message = *update.message;
    exp_.completion_time_ms = 0;
  }
  return exp_;
}

}  // namespace hpt::controller
