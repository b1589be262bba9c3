#include "cli/parent_watch.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace hpt::cli {
namespace {

constexpr int kPollMs = 100;

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

StatusOr<std::unique_ptr<ParentWatch>> ParentWatch::Start(pid_t pid) {
  if (pid <= 1) return InvalidArgument("--parent-pid must be a process id above 1");
  // The hint first, then the check: a parent that died in between is
  // seen by the check.
  if (::getppid() == pid) (void)::prctl(PR_SET_PDEATHSIG, kParentDeathSignal);
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0 && errno == ESRCH) {
    return FailedPrecondition("--parent-pid " + std::to_string(pid) + ": no such process");
  }
  if (fd < 0 && !Alive(pid)) {
    return FailedPrecondition("--parent-pid " + std::to_string(pid) + ": no such process");
  }
  std::unique_ptr<ParentWatch> watch(new ParentWatch(pid, fd));
  watch->thread_ = std::thread([w = watch.get()] { w->Run(); });
  return watch;
}

ParentWatch::~ParentWatch() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

bool ParentWatch::Gone() const {
  if (gone_) return true;
  // A pidfd turns readable once its process ended (a zombie included).
  if (pid_fd_ >= 0) {
    pollfd p{pid_fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
  }
  return !Alive(pid_);
}

void ParentWatch::Run() {
  while (!stop_) {
    bool ended;
    if (pid_fd_ >= 0) {
      pollfd p{pid_fd_, POLLIN, 0};
      ended = ::poll(&p, 1, kPollMs) == 1;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      ended = !Alive(pid_);
    }
    if (ended && !stop_) {
      gone_ = true;
      ::kill(::getpid(), SIGTERM);  // what `hpt serve` stops on
      return;
    }
  }
}

}  // namespace hpt::cli
