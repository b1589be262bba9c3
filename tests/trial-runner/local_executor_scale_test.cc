// Many trials at once, callbacks that start trials, and shutdown.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::TempDir;
using runner::testing::RecordingListener;
using Clock = std::chrono::steady_clock;

LaunchSpec Echo(const TempDir& dir, int i) {
  LaunchSpec spec;
  spec.experiment = "exp";
  spec.trial = "t" + std::to_string(i);
  spec.argv = {"echo", "loss=" + std::to_string(i)};
  spec.working_dir = dir.path();
  spec.log_path = dir.File("logs/" + spec.trial + ".log");
  spec.metric_names = {"loss"};
  return spec;
}

int OpenFds() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

TEST(LocalExecutorScaleTest, ManyTrialsInParallel) {
  TempDir dir;
  RecordingListener listener;
  int fds_before = OpenFds();
  auto executor = NewLocalExecutor(&listener);
  constexpr int kTrials = 64;
  for (int i = 0; i < kTrials; ++i) {
    ASSERT_TRUE(executor->Start(Echo(dir, i)).ok());
  }
  ASSERT_TRUE(listener.WaitForExits(kTrials));
  for (int i = 0; i < kTrials; ++i) {
    std::string trial = "t" + std::to_string(i);
    EXPECT_EQ(listener.ExitOf(trial).kind, ExitKind::kExited);
    auto obs = listener.observations(trial);
    ASSERT_EQ(obs.size(), 1u) << trial;
    EXPECT_DOUBLE_EQ(obs[0].metrics.at("loss"), i);
  }
  EXPECT_EQ(executor->Running(), 0);
  executor.reset();
  EXPECT_EQ(OpenFds(), fds_before) << "descriptors leaked";
}

TEST(LocalExecutorScaleTest, CallbacksStartTheNextTrials) {
  TempDir dir;
  RecordingListener listener;
  constexpr int kTrials = 200;
  constexpr int kParallel = 8;
  std::atomic<int> next{kParallel};
  std::atomic<int> running_at_exit_max{0};
  std::unique_ptr<Executor> executor;  // destroyed before what the hook uses
  listener.SetOnExit([&](const RecordingListener::Exit&) {
    int running = executor->Running();
    if (running > running_at_exit_max) running_at_exit_max = running;
    int i = next++;
    if (i < kTrials) {
      EXPECT_TRUE(executor->Start(Echo(dir, i)).ok());
    }
  });
  executor = NewLocalExecutor(&listener);
  for (int i = 0; i < kParallel; ++i) {
    ASSERT_TRUE(executor->Start(Echo(dir, i)).ok());
  }
  ASSERT_TRUE(listener.WaitForExits(kTrials));
  // The finishing trial no longer counts while OnExit runs.
  EXPECT_LT(running_at_exit_max.load(), kParallel);
  for (int i = 0; i < kTrials; ++i) {
    EXPECT_EQ(listener.observations("t" + std::to_string(i)).size(), 1u);
  }
  listener.SetOnExit(nullptr);
}

TEST(LocalExecutorScaleTest, DestructorKillsRunningTrials) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener);
  for (int i = 0; i < 3; ++i) {
    LaunchSpec spec = Echo(dir, i);
    spec.argv = {"sleep", "100"};
    ASSERT_TRUE(executor->Start(spec).ok());
  }
  Clock::time_point start = Clock::now();
  executor.reset();
  // Far less than the trials' 100 s: they were killed, not waited for.
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30);
  ASSERT_EQ(listener.exits().size(), 3u);
  for (const auto& exit : listener.exits()) {
    EXPECT_EQ(exit.info.kind, ExitKind::kKilled);
  }
}

}  // namespace
}  // namespace hpt::runner
