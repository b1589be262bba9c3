#include "api/container.h"

namespace hpt::api {
namespace {

bool HasNul(const std::string& s) { return s.find('\0') != std::string::npos; }
constexpr char kNulProblem[] = "must not contain a NUL character";

}  // namespace

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
  // Told to run images, the server must not quietly run one's command on
  // a cluster node instead.
  if (containers && !tmpl.container.image.empty() &&
      ExecutorNameOf(tmpl, default_executor) == "slurm") {
    return "trialTemplate.container.image: trials on Slurm do not run in containers (only "
           "this machine's do: trialTemplate.executor container); leave out the image to "
           "run the command on the nodes";
  }
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

void ValidateContainer(JsonReader& r, const TrialTemplate& t,
                       const std::function<void(const std::string& text,
                                                const std::string& path)>& check_refs) {
  const ContainerSpec& c = t.container;
  const std::string p = "trialTemplate.container";
  for (size_t i = 0; i < c.args.size(); ++i) {
    check_refs(c.args[i], JsonReader::Path(p + ".args", i));
    if (HasNul(c.args[i])) r.Problem(JsonReader::Path(p + ".args", i), kNulProblem);
  }
  if (t.executor == kContainerExecutor && c.image.empty()) {
    r.Problem(p + ".image", "is required with trialTemplate.executor container");
  }
  // The image is podman's positional argument: never one of its flags.
  if (!c.image.empty() && (c.image[0] == '-' || HasNul(c.image) ||
                           c.image.find_first_of(" \t\n") != std::string::npos)) {
    r.Problem(p + ".image", "'" + c.image.substr(0, 64) + "' is not an image name");
  }
  if (!c.image.empty() && !t.command.empty() && t.command[0].empty()) {
    r.Problem("trialTemplate.command[0]", "must not be empty");
  }
  if (!c.working_dir.empty() && (c.working_dir[0] != '/' || HasNul(c.working_dir))) {
    r.Problem(p + ".workingDir", "must be an absolute path inside the image");
  }
  if (!c.pull_policy.empty() && c.pull_policy != "Always" && c.pull_policy != "IfNotPresent" &&
      c.pull_policy != "Never") {
    r.Problem(p + ".imagePullPolicy",
              "'" + c.pull_policy.substr(0, 64) + "' is not Always, IfNotPresent or Never");
  }
}

}  // namespace hpt::api
