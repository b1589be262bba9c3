// Failed store writes: the controller logs them and carries on, and the
// experiment continues once the store takes writes again.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>

#include "api/experiment_status.h"
#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::ElementsAre;

class FailedWritesTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }

  // Waits until the store refused one more write than `before`.
  bool WaitForRefusal(int before) {
    return WaitFor([&] { return flaky_.failed_writes() > before; });
  }
};

TEST_F(FailedWritesTest, ExitsReportedWhileWritesFailAreNotLost) {
  Create(RunnerSpec("e", 3, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  executor_->Observe("e", "e-1", 1, {{"loss", 0.3}});
  ASSERT_TRUE(WaitFor(
      [&] { return store_->ListObservations("e", "e-1")->size() == 1; }));

  flaky_.FailWrites(true);
  int before = flaky_.failed_writes();
  executor_->ExitCode("e", "e-1", 0);
  ASSERT_TRUE(WaitForRefusal(before));
  // Nothing starts in e-1's place while its end is not stored.
  EXPECT_TRUE(HoldsFor([&] { return executor_->started().size() == 1; },
                       std::chrono::milliseconds(300)));
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kRunning);

  flaky_.FailWrites(false);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-1", TrialPhase::kSucceeded));
  ASSERT_TRUE(WaitForRunning("e", 1));
  Succeed("e", "e-2", 0.2);
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_THAT(executor_->RunningTrials("e"), ElementsAre("e-3"));

  // The last exit and the experiment's end, both refused at first.
  executor_->Observe("e", "e-3", 1, {{"loss", 0.1}});
  ASSERT_TRUE(WaitFor(
      [&] { return store_->ListObservations("e", "e-3")->size() == 1; }));
  flaky_.FailWrites(true);
  before = flaky_.failed_writes();
  executor_->ExitCode("e", "e-3", 0);
  ASSERT_TRUE(WaitForRefusal(before));
  flaky_.FailWrites(false);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
  api::TrialCounts counts = api::CountTrials(Trials("e"));
  EXPECT_EQ(counts.succeeded, 3);
  EXPECT_EQ(executor_->started().size(), 3u);
}

// A full disk for a moment: a trial's report was dropped for good, and the
// trial, which exited 0, ended MetricsUnavailable.
TEST_F(FailedWritesTest, RefusedObservationsAreHeldStoredInOrderAndJudgedOn) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  flaky_.FailMethod("AddObservations", true);
  int before = flaky_.failed_writes();
  executor_->Observe("e", "e-1", 1, {{"loss", 0.3}});
  ASSERT_TRUE(WaitForRefusal(before));
  executor_->Observe("e", "e-1", 2, {{"loss", 0.2}});
  executor_->ExitCode("e", "e-1", 0);
  ASSERT_TRUE(WaitFor([&] { return executor_->RunningTrials("e").empty(); }));
  // Nothing overtakes the held reports: neither the trial's end (one write
  // policy: in order) nor the experiment's, however many sweeps come.
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(std::chrono::seconds(1));
    controller_->Sweep();
    ASSERT_TRUE(WaitFor([&] { return flaky_.failed_writes() > before + 1 + i; }));
  }
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kRunning);
  EXPECT_EQ(Experiment("e").phase, ExperimentPhase::kRunning);
  flaky_.FailMethod("AddObservations", false);
  controller_->Sweep();
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kSucceeded) << "judged on its held reports";
  auto stored = store_->ListObservations("e", "e-1");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].step, 1);
  EXPECT_EQ((*stored)[1].metrics.at("loss"), 0.2);
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
}

// The store took the write but its answer was lost (a PostgreSQL COMMIT in
// flight when the connection broke, unknown past the retry window): the
// retry must not store the same observations again.
TEST_F(FailedWritesTest, ObservationsStoredThoughAnsweredUnavailableAreStoredOnce) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  flaky_.LoseAnswers("AddObservations", true);
  int before = flaky_.failed_writes();
  executor_->Observe("e", "e-1", 1, {{"loss", 0.3}, {"acc", 0.5}});
  ASSERT_TRUE(WaitForRefusal(before));
  ASSERT_EQ(store_->ListObservations("e", "e-1")->size(), 1u) << "stored, answered Unavailable";
  // A sweep retries it, answers still lost: found stored, it is not
  // written again (whether the sweep or the next report carries it, the
  // count below would be 4 otherwise).
  clock_.Advance(std::chrono::seconds(1));
  controller_->Sweep();
  flaky_.LoseAnswers("AddObservations", false);
  // The same step and value again, later: a new report, stored.
  executor_->Observe("e", "e-1", 1, {{"loss", 0.3}});
  executor_->Observe("e", "e-1", 2, {{"loss", 0.2}});
  executor_->ExitCode("e", "e-1", 0);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-1", TrialPhase::kSucceeded));
  auto stored = store_->ListObservations("e", "e-1");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 3u);
  EXPECT_EQ((*stored)[0].metrics, (std::map<std::string, double>{{"acc", 0.5}, {"loss", 0.3}}));
  EXPECT_EQ((*stored)[1].step, 1);
  EXPECT_EQ((*stored)[1].metrics, (std::map<std::string, double>{{"loss", 0.3}}));
  EXPECT_EQ((*stored)[2].step, 2);
  EXPECT_EQ(Trial("e", "e-1").metrics.size(), 2u);
}

// A trial's end, stored with its answer lost, is stored again harmlessly:
// the same fields, and no observation twice.
TEST_F(FailedWritesTest, AnEndStoredThoughAnsweredUnavailableEndsTheTrialOnce) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  executor_->Observe("e", "e-1", 1, {{"loss", 0.3}});
  ASSERT_TRUE(WaitFor([&] { return store_->ListObservations("e", "e-1")->size() == 1; }));
  flaky_.LoseAnswers("UpdateTrial", true);
  int before = flaky_.failed_writes();
  executor_->ExitCode("e", "e-1", 0);
  ASSERT_TRUE(WaitForRefusal(before));
  flaky_.LoseAnswers("UpdateTrial", false);
  clock_.Advance(std::chrono::seconds(1));
  controller_->Sweep();
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kSucceeded);
  EXPECT_EQ(store_->ListObservations("e", "e-1")->size(), 1u);
  EXPECT_EQ(executor_->started().size(), 1u);
}

TEST_F(FailedWritesTest, ARefusedStartIsNotStartedTwice) {
  flaky_.FailMethod("UpdateTrial", true);
  Create(RunnerSpec("e", 2, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(WaitFor([&] { return flaky_.failed_writes() > 0; }));
  // The sweep comes round meanwhile; the process runs already.
  EXPECT_TRUE(HoldsFor([&] { return executor_->started().size() == 1; },
                       std::chrono::milliseconds(1200)));
  flaky_.FailMethod("UpdateTrial", false);
  ASSERT_TRUE(WaitForTrialPhase("e", "e-1", TrialPhase::kRunning));
  EXPECT_EQ(Trial("e", "e-1").job_id, "fake:e/e-1");
  Succeed("e", "e-1", 0.5);
  ASSERT_TRUE(WaitForRunning("e", 1));
  Succeed("e", "e-2", 0.4);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_THAT(executor_->StartedTrials("e"), ElementsAre("e-1", "e-2"));
}

TEST_F(FailedWritesTest, RefusedNewTrialsDoNotFailTheExperiment) {
  flaky_.FailMethod("CreateTrials", true);
  Create(RunnerSpec("e", 2, 2));
  ASSERT_TRUE(WaitFor([&] { return flaky_.failed_writes() > 0; }));
  // A store that refuses a write is not an algorithm that failed.
  EXPECT_TRUE(HoldsFor(
      [&] { return Experiment("e").phase == ExperimentPhase::kRunning; },
      std::chrono::milliseconds(300)));
  flaky_.FailMethod("CreateTrials", false);
  ASSERT_TRUE(WaitForRunning("e", 2));
  Succeed("e", "e-1", 0.5);
  Succeed("e", "e-2", 0.4);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Experiment("e").reason, "MaxTrialsReached");
}

TEST_F(FailedWritesTest, ClientCallsFailCleanlyAndCanBeRetried) {
  nlohmann::json spec = ClientSpec("g", 100);
  spec["algorithm"] = {{"algorithmName", "grid"}};
  spec["parameters"][0]["feasibleSpace"] = {
      {"min", "0"}, {"max", "4"}, {"step", "1"}};
  Create(spec);

  flaky_.FailWrites(true);
  auto refused = controller_->SuggestTrials("g", 2);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(Trials("g").empty());
  flaky_.FailWrites(false);
  auto first = controller_->SuggestTrials("g", 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].name, "g-1");

  // The refused call drew the grid's last points: they are drawn again.
  flaky_.FailMethod("CreateTrials", true);
  EXPECT_EQ(controller_->SuggestTrials("g", 10).status().code(),
            StatusCode::kUnavailable);
  flaky_.FailMethod("CreateTrials", false);
  flaky_.FailWrites(true);
  Completion done;
  done.metrics = {{"loss", 1.0}};
  EXPECT_EQ(controller_->CompleteTrial("g", "g-1", done).status().code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(Trial("g", "g-1").phase, TrialPhase::kRunning);
  flaky_.FailWrites(false);

  // The retry succeeds, and no grid point was skipped or handed out twice.
  ASSERT_TRUE(controller_->CompleteTrial("g", "g-1", done).ok());
  EXPECT_EQ(Trial("g", "g-1").phase, TrialPhase::kSucceeded);
  auto rest = controller_->SuggestTrials("g", 10);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(rest->size(), 3u);
  std::set<std::string> xs;
  for (const auto& t : Trials("g"))
    xs.insert(*api::FindValue(t.assignment, "x"));
  EXPECT_EQ(xs, (std::set<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(Trials("g").back().name, "g-5");
}

TEST_F(FailedWritesTest, ClientRunEndIsStoredOnceWritesWork) {
  Create(ClientSpec("c", 1));
  ASSERT_TRUE(controller_->SuggestTrials("c", 1).ok());
  flaky_.FailMethod("UpdateExperiment", true);
  Completion done;
  done.metrics = {{"loss", 1.0}};
  // The trial is stored; the experiment's end is refused, not lost.
  ASSERT_TRUE(controller_->CompleteTrial("c", "c-1", done).ok());
  EXPECT_EQ(Trial("c", "c-1").phase, TrialPhase::kSucceeded);
  EXPECT_EQ(Experiment("c").phase, ExperimentPhase::kRunning);
  flaky_.FailMethod("UpdateExperiment", false);
  ASSERT_TRUE(WaitForPhase("c", ExperimentPhase::kSucceeded));
  EXPECT_EQ(Experiment("c").reason, "MaxTrialsReached");
}

TEST_F(FailedWritesTest, RestartWhileWritesFailRecoversLater) {
  Create(RunnerSpec("e", 2, 2));
  ASSERT_TRUE(WaitForRunning("e", 2));
  StopController();
  flaky_.FailMethod("UpdateTrial", true);
  StartController();  // same store: its Running trials cannot be marked yet
  EXPECT_EQ(executor_->stale_kills().size(), 2u);
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kRunning);
  flaky_.FailMethod("UpdateTrial", false);
  // Both lost to the restart: the experiment ends with nothing to show.
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kFailed));
  EXPECT_EQ(Experiment("e").reason, "NoTrialSucceeded");
  EXPECT_EQ(Trial("e", "e-1").reason, "ServerRestarted");
  EXPECT_EQ(Trial("e", "e-2").reason, "ServerRestarted");
  EXPECT_TRUE(executor_->started().empty());
}

TEST_F(FailedWritesTest, RefusedObservationIsHeldNotFatal) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  flaky_.FailMethod("AddObservations", true);
  executor_->Observe("e", "e-1", 1, {{"loss", 9}});
  ASSERT_TRUE(WaitFor([&] { return flaky_.failed_writes() > 0; }));
  flaky_.FailMethod("AddObservations", false);
  Succeed("e", "e-1", 0.5, 2);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  auto stored = store_->ListObservations("e", "e-1");
  ASSERT_EQ(stored->size(), 3u);  // the refused one first, then Succeed's
  EXPECT_EQ(stored->front().metrics.at("loss"), 9);
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kSucceeded);
}

}  // namespace
}  // namespace hpt::controller::testing
