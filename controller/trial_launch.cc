// A trial's launch (trial_launch.h).
#include "controller/trial_launch.h"

#include "api/trial_template.h"
#include "controller/checkpoints.h"
#include "controller/event_folders.h"

namespace hpt::controller {

runner::LaunchSpec BaseLaunch(const api::ExperimentSpec& spec, const api::Trial& trial,
                              const LaunchContext& context) {
  const api::TrialTemplate& tmpl = *spec.trial_template;
  runner::LaunchSpec launch;
  launch.experiment = api::KeyOf(spec);
  launch.trial = trial.name;
  launch.working_dir = tmpl.working_dir;
  launch.log_path = context.log_path;
  launch.max_log_bytes = context.max_log_bytes;
  launch.timeout_seconds = tmpl.timeout_seconds;
  launch.collector = spec.metrics_collector;
  if (!context.events_folder.empty()) {
    launch.events_dir = MountEvents(spec, context.events_folder).events_dir;
  }
  launch.resources = tmpl.resources;
  launch.run_as_user = context.run_as_user;
  launch.slurm_account = context.slurm_account;
  if (context.in_container) {
    launch.container = tmpl.container;
    launch.container.args.clear();  // BuildLaunch() substitutes them
  }
  for (const api::ObjectiveMetric& m : api::Objectives(spec.objective)) {
    launch.metric_names.push_back(m.metric_name);
  }
  for (const auto& m : spec.objective.additional_metric_names) {
    launch.metric_names.push_back(m);
  }
  return launch;
}

StatusOr<runner::LaunchSpec> BuildLaunch(const api::ExperimentSpec& spec,
                                         const api::Trial& trial,
                                         const LaunchContext& context) {
  const api::TrialTemplate& tmpl = *spec.trial_template;
  runner::LaunchSpec launch = BaseLaunch(spec, trial, context);
  Status status;
  auto substitute = [&](const std::vector<std::string>& from, std::vector<std::string>& to) {
    for (const auto& arg : from) {
      auto s = api::SubstituteActive(arg, spec.parameters, tmpl, trial.assignment, trial.name);
      if (!s.ok()) status = s.status(); else if (*s) to.push_back(**s);
    }
  };
  substitute(tmpl.command, launch.argv);
  // In its image, args follow the command or go to the image's ENTRYPOINT;
  // on the host, command + args run (Kubernetes' command line).
  substitute(tmpl.container.args, context.in_container ? launch.container.args : launch.argv);
  for (const auto& [key, value] : tmpl.env) {
    auto s = api::SubstituteActive(value, spec.parameters, tmpl, trial.assignment, trial.name);
    if (!s.ok()) status = s.status(); else if (*s) launch.env[key] = **s;
  }
  if (!status.ok()) return status;
  if (context.checkpoint_dir) {
    // Where Katib would mount the folder: the trial's command says so.
    const std::string& dir = *context.checkpoint_dir;
    const std::string mounted = MountedCheckpointPath(spec);
    for (std::string& arg : launch.argv) arg = RewritePath(arg, mounted, dir);
    for (std::string& arg : launch.container.args) arg = RewritePath(arg, mounted, dir);
    for (auto& [key, value] : launch.env) value = RewritePath(value, mounted, dir);
    launch.env[kCheckpointDirEnv] = dir;
  }
  if (!context.events_folder.empty()) {
    // Where Katib would mount the trial's own volume.
    const std::string mentioned = MountEvents(spec, context.events_folder).mentioned;
    if (!mentioned.empty()) {
      for (std::string& arg : launch.argv) arg = RewritePath(arg, mentioned, context.events_folder);
      for (std::string& arg : launch.container.args) {
        arg = RewritePath(arg, mentioned, context.events_folder);
      }
      for (auto& [key, value] : launch.env) {
        value = RewritePath(value, mentioned, context.events_folder);
      }
    }
  }
  if (!context.in_container && !launch.argv.empty() && launch.argv[0] == "hpt" &&
      !context.hpt_binary.empty()) {
    launch.argv[0] = context.hpt_binary;
  }
  launch.env["HPT_URL"] = context.server_url;
  launch.env["HPT_EXPERIMENT"] = spec.name;
  launch.env["HPT_NAMESPACE"] = spec.namespace_name;
  launch.env["HPT_TRIAL"] = trial.name;
  // A credential for this trial alone: the admin token never leaves the
  // server. (A token the server itself was started with must not reach
  // the trial either, when there is no trial token to replace it.)
  launch.env["HPT_TOKEN"] = context.trial_token;
  return launch;
}

}  // namespace hpt::controller
