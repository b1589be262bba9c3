// Every supervised trial runs in a cgroup of its own, and its end kills
// every process in it — also those that left the trial's session and
// environment (setsid, env -i, a double fork), which a sweep by session
// and HPT_JOB_COOKIE cannot find — and removes the cgroup: when the trial
// exits, when its supervisor is killed, and after a re-attach; never while
// it still runs. A CPU limit the kernel refuses is said in the trial's
// log, not dropped. Skipped where this machine cannot make cgroups.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/cgroup_testing.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers

#define SKIP_WITHOUT_CGROUPS()                                          \
  if (std::string why = CgroupSupport(); !why.empty())                  \
  GTEST_SKIP() << "trial cgroups cannot be made here (not root, or no " \
                  "writable pids controller): "                         \
               << why

// Writes the trial's cookie and cgroups, then starts two processes that
// escape its session and environment: `setsid env -i sleep 300 &`, and a
// double-forked daemon (`env -i setsid -w sh -c 'sleep 301 &'`; -w: its pid
// is written before the trial goes on). Their pids go to setsid.pid and
// daemon.pid; `then` runs last.
std::string EscapingTrial(const TempDir& dir, const std::string& then) {
  return "echo $HPT_JOB_COOKIE > " + dir.File("cookie") + "; cat /proc/self/cgroup > " +
         dir.File("cgroup") + "; setsid env -i sleep 300 & echo $! > " + dir.File("setsid.pid") +
         "; env -i setsid -w sh -c 'sleep 301 & echo $! > " + dir.File("daemon.pid") + "'" +
         "; echo loss=1; " + then;
}

void GuardLeftovers(Leftovers& leftovers, const TempDir& dir) {
  leftovers.AddPidFile(dir.File("setsid.pid"));
  leftovers.AddPidFile(dir.File("daemon.pid"));
  leftovers.AddCookieFile(dir.File("cookie"));
}

// Both escapees are dead and no hierarchy holds the trial's cgroup.
void ExpectNothingLeft(const TempDir& dir, const std::string& cookie) {
  for (const char* file : {"setsid.pid", "daemon.pid"}) {
    int pid = ReadPidFile(dir.File(file));
    ASSERT_GT(pid, 0) << file;
    EXPECT_TRUE(WaitGone(pid)) << file << ": pid " << pid << " outlived its trial";
  }
  EXPECT_EQ(CgroupDirsNamed("hpt-" + cookie), std::vector<std::string>{});
}

class TrialCgroupTest : public ::testing::TestWithParam<bool> {
 protected:
  // With memory and cpu limits, or with none; over within a minute
  // whatever happens.
  static void Limit(LaunchSpec& spec) {
    spec.timeout_seconds = 60;
    if (!GetParam()) return;
    spec.resources.memory = 256 << 20;
    spec.resources.cpu = 1;
  }
};

TEST_P(TrialCgroupTest, EscapeesDieWithTheTrialAndItsCgroupGoes) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  GuardLeftovers(leftovers, dir);
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  LaunchSpec spec = Sh(dir, "t", EscapingTrial(dir, "exit 0"));
  Limit(spec);
  auto job = executor->Start(spec);
  ASSERT_TRUE(job.ok());
  leftovers.AddSupervisor(job->pid);
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(20)));
  EXPECT_EQ(listener.ExitOf("t").kind, ExitKind::kExited);
  const std::string cookie = ReadWord(dir.File("cookie"));
  ASSERT_FALSE(cookie.empty());
  // It ran in its cgroup (every trial has one, limited or not) ...
  EXPECT_NE(ReadFile(dir.File("cgroup")).find("/hpt-" + cookie), std::string::npos)
      << ReadFile(dir.File("cgroup"));
  // ... which is gone with everything in it.
  ExpectNothingLeft(dir, cookie);
}

TEST_P(TrialCgroupTest, KilledSupervisorsTrialIsCleanedUpByTheExecutor) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  GuardLeftovers(leftovers, dir);
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  LaunchSpec spec = Sh(dir, "t", EscapingTrial(dir, "sleep 60"));
  Limit(spec);
  auto job = executor->Start(spec);
  ASSERT_TRUE(job.ok());
  leftovers.AddSupervisor(job->pid);
  ASSERT_TRUE(listener.WaitForObservations("t", 1));
  const std::string cookie = ReadWord(dir.File("cookie"));
  ASSERT_FALSE(cookie.empty());
  ASSERT_FALSE(CgroupDirsNamed("hpt-" + cookie).empty());
  // The supervisor cannot clean up after itself now.
  ASSERT_EQ(::kill(job->pid, SIGKILL), 0);
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(20)));
  ExpectNothingLeft(dir, cookie);
}

TEST_P(TrialCgroupTest, ReattachingLeavesARunningTrialAloneThenCleansUp) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  GuardLeftovers(leftovers, dir);
  const std::string go = dir.File("go");
  LaunchSpec spec =
      Sh(dir, "t", EscapingTrial(dir, "while [ ! -e " + go + " ]; do sleep 0.05; done"));
  Limit(spec);
  std::string job_id;
  {
    // A server that stops (or crashes): the trial goes on.
    RecordingListener first;
    auto executor = NewLocalExecutor(&first, Supervised());
    auto job = executor->Start(spec);
    ASSERT_TRUE(job.ok());
    leftovers.AddSupervisor(job->pid);
    job_id = job->id;
    ASSERT_TRUE(first.WaitForObservations("t", 1));
  }
  const std::string cookie = ReadWord(dir.File("cookie"));
  ASSERT_FALSE(cookie.empty());
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  ASSERT_TRUE(executor->Recover({{spec, job_id}})[0].attached);
  // Re-attached, not cleaned up: the trial and its cgroup are as they were.
  const int escapee = ReadPidFile(dir.File("setsid.pid"));
  EXPECT_FALSE(Gone(escapee));
  EXPECT_FALSE(CgroupDirsNamed("hpt-" + cookie).empty());
  EXPECT_EQ(second.exits().size(), 0u);
  hpt::testing::WriteFile(go, "");
  ASSERT_TRUE(second.WaitForExits(1, std::chrono::seconds(20)));
  EXPECT_EQ(second.ExitOf("t").kind, ExitKind::kExited);
  ExpectNothingLeft(dir, cookie);
}

// The supervisor dies while no server watches (both crashed): the next
// server finds no recorded end, so nothing to attach to, and kills what is
// left of the trial, in its cgroup too.
TEST_P(TrialCgroupTest, RecoveryCleansUpATrialWhoseSupervisorDiedMeanwhile) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  GuardLeftovers(leftovers, dir);
  LaunchSpec spec = Sh(dir, "t", EscapingTrial(dir, "sleep 60"));
  Limit(spec);
  std::string job_id;
  int supervisor = 0;
  {
    RecordingListener first;
    auto executor = NewLocalExecutor(&first, Supervised());
    auto job = executor->Start(spec);
    ASSERT_TRUE(job.ok());
    leftovers.AddSupervisor(job->pid);
    job_id = job->id;
    supervisor = job->pid;
    ASSERT_TRUE(first.WaitForObservations("t", 1));
  }
  const std::string cookie = ReadWord(dir.File("cookie"));
  ASSERT_FALSE(cookie.empty());
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  ASSERT_TRUE(WaitGone(supervisor));
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  EXPECT_FALSE(executor->Recover({{spec, job_id}})[0].attached);
  ExpectNothingLeft(dir, cookie);
}

INSTANTIATE_TEST_SUITE_P(LimitedOrNot, TrialCgroupTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Limited" : "Unlimited"; });

// 0.001 cores is a quota of 100 us per 100 ms period, below the kernel's
// 1 ms minimum: the write fails (EINVAL), as it would for any quota the
// kernel refuses. The trial still runs, in a cgroup with its task cap, and
// its log says that cpu is not limited.
TEST(TrialCgroupCpuTest, CpuLimitTheKernelRefusesIsReportedNotDropped) {
  SKIP_WITHOUT_CGROUPS();
  TempDir dir;
  Leftovers leftovers;
  leftovers.AddCookieFile(dir.File("cookie"));
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  LaunchSpec spec = Sh(dir, "t",
                       "echo $HPT_JOB_COOKIE > " + dir.File("cookie") +
                           "; cat /proc/self/cgroup > " + dir.File("cgroup") + "; echo loss=1");
  spec.resources.cpu = 0.001;
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(20)));
  EXPECT_EQ(listener.ExitOf("t").exit_code, 0);
  EXPECT_EQ(listener.observations("t").size(), 1u);
  const std::string log = ReadFile(spec.log_path);
  EXPECT_NE(log.find("cpu is not limited"), std::string::npos) << log;
  EXPECT_NE(log.find("Invalid argument"), std::string::npos) << log;
  EXPECT_NE(ReadFile(dir.File("cgroup")).find("/hpt-" + ReadWord(dir.File("cookie"))),
            std::string::npos);
}

}  // namespace
}  // namespace hpt::runner
