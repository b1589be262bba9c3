// A supervised trial's tasks are capped by its pids cgroup (resources.pids,
// default 4096), written before the trial's first instruction runs: past
// the cap fork() fails, a fork bomb saturates at the cap while the host
// stays responsive, and the trial's end (here its timeout) kills all of it
// and removes the cgroup. Skipped where this machine cannot make cgroups.
//
// Safety, since these tests run as root: each trial checks its own
// pids.max before it forks much, the bomb waits for the test to have read
// the cap too, and every trial has a timeout; a guard kills whatever is
// left in the trial's cgroup when a test fails.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/cgroup_testing.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/executor.h"

extern char** environ;

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers
using std::chrono::milliseconds;

#define SKIP_WITHOUT_CGROUPS()                                          \
  if (std::string why = CgroupSupport(); !why.empty())                  \
  GTEST_SKIP() << "trial cgroups cannot be made here (not root, or no " \
                  "writable pids controller): "                         \
               << why

// Shell that writes the trial's cookie, and the pids.max of its own pids
// cgroup (v1 or v2) to pids.max; with `cap`, exits 3 unless that is `cap`.
std::string CapCheck(const TempDir& dir, const std::string& cap = "") {
  std::string script =
      "echo $HPT_JOB_COOKIE > " + dir.File("cookie") +
      "; p=$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)"
      "; if [ -n \"$p\" ]; then f=/sys/fs/cgroup/pids$p/pids.max"
      "; else p=$(sed -n 's/^0:://p' /proc/self/cgroup); f=/sys/fs/cgroup$p/pids.max"
      "; [ -e $f ] || f=/sys/fs/cgroup/unified$p/pids.max; fi"
      "; cat $f > " +
      dir.File("pids.max") + "; ";
  if (!cap.empty()) {
    script += "[ \"$(cat " + dir.File("pids.max") + ")\" = " + cap + " ] || { echo no cap of " +
              cap + "; exit 3; }; ";
  }
  return script;
}

// The trial's pids cgroup directory (the one with pids.max); "" when none.
std::string PidsDir(const std::string& cookie) {
  for (const std::string& dir : CgroupDirsNamed("hpt-" + cookie)) {
    if (PathExists(dir + "/pids.max")) return dir;
  }
  return "";
}

template <typename F>
bool PollUntil(F done, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

TEST(TrialPidsTest, EveryTrialHasTheDefaultCap) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  ASSERT_TRUE(executor->Start(Sh(dir, "t", CapCheck(dir) + "echo loss=1")).ok());
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(20)));
  EXPECT_EQ(ReadWord(dir.File("pids.max")), std::to_string(kDefaultTrialPids));
}

// The harmless version first: 200 sleeps under a cap of 64. dash gives up
// at the first fork that fails ("Cannot fork").
TEST(TrialPidsTest, ForksPastTheCapFailAndTheRestIsKilledAtTheEnd) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  leftovers.AddPidFile(dir.File("pids"));
  leftovers.AddCookieFile(dir.File("cookie"));
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  LaunchSpec spec = Sh(dir, "t",
                       CapCheck(dir) + "i=0; while [ $i -lt 200 ]; do sleep 30 & echo $! >> " +
                           dir.File("pids") + "; i=$((i+1)); done; echo all started");
  spec.resources.pids = 64;
  spec.timeout_seconds = 20;
  auto job = executor->Start(spec);
  ASSERT_TRUE(job.ok());
  leftovers.AddSupervisor(job->pid);
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(30)));
  const std::string log = ReadFile(spec.log_path);
  EXPECT_EQ(log.find("all started"), std::string::npos) << log;
  EXPECT_NE(log.find("fork"), std::string::npos) << log;
  std::vector<int> sleeps;
  {
    std::istringstream in(ReadFile(dir.File("pids")));
    for (int pid; in >> pid;) sleeps.push_back(pid);
  }
  // The shell and its sleeps: at most the cap.
  EXPECT_LE(sleeps.size() + 1, 64u);
  EXPECT_GE(sleeps.size(), 32u);
  for (int pid : sleeps) EXPECT_TRUE(WaitGone(pid)) << pid;
  EXPECT_EQ(CgroupDirsNamed("hpt-" + ReadWord(dir.File("cookie"))), std::vector<std::string>{});
}

// How long starting and reaping /bin/true takes here; -1 if it failed.
double SpawnTrueSeconds() {
  auto start = Clock::now();
  pid_t pid = 0;
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  if (posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || status != 0) return -1;
  return Seconds(start);
}

TEST(TrialPidsTest, ForkBombStaysUnderItsCapAndEndsWithItsTimeout) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  leftovers.AddCookieFile(dir.File("cookie"));
  RecordingListener listener;
  LocalExecutorOptions options = Supervised();
  options.kill_grace_ms = 200;
  auto executor = NewLocalExecutor(&listener, options);
  const std::string go = dir.File("go");
  LaunchSpec spec = Sh(dir, "bomb",
                       CapCheck(dir, "64") + "while [ ! -e " + go +
                           " ]; do sleep 0.05; done; sleep 60 & s=$!; b() { b | b & }; b; wait $s");
  spec.resources.pids = 64;
  spec.timeout_seconds = 4;
  const auto started = Clock::now();
  auto job = executor->Start(spec);
  ASSERT_TRUE(job.ok());
  leftovers.AddSupervisor(job->pid);
  // The cap is in place before the bomb goes off.
  std::string cookie, pids_dir;
  ASSERT_TRUE(PollUntil(
      [&] {
        cookie = ReadWord(dir.File("cookie"));
        pids_dir = cookie.empty() ? "" : PidsDir(cookie);
        return !pids_dir.empty() && PathExists(dir.File("pids.max"));
      },
      milliseconds(3000)));
  ASSERT_EQ(ReadWord(pids_dir + "/pids.max"), "64");
  hpt::testing::WriteFile(go, "");

  size_t most_procs = 0;
  int64_t most_tasks = 0;
  double slowest_spawn = 0;
  while (listener.exits().empty() && Seconds(started) < 15) {
    std::string current = ReadWord(pids_dir + "/pids.current");
    if (!current.empty()) most_tasks = std::max<int64_t>(most_tasks, std::stoll(current));
    most_procs = std::max(most_procs, CgroupProcs(pids_dir).size());
    slowest_spawn = std::max(slowest_spawn, SpawnTrueSeconds());
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(15)));
  EXPECT_EQ(listener.ExitOf("bomb").kind, ExitKind::kTimedOut) << listener.ExitOf("bomb").log_tail;
  EXPECT_LT(Seconds(started), 10.0);
  // It really bombed, and never past its cap.
  EXPECT_GE(most_tasks, 32);
  EXPECT_LE(most_tasks, 64);
  EXPECT_LE(most_procs, 64u);
  // This process could still start one meanwhile, quickly.
  EXPECT_GE(slowest_spawn, 0.0);
  EXPECT_LT(slowest_spawn, 2.0);
  EXPECT_EQ(CgroupDirsNamed("hpt-" + cookie), std::vector<std::string>{});
  std::printf(
      "fork bomb: at most %lld tasks (%zu processes) under a cap of 64; slowest "
      "/bin/true meanwhile %.3f s; ended after %.2f s\n",
      static_cast<long long>(most_tasks), most_procs, slowest_spawn, Seconds(started));
}

}  // namespace
}  // namespace hpt::runner
