// Re-attaching to supervised trials (`hpt trial-shim`) from a new executor,
// as a restarted server does: a trial still running is followed to its
// end with all its output; one that ended meanwhile reports its real end;
// one that is gone is not attached; trials killed through the new executor
// really stop.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"
#include "trial-runner/trial_shim.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using runner::testing::RecordingListener;
using runner::testing::Sh;
using runner::testing::Supervised;
using std::chrono::milliseconds;

bool Alive(int pid) { return pid > 0 && ::kill(pid, 0) == 0; }

// Five lines 0.2 s apart; the pid of the shell in <trial>.pid.
std::string Printer(const TempDir& dir, const std::string& trial) {
  return "echo $$ > " + dir.File(trial + ".pid") +
         "; for i in 0 1 2 3 4; do echo loss=$i; sleep 0.2; done";
}

// Starts `spec` under a first executor, waits for its first observation
// (when `wait`), and destroys that executor as a stopping server does:
// the trial goes on. The job id, or "" when it did not start.
std::string StartAndLeave(const LaunchSpec& spec, bool wait = true,
                          LocalExecutorOptions options = Supervised()) {
  RecordingListener first;
  auto executor = NewLocalExecutor(&first, options);
  auto job = executor->Start(spec);
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  if (!job.ok()) return "";
  if (wait) EXPECT_TRUE(first.WaitForObservations(spec.trial, 1));
  return job->id;
}

TEST(TrialRecoveryTest, NewExecutorFollowsARunningTrialToItsEnd) {
  TempDir dir;
  LaunchSpec spec = Sh(dir, "t", Printer(dir, "t"));
  const std::string job_id = StartAndLeave(spec);
  ASSERT_FALSE(job_id.empty());
  std::this_thread::sleep_for(milliseconds(300));
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  auto recovered = executor->Recover({{spec, job_id}});
  ASSERT_EQ(recovered.size(), 1u);
  EXPECT_TRUE(recovered[0].attached);
  EXPECT_EQ(executor->Running(), 1);
  ASSERT_TRUE(second.WaitForExits(1));
  ExitInfo exit = second.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kExited);
  EXPECT_EQ(exit.exit_code, 0);
  // The whole log again from its start: the listener skips what it has.
  auto obs = second.observations("t");
  ASSERT_EQ(obs.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(obs[i].metrics.at("loss"), i);
}

TEST(TrialRecoveryTest, TrialThatEndedMeanwhileReportsItsRealEnd) {
  TempDir dir;
  LaunchSpec spec = Sh(dir, "t", "echo loss=0.5; exit 3");
  // Gone before the trial ends.
  const std::string job_id = StartAndLeave(spec, /*wait=*/false);
  ASSERT_FALSE(job_id.empty());
  for (int i = 0; i < 100 && !ReadShimExit(spec.log_path); ++i) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  auto recovered = executor->Recover({{spec, job_id}});
  ASSERT_TRUE(recovered[0].attached);
  ASSERT_TRUE(second.WaitForExits(1));
  EXPECT_EQ(second.ExitOf("t").kind, ExitKind::kExited);
  EXPECT_EQ(second.ExitOf("t").exit_code, 3);
  ASSERT_EQ(second.observations("t").size(), 1u);
}

TEST(TrialRecoveryTest, JobIdNeverStoredIsFoundFromTheSupervisorsFile) {
  TempDir dir;
  LaunchSpec spec = Sh(dir, "t", Printer(dir, "t"));
  ASSERT_FALSE(StartAndLeave(spec).empty());  // its id never stored
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  auto recovered = executor->Recover({{spec, ""}});
  ASSERT_TRUE(recovered[0].attached);
  ASSERT_TRUE(second.WaitForExits(1));
  EXPECT_EQ(second.observations("t").size(), 5u);
}

TEST(TrialRecoveryTest, GoneJobIsNotAttached) {
  TempDir dir;
  LaunchSpec spec = Sh(dir, "t", "true");
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  // A job id of a process that is not there (pid 2's start time differs).
  auto recovered = executor->Recover({{spec, "local:2:1:nope:cafe"}, {spec, ""}});
  ASSERT_EQ(recovered.size(), 2u);
  EXPECT_FALSE(recovered[0].attached);
  EXPECT_FALSE(recovered[1].attached);
  EXPECT_EQ(executor->Running(), 0);
}

TEST(TrialRecoveryTest, KillThroughTheNewExecutorStopsTheTrial) {
  TempDir dir;
  LaunchSpec spec = Sh(dir, "t", "echo $$ > " + dir.File("t.pid") + "; echo loss=1; sleep 60");
  const std::string job_id = StartAndLeave(spec);
  ASSERT_FALSE(job_id.empty());
  const int trial = std::stoi(ReadFile(dir.File("t.pid")));
  ASSERT_TRUE(Alive(trial));
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, Supervised());
  ASSERT_TRUE(executor->Recover({{spec, job_id}})[0].attached);
  executor->Kill("exp", "t");
  ASSERT_TRUE(second.WaitForExits(1));
  EXPECT_EQ(second.ExitOf("t").kind, ExitKind::kKilled);
  for (int i = 0; i < 100 && Alive(trial); ++i) std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(Alive(trial));
}

TEST(TrialRecoveryTest, ReattachedTrialKeepsItsGpu) {
  TempDir dir;
  LocalExecutorOptions options = Supervised();
  options.gpus = DevicesFromIndices({0});
  LaunchSpec spec = Sh(dir, "t", "echo loss=1; sleep 60");
  spec.resources.gpu = 1;
  const std::string job_id = StartAndLeave(spec, true, options);
  ASSERT_FALSE(job_id.empty());
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, options);
  ASSERT_TRUE(executor->Recover({{spec, job_id}})[0].attached);
  LaunchSpec other = Sh(dir, "u", "true");
  other.resources.gpu = 1;
  EXPECT_EQ(executor->Start(other).status().code(), StatusCode::kUnavailable);
  executor->Kill("exp", "t");
  ASSERT_TRUE(second.WaitForExits(1));
  EXPECT_TRUE(executor->Start(other).ok());
  ASSERT_TRUE(second.WaitForExits(2));
}

TEST(TrialRecoveryTest, ShimArgumentsRoundTripAndBadOnesAreNamed) {
  ShimOptions o{"/tmp/x.log", 4096, 7, 100, 64 << 20, 0.5, "/tmp", {"sh", "-c", "echo --log"}, 64};
  auto parsed = ParseShimArguments(ShimArguments(o));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->log_path, o.log_path);
  EXPECT_EQ(parsed->timeout_seconds, 7);
  EXPECT_EQ(parsed->memory, 64 << 20);
  EXPECT_EQ(parsed->cpu, 0.5);
  EXPECT_EQ(parsed->pids, 64);
  EXPECT_EQ(parsed->argv, o.argv);
  auto bad = ParseShimArguments({"--timeout", "soon", "--log", "/x", "--", "true"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--timeout"), std::string::npos);
  EXPECT_FALSE(ParseShimArguments({"--log", "relative.log", "--", "true"}).ok());
  EXPECT_FALSE(ParseShimArguments({"--log", "/x.log", "--"}).ok());
  EXPECT_FALSE(ParseShimArguments({"--pids", "-1", "--log", "/x.log", "--", "true"}).ok());
  EXPECT_FALSE(ParseShimArguments({"--pids", "4194305", "--log", "/x.log", "--", "true"}).ok());
}

}  // namespace
}  // namespace hpt::runner
