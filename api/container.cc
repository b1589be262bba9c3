#include "api/container.h"

namespace hpt::api {

bool RunsInContainer(const TrialTemplate& tmpl, bool containers,
                     const std::string& default_executor) {
  if (tmpl.executor == kContainerExecutor) return true;
  const std::string& executor = tmpl.executor.empty() ? default_executor : tmpl.executor;
  return containers && !tmpl.container.image.empty() && executor == "local";
}

std::string ExecutorNameOf(const TrialTemplate& tmpl, const std::string& default_executor) {
  if (tmpl.executor == kContainerExecutor) return "local";
  return tmpl.executor.empty() ? default_executor : tmpl.executor;
}

std::string ContainerProblem(const TrialTemplate& tmpl, bool containers,
                             const std::string& default_executor, bool podman_installed) {
  constexpr char kHowTo[] =
      "which needs trials in containers (hpt serve --containers podman, or "
      "trialTemplate.executor: container)";
  if (RunsInContainer(tmpl, containers, default_executor)) {
    if (podman_installed) return "";
    return "trialTemplate.container.image: trials in containers need podman, which is not "
           "installed on this server (apt-get install podman runc)";
  }
  if (!tmpl.command.empty()) return "";
  if (!tmpl.container.args.empty()) {
    return std::string("trialTemplate.container.args: a container with args but no command "
                       "runs its image's entrypoint, ") + kHowTo;
  }
  if (!tmpl.container.image.empty()) {
    return std::string("trialTemplate.command: is empty: the image's own entrypoint runs "
                       "only in its container, ") + kHowTo;
  }
  return "";
}

}  // namespace hpt::api
