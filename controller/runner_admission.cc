// ExperimentRunner's side of admission (controller/admission.h): what it
// asks the broker for, what its waiting trials say, and preemption.
#include <spdlog/spdlog.h>

#include "controller/experiment_runner.h"

namespace hpt::controller {

using api::Trial;
using api::TrialPhase;

AdmissionRequest ExperimentRunner::AdmissionRequestFor(const Trial& trial) const {
  AdmissionRequest request;
  request.namespace_name = exp_.spec.namespace_name;
  request.experiment = name_;
  request.trial = trial.name;
  request.priority = exp_.spec.priority;
  if (exp_.spec.trial_template) {
    const api::Resources& r = exp_.spec.trial_template->resources;
    request.resources = {r.gpu, r.cpu, r.memory};
  }
  request.since_ms = trial.creation_time_ms;
  return request;
}

// Every Pending trial not started yet (they share the template, and wait
// behind the one asked about) says why; the sweep retries too, in case no
// call from the broker comes.
void ExperimentRunner::WaitLocked(const std::string& reason, const std::string& message) {
  waiting_for_resources_ = true;
  admission_wait_ = true;
  for (Trial& t : trials_) {
    if (t.phase == TrialPhase::kPending && t.job_id.empty()) {
      ApplyLocked(t, event::Waiting{message, reason});
    }
  }
}

// A trial that reported before ran already (preempted, or started anew
// after a restart): what it stored is not stored again.
std::vector<api::Observation> ExperimentRunner::StoredBeforeLocked(const Trial& trial) {
  if (trial.metrics.empty()) return {};
  auto stored = deps_.store->ListObservations(name_, trial.name);
  if (!stored.ok()) {
    spdlog::warn("experiment {}: trial {} starts again, and its stored steps cannot be read: {}",
                 name_, trial.name, stored.status().message());
    return {};
  }
  return std::move(*stored);
}

void ExperimentRunner::Preempt(const std::string& trial, const std::string& why) {
  Locked lock(this);
  if (Trial* t = FindLocked(trial)) ApplyLocked(*t, event::Preempt{why});
}

}  // namespace hpt::controller
