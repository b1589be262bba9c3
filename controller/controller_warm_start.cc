// Controller's warm start: trials:enqueue, trials:import and importing an
// earlier experiment's trials (runner_warm_start.cc does the work).
#include "api/assignment_check.h"
#include "controller/controller.h"

namespace hpt::controller {

StatusOr<EnqueueResult> Controller::Enqueue(const std::string& name,
                                            const std::vector<api::Assignment>& assignments,
                                            bool skip_if_exists) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(name));
  HPT_ASSIGN_OR_RETURN(EnqueueResult result, entry.runner->Enqueue(assignments, skip_if_exists));
  PostReconcile(entry);  // a free slot takes one now
  return result;
}

StatusOr<std::vector<api::Trial>> Controller::Import(const std::string& name,
                                                     const std::vector<ImportedTrial>& trials) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(name));
  return entry.runner->Import(trials);
}

StatusOr<std::vector<ImportedTrial>> Controller::TrialsOf(const std::string& source,
                                                          const api::ExperimentSpec& target,
                                                          std::vector<std::string>* skipped) {
  HPT_ASSIGN_OR_RETURN(api::Experiment from, store_->GetExperiment(source));
  HPT_ASSIGN_OR_RETURN(std::vector<api::Trial> trials, store_->ListTrials(source));
  std::vector<ImportedTrial> out;
  auto skip = [&](const api::Trial& t, const std::string& why) {
    if (skipped) skipped->push_back(t.name + ": " + why);
  };
  for (const api::Trial& t : trials) {
    if (t.phase != api::TrialPhase::kSucceeded && t.phase != api::TrialPhase::kEarlyStopped) {
      skip(t, std::string("it is ") + api::ToString(t.phase));
      continue;
    }
    auto checked = api::CheckAssignment(target, t.assignment, "parameterAssignments");
    if (!checked.ok()) {
      skip(t, "its parameters do not fit (" + checked.status().message() + ")");
      continue;
    }
    if (t.phase == api::TrialPhase::kSucceeded) {
      const std::string missing = api::MissingObjective(t, target.objective);
      if (!missing.empty()) {
        skip(t, "it has no '" + missing + "'");
        continue;
      }
    }
    HPT_ASSIGN_OR_RETURN(std::vector<api::Observation> observations,
                         store_->ListObservations(source, t.name));
    if (observations.empty()) {
      skip(t, "it has no observations");
      continue;
    }
    out.push_back({*checked, t.phase, std::move(observations),
                   "experiment " + from.spec.name + " (" + t.name + ")"});
  }
  return out;
}

}  // namespace hpt::controller
