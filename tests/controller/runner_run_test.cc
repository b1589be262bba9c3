// Runner-run experiments: the controller starts trials up to
// parallelTrialCount, maps their exits to phases and ends the experiment.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "api/experiment_status.h"
#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunnerRunTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }
};

TEST_F(RunnerRunTest, KeepsParallelTrialsRunningAndEndsAtMaxTrials) {
  Create(RunnerSpec("e", /*max_trials=*/7, /*parallel=*/3));
  int finished = 0;
  while (finished < 7) {
    // Every free slot is filled at once, never more than three.
    size_t want = std::min(3, 7 - finished);
    ASSERT_TRUE(WaitForRunning("e", want)) << "after " << finished << " exits";
    std::string oldest = executor_->RunningTrials("e").front();
    Succeed("e", oldest, 0.5 + finished);
    ++finished;
  }
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  api::Experiment exp = Experiment("e");
  EXPECT_EQ(exp.reason, "MaxTrialsReached");
  EXPECT_EQ(exp.message, "7 trials ran");
  EXPECT_GT(exp.completion_time_ms, 0);

  EXPECT_EQ(executor_->MaxRunning("e"), 3);
  EXPECT_EQ(executor_->started().size(), 7u);
  EXPECT_TRUE(executor_->kills().empty());
  std::vector<api::Trial> trials = Trials("e");
  ASSERT_EQ(trials.size(), 7u);
  api::TrialCounts counts = api::CountTrials(trials);
  EXPECT_EQ(counts.succeeded, 7);
  for (int i = 0; i < 7; ++i) {
    const api::Trial& t = trials[i];
    EXPECT_EQ(t.name, "e-" + std::to_string(i + 1));
    EXPECT_EQ(t.reason, "Completed");
    EXPECT_EQ(t.exit_code, 0);
    EXPECT_GT(t.pid, 0);
    EXPECT_EQ(t.job_id, "fake:e/" + t.name);
    EXPECT_EQ(api::ObjectiveValue(t, exp.spec.objective), 0.5 + i);
  }
}

TEST_F(RunnerRunTest, LaunchSpecCarriesTheTrial) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  runner::LaunchSpec launch = executor_->started().at(0);
  api::Trial trial = Trial("e", "e-1");
  EXPECT_EQ(trial.phase, TrialPhase::kRunning);
  ASSERT_EQ(launch.argv.size(), 2u);
  EXPECT_EQ(launch.argv[0], "train");
  EXPECT_EQ(launch.argv[1], "--x=" + *api::FindValue(trial.assignment, "x"));
  EXPECT_EQ(launch.working_dir, "/tmp");
  EXPECT_EQ(launch.log_path, dir_.File("logs") + "/e/e-1.log");
  EXPECT_EQ(launch.log_path, controller_->LogPath("e", "e-1"));
  EXPECT_THAT(launch.metric_names, ElementsAre("loss"));
  EXPECT_EQ(launch.env.at("HPT_EXPERIMENT"), "e");
  EXPECT_EQ(launch.env.at("HPT_TRIAL"), "e-1");
  EXPECT_EQ(launch.env.at("CUDA_VISIBLE_DEVICES"), "");
  EXPECT_EQ(controller_->RunningProcesses(), 1);
}

TEST_F(RunnerRunTest, ExitKindsBecomePhases) {
  Create(RunnerSpec("e", 6, 6, /*max_failed=*/6));
  ASSERT_TRUE(WaitForRunning("e", 6));
  runner::ExitInfo info;
  info.log_tail = "Traceback: boom";
  info.exit_code = 2;
  executor_->Exit("e", "e-1", info);
  info = {};
  info.kind = runner::ExitKind::kSignaled;
  info.signal = 9;
  executor_->Exit("e", "e-2", info);
  info.kind = runner::ExitKind::kTimedOut;
  executor_->Exit("e", "e-3", info);
  info.kind = runner::ExitKind::kStartFailed;
  info.log_tail = "no such program: train";
  executor_->Exit("e", "e-4", info);
  executor_->ExitCode("e", "e-5", 0);  // no loss printed
  info = {};
  info.kind = runner::ExitKind::kKilled;
  executor_->Exit("e", "e-6", info);
  // Not one trial reported the objective: Failed, saying so.
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kFailed));

  std::vector<api::Trial> t = Trials("e");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].phase, TrialPhase::kFailed);
  EXPECT_EQ(t[0].reason, "ExitCode");
  EXPECT_EQ(t[0].exit_code, 2);
  EXPECT_EQ(t[0].message, "exited with code 2; log tail:\nTraceback: boom");
  EXPECT_EQ(t[1].reason, "Signal");
  EXPECT_EQ(t[1].message, "killed by signal 9");
  EXPECT_EQ(t[2].reason, "Timeout");
  EXPECT_EQ(t[3].phase, TrialPhase::kFailed);
  EXPECT_EQ(t[3].reason, "StartFailed");
  EXPECT_EQ(t[3].message, "no such program: train");
  EXPECT_FALSE(t[3].exit_code.has_value()) << "it never ran, so it has no exit code";
  EXPECT_EQ(t[4].phase, TrialPhase::kMetricsUnavailable);
  EXPECT_THAT(t[4].message,
              HasSubstr("without reporting the objective metric 'loss' (it reported: none)"));
  EXPECT_EQ(t[5].phase, TrialPhase::kKilled);
  for (const auto& trial : t)
    EXPECT_GT(trial.completion_time_ms, 0) << trial.name;
  EXPECT_EQ(Experiment("e").reason, "ObjectiveNeverReported");
  EXPECT_EQ(Experiment("e").message,
            "no trial reported the objective metric 'loss' (metrics reported: none)");
}

// Issue 30, finding 5: output the log lost (a full disk) is never a plain
// Succeeded. Metrics read from the output itself stand (Succeeded, reason
// LogIncomplete); metrics read from the lost log do not (Failed: a partial
// curve is no result to tune on); any other end names the loss too.
TEST_F(RunnerRunTest, LostOutputIsNamedInTheTrialsEnd) {
  Create(RunnerSpec("e", 3, 3, /*max_failed=*/3));
  ASSERT_TRUE(WaitForRunning("e", 3));
  runner::ExitInfo info;
  info.log_bytes_lost = 12345;
  info.log_error = "No space left on device writing /logs/e/e-1.log";
  const std::string lost =
      "12345 bytes of the trial's output were lost: No space left on device writing "
      "/logs/e/e-1.log";
  for (const char* trial : {"e-1", "e-2"}) executor_->Observe("e", trial, 1, {{"loss", 0.5}});
  executor_->Exit("e", "e-1", info);
  info.metrics_lost = true;
  executor_->Exit("e", "e-2", info);
  info.metrics_lost = false;
  info.exit_code = 2;
  info.log_tail = "boom";
  executor_->Exit("e", "e-3", info);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));

  std::vector<api::Trial> t = Trials("e");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].phase, TrialPhase::kSucceeded);
  EXPECT_EQ(t[0].reason, "LogIncomplete");
  EXPECT_EQ(t[0].message,
            lost + " (from its log only: its metrics were read from the output itself)");
  EXPECT_EQ(t[1].phase, TrialPhase::kFailed);
  EXPECT_EQ(t[1].reason, "LogIncomplete");
  EXPECT_EQ(t[1].message, lost + "; the metrics it printed there were lost with it");
  EXPECT_EQ(t[2].phase, TrialPhase::kFailed);
  EXPECT_EQ(t[2].reason, "ExitCode");
  EXPECT_EQ(t[2].message, "exited with code 2; " + lost + "; log tail:\nboom");
}

TEST_F(RunnerRunTest, MaxFailedTrialCountFailsTheExperiment) {
  Create(RunnerSpec("e", 10, 1, /*max_failed=*/1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  executor_->ExitCode("e", "e-1", 1);
  // One failure is within the budget: the next trial starts.
  ASSERT_TRUE(
      WaitFor([&] { return executor_->StartedTrials("e").size() == 2; }));
  executor_->ExitCode("e", "e-2", 3);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kFailed));
  api::Experiment exp = Experiment("e");
  EXPECT_EQ(exp.reason, "MaxFailedTrialsReached");
  EXPECT_EQ(exp.message, "2 trials failed (maxFailedTrialCount 1)");
  EXPECT_EQ(executor_->started().size(), 2u);
  EXPECT_EQ(Trials("e").size(), 2u);
}

TEST_F(RunnerRunTest, GoalReachedEndsTheExperimentAndKillsTheRest) {
  nlohmann::json spec = RunnerSpec("e", 10, 2);
  spec["objective"]["goal"] = 0.1;
  Create(spec);
  ASSERT_TRUE(WaitForRunning("e", 2));
  executor_->Observe("e", "e-2", 1, {{"loss", 0.5}});
  Succeed("e", "e-1", 0.05);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  api::Experiment exp = Experiment("e");
  EXPECT_EQ(exp.reason, "GoalReached");
  EXPECT_EQ(exp.message, "trial e-1 reached the goal");
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-2"));
  api::Trial killed = Trial("e", "e-2");
  EXPECT_EQ(killed.phase, TrialPhase::kKilled);
  EXPECT_EQ(killed.reason, "ExperimentFinished");

  // Its exit, reported after the kill, changes nothing; nothing new starts.
  runner::ExitInfo info;
  info.kind = runner::ExitKind::kKilled;
  executor_->Exit("e", "e-2", info);
  EXPECT_TRUE(
      HoldsFor([&] { return Trial("e", "e-2").reason == "ExperimentFinished"; },
               std::chrono::milliseconds(200)));
  EXPECT_EQ(executor_->started().size(), 2u);
}

TEST_F(RunnerRunTest, StopExperimentKillsItsTrials) {
  Create(RunnerSpec("e", 10, 2));
  ASSERT_TRUE(WaitForRunning("e", 2));
  ASSERT_TRUE(controller_->StopExperiment("e").ok());
  api::Experiment exp = Experiment("e");
  EXPECT_EQ(exp.phase, ExperimentPhase::kStopped);
  EXPECT_EQ(exp.reason, "StoppedByUser");
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-1", "e/e-2"));
  EXPECT_EQ(controller_->StopExperiment("e").code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(controller_->StopExperiment("nope").code(), StatusCode::kNotFound);
}

TEST_F(RunnerRunTest, StopTrialKillsOneAndStartsTheNext) {
  Create(RunnerSpec("e", 3, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  ASSERT_TRUE(controller_->StopTrial("e", "e-1").ok());
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-1"));
  EXPECT_EQ(Trial("e", "e-1").reason, "StoppedByUser");
  runner::ExitInfo info;
  info.kind = runner::ExitKind::kKilled;
  executor_->Exit("e", "e-1", info);
  ASSERT_TRUE(WaitForRunning("e", 1));
  EXPECT_THAT(executor_->RunningTrials("e"), ElementsAre("e-2"));
  EXPECT_EQ(Trial("e", "e-1").phase, TrialPhase::kKilled);
  EXPECT_EQ(controller_->StopTrial("e", "e-1").code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(RunnerRunTest, DeleteKillsTrialsAndLaterEventsAreIgnored) {
  Create(RunnerSpec("e", 5, 2));
  ASSERT_TRUE(WaitForRunning("e", 2));
  ASSERT_TRUE(controller_->DeleteExperiment("e").ok());
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-1", "e/e-2"));
  EXPECT_EQ(store_->GetExperiment("e").status().code(), StatusCode::kNotFound);
  executor_->Observe("e", "e-1", 1, {{"loss", 1}});
  executor_->ExitCode("e", "e-1", 0);
  EXPECT_EQ(controller_->SuggestTrials("e", 1).status().code(),
            StatusCode::kNotFound);
  EXPECT_TRUE(HoldsFor([&] { return executor_->started().size() == 2u; },
                       std::chrono::milliseconds(100)));
}

TEST_F(RunnerRunTest, ClientCallsAreRefused) {
  Create(RunnerSpec("e", 2, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  auto suggested = controller_->SuggestTrials("e", 1);
  EXPECT_EQ(suggested.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(suggested.status().message(),
              StartsWith("experiment 'e' has a trialTemplate"));
  EXPECT_EQ(controller_->CompleteTrial("e", "e-1", {}).status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace hpt::controller::testing
