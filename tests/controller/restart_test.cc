// Restarts: a new Controller over the same store recovers what the old one
// left running.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "api/experiment_status.h"
#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class RestartTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }
};

TEST_F(RestartTest, RunningTrialsFailAsServerRestartedAndStaleJobsAreKilled) {
  executor_->GiveNoJobId("e-2");
  Create(RunnerSpec("e", 6, 3, /*max_failed=*/3));
  ASSERT_TRUE(WaitForRunning("e", 3));
  Succeed("e", "e-1", 0.4);
  ASSERT_TRUE(WaitForRunning("e", 3));  // e-2, e-3, e-4
  ASSERT_EQ(Trial("e", "e-2").job_id, "");

  Restart();
  // Only the trials with a job id are the executor's to clean up; a bare
  // pid could be anyone's by now.
  EXPECT_THAT(executor_->stale_kills(),
              UnorderedElementsAre("fake:e/e-3", "fake:e/e-4"));
  for (const char* name : {"e-2", "e-3", "e-4"}) {
    api::Trial t = Trial("e", name);
    EXPECT_EQ(t.phase, TrialPhase::kFailed) << name;
    EXPECT_EQ(t.reason, "ServerRestarted") << name;
    EXPECT_GT(t.completion_time_ms, 0) << name;
  }
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kSucceeded);

  // Three failures are within maxFailedTrialCount 3: the rest of the budget
  // runs on the new server.
  ASSERT_TRUE(WaitForRunning("e", 2));
  EXPECT_THAT(executor_->RunningTrials("e"), ElementsAre("e-5", "e-6"));
  Succeed("e", "e-5", 0.3);
  Succeed("e", "e-6", 0.2);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
  api::TrialCounts counts = api::CountTrials(Trials("e"));
  EXPECT_EQ(counts.total, 6);
  EXPECT_EQ(counts.succeeded, 3);
  EXPECT_EQ(counts.failed, 3);
}

TEST_F(RestartTest, ReattachedTrialsRunOnAndReplayedLinesAreStoredOnce) {
  Create(RunnerSpec("e", 3, 3, /*max_failed=*/1));
  ASSERT_TRUE(WaitForRunning("e", 3));
  executor_->Observe("e", "e-1", 0, {{"loss", 0.9}});
  executor_->Observe("e", "e-1", 1, {{"loss", 0.8}});
  ASSERT_TRUE(WaitFor([&] {
    auto o = store_->ListObservations("e", "e-1");
    return o.ok() && o->size() == 2;
  }));
  before_start_ = [](FakeExecutor& e) {
    e.AttachOnRecover("e-1");
    e.AttachOnRecover("e-2");
  };
  Restart();
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kRunning);
  EXPECT_EQ(Trial("e", "e-2").phase, TrialPhase::kRunning);
  EXPECT_EQ(Trial("e", "e-3").reason, "ServerRestarted");
  EXPECT_THAT(executor_->stale_kills(), ElementsAre("fake:e/e-3"));
  auto recovered = executor_->recovered();
  ASSERT_EQ(recovered.size(), 2u);
  EXPECT_EQ(recovered[0].job_id, "fake:e/e-1");
  EXPECT_EQ(recovered[0].spec.log_path, controller_->LogPath("e", "e-1"));
  EXPECT_EQ(recovered[0].spec.metric_names, std::vector<std::string>{"loss"});

  // The executor reads the log again from its start.
  executor_->Observe("e", "e-1", 0, {{"loss", 0.9}});
  executor_->Observe("e", "e-1", 1, {{"loss", 0.8}});
  executor_->Observe("e", "e-1", 2, {{"loss", 0.7}});
  Succeed("e", "e-2", 0.5);
  executor_->ExitCode("e", "e-1", 0);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kSucceeded);
  EXPECT_EQ(Trial("e", "e-2").phase, TrialPhase::kSucceeded);
  auto stored = store_->ListObservations("e", "e-1");
  ASSERT_TRUE(stored.ok());
  std::vector<int64_t> steps;
  for (const auto& o : *stored) steps.push_back(o.step);
  EXPECT_THAT(steps, ElementsAre(0, 1, 2));
  EXPECT_EQ(api::CountTrials(Trials("e")).failed, 1);
}

TEST_F(RestartTest, OneMoreFailureThanAllowedFailsTheExperiment) {
  Create(RunnerSpec("e", 6, 3, /*max_failed=*/2));
  ASSERT_TRUE(WaitForRunning("e", 3));
  Restart();
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kFailed));
  EXPECT_EQ(Experiment("e").reason, "MaxFailedTrialsReached");
  EXPECT_TRUE(executor_->started().empty());
}

// resumePolicy FromVolume: a trial whose process the restart found gone
// runs again under its name, with the folder it wrote to (not Failed, no
// new trial in its place); steps stored before it are stored once.
TEST_F(RestartTest, FromVolumeRunsAGoneTrialAgainWithItsCheckpointFolder) {
  nlohmann::json spec = RunnerSpec("e", 1, 1, /*max_failed=*/1);
  spec["resumePolicy"] = "FromVolume";
  Create(spec);
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_EQ(executor_->started().size(), 1u);
  const std::string folder = executor_->started()[0].env.at("HPT_CHECKPOINT_DIR");
  hpt::testing::WriteFile(folder + "/epoch", "3");
  executor_->Observe("e", "e-1", 0, {{"loss", 0.9}});
  ASSERT_TRUE(WaitFor([&] {
    auto o = store_->ListObservations("e", "e-1");
    return o.ok() && o->size() == 1;
  }));

  Restart();
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_EQ(executor_->started().size(), 1u);
  EXPECT_EQ(executor_->started()[0].trial, "e-1");
  EXPECT_EQ(executor_->started()[0].env.at("HPT_CHECKPOINT_DIR"), folder);
  EXPECT_EQ(hpt::testing::ReadFile(folder + "/epoch"), "3");
  // The executor has it before the ledger stores its start: wait for that.
  EXPECT_TRUE(WaitFor([&] {
    api::Trial t = Trial("e", "e-1");
    return t.phase == TrialPhase::kRunning && t.reason.empty();
  })) << Trial("e", "e-1").reason;
  executor_->Observe("e", "e-1", 0, {{"loss", 0.9}});  // its output again
  Succeed("e", "e-1", 0.5);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trials("e").size(), 1u);
  EXPECT_EQ(api::CountTrials(Trials("e")).failed, 0);
  auto stored = store_->ListObservations("e", "e-1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->front().step, 0);
  EXPECT_EQ(std::count_if(stored->begin(), stored->end(),
                          [](const api::Observation& o) { return o.step == 0; }),
            1);
}

TEST_F(RestartTest, FinishedExperimentsAndClientTrialsAreLeftAlone) {
  Create(RunnerSpec("done", 1, 1));
  ASSERT_TRUE(WaitForRunning("done", 1));
  Succeed("done", "done-1", 0.1);
  ASSERT_TRUE(WaitForPhase("done", ExperimentPhase::kSucceeded));
  Create(ClientSpec("ask", 3));
  auto asked = controller_->SuggestTrials("ask", 2);
  ASSERT_TRUE(asked.ok()) << asked.status().ToString();

  Restart();
  EXPECT_THAT(executor_->stale_kills(), IsEmpty());
  EXPECT_TRUE(executor_->started().empty());
  EXPECT_EQ(Experiment("done").phase, ExperimentPhase::kSucceeded);
  // A client-run trial lives in the client: it carries on after a restart.
  EXPECT_EQ(Trial("ask", "ask-1").phase, TrialPhase::kRunning);
  Completion done;
  done.metrics = {{"loss", 1.5}};
  ASSERT_TRUE(controller_->CompleteTrial("ask", "ask-1", done).ok());
  EXPECT_EQ(Trial("ask", "ask-1").phase, TrialPhase::kSucceeded);
  // New suggestions continue the numbering.
  auto more = controller_->SuggestTrials("ask", 5);
  ASSERT_TRUE(more.ok());
  ASSERT_EQ(more->size(), 1u);
  EXPECT_EQ((*more)[0].name, "ask-3");
}

TEST_F(RestartTest, AlgorithmStateCarriesOver) {
  nlohmann::json spec = ClientSpec("grid", 100);
  spec["algorithm"] = {{"algorithmName", "grid"}};
  spec["parameters"][0]["feasibleSpace"] = {
      {"min", "0"}, {"max", "4"}, {"step", "1"}};
  Create(spec);
  auto first = controller_->SuggestTrials("grid", 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Restart();
  auto rest = controller_->SuggestTrials("grid", 10);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  std::set<std::string> xs;
  for (const auto& t : Trials("grid"))
    xs.insert(*api::FindValue(t.assignment, "x"));
  // Every grid point once, none repeated across the restart.
  EXPECT_EQ(Trials("grid").size(), 5u);
  EXPECT_EQ(xs.size(), 5u);
  EXPECT_TRUE(controller_->SuggestTrials("grid", 1)->empty());
}

}  // namespace
}  // namespace hpt::controller::testing
