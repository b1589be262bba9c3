// GPUs as the local executor hands them out: disjoint ids per trial as
// CUDA_VISIBLE_DEVICES, a wait (Unavailable) while they are taken, and a
// refusal for more than the machine has; in both modes.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <string>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers

TEST_P(LocalExecutorTest, GpusAreHandedOutDisjointAndWaitedFor) {
  TempDir dir;
  RecordingListener listener;
  LocalExecutorOptions options = Options();
  options.gpus = DevicesFromIndices({0, 1});
  auto executor = NewLocalExecutor(&listener, options);
  auto gpu_trial = [&](const std::string& name, int gpus, const std::string& script) {
    LaunchSpec spec = Sh(dir, name, "echo gpus=$CUDA_VISIBLE_DEVICES > " + dir.File(name + ".gpus") +
                                        "; " + script);
    spec.resources.gpu = gpus;
    return executor->Start(spec);
  };
  ASSERT_TRUE(gpu_trial("a", 1, "sleep 30").ok());
  ASSERT_TRUE(gpu_trial("b", 1, "sleep 30").ok());
  auto waiting = gpu_trial("c", 1, "true");
  EXPECT_EQ(waiting.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(waiting.status().message().find("0 of 2 free"), std::string::npos)
      << waiting.status().message();
  EXPECT_EQ(gpu_trial("big", 3, "true").status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(gpu_trial("none", 0, "true").ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  // a and b have noted their devices (under load they may start late).
  for (const char* t : {"a.gpus", "b.gpus"}) {
    for (int i = 0; i < 500 && ReadFile(dir.File(t)).empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  executor->Kill("exp", "a");
  ASSERT_TRUE(listener.WaitForExits(2));
  // a's GPU is free again once its exit is delivered.
  ASSERT_TRUE(gpu_trial("c", 1, "true").ok());
  ASSERT_TRUE(listener.WaitForExits(3));
  std::set<std::string> seen = {ReadFile(dir.File("a.gpus")), ReadFile(dir.File("b.gpus"))};
  EXPECT_EQ(seen, (std::set<std::string>{"gpus=0\n", "gpus=1\n"}));
  EXPECT_EQ(ReadFile(dir.File("c.gpus")), ReadFile(dir.File("a.gpus")));
  EXPECT_EQ(ReadFile(dir.File("none.gpus")), "gpus=\n");
  executor->Kill("exp", "b");
  ASSERT_TRUE(listener.WaitForExits(4));
}

}  // namespace
}  // namespace hpt::runner
