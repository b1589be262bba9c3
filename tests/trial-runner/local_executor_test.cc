#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using hpt::testing::WriteFile;
using namespace runner::testing;  // NOLINT: the fixture's helpers
using std::chrono::milliseconds;

TEST_P(LocalExecutorTest, ExitZeroDeliversObservationsAndWritesTheLog) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  StatusOr<JobHandle> pid = executor->Start(Sh(
      dir, "t1",
      "echo 'epoch 1: loss=0.5 acc=0.7'; echo noise; echo step=7 loss=0.25"));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_GT(pid->pid, 0);
  EXPECT_EQ(pid->id.rfind("local:" + std::to_string(pid->pid) + ":", 0), 0u) << pid->id;
  ASSERT_TRUE(listener.WaitForExits(1));

  ExitInfo exit = listener.ExitOf("t1");
  EXPECT_EQ(exit.kind, ExitKind::kExited);
  EXPECT_EQ(exit.exit_code, 0);
  std::vector<api::Observation> obs = listener.observations("t1");
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].step, 0);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("loss"), 0.5);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("acc"), 0.7);
  EXPECT_EQ(obs[1].step, 7);
  EXPECT_DOUBLE_EQ(obs[1].metrics.at("loss"), 0.25);
  EXPECT_EQ(ReadFile(dir.File("logs/t1.log")),
            "epoch 1: loss=0.5 acc=0.7\nnoise\nstep=7 loss=0.25\n");
  EXPECT_EQ(executor->Running(), 0);
}

TEST_P(LocalExecutorTest, StderrAndUnterminatedLastLineAreCaptured) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  ASSERT_TRUE(
      executor->Start(Sh(dir, "t", "echo acc=0.1 >&2; printf loss=0.5")).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  std::vector<api::Observation> obs = listener.observations("t");
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("acc"), 0.1);
  EXPECT_DOUBLE_EQ(obs[1].metrics.at("loss"), 0.5);
  EXPECT_EQ(listener.ExitOf("t").log_tail, "acc=0.1\nloss=0.5");
}

TEST_P(LocalExecutorTest, NonZeroExitReportsCodeAndLogTail) {
  TempDir dir;
  RecordingListener listener;
  LocalExecutorOptions options = Options();
  options.log_tail_lines = 2;
  auto executor = NewLocalExecutor(&listener, options);
  ASSERT_TRUE(executor
                  ->Start(Sh(dir, "t",
                             "for i in 1 2 3 4; do echo line$i; done; "
                             "echo oops >&2; exit 3"))
                  .ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kExited);
  EXPECT_EQ(exit.exit_code, 3);
  EXPECT_EQ(exit.log_tail, "line4\noops");
}

TEST_P(LocalExecutorTest, DeathBySignalIsSignaled) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  ASSERT_TRUE(executor->Start(Sh(dir, "t", "kill -9 $$")).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kSignaled);
  EXPECT_EQ(exit.signal, SIGKILL);
}

TEST_P(LocalExecutorTest, MissingProgramIsStartFailed) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec in_path = Sh(dir, "path", "");
  in_path.argv = {"hpt-no-such-program", "--flag"};
  LaunchSpec absolute = Sh(dir, "absolute", "");
  absolute.argv = {dir.File("missing/prog")};
  ASSERT_TRUE(executor->Start(in_path).ok());
  ASSERT_TRUE(executor->Start(absolute).ok());
  ASSERT_TRUE(listener.WaitForExits(2));

  ExitInfo exit = listener.ExitOf("path");
  EXPECT_EQ(exit.kind, ExitKind::kStartFailed);
  EXPECT_NE(exit.log_tail.find("hpt-no-such-program"), std::string::npos)
      << exit.log_tail;
  EXPECT_NE(ReadFile(dir.File("logs/path.log")).find("hpt-no-such-program"),
            std::string::npos);
  exit = listener.ExitOf("absolute");
  EXPECT_EQ(exit.kind, ExitKind::kStartFailed);
  EXPECT_NE(exit.log_tail.find("No such file"), std::string::npos)
      << exit.log_tail;
}

TEST_P(LocalExecutorTest, MissingWorkingDirIsStartFailed) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec spec = Sh(dir, "t", "echo loss=1");
  spec.working_dir = dir.File("nowhere");
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kStartFailed);
  EXPECT_NE(exit.log_tail.find("chdir " + spec.working_dir), std::string::npos)
      << exit.log_tail;
  EXPECT_TRUE(listener.observations("t").empty());
}

TEST_P(LocalExecutorTest, InvalidSpecsAndDuplicatesAreRejected) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec empty = Sh(dir, "empty", "");
  empty.argv.clear();
  EXPECT_EQ(executor->Start(empty).status().code(),
            StatusCode::kInvalidArgument);
  LaunchSpec bad_regex = Sh(dir, "regex", "true");
  bad_regex.collector.metrics_format = {"[oops"};
  EXPECT_EQ(executor->Start(bad_regex).status().code(),
            StatusCode::kInvalidArgument);
  LaunchSpec bad_kind = Sh(dir, "kind", "true");
  bad_kind.collector.kind = "Prometheus";
  EXPECT_EQ(executor->Start(bad_kind).status().code(),
            StatusCode::kInvalidArgument);

  ASSERT_TRUE(executor->Start(Sh(dir, "dup", "sleep 30")).ok());
  EXPECT_EQ(executor->Running(), 1);
  EXPECT_EQ(executor->Start(Sh(dir, "dup", "true")).status().code(),
            StatusCode::kAlreadyExists);
  executor->Kill("exp", "dup");
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_EQ(listener.exits().size(), 1u);  // only the one that started
}

TEST_P(LocalExecutorTest, TimeoutKillsTheTrial) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec spec = Sh(dir, "t", "echo loss=1; sleep 30");
  spec.timeout_seconds = 1;
  Clock::time_point start = Clock::now();
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_GE(Seconds(start), 0.9);
  EXPECT_LT(Seconds(start), 5);
  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kTimedOut);
  EXPECT_EQ(exit.signal, SIGTERM);
  EXPECT_EQ(listener.observations("t").size(), 1u);
}

TEST_P(LocalExecutorTest, KillStopsTheWholeProcessGroup) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec spec = Sh(dir, "t", "sleep 100 & echo child=$!; sleep 100");
  spec.metric_names = {"child"};
  StatusOr<JobHandle> job = executor->Start(spec);
  ASSERT_TRUE(job.ok());
  StatusOr<int64_t> pgid = job->pid;
  ASSERT_TRUE(pgid.ok());
  ASSERT_TRUE(listener.WaitForObservations("t", 1));
  int grandchild =
      static_cast<int>(listener.observations("t")[0].metrics.at("child"));
  EXPECT_EQ(kill(-static_cast<pid_t>(*pgid), 0), 0) << "no group " << *pgid;
  EXPECT_FALSE(Gone(grandchild));

  Clock::time_point start = Clock::now();
  executor->Kill("exp", "t");
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_LT(Seconds(start), 2);
  EXPECT_EQ(listener.ExitOf("t").kind, ExitKind::kKilled);
  EXPECT_TRUE(WaitGone(grandchild));
  executor->Kill("exp", "t");  // finished: a no-op
  executor->Kill("exp", "unknown");
}

TEST_P(LocalExecutorTest, KillEscalatesToSigkillAfterTheGracePeriod) {
  TempDir dir;
  RecordingListener listener;
  LocalExecutorOptions options = Options();
  options.kill_grace_ms = 200;
  auto executor = NewLocalExecutor(&listener, options);
  ASSERT_TRUE(
      executor->Start(Sh(dir, "t", "trap '' TERM; echo loss=1; sleep 100"))
          .ok());
  ASSERT_TRUE(listener.WaitForObservations("t", 1));
  Clock::time_point start = Clock::now();
  executor->Kill("exp", "t");
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_GE(Seconds(start), 0.15);
  EXPECT_LT(Seconds(start), 3);
  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kKilled);
  EXPECT_EQ(exit.signal, SIGKILL);
}

TEST_P(LocalExecutorTest, LeftoverBackgroundProcessesEndWithTheTrial) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  LaunchSpec spec = Sh(dir, "t", "sleep 100 & echo child=$!");
  spec.metric_names = {"child"};
  Clock::time_point start = Clock::now();
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_LT(Seconds(start), 2);
  EXPECT_EQ(listener.ExitOf("t").kind, ExitKind::kExited);
  ASSERT_EQ(listener.observations("t").size(), 1u);
  EXPECT_TRUE(WaitGone(
      static_cast<int>(listener.observations("t")[0].metrics.at("child"))));
}

TEST_P(LocalExecutorTest, PassesEnvironmentAndWorkingDir) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  setenv("HPT_RUNNER_TEST_KEPT", "11", 1);
  setenv("HPT_RUNNER_TEST_OVERRIDDEN", "1", 1);
  LaunchSpec spec =
      Sh(dir, "t",
         "echo kept=$HPT_RUNNER_TEST_KEPT "
         "overridden=$HPT_RUNNER_TEST_OVERRIDDEN added=$HPT_ADDED; "
         "pwd > where.txt");
  spec.env = {{"HPT_RUNNER_TEST_OVERRIDDEN", "22"}, {"HPT_ADDED", "33"}};
  spec.metric_names = {"kept", "overridden", "added"};
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  std::vector<api::Observation> obs = listener.observations("t");
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].metrics,
            (std::map<std::string, double>{
                {"kept", 11}, {"overridden", 22}, {"added", 33}}));
  EXPECT_EQ(ReadFile(dir.File("where.txt")), dir.path() + "\n");
}

TEST_P(LocalExecutorTest, FindsProgramsInTheTrialsPathAndRunsPlainScripts) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  // No "#!": run by /bin/sh, as execvp does.
  WriteFile(dir.File("bin/train"), "echo loss=$1\n");
  std::filesystem::permissions(dir.File("bin/train"),
                               std::filesystem::perms::owner_all);
  LaunchSpec spec = Sh(dir, "t", "");
  spec.argv = {"train", "0.125"};
  spec.env = {{"PATH", dir.File("bin") + ":/usr/bin:/bin"}};
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_EQ(listener.ExitOf("t").kind, ExitKind::kExited);
  std::vector<api::Observation> obs = listener.observations("t");
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("loss"), 0.125);
}

TEST_P(LocalExecutorTest, FileCollectorTailsTheFileAndSkipsStaleContent) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  WriteFile(dir.File("out/metrics.txt"), "loss=9\n");  // a previous run's
  LaunchSpec spec = Sh(dir, "t",
                       "echo loss=0.9 >> out/metrics.txt; sleep 0.3; "
                       "echo step=5 loss=0.1 >> out/metrics.txt; "
                       "printf loss=0.05 >> out/metrics.txt; echo loss=0.77");
  spec.collector.kind = "File";
  spec.collector.file_path = "out/metrics.txt";
  ASSERT_TRUE(executor->Start(spec).ok());
  // The first line arrives while the trial still runs.
  ASSERT_TRUE(listener.WaitForObservations("t", 1));
  EXPECT_TRUE(listener.exits().empty());
  ASSERT_TRUE(listener.WaitForExits(1));
  std::vector<api::Observation> obs = listener.observations("t");
  ASSERT_EQ(obs.size(), 3u);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("loss"), 0.9);
  EXPECT_EQ(obs[1].step, 5);
  EXPECT_DOUBLE_EQ(obs[1].metrics.at("loss"), 0.1);
  EXPECT_DOUBLE_EQ(obs[2].metrics.at("loss"), 0.05);
  EXPECT_EQ(ReadFile(dir.File("logs/t.log")), "loss=0.77\n");
}

TEST_P(LocalExecutorTest, FileCollectorRereadsARewrittenFile) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  WriteFile(dir.File("metrics.txt"), "loss=9\nloss=8\nloss=7\n");
  LaunchSpec spec = Sh(dir, "t", "echo loss=0.5 > metrics.txt");
  spec.collector.kind = "File";
  spec.collector.file_path = "metrics.txt";
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  std::vector<api::Observation> obs = listener.observations("t");
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_DOUBLE_EQ(obs[0].metrics.at("loss"), 0.5);
}

TEST_P(LocalExecutorTest, PushAndNoneCollectorsOnlyLog) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  for (const char* kind : {"Push", "None"}) {
    LaunchSpec spec = Sh(dir, kind, "echo loss=0.5");
    spec.collector.kind = kind;
    ASSERT_TRUE(executor->Start(spec).ok());
  }
  ASSERT_TRUE(listener.WaitForExits(2));
  EXPECT_TRUE(listener.observations("Push").empty());
  EXPECT_TRUE(listener.observations("None").empty());
  EXPECT_EQ(ReadFile(dir.File("logs/Push.log")), "loss=0.5\n");
}

INSTANTIATE_TEST_SUITE_P(Modes, LocalExecutorTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Supervised" : "Direct"; });

}  // namespace
}  // namespace hpt::runner
