// Early stopping in the controller: a hopeless runner-run trial is stopped
// through Executor::Kill, late events do not undo the stop, and the advice
// given to a client-run trial survives a restart.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class EarlyStoppingTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }

  // A runner-run experiment with medianstop, whose e-1 and e-2 completed at
  // loss 0.1 over three steps while e-3 runs.
  void TwoGoodTrials() {
    nlohmann::json spec = RunnerSpec("e", 10, 3);
    spec["earlyStopping"] = MedianStop(2, 2);
    Create(spec);
    ASSERT_TRUE(WaitForRunning("e", 3));
    Succeed("e", "e-1", 0.1, 3);
    Succeed("e", "e-2", 0.1, 3);
    ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kSucceeded));
  }
  bool Killed(const std::string& trial) {
    for (const auto& k : executor_->kills()) {
      if (k == "e/" + trial) return true;
    }
    return false;
  }
};

TEST_F(EarlyStoppingTest, HopelessTrialIsStoppedThroughKill) {
  TwoGoodTrials();
  executor_->Observe("e", "e-3", 1, {{"loss", 5.0}});
  // Step 1 is before start_step 2: no decision yet.
  EXPECT_TRUE(HoldsFor([&] { return executor_->kills().empty(); },
                       std::chrono::milliseconds(100)));
  executor_->Observe("e", "e-3", 2, {{"loss", 4.0}});
  ASSERT_TRUE(WaitFor([&] { return Killed("e-3"); }));
  api::Trial t = Trial("e", "e-3");
  EXPECT_EQ(t.phase, TrialPhase::kEarlyStopped);
  EXPECT_EQ(t.reason, "EarlyStopped");
  EXPECT_THAT(t.message, HasSubstr("median"));
  EXPECT_GT(t.completion_time_ms, 0);
  // A good trial running alongside is left alone.
  ASSERT_TRUE(WaitForRunning("e", 3));  // e-3 still running until its exit
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-3"));

  runner::ExitInfo killed;
  killed.kind = runner::ExitKind::kKilled;
  executor_->Exit("e", "e-3", killed);
  // Its slot goes to a new trial; it stays EarlyStopped.
  ASSERT_TRUE(
      WaitFor([&] { return executor_->StartedTrials("e").size() == 6; }));
  EXPECT_EQ(Trial("e", "e-3").phase, TrialPhase::kEarlyStopped);
}

TEST_F(EarlyStoppingTest, ExitAfterTheStopKeepsEarlyStopped) {
  TwoGoodTrials();
  executor_->Observe("e", "e-3", 1, {{"loss", 5.0}});
  executor_->Observe("e", "e-3", 2, {{"loss", 4.0}});
  // The process finished by itself just as it was stopped: its clean exit
  // and a last line arrive after the stop.
  executor_->Observe("e", "e-3", 3, {{"loss", 0.01}});
  executor_->ExitCode("e", "e-3", 0);
  ASSERT_TRUE(WaitFor([&] { return Killed("e-3"); }));
  ASSERT_TRUE(
      WaitFor([&] { return executor_->StartedTrials("e").size() == 6; }));
  api::Trial t = Trial("e", "e-3");
  EXPECT_EQ(t.phase, TrialPhase::kEarlyStopped);
  EXPECT_EQ(t.reason, "EarlyStopped");
  EXPECT_FALSE(t.exit_code.has_value());
}

TEST_F(EarlyStoppingTest, ExitBeforeTheDecisionIsAnOrdinaryExit) {
  TwoGoodTrials();
  executor_->Observe("e", "e-3", 1, {{"loss", 5.0}});
  executor_->ExitCode("e", "e-3", 0);
  // A line that arrives after the exit judges a finished trial: no kill.
  executor_->Observe("e", "e-3", 2, {{"loss", 4.0}});
  ASSERT_TRUE(WaitForTrialPhase("e", "e-3", TrialPhase::kSucceeded));
  EXPECT_TRUE(
      HoldsFor([&] { return !Killed("e-3"); }, std::chrono::milliseconds(100)));
}

TEST_F(EarlyStoppingTest, PushedObservationsAreJudgedToo) {
  TwoGoodTrials();
  ASSERT_TRUE(
      controller_
          ->AddObservations("e", "e-3",
                            {{1, 0, {{"loss", 5.0}}}, {2, 0, {{"loss", 5.0}}}})
          .ok());
  EXPECT_THAT(executor_->kills(), Contains("e/e-3"));
  EXPECT_EQ(Trial("e", "e-3").phase, TrialPhase::kEarlyStopped);
}

TEST_F(EarlyStoppingTest, AshaStopsTrialsBehindAtARung) {
  nlohmann::json spec = RunnerSpec("e", 10, 4);
  spec["earlyStopping"] = {{"algorithmName", "asha"},
                           {"algorithmSettings",
                            {{{"name", "min_resource"}, {"value", "1"}},
                             {{"name", "eta"}, {"value", "2"}}}}};
  Create(spec);
  ASSERT_TRUE(WaitForRunning("e", 4));
  executor_->Observe("e", "e-1", 1, {{"loss", 0.1}});
  executor_->Observe("e", "e-2", 1, {{"loss", 0.2}});
  executor_->Observe("e", "e-3", 1, {{"loss", 0.3}});
  executor_->Observe("e", "e-4", 1, {{"loss", 0.9}});
  // With n trials at the rung the best max(1, n / 2) go on: e-1 only.
  ASSERT_TRUE(WaitFor([&] { return Killed("e-4"); }));
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-2", "e/e-3", "e/e-4"));
  EXPECT_EQ(Trial("e", "e-4").phase, TrialPhase::kEarlyStopped);
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kRunning);
}

TEST_F(EarlyStoppingTest, ShouldStopAdviceSurvivesARestart) {
  nlohmann::json spec = ClientSpec("ask", 5);
  spec["earlyStopping"] = MedianStop(1, 1);
  Create(spec);
  ASSERT_TRUE(controller_->SuggestTrials("ask", 2).ok());
  ASSERT_TRUE(
      controller_
          ->AddObservations("ask", "ask-1",
                            {{1, 0, {{"loss", 0.2}}}, {2, 0, {{"loss", 0.1}}}})
          .ok());
  auto verdict = controller_->ShouldStop("ask", "ask-1");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_FALSE(verdict->stop);  // nothing completed to compare with
  Completion good;
  good.metrics = {{"loss", 0.1}};
  ASSERT_TRUE(controller_->CompleteTrial("ask", "ask-1", good).ok());

  ASSERT_TRUE(
      controller_
          ->AddObservations("ask", "ask-2",
                            {{1, 0, {{"loss", 5.0}}}, {2, 0, {{"loss", 4.0}}}})
          .ok());
  verdict = controller_->ShouldStop("ask", "ask-2");
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->stop);
  EXPECT_FALSE(verdict->reason.empty());
  EXPECT_EQ(Trial("ask", "ask-2").reason, "EarlyStopAdvised");
  EXPECT_THAT(executor_->kills(), IsEmpty());  // a client's trial: advice only

  Restart();
  Completion bad;
  bad.metrics = {{"loss", 4.0}};
  ASSERT_TRUE(controller_->CompleteTrial("ask", "ask-2", bad).ok());
  api::Trial t = Trial("ask", "ask-2");
  EXPECT_EQ(t.phase, TrialPhase::kEarlyStopped);
  EXPECT_EQ(t.reason, "EarlyStopped");
  verdict = controller_->ShouldStop("ask", "ask-2");
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->stop);
  EXPECT_EQ(controller_->ShouldStop("ask", "nope").status().code(),
            StatusCode::kNotFound);
}

TEST_F(EarlyStoppingTest, WithoutAPolicyNothingIsStopped) {
  Create(RunnerSpec("e", 4, 2));
  ASSERT_TRUE(WaitForRunning("e", 2));
  executor_->Observe("e", "e-1", 1, {{"loss", 0.1}});
  for (int step = 1; step <= 5; ++step)
    executor_->Observe("e", "e-2", step, {{"loss", 99}});
  auto verdict = controller_->ShouldStop("e", "e-2");
  ASSERT_TRUE(verdict.ok());
  EXPECT_FALSE(verdict->stop);
  EXPECT_TRUE(HoldsFor([&] { return executor_->kills().empty(); },
                       std::chrono::milliseconds(100)));
}

}  // namespace
}  // namespace hpt::controller::testing
