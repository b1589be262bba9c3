#pragma once
// The cgroup file systems as TrialCgroup (cgroup.h) uses them: where the
// hierarchies are mounted, which cgroup this process is in, and reading
// and writing a cgroup's files. Nothing here keeps state; every call reads
// the file system afresh.

#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::runner::cgroupfs {

inline constexpr char kRoot[] = "/sys/fs/cgroup";

bool Exists(const std::string& path);
// The whole file; "" when it cannot be read.
std::string ReadAll(const std::string& path);
// One write(2) of `value`, as the kernel wants for cgroup files.
// Unavailable naming the file, the value and the kernel's reason
// ("cannot write 100 to .../cpu.cfs_quota_us: Invalid argument").
Status WriteFile(const std::string& path, const std::string& value);

// This process's cgroup in the v1 hierarchy of `controller`, or in v2
// (controller ""), from /proc/self/cgroup: "" for the root, nullopt when
// this process is in no such hierarchy.
std::optional<std::string> OwnCgroup(const std::string& controller);

// The cgroup v2 mount whose cgroup of this process offers `controller`
// (cgroup.controllers); "" when there is none.
std::string UnifiedMountOffering(const std::string& controller);
// A v1 controller's mount ("/sys/fs/cgroup/pids"); "" when absent.
std::string V1Mount(const std::string& controller);

// The pids listed in `dir`/cgroup.procs and in those of every cgroup
// below it.
std::vector<int> Procs(const std::string& dir);
// `dir` and every cgroup below it, deepest first (the order rmdir needs).
std::vector<std::string> DirsDeepestFirst(const std::string& dir);

}  // namespace hpt::runner::cgroupfs
