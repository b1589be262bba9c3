// The podman command line of a trial in a container (container_command.h).
#include "trial-runner/container_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

#include "trial-runner/cgroup.h"
#include "trial-runner/command.h"

namespace hpt::runner {
namespace {

// controller/checkpoints.h's variable (the controller sets it; this library
// comes before it).
constexpr char kCheckpointDirEnv[] = "HPT_CHECKPOINT_DIR";

// Kept short: podman's names have no fixed cap, but `podman ps` does.
std::string NamePart(const std::string& text, size_t max) {
  std::string out;
  for (char c : text.substr(0, max)) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    out += ok ? c : '-';
  }
  return out;
}

uint32_t Fnv1a(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

std::string PullFlag(const std::string& policy) {
  if (policy == "Always") return "always";
  if (policy == "Never") return "never";
  return "missing";  // IfNotPresent, and Kubernetes' default for a tagged image
}

std::string FormatCores(double cpu) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", cpu);
  return text;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

std::string ContainerName(const LaunchSpec& spec) {
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", Fnv1a(spec.log_path));
  return "hpt-" + NamePart(spec.experiment, 60) + "-" + NamePart(spec.trial, 60) + "-" + hash;
}

std::vector<std::string> ContainerMounts(const LaunchSpec& spec) {
  std::vector<std::string> mounts;
  std::set<std::string> seen;
  auto add = [&](const std::filesystem::path& path) {
    std::string dir = path.lexically_normal().string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty() || dir[0] != '/' || dir == "/" || !seen.insert(dir).second) return;
    mounts.push_back(dir);
  };
  if (!spec.working_dir.empty()) add(spec.working_dir);
  if (spec.collector.kind == "File" && !spec.collector.file_path.empty() &&
      spec.collector.file_path[0] == '/') {
    add(std::filesystem::path(spec.collector.file_path).parent_path());
  }
  if (auto it = spec.env.find(kCheckpointDirEnv); it != spec.env.end()) {
    add(it->second);
  }
  if (!spec.events_dir.empty()) add(spec.events_dir);  // a TensorFlowEvent trial's
  return mounts;
}

StatusOr<LaunchSpec> InContainer(const LaunchSpec& spec, const GpuLease& lease,
                                 const ContainerOptions& options) {
  if (options.podman.empty()) {
    return FailedPrecondition("trial " + spec.trial +
                              " runs in a container: podman is not installed here "
                              "(apt-get install podman runc)");
  }
  if (!spec.run_as_user.empty()) {
    return FailedPrecondition("trial " + spec.trial + " runs in a container, which hpt " +
                              "does not yet run as a namespace's runAsUser (" +
                              spec.run_as_user + ")");
  }
  const api::ContainerSpec& c = spec.container;
  std::vector<std::string> argv = {options.podman};
  if (!options.runtime.empty()) argv.insert(argv.end(), {"--runtime", options.runtime});
  argv.insert(argv.end(), {"run", "--rm", "--replace", "--name", ContainerName(spec),
                           "--network", "host", "--log-driver", "none", "--pull",
                           PullFlag(c.pull_policy)});
  for (const std::string& u : options.ulimits) argv.insert(argv.end(), {"--ulimit", u});
  const api::Resources& r = spec.resources;
  if (r.cpu > 0) argv.insert(argv.end(), {"--cpus", FormatCores(r.cpu)});
  if (r.memory > 0) argv.insert(argv.end(), {"--memory", std::to_string(r.memory)});
  argv.insert(argv.end(),
              {"--pids-limit", std::to_string(r.pids > 0 ? r.pids : kDefaultTrialPids)});
  const bool cdi = Exists("/etc/cdi/nvidia.yaml") || Exists("/var/run/cdi/nvidia.yaml");
  for (int id : lease.ids) {
    argv.insert(argv.end(), {"--device", cdi ? "nvidia.com/gpu=" + std::to_string(id)
                                             : options.gpu_device_prefix + std::to_string(id)});
  }
  if (!lease.empty() && !cdi) {
    for (const char* control : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}) {
      if (Exists(control)) argv.insert(argv.end(), {"--device", control});
    }
  }
  for (const std::string& dir : ContainerMounts(spec)) {
    argv.insert(argv.end(), {"-v", dir + ":" + dir});
  }
  const std::string& workdir = c.working_dir.empty() ? spec.working_dir : c.working_dir;
  if (!workdir.empty()) argv.push_back("--workdir=" + workdir);
  for (const auto& [key, value] : spec.env) argv.insert(argv.end(), {"-e", key});
  if (!spec.argv.empty()) argv.push_back("--entrypoint=" + spec.argv[0]);
  argv.push_back(c.image);
  if (!spec.argv.empty()) argv.insert(argv.end(), spec.argv.begin() + 1, spec.argv.end());
  argv.insert(argv.end(), c.args.begin(), c.args.end());

  LaunchSpec out = spec;
  out.argv = std::move(argv);
  out.resources.cpu = 0;
  out.resources.memory = 0;
  out.resources.pids = 0;
  return out;
}

Status MakeContainerMounts(const LaunchSpec& spec) {
  for (const std::string& dir : ContainerMounts(spec)) {
    // A missing working dir stays the trial's start failure, as on the host.
    if (dir == spec.working_dir) continue;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return FailedPrecondition("cannot make " + dir + " to mount: " + ec.message());
  }
  return Status::Ok();
}

void RemoveContainer(const ContainerOptions& options, const std::string& name) {
  if (options.podman.empty()) return;
  std::vector<std::string> argv = {options.podman};
  if (!options.runtime.empty()) argv.insert(argv.end(), {"--runtime", options.runtime});
  argv.insert(argv.end(), {"rm", "-f", "-t", "0", "--ignore", name});
  (void)RunCommand(argv, {}, 60);
}

std::string FindPodman() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/podman";
    if (candidate[0] == '/' && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace hpt::runner
