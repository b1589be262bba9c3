#pragma once
// How a runner-run trial is launched: the executor's LaunchSpec built from
// the experiment's spec (trialTemplate, metrics collector, objective), the
// trial (name, assignment) and what only the server knows (LaunchContext).
// Pure functions: no I/O, no lock; ExperimentRunner calls them under its
// own and hands the result to the executor.

#include <cstdint>
#include <optional>
#include <string>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/executor.h"

namespace hpt::controller {

// What the server adds to a trial's launch.
struct LaunchContext {
  std::string log_path;       // the trial's log
  int64_t max_log_bytes = 0;  // its cap; 0: the executor's default
  std::string server_url;     // HPT_URL
  std::string hpt_binary;     // replaces argv[0] when it is `hpt`; "": kept
  std::string trial_token;    // HPT_TOKEN; "" (set, empty) when none
  // The trial's checkpoint folder (controller/checkpoints.h), if it has
  // one: $HPT_CHECKPOINT_DIR, and what mentions of MountedCheckpointPath()
  // (suggestion_trial_dir) in its command and environment are rewritten to.
  std::optional<std::string> checkpoint_dir;
  // A TensorFlowEvent trial's own folder for its event files
  // (controller/event_folders.h): where the collector's path, as the
  // command names it, is rewritten to. "": none (the path is used as is).
  std::string events_folder;
  // The user the trial runs as (its namespace's runAsUser); "": the
  // server's.
  std::string run_as_user;
  // Its namespace's slurmAccount ("account[:qos]"); "": the executor's.
  std::string slurm_account;
  // The trial runs in its template's image (api::RunsInContainer): the
  // launch names it, and the command is not looked up on this host.
  bool in_container = false;
};

// The launch without its command and environment: what identifies the job
// to an executor (Recover, StillRunning) and how it is run and watched.
// `spec` has a trialTemplate.
runner::LaunchSpec BaseLaunch(const api::ExperimentSpec& spec, const api::Trial& trial,
                              const LaunchContext& context);

// The whole launch: BaseLaunch() plus the trialTemplate's command and env
// with the trial's parameters substituted (an argument or variable that
// references an inactive conditional parameter is left out:
// api::SubstituteActive), the checkpoint folder, and HPT_URL,
// HPT_EXPERIMENT, HPT_TRIAL and HPT_TOKEN (which override the template's).
// The collector's path (or the folder above it that the command names) in
// the command and environment becomes context.events_folder.
// A substitution's error (the last one, when several fail) instead: the
// trial cannot start.
StatusOr<runner::LaunchSpec> BuildLaunch(const api::ExperimentSpec& spec,
                                         const api::Trial& trial,
                                         const LaunchContext& context);

}  // namespace hpt::controller
