#pragma once
// TrialCgroup: one trial's memory and CPU limits, enforced by the kernel
// where this process may create cgroups: cgroup v2 when the unified
// hierarchy offers the memory (and cpu) controller, else the v1
// controllers the host mounts (/sys/fs/cgroup/memory, /sys/fs/cgroup/cpu).
// Each trial's cgroup is a child of this process's own, so limits above it
// still hold. A trial over its memory limit is killed by the kernel's OOM
// killer, and OomKills() counts it.
//
// Only a single-threaded process may use EnterSelf()/LeaveSelf() (the
// trial supervisor does): a child started between them inherits the
// cgroup, with no window in which it runs unlimited.

#include <cstdint>
#include <memory>
#include <string>

#include "api/status.h"
#include "api/types.h"

namespace hpt::runner {

class TrialCgroup {
 public:
  // A cgroup named `name` with resources.memory and resources.cpu as its
  // limits. Unavailable, saying why, when cgroups cannot be used here (not
  // mounted, not writable); FailedPrecondition when `resources` sets no
  // memory or cpu limit.
  static StatusOr<std::unique_ptr<TrialCgroup>> Create(const std::string& name,
                                                       const api::Resources& resources);
  ~TrialCgroup();  // removes the cgroup (it must be empty by then)
  TrialCgroup(const TrialCgroup&) = delete;
  TrialCgroup& operator=(const TrialCgroup&) = delete;

  // Moves this process into the cgroup (children started now inherit it),
  // and back to where it was.
  Status EnterSelf();
  Status LeaveSelf();
  // How many processes of the cgroup the OOM killer killed.
  int64_t OomKills() const;

 private:
  TrialCgroup() = default;

  struct Dir {
    std::string path;    // the trial's cgroup
    std::string parent;  // where this process was
  };
  bool v2_ = false;
  Dir memory_;  // path "" when not limited (or, in v2, the one dir)
  Dir cpu_;
};

// "" when trial cgroups can be made here, else why not (logged once at
// start: limits then fall back to RLIMIT_AS for memory, none for cpu).
std::string CgroupSupport();

}  // namespace hpt::runner
