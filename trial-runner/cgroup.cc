#include "trial-runner/cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include "trial-runner/cgroup_fs.h"

namespace hpt::runner {
namespace {

using cgroupfs::Exists;
using cgroupfs::ReadAll;
using cgroupfs::WriteFile;
using Clock = std::chrono::steady_clock;

// How long a freeze may take before the kill goes ahead without it (a task
// stuck in the kernel may never freeze).
constexpr std::chrono::milliseconds kFreezeTimeout(500);
constexpr std::chrono::milliseconds kPollInterval(5);
constexpr int64_t kCpuPeriodUs = 100000;

bool ValidName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

// Polls `done` until it holds or `timeout` passes.
template <typename Done>
bool WaitFor(Done done, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
  return true;
}

// Makes <mount><own>/<name>, returning {path, parent}. An existing one is
// taken over (a probe's, left by a crash under a reused pid).
StatusOr<std::pair<std::string, std::string>> MakeChild(const std::string& mount,
                                                        const std::string& controller,
                                                        const std::string& name) {
  auto own = cgroupfs::OwnCgroup(controller);
  if (!own) {
    return Unavailable("this process is in no " +
                       (controller.empty() ? std::string("cgroup v2") : controller) + " cgroup");
  }
  const std::string parent = mount + *own;
  const std::string path = parent + "/" + name;
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Unavailable("cannot create cgroup " + path + ": " + std::strerror(errno));
  }
  return std::make_pair(path, parent);
}

std::string CpuQuotaUs(double cores) {
  return std::to_string(static_cast<int64_t>(cores * kCpuPeriodUs));
}

}  // namespace

StatusOr<std::unique_ptr<TrialCgroup>> TrialCgroup::Create(const std::string& name,
                                                           const api::Resources& r) {
  if (!ValidName(name)) return InvalidArgument("'" + name + "' is not a cgroup name");
  const std::string pids = std::to_string(r.pids > 0 ? r.pids : kDefaultTrialPids);
  // Made first, so that an error below removes what was made.
  std::unique_ptr<TrialCgroup> cg(new TrialCgroup());
  cg->created_ = true;
  const std::string unified = cgroupfs::UnifiedMountOffering("pids");
  if (!unified.empty()) {
    cg->v2_ = true;
    HPT_ASSIGN_OR_RETURN(auto dir, MakeChild(unified, "", name));
    cg->dirs_.push_back({dir.first, dir.second});
    // Children get a controller's files only where the parent delegates it;
    // best effort, since a parent that holds processes itself cannot.
    for (const char* c : {"+pids", "+memory", "+cpu"}) {
      (void)WriteFile(dir.second + "/cgroup.subtree_control", c);
    }
    HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/pids.max", pids));
    if (r.memory > 0) {
      HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/memory.max", std::to_string(r.memory)));
      (void)WriteFile(dir.first + "/memory.swap.max", "0");
      cg->memory_ = dir.first;
    }
    if (r.cpu > 0) {
      HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/cpu.max",
                                    CpuQuotaUs(r.cpu) + " " + std::to_string(kCpuPeriodUs)));
    }
    return cg;
  }

  const std::string pids_mount = cgroupfs::V1Mount("pids");
  if (pids_mount.empty()) return Unavailable("no pids cgroup controller is mounted");
  HPT_ASSIGN_OR_RETURN(auto pids_dir, MakeChild(pids_mount, "pids", name));
  cg->dirs_.push_back({pids_dir.first, pids_dir.second});
  HPT_RETURN_IF_ERROR(WriteFile(pids_dir.first + "/pids.max", pids));
  // The freezer only makes the final kill atomic; without one it loops.
  if (std::string mount = cgroupfs::V1Mount("freezer"); !mount.empty()) {
    if (auto dir = MakeChild(mount, "freezer", name); dir.ok()) {
      cg->dirs_.push_back({dir->first, dir->second});
      cg->freezer_ = dir->first;
    }
  }
  if (r.memory > 0) {
    std::string mount = cgroupfs::V1Mount("memory");
    if (mount.empty()) return Unavailable("no memory cgroup controller is mounted");
    HPT_ASSIGN_OR_RETURN(auto dir, MakeChild(mount, "memory", name));
    cg->dirs_.push_back({dir.first, dir.second});
    HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/memory.limit_in_bytes", std::to_string(r.memory)));
    // Swap counts too where the kernel accounts it: over the limit is an
    // OOM kill, not a trial slowly paging.
    if (Exists(dir.first + "/memory.memsw.limit_in_bytes")) {
      (void)WriteFile(dir.first + "/memory.memsw.limit_in_bytes", std::to_string(r.memory));
    }
    cg->memory_ = dir.first;
  }
  if (r.cpu > 0) {
    std::string mount = cgroupfs::V1Mount("cpu");
    if (mount.empty()) return Unavailable("no cpu cgroup controller is mounted");
    HPT_ASSIGN_OR_RETURN(auto dir, MakeChild(mount, "cpu", name));
    cg->dirs_.push_back({dir.first, dir.second});
    HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/cpu.cfs_period_us", std::to_string(kCpuPeriodUs)));
    HPT_RETURN_IF_ERROR(WriteFile(dir.first + "/cpu.cfs_quota_us", CpuQuotaUs(r.cpu)));
  }
  return cg;
}

std::unique_ptr<TrialCgroup> TrialCgroup::Find(const std::string& name) {
  if (!ValidName(name)) return nullptr;
  std::unique_ptr<TrialCgroup> cg(new TrialCgroup());
  if (auto own = cgroupfs::OwnCgroup("")) {
    for (std::string mount :
         {std::string(cgroupfs::kRoot), std::string(cgroupfs::kRoot) + "/unified"}) {
      const std::string path = mount + *own + "/" + name;
      if (!Exists(mount + "/cgroup.controllers") || !Exists(path)) continue;
      cg->v2_ = true;
      cg->dirs_.push_back({path, mount + *own});
      if (Exists(path + "/memory.events")) cg->memory_ = path;
      return cg;
    }
  }
  for (const char* controller : {"pids", "freezer", "memory", "cpu"}) {
    std::string mount = cgroupfs::V1Mount(controller);
    auto own = cgroupfs::OwnCgroup(controller);
    if (mount.empty() || !own) continue;
    const std::string path = mount + *own + "/" + name;
    if (!Exists(path)) continue;
    cg->dirs_.push_back({path, mount + *own});
    if (std::strcmp(controller, "freezer") == 0) cg->freezer_ = path;
    if (std::strcmp(controller, "memory") == 0) cg->memory_ = path;
  }
  return cg->dirs_.empty() ? nullptr : std::move(cg);
}

TrialCgroup::~TrialCgroup() {
  if (created_) (void)Destroy();
}

Status TrialCgroup::EnterSelf() {
  const std::string self = std::to_string(::getpid());
  for (const Dir& d : dirs_) HPT_RETURN_IF_ERROR(WriteFile(d.path + "/cgroup.procs", self));
  return Status::Ok();
}

Status TrialCgroup::LeaveSelf() {
  const std::string self = std::to_string(::getpid());
  for (const Dir& d : dirs_) HPT_RETURN_IF_ERROR(WriteFile(d.parent + "/cgroup.procs", self));
  return Status::Ok();
}

int64_t TrialCgroup::OomKills() const {
  if (memory_.empty()) return 0;
  std::istringstream in(ReadAll(memory_ + (v2_ ? "/memory.events" : "/memory.oom_control")));
  std::string key;
  int64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

std::vector<std::string> TrialCgroup::dirs() const {
  std::vector<std::string> out;
  for (const Dir& d : dirs_) out.push_back(d.path);
  return out;
}

std::vector<int> TrialCgroup::Procs() const {
  std::vector<int> out;
  for (const Dir& d : dirs_) {
    for (int pid : cgroupfs::Procs(d.path)) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool TrialCgroup::Freeze(bool frozen) {
  if (v2_) {
    const std::string& dir = dirs_.front().path;
    if (!WriteFile(dir + "/cgroup.freeze", frozen ? "1" : "0").ok()) return false;
    if (frozen) {
      WaitFor([&] { return ReadAll(dir + "/cgroup.events").find("frozen 1") != std::string::npos; },
              kFreezeTimeout);
    }
    return true;
  }
  if (freezer_.empty()) return false;
  if (!WriteFile(freezer_ + "/freezer.state", frozen ? "FROZEN" : "THAWED").ok()) return false;
  if (frozen) {
    WaitFor([&] { return ReadAll(freezer_ + "/freezer.state").rfind("FROZEN", 0) == 0; },
            kFreezeTimeout);
  }
  return true;
}

int TrialCgroup::KillAll() {
  if (dirs_.empty()) return 0;
  const int self = ::getpid();
  std::vector<int> procs = Procs();
  if (procs.empty()) return 0;
  // Never freeze (or cgroup.kill) this process: only an error between
  // EnterSelf() and LeaveSelf() leaves it inside.
  const bool self_inside = std::binary_search(procs.begin(), procs.end(), self);
  if (v2_ && !self_inside && Exists(dirs_.front().path + "/cgroup.kill") &&
      WriteFile(dirs_.front().path + "/cgroup.kill", "1").ok()) {
    return static_cast<int>(procs.size());
  }
  // Frozen, nothing forks between the listing and the kill; a frozen task
  // dies of SIGKILL once thawed.
  const bool frozen = !self_inside && Freeze(true);
  if (frozen) procs = Procs();
  int signalled = 0;
  for (int pid : procs) {
    if (pid != self && ::kill(pid, SIGKILL) == 0) ++signalled;
  }
  if (frozen) Freeze(false);
  return signalled;
}

Status TrialCgroup::Destroy() {
  if (dirs_.empty()) return Status::Ok();
  const int self = ::getpid();
  std::vector<int> left = Procs();
  if (std::binary_search(left.begin(), left.end(), self)) (void)LeaveSelf();
  // Without a freezer a forking trial can outrun one kill; its pids cap
  // bounds how many rounds that takes.
  WaitFor(
      [&] {
        left = Procs();
        if (left.empty()) return true;
        KillAll();
        return false;
      },
      kEmptyTimeout);
  std::string failed;
  for (const Dir& d : dirs_) {
    for (const std::string& dir : cgroupfs::DirsDeepestFirst(d.path)) {
      if (::rmdir(dir.c_str()) != 0 && errno != ENOENT && failed.empty()) {
        failed = dir + ": " + std::strerror(errno);
      }
    }
  }
  if (!failed.empty()) {
    return Unavailable("cannot remove cgroup " + failed + " (" + std::to_string(left.size()) +
                       " processes left in it)");
  }
  dirs_.clear();
  freezer_.clear();
  memory_.clear();
  return Status::Ok();
}

std::string CgroupSupport() {
  auto cg = TrialCgroup::Create("hpt-probe-" + std::to_string(::getpid()), api::Resources{});
  return cg.ok() ? "" : cg.status().message();
}

}  // namespace hpt::runner
