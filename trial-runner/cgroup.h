#pragma once
// TrialCgroup: the cgroup a trial runs in, where this process may create
// cgroups. Every trial gets one: it caps the trial's tasks (resources.pids,
// default kDefaultTrialPids), holds its memory and CPU limits when it has
// them, and lets the trial's end kill every process the trial started,
// however it left the trial's session or environment (setsid, env -i, a
// double fork). cgroup v2 when the unified hierarchy offers the pids
// controller to this process's cgroup; else the v1 controllers the host
// mounts (/sys/fs/cgroup/{pids,freezer,memory,cpu}).
//
// A trial's cgroup is a child of this process's own, named for the trial
// (unique: "hpt-<cookie>"), so limits above it still hold. A trial over its
// memory limit is killed by the kernel's OOM killer, and OomKills() counts
// it; one at its pids cap cannot fork (fork() fails with EAGAIN).
//
// Only a single-threaded process may use EnterSelf()/LeaveSelf() (the
// trial supervisor does): a child started between them inherits the
// cgroup, with its caps already written, with no window in which it runs
// unlimited. Not thread-safe.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::runner {

// A trial's cap on its tasks (processes and threads) without resources.pids.
inline constexpr int64_t kDefaultTrialPids = 4096;

class TrialCgroup {
 public:
  // A new cgroup `name` (one path component) with resources.pids (or
  // kDefaultTrialPids) as its task cap, and resources.memory and
  // resources.cpu as its limits when set. Unavailable, saying why, when a
  // cap or limit cannot be set: cgroups not mounted or not writable, a
  // controller missing, or a value the kernel refuses (naming the file);
  // nothing is left behind then.
  static StatusOr<std::unique_ptr<TrialCgroup>> Create(const std::string& name,
                                                       const api::Resources& resources);
  // The cgroup `name` as Create() made it in a process whose cgroups were
  // this process's (a trial supervisor this server started); nullptr when
  // it does not exist (any more). For cleaning up after a supervisor that
  // ended without doing so.
  static std::unique_ptr<TrialCgroup> Find(const std::string& name);
  // Destroy() for a cgroup Create() made (a failure leaves it behind); one
  // that Find() found is left as it is.
  ~TrialCgroup();
  TrialCgroup(const TrialCgroup&) = delete;
  TrialCgroup& operator=(const TrialCgroup&) = delete;

  // Moves this process into the cgroup (children started now inherit it),
  // and back to where it was.
  Status EnterSelf();
  Status LeaveSelf();
  // How many processes of the cgroup the OOM killer killed.
  int64_t OomKills() const;

  // SIGKILLs every process in the cgroup (and in cgroups below it), this
  // process excepted, frozen first where the kernel can freeze it so that
  // none forks meanwhile (v2: cgroup.kill where the kernel has it). Does
  // not wait for them to die. Returns how many it signalled.
  int KillAll();
  // KillAll() until the cgroup holds no process (for at most kEmptyTimeout),
  // then removes it. Unavailable naming the cgroup when a process is left
  // (one stuck in the kernel) or it cannot be removed; later calls retry.
  Status Destroy();
  static constexpr std::chrono::milliseconds kEmptyTimeout{3000};

  // The cgroup's directories, one per hierarchy; empty once destroyed.
  std::vector<std::string> dirs() const;

 private:
  TrialCgroup() = default;
  std::vector<int> Procs() const;
  // Freezes the cgroup for KillAll(); false when it cannot be frozen.
  bool Freeze(bool frozen);

  struct Dir {
    std::string path;    // the trial's cgroup
    std::string parent;  // where this process was
  };
  bool v2_ = false;
  std::vector<Dir> dirs_;  // v2: the one; v1: pids, then freezer, memory, cpu
  std::string freezer_;    // v1: the freezer dir; "" without one
  std::string memory_;     // where the memory files are; "" when not limited
  bool created_ = false;   // by Create(): the destructor destroys it
};

// "" when trial cgroups can be made here, else why not (logged once at
// start: memory limits then fall back to RLIMIT_AS, cpu and pids are not
// limited, and processes a trial leaves behind are found only by its
// session and its HPT_JOB_COOKIE).
std::string CgroupSupport();

}  // namespace hpt::runner
