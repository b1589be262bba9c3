// Controller's calls on one trial of an experiment (the REST API's
// .../trials/{trial}... routes): each finds the experiment's runner,
// loading it again if it was evicted, and asks it.

#include "controller/controller.h"

namespace hpt::controller {

StatusOr<int> Controller::Heartbeat(const std::string& experiment, const std::string& trial) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->Heartbeat(trial);
}

StatusOr<api::Trial> Controller::CompleteTrial(const std::string& experiment,
                                               const std::string& trial,
                                               const Completion& completion) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->Complete(trial, completion);
}

StatusOr<std::vector<api::Trial>> Controller::CompleteTrials(
    const std::string& experiment, const std::vector<NamedCompletion>& batch) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->CompleteMany(batch);
}

StatusOr<api::ParameterAssignment> Controller::SuggestParameter(const std::string& experiment,
                                                                const std::string& trial,
                                                                const api::ParameterSpec& asked) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->SuggestParameter(trial, asked);
}

StatusOr<api::Objective> Controller::Objective(const std::string& experiment) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->objective();
}

Status Controller::AddObservations(const std::string& experiment, const std::string& trial,
                                   const std::vector<api::Observation>& observations) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->AddObservations(trial, observations);
}

Status Controller::SetUserAttrs(const std::string& experiment, const std::string& trial,
                                const api::UserAttrs& attrs) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->SetUserAttrs(trial, attrs);
}

Status Controller::StopTrial(const std::string& experiment, const std::string& trial) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  HPT_RETURN_IF_ERROR(entry.runner->StopTrial(trial));
  PostReconcile(entry);
  return Status::Ok();
}

StatusOr<earlystop::StopDecision> Controller::ShouldStop(const std::string& experiment,
                                                         const std::string& trial) {
  HPT_ASSIGN_OR_RETURN(Entry entry, Find(experiment));
  return entry.runner->ShouldStop(trial);
}

}  // namespace hpt::controller
