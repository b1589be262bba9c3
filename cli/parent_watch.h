#pragma once
// `hpt serve --parent-pid PID`: a server that belongs to one process
// (hpt.local()'s Python) stops when that process ends, however it ends
// (killed, out of memory, the end of a Slurm job), instead of living on
// under init with its temporary database.
//
// Two ways to notice, as neither alone is enough: the kernel's
// parent-death signal (PR_SET_PDEATHSIG, at once, but sent when the
// *thread* that started this process ends, so it is only a hint, checked
// against the process), and a watchdog thread that polls a pidfd of PID
// (which also serves a PID that is not the direct parent, e.g. behind a
// wrapper script). Either makes this process receive SIGTERM, which `hpt
// serve` already stops on.

#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <thread>

#include "api/status.h"

namespace hpt::cli {

// The signal the parent's death sends (a hint: see Gone()). Block it with
// the stop signals before any thread starts, and sigwait for it too.
inline constexpr int kParentDeathSignal = SIGUSR2;

class ParentWatch {
 public:
  // Watches `pid`; InvalidArgument for pid <= 1, FailedPrecondition when
  // no such process runs now. Call with the stop signals blocked (the
  // watchdog inherits the mask).
  static StatusOr<std::unique_ptr<ParentWatch>> Start(pid_t pid);
  ~ParentWatch();
  ParentWatch(const ParentWatch&) = delete;
  ParentWatch& operator=(const ParentWatch&) = delete;

  // The watched process has ended.
  bool Gone() const;

 private:
  explicit ParentWatch(pid_t pid, int pid_fd) : pid_(pid), pid_fd_(pid_fd) {}
  void Run();

  const pid_t pid_;
  const int pid_fd_;  // -1: no pidfd here; kill(pid, 0) is polled
  std::atomic<bool> stop_{false};
  std::atomic<bool> gone_{false};
  std::thread thread_;
};

}  // namespace hpt::cli
