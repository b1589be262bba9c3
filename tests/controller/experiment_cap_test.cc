// The cap on experiments kept in memory (max_loaded_experiments): an idle
// experiment past it is dropped, and when used again is built from the
// store and behaves as it did (its budget, trial names, early-stopping
// curves and phase); one with work under way is never dropped.

#include <gtest/gtest.h>

#include <string>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;

class ExperimentCapTest : public ControllerTest {
 protected:
  void SetUp() override {
    options_.max_loaded_experiments = 1;
    StartController();
  }
  Status Observe(const std::string& trial, double first, double second) {
    return controller_->AddObservations("a", trial,
                                        {{1, 0, {{"loss", first}}}, {2, 0, {{"loss", second}}}});
  }
  Status Complete(const std::string& trial, double loss) {
    Completion c;
    c.metrics = {{"loss", loss}};
    return controller_->CompleteTrial("a", trial, c).status();
  }
};

TEST_F(ExperimentCapTest, DroppedExperimentReloadsAndBehavesTheSame) {
  nlohmann::json spec = ClientSpec("a", 4);
  spec["earlyStopping"] = MedianStop(1, 1);
  Create(spec);
  ASSERT_EQ(controller_->SuggestTrials("a", 1)->size(), 1u);
  ASSERT_TRUE(Observe("a-1", 0.2, 0.1).ok());
  ASSERT_TRUE(Complete("a-1", 0.1).ok());
  Create(ClientSpec("b", 2));
  EXPECT_EQ(controller_->LoadedExperiments(), 2u);

  controller_->Sweep();  // a: idle and least recently used
  EXPECT_EQ(controller_->LoadedExperiments(), 1u);

  // Built again from the store: the budget and the names go on from a-1.
  auto next = controller_->SuggestTrials("a", 2);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ(next->size(), 2u);
  EXPECT_EQ((*next)[0].name, "a-2");
  EXPECT_EQ((*next)[1].name, "a-3");
  // ... and b, idle, went instead (a has running trials now).
  EXPECT_EQ(controller_->LoadedExperiments(), 1u);
  EXPECT_EQ(controller_->AddObservations("a", "a-1", {{3, 0, {{"loss", 1.0}}}}).code(),
            StatusCode::kFailedPrecondition);

  // Its curves come back from the store: a-1's is the median to beat.
  ASSERT_TRUE(Observe("a-2", 5.0, 4.0).ok());
  ASSERT_TRUE(Observe("a-3", 0.09, 0.05).ok());
  auto bad = controller_->ShouldStop("a", "a-2");
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_TRUE(bad->stop);
  auto good = controller_->ShouldStop("a", "a-3");
  ASSERT_TRUE(good.ok());
  EXPECT_FALSE(good->stop);

  // A busy experiment stays, over the cap: b comes back beside it.
  ASSERT_EQ(controller_->SuggestTrials("b", 1)->size(), 1u);
  controller_->Sweep();
  EXPECT_EQ(controller_->LoadedExperiments(), 2u);

  ASSERT_TRUE(Complete("a-2", 4.0).ok());
  ASSERT_TRUE(Complete("a-3", 0.05).ok());
  EXPECT_EQ(Trial("a", "a-2").phase, TrialPhase::kEarlyStopped);
  controller_->Sweep();  // a idle again: dropped
  EXPECT_EQ(controller_->LoadedExperiments(), 1u);
  auto last = controller_->SuggestTrials("a", 5);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 1u);  // maxTrialCount 4 counts the stored ones
  EXPECT_EQ((*last)[0].name, "a-4");
  ASSERT_TRUE(Complete("a-4", 0.3).ok());
  EXPECT_EQ(Experiment("a").phase, ExperimentPhase::kSucceeded);
}

// A finished runner-run experiment is dropped too; more room (PATCH)
// builds it again and it runs its new trial as before.
TEST_F(ExperimentCapTest, AFinishedRunnerExperimentRunsAgainAfterItsReload) {
  Create(RunnerSpec("r", 2, 2));
  ASSERT_TRUE(WaitForRunning("r", 2));
  Succeed("r", "r-1", 0.5);
  Succeed("r", "r-2", 0.4);
  ASSERT_TRUE(WaitForPhase("r", ExperimentPhase::kSucceeded));
  controller_->WaitIdle();
  Create(ClientSpec("b", 2));
  controller_->Sweep();
  ASSERT_EQ(controller_->LoadedExperiments(), 1u);  // r went, b stays

  Limits more;
  more.max_trial_count = 3;
  auto updated = controller_->UpdateExperiment("r", more);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  ASSERT_TRUE(WaitForRunning("r", 1));
  EXPECT_EQ(executor_->RunningTrials("r")[0], "r-3");
  Succeed("r", "r-3", 0.3);
  ASSERT_TRUE(WaitForPhase("r", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trials("r").size(), 3u);
}

TEST_F(ExperimentCapTest, ADeletedDroppedExperimentIsGone) {
  Create(ClientSpec("a", 2));
  Create(ClientSpec("b", 2));
  controller_->Sweep();
  ASSERT_EQ(controller_->LoadedExperiments(), 1u);
  ASSERT_TRUE(controller_->DeleteExperiment("a").ok());
  EXPECT_EQ(controller_->SuggestTrials("a", 1).status().code(), StatusCode::kNotFound);
  Create(ClientSpec("a", 2));  // the name is free again, and new
  auto fresh = controller_->SuggestTrials("a", 1);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ((*fresh)[0].name, "a-1");
}

}  // namespace
}  // namespace hpt::controller::testing
