#pragma once
// CpuBudget: a cgroup (v1 cpu controller) whose processes may use at most
// `cores` CPUs between them (cpu.cfs_quota_us over cpu.cfs_period_us), as
// on a machine of that size. The several-servers rows of
// hpt_bench_postgres give each server one, so that servers sharing this
// machine's cores stand for servers on machines of their own. Needs root
// and a writable v1 cpu hierarchy. Not thread-safe.

#include <sys/types.h>

#include <memory>
#include <string>

#include "api/status.h"

namespace hpt::bench {

class CpuBudget {
 public:
  // A new group under the cpu hierarchy's root; Unavailable saying why
  // when there is none this process may write.
  static StatusOr<std::unique_ptr<CpuBudget>> Create(double cores);
  // Moves what is left in the group back to the root, and removes it.
  ~CpuBudget();
  CpuBudget(const CpuBudget&) = delete;
  CpuBudget& operator=(const CpuBudget&) = delete;

  // Moves `pid` and all its threads into the group; threads and children
  // it starts later are in it too.
  Status Add(pid_t pid);
  double cores() const { return cores_; }

 private:
  CpuBudget(std::string root, std::string dir, double cores)
      : root_(std::move(root)), dir_(std::move(dir)), cores_(cores) {}
  std::string root_;  // the hierarchy's mount
  std::string dir_;   // the group
  double cores_;
};

}  // namespace hpt::bench
