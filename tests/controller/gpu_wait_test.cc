// Resource waits: a trial that needs a GPU none is free for stays Pending
// and starts once one is released, by its own experiment's next event or
// by the sweep when another experiment released it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::ElementsAre;

nlohmann::json GpuSpec(const std::string& name, int max_trials, int parallel) {
  nlohmann::json spec = RunnerSpec(name, max_trials, parallel);
  spec["trialTemplate"]["resources"] = {{"gpu", 1}};
  return spec;
}

class GpuWaitTest : public ControllerTest {
 protected:
  void SetUp() override {
    gpus_ = {0};
    StartController();
  }
  std::string Gpus(const std::string& trial) {
    for (const auto& s : executor_->started()) {
      if (s.trial == trial) return s.env.at("CUDA_VISIBLE_DEVICES");
    }
    return "(not started)";
  }
};

TEST_F(GpuWaitTest, SecondTrialWaitsForTheFirstsGpu) {
  Create(GpuSpec("e", 2, 2));
  ASSERT_TRUE(WaitForRunning("e", 1));
  EXPECT_EQ(Gpus("e-1"), "0");
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kPending));
  // Through more than one sweep, it keeps waiting.
  EXPECT_TRUE(HoldsFor(
      [&] {
        return executor_->started().size() == 1 &&
               Trial("e", "e-2").phase == TrialPhase::kPending;
      },
      std::chrono::milliseconds(1200)));
  // Pending says what it waits for; it is not counted as started.
  api::Trial waiting = Trial("e", "e-2");
  EXPECT_EQ(waiting.reason, "WaitingForResources");
  EXPECT_EQ(waiting.message, "waiting for 1 GPU (0 of 1 free)");
  EXPECT_EQ(waiting.start_time_ms, 0);

  Succeed("e", "e-1", 0.3);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
  EXPECT_EQ(Gpus("e-2"), "0");
  EXPECT_EQ(Trial("e", "e-2").reason, "");
  EXPECT_EQ(Trial("e", "e-2").message, "");
  EXPECT_GT(Trial("e", "e-2").start_time_ms, 0);
  EXPECT_EQ(executor_->MaxRunning("e"), 1);
  Succeed("e", "e-2", 0.2);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
}

TEST_F(GpuWaitTest, SweepStartsATrialWhenAnotherExperimentFreesTheGpu) {
  Create(GpuSpec("a", 1, 1));
  ASSERT_TRUE(WaitForRunning("a", 1));
  Create(GpuSpec("b", 1, 1));
  ASSERT_TRUE(WaitForTrialPhase("b", "b-1", TrialPhase::kPending));
  EXPECT_TRUE(executor_->StartedTrials("b").empty());

  // a's exit reconciles a alone; b hears of the free GPU from the sweep.
  Succeed("a", "a-1", 0.1);
  ASSERT_TRUE(WaitForPhase("a", ExperimentPhase::kSucceeded));
  ASSERT_TRUE(WaitForTrialPhase("b", "b-1", TrialPhase::kRunning));
  EXPECT_EQ(Gpus("b-1"), "0");
  Succeed("b", "b-1", 0.1);
  ASSERT_TRUE(WaitForPhase("b", ExperimentPhase::kSucceeded));
}

TEST_F(GpuWaitTest, KilledTrialReleasesItsGpuOnExit) {
  Create(GpuSpec("e", 2, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(controller_->StopTrial("e", "e-1").ok());
  // Killed, but its process still holds the GPU until it exits.
  EXPECT_TRUE(HoldsFor([&] { return executor_->started().size() == 1; },
                       std::chrono::milliseconds(700)));
  runner::ExitInfo info;
  info.kind = runner::ExitKind::kKilled;
  executor_->Exit("e", "e-1", info);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
  EXPECT_EQ(Gpus("e-2"), "0");
}

TEST_F(GpuWaitTest, PendingTrialStartsAfterARestart) {
  Create(GpuSpec("e", 2, 2));
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kPending));
  Restart();
  // e-1 lost its process; e-2 never started and now gets the GPU.
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
  EXPECT_EQ(Trial("e", "e-1").reason, "ServerRestarted");
  EXPECT_THAT(executor_->stale_kills(), ElementsAre("fake:e/e-1"));
  EXPECT_EQ(Gpus("e-2"), "0");
}

TEST_F(GpuWaitTest, TrialsThatCanNeverFitFailAtOnceAndTheExperimentEnds) {
  nlohmann::json spec = GpuSpec("big", 3, 1);
  spec["trialTemplate"]["resources"] = {{"gpu", 2}};  // one GPU here
  spec["maxFailedTrialCount"] = 3;
  Create(spec);
  // No process ever starts, so no exit comes: the runner goes on by itself.
  ASSERT_TRUE(WaitForPhase("big", ExperimentPhase::kFailed));
  EXPECT_EQ(Experiment("big").reason, "NoTrialSucceeded");
  for (const auto& t : Trials("big")) {
    EXPECT_EQ(t.phase, TrialPhase::kFailed) << t.name;
    EXPECT_EQ(t.reason, "StartFailed") << t.name;
  }
  EXPECT_EQ(Trials("big").size(), 3u);
  EXPECT_TRUE(executor_->started().empty());
}

TEST_F(GpuWaitTest, ReattachedTrialKeepsItsGpuAcrossARestart) {
  Create(GpuSpec("e", 2, 2));
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kPending));
  before_start_ = [](FakeExecutor& e) { e.AttachOnRecover("e-1", "0"); };
  Restart();
  // e-1 runs on with GPU 0: e-2 waits for it as before.
  EXPECT_TRUE(HoldsFor([&] { return Trial("e", "e-2").phase == TrialPhase::kPending; },
                       std::chrono::milliseconds(700)));
  Succeed("e", "e-1", 0.2);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
  EXPECT_EQ(Gpus("e-2"), "0");
}

}  // namespace
}  // namespace hpt::controller::testing
