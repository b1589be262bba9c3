// ExperimentRunner's trial checkpoint folders (controller/checkpoints.h).
#include <spdlog/spdlog.h>

#include "controller/checkpoints.h"
#include "controller/experiment_runner.h"
#include "controller/run_as_folders.h"

namespace hpt::controller {

// The new trials' folders, made before they are stored (`lineage` empty,
// or one per trial: the folder a child resumes is a copy of its parent's).
// A trial's folder reaches its launch through BuildLaunch (trial_launch.h).
Status ExperimentRunner::PrepareCheckpointsLocked(
    const std::vector<api::Trial>& created,
    const std::vector<suggestion::Lineage>& lineage) {
  if (lineage.empty()) return Status::Ok();
  if (lineage.size() < created.size()) {
    return Internal("algorithm " + exp_.spec.algorithm.name + " gave " +
                    std::to_string(lineage.size()) + " lineages for " +
                    std::to_string(created.size()) + " trials");
  }
  const std::string root = CheckpointRoot(exp_.spec, deps_.log_dir);
  // Trials that run as another user own their folders.
  std::optional<runner::RunAs> owner;
  if (std::string user = deps_.RunAsUserOf(exp_.spec.namespace_name); !user.empty()) {
    HPT_ASSIGN_OR_RETURN(owner, runner::ResolveRunAs(user));
    HPT_RETURN_IF_ERROR(OpenExperimentFolders(deps_.log_dir, name_));
  }
  for (size_t i = 0; i < created.size(); ++i) {
    const suggestion::Lineage& from = lineage[i];
    std::string parent_dir;
    if (!from.parent.empty()) {
      std::optional<std::string> found =
          FindCheckpointDir(exp_.spec, deps_.log_dir, from.parent);
      if (!found) {
        return FailedPrecondition("trial " + created[i].name + " resumes " +
                                  from.parent + "'s checkpoint, but " +
                                  from.parent + " has no folder left");
      }
      parent_dir = *found;
    }
    HPT_RETURN_IF_ERROR(
        PrepareCheckpointDir(root, created[i].name, parent_dir, owner ? &*owner : nullptr));
    if (!from.parent.empty()) {
      spdlog::info(
          "experiment {}: trial {} (generation {}) resumes {}'s checkpoint",
          name_, created[i].name, from.generation, from.parent);
    }
  }
  return Status::Ok();
}

// Every runner-run trial has a folder ($HPT_CHECKPOINT_DIR), so that one
// preempted (admission.h) can resume from what it saved there when it
// starts again. Made at its first start unless the algorithm made it.
std::optional<std::string> ExperimentRunner::CheckpointDirLocked(const api::Trial& trial) {
  if (auto found = FindCheckpointDir(exp_.spec, deps_.log_dir, trial.name)) return found;
  if (deps_.log_dir.empty()) return std::nullopt;  // nowhere of its own to make it
  const std::string root = CheckpointRoot(exp_.spec, deps_.log_dir);
  // A trial that runs as another user owns its folder (as in
  // PrepareCheckpointsLocked).
  std::optional<runner::RunAs> owner;
  Status made = Status::Ok();
  if (std::string user = deps_.RunAsUserOf(exp_.spec.namespace_name); !user.empty()) {
    StatusOr<runner::RunAs> resolved = runner::ResolveRunAs(user);
    if (resolved.ok()) {
      owner = std::move(resolved).value();
      made = OpenExperimentFolders(deps_.log_dir, name_);
    } else {
      made = resolved.status();
    }
  }
  if (made.ok()) made = PrepareCheckpointDir(root, trial.name, "", owner ? &*owner : nullptr);
  if (!made.ok()) {
    spdlog::warn("experiment {}: trial {} starts without a checkpoint folder: {}", name_,
                 trial.name, made.message());
    return std::nullopt;
  }
  return root + "/" + trial.name;
}

}  // namespace hpt::controller
