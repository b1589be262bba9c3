// ProcessIdentity: a recorded process is "the same" only while it runs,
// with the start time it was recorded with. An exited process its parent
// has not reaped yet (a zombie, as orphaned trial supervisors stay under an
// init that reaps late) has ended: recovery read it as a live process that
// is no supervisor, and killed its trial's leftovers instead of reading its
// recorded end.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "trial-runner/process_identity.h"

namespace hpt::runner {
namespace {

ProcessIdentity IdentityOf(pid_t pid) {
  ProcessIdentity id;
  id.pid = pid;
  id.start_time = ProcessStartTime(pid).value_or(0);
  id.boot_id = BootId();
  id.cookie = NewCookie();
  return id;
}

pid_t ForkSleeper() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

TEST(ProcessIdentityTest, ALiveProcessIsTheSame) {
  pid_t pid = ForkSleeper();
  ASSERT_GT(pid, 0);
  ProcessIdentity id = IdentityOf(pid);
  EXPECT_TRUE(IsSameProcess(id));
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_FALSE(IsSameProcess(id)) << "reaped";
}

TEST(ProcessIdentityTest, AZombieHasEnded) {
  pid_t pid = ForkSleeper();
  ASSERT_GT(pid, 0);
  ProcessIdentity id = IdentityOf(pid);
  ::kill(pid, SIGKILL);
  siginfo_t info{};
  // Waits for the exit but leaves the zombie in place.
  ASSERT_EQ(waitid(P_PID, pid, &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(ProcessStartTime(pid).has_value()) << "still in /proc";
  EXPECT_FALSE(IsSameProcess(id));
  waitpid(pid, nullptr, 0);
}

TEST(ProcessIdentityTest, AnotherStartTimeOrBootIsAnotherProcess) {
  pid_t pid = ForkSleeper();
  ASSERT_GT(pid, 0);
  ProcessIdentity id = IdentityOf(pid);
  ProcessIdentity reused = id;
  reused.start_time += 1;
  EXPECT_FALSE(IsSameProcess(reused));
  ProcessIdentity rebooted = id;
  rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
  EXPECT_FALSE(IsSameProcess(rebooted));
  ProcessIdentity init = id;
  init.pid = 1;
  EXPECT_FALSE(IsSameProcess(init));
  ::kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace
}  // namespace hpt::runner
