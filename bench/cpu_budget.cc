#include "bench/cpu_budget.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>

#include "trial-runner/cgroup_fs.h"

namespace hpt::bench {

namespace cgroupfs = hpt::runner::cgroupfs;

StatusOr<std::unique_ptr<CpuBudget>> CpuBudget::Create(double cores) {
  if (!(cores > 0)) return InvalidArgument("a CPU budget needs a positive number of cores");
  const std::string root = cgroupfs::V1Mount("cpu");
  if (root.empty()) return Unavailable("no cgroup v1 cpu hierarchy under /sys/fs/cgroup");
  static std::atomic<int> made{0};
  const std::string dir = root + "/hpt-bench-" + std::to_string(::getpid()) + "-" +
                          std::to_string(made++);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    return Unavailable("cannot create the cgroup " + dir + " (root needed)");
  }
  std::unique_ptr<CpuBudget> budget(new CpuBudget(root, dir, cores));
  const int64_t period_us = 100'000;
  HPT_RETURN_IF_ERROR(cgroupfs::WriteFile(dir + "/cpu.cfs_period_us", std::to_string(period_us)));
  HPT_RETURN_IF_ERROR(cgroupfs::WriteFile(
      dir + "/cpu.cfs_quota_us", std::to_string(std::llround(cores * period_us))));
  return budget;
}

CpuBudget::~CpuBudget() {
  for (int pid : cgroupfs::Procs(dir_)) {
    (void)cgroupfs::WriteFile(root_ + "/cgroup.procs", std::to_string(pid));
  }
  ::rmdir(dir_.c_str());
}

Status CpuBudget::Add(pid_t pid) {
  return cgroupfs::WriteFile(dir_ + "/cgroup.procs", std::to_string(pid));
}

}  // namespace hpt::bench
