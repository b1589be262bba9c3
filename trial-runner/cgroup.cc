#include "trial-runner/cgroup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace hpt::runner {
namespace {

constexpr char kRoot[] = "/sys/fs/cgroup";

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

Status WriteFile(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  if (!out) return Unavailable("cannot write " + value + " to " + path);
  return Status::Ok();
}

// This process's cgroup in the v1 hierarchy of `controller`, or in v2
// (controller ""), from /proc/self/cgroup; nullopt when not there.
std::optional<std::string> OwnCgroup(const std::string& controller) {
  std::istringstream lines(ReadAll("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    size_t a = line.find(':');
    size_t b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (controller.empty() ? line.compare(0, a, "0") == 0 && controllers.empty()
                           : ("," + controllers + ",").find("," + controller + ",") !=
                                 std::string::npos) {
      return path == "/" ? "" : path;
    }
  }
  return std::nullopt;
}

// The v2 mount that offers the memory controller to this process's
// cgroup; "" when there is none.
std::string UnifiedMount() {
  for (std::string mount : {std::string(kRoot), std::string(kRoot) + "/unified"}) {
    if (!Exists(mount + "/cgroup.controllers")) continue;
    auto own = OwnCgroup("");
    if (!own) continue;
    std::string controllers = ReadAll(mount + *own + "/cgroup.controllers");
    if (controllers.find("memory") != std::string::npos) return mount;
  }
  return "";
}

// A v1 controller's mount ("/sys/fs/cgroup/memory"); "" when absent.
std::string V1Mount(const std::string& controller) {
  std::vector<std::string> dirs = {controller};
  if (controller == "cpu") dirs = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
  for (const std::string& dir : dirs) {
    std::string path = std::string(kRoot) + "/" + dir;
    if (Exists(path + "/cgroup.procs")) return path;
  }
  return "";
}

// Makes <mount><own>/<name>, returning {path, parent}.
StatusOr<std::pair<std::string, std::string>> MakeChild(const std::string& mount,
                                                        const std::string& controller,
                                                        const std::string& name) {
  auto own = OwnCgroup(controller);
  if (!own) return Unavailable("this process is in no " + controller + " cgroup");
  const std::string parent = mount + *own;
  const std::string path = parent + "/" + name;
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Unavailable("cannot create cgroup " + path + ": " + std::strerror(errno));
  }
  return std::make_pair(path, parent);
}

}  // namespace

StatusOr<std::unique_ptr<TrialCgroup>> TrialCgroup::Create(const std::string& name,
                                                           const api::Resources& r) {
  if (r.memory <= 0 && r.cpu <= 0) return FailedPrecondition("no memory or cpu limit");
  std::unique_ptr<TrialCgroup> cg(new TrialCgroup());
  const std::string unified = UnifiedMount();
  if (!unified.empty()) {
    cg->v2_ = true;
    HPT_ASSIGN_OR_RETURN(auto dir, MakeChild(unified, "", name));
    cg->memory_ = {dir.first, dir.second};
    if (r.memory > 0) {
      HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/memory.max", std::to_string(r.memory)));
      (void)WriteFile(dir.first + "/memory.swap.max", "0");
    }
    if (r.cpu > 0 && Exists(dir.first + "/cpu.max")) {
      (void)WriteFile(dir.first + "/cpu.max",
                      std::to_string(static_cast<int64_t>(r.cpu * 100000)) + " 100000");
    }
    return cg;
  }
  if (r.memory > 0) {
    std::string mount = V1Mount("memory");
    if (mount.empty()) return Unavailable("no memory cgroup controller is mounted");
    HPT_ASSIGN_OR_RETURN(auto dir, MakeChild(mount, "memory", name));
    cg->memory_ = {dir.first, dir.second};
    HPT_RETURN_IF_ERROR(
        WriteFile(dir.first + "/memory.limit_in_bytes", std::to_string(r.memory)));
    // Swap counts too where the kernel accounts it: over the limit is an
    // OOM kill, not a trial slowly paging.
    if (Exists(dir.first + "/memory.memsw.limit_in_bytes")) {
      (void)WriteFile(dir.first + "/memory.memsw.limit_in_bytes", std::to_string(r.memory));
    }
  }
  if (r.cpu > 0) {
    std::string mount = V1Mount("cpu");
    if (!mount.empty()) {
      auto dir = MakeChild(mount, "cpu", name);
      if (dir.ok()) {
        cg->cpu_ = {dir->first, dir->second};
        (void)WriteFile(dir->first + "/cpu.cfs_period_us", "100000");
        (void)WriteFile(dir->first + "/cpu.cfs_quota_us",
                        std::to_string(static_cast<int64_t>(r.cpu * 100000)));
      }
    }
  }
  return cg;
}

TrialCgroup::~TrialCgroup() {
  for (const Dir* d : {&memory_, &cpu_}) {
    if (!d->path.empty()) ::rmdir(d->path.c_str());
  }
}

Status TrialCgroup::EnterSelf() {
  const std::string self = std::to_string(::getpid());
  for (const Dir* d : {&memory_, &cpu_}) {
    if (!d->path.empty()) HPT_RETURN_IF_ERROR(WriteFile(d->path + "/cgroup.procs", self));
  }
  return Status::Ok();
}

Status TrialCgroup::LeaveSelf() {
  const std::string self = std::to_string(::getpid());
  for (const Dir* d : {&memory_, &cpu_}) {
    if (!d->path.empty()) HPT_RETURN_IF_ERROR(WriteFile(d->parent + "/cgroup.procs", self));
  }
  return Status::Ok();
}

int64_t TrialCgroup::OomKills() const {
  if (memory_.path.empty()) return 0;
  std::istringstream in(ReadAll(memory_.path + (v2_ ? "/memory.events" : "/memory.oom_control")));
  std::string key;
  int64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

std::string CgroupSupport() {
  api::Resources probe;
  probe.memory = 1ll << 40;
  auto cg = TrialCgroup::Create("hpt-probe-" + std::to_string(::getpid()), probe);
  return cg.ok() ? "" : cg.status().message();
}

}  // namespace hpt::runner
