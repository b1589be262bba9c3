// The ledger's rows for trials that cannot run now (controller/
// trial_waits.cc): a quota's wait, and preemption from the kill to the
// restart, case by case; no store, no executor, no threads.
#include "tests/controller/ledger_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::TrialPhase;

using TrialWaitsTest = LedgerFixture;

TEST_F(TrialWaitsTest, QuotaWaitHasItsOwnReasonAndTheStartClearsIt) {
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  const std::string quota = "namespace a: quota gpu 2 in use 2 (this trial asks 1)";
  ASSERT_TRUE(Carry(event::Waiting{quota, kQuotaExceededReason}).update);
  EXPECT_EQ(trial_.reason, "QuotaExceeded");
  EXPECT_EQ(trial_.message, quota);
  EXPECT_TRUE(Carry(event::Waiting{quota, kQuotaExceededReason}).empty());
  // The same message for another reason is written.
  ASSERT_TRUE(Carry(event::Waiting{quota}).update);
  EXPECT_EQ(trial_.reason, "WaitingForResources");
  Carry(event::Waiting{quota, kQuotaExceededReason});
  Effects started = Carry(event::Started{Job("j")});
  EXPECT_EQ(*started.update->reason, "");
  EXPECT_EQ(*started.update->message, "");
}

TEST_F(TrialWaitsTest, PreemptKillsAndItsExitMakesThePendingTrialStartAgain) {
  Effects preempt = Carry(event::Preempt{"preempted for namespace u's guaranteed share"});
  EXPECT_TRUE(preempt.kill);
  EXPECT_EQ(trial_.phase, TrialPhase::kRunning);
  EXPECT_EQ(trial_.reason, "Preempting");
  EXPECT_TRUE(Carry(event::Preempt{"again"}).empty()) << "one preemption at a time";
  // Killed by the signal (or exiting on it): back to Pending, no job, not failed.
  Effects exited = Exit(runner::ExitKind::kKilled);
  ASSERT_TRUE(exited.update);
  EXPECT_EQ(*exited.update->phase, TrialPhase::kPending);
  EXPECT_EQ(*exited.update->reason, "Preempted");
  EXPECT_EQ(*exited.update->message,
            "preempted for namespace u's guaranteed share; it starts again under its name, "
            "with its checkpoint folder");
  EXPECT_EQ(*exited.update->job_id, "");
  EXPECT_EQ(*exited.update->pid, 0);
  EXPECT_FALSE(exited.update->completion_time_ms);
  EXPECT_FALSE(exited.update->exit_code);
  EXPECT_EQ(*exited.update->preemptions, 1) << "counted apart from failures";
  // While it waits to start again it says it was preempted.
  Carry(event::Waiting{"waiting for 1 GPU (0 of 1 free)"});
  EXPECT_EQ(trial_.reason, "Preempted");
  EXPECT_EQ(trial_.message, "preempted; waiting for 1 GPU (0 of 1 free)");
  Carry(event::Started{Job("j2")});
  EXPECT_EQ(trial_.phase, TrialPhase::kRunning);
  EXPECT_EQ(trial_.reason, "");
  // A second preemption counts on.
  Carry(event::Preempt{"again"});
  EXPECT_EQ(*Exit(runner::ExitKind::kKilled).update->preemptions, 2);
  Carry(event::Started{Job("j3")});
  // Its next exit is an ordinary one.
  trial_.metrics = {{"loss", 0.1, 0.1, 0.1}};
  Effects done = Exit(runner::ExitKind::kExited);
  EXPECT_EQ(*done.update->phase, TrialPhase::kSucceeded);
  EXPECT_FALSE(done.update->preemptions);
  EXPECT_EQ(trial_.preemptions, 2);
}

TEST_F(TrialWaitsTest, StepsReportedAgainAfterTheRestartAreStoredOnce) {
  Carry(event::Preempt{"for u"});
  Exit(runner::ExitKind::kKilled);
  // Steps 1-3 stored; it resumes from a checkpoint of step 2.
  Carry(event::Started{Job("j2"), {Obs(1, 0.9), Obs(2, 0.8), Obs(3, 0.7)}});
  EXPECT_TRUE(Carry(event::Observed{Obs(3, 0.65)}).empty());
  Effects four = Carry(event::Observed{Obs(4, 0.6)});
  ASSERT_EQ(four.observations.size(), 1u);
  EXPECT_EQ(four.observations[0].step, 4);
  // Another metric of a stored step is new.
  api::Observation acc = Obs(3, 0.7);
  acc.metrics = {{"loss", 0.7}, {"acc", 0.5}};
  Effects mixed = Carry(event::Observed{acc});
  ASSERT_EQ(mixed.observations.size(), 1u);
  EXPECT_EQ(mixed.observations[0].metrics, (std::map<std::string, double>{{"acc", 0.5}}));
}

TEST_F(TrialWaitsTest, PreemptingOnlyRunnerRunTrialsWithAJob) {
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  EXPECT_TRUE(Carry(event::Preempt{"x"}).empty()) << "nothing to stop";
  trial_.phase = TrialPhase::kSucceeded;
  trial_.job_id = "job-1";
  EXPECT_TRUE(Carry(event::Preempt{"x"}).empty()) << "ended";
  TrialLedger client_run(&spec_, /*runner_run=*/false);
  trial_.phase = TrialPhase::kRunning;
  EXPECT_TRUE(client_run.Apply(trial_, event::Preempt{"x"}, clock_.NowMillis()).empty());
}

TEST_F(TrialWaitsTest, AStopWhilePreemptingWins) {
  Carry(event::Preempt{"for u"});
  Carry(event::StopRequested{"StoppedByUser"});
  EXPECT_EQ(trial_.phase, TrialPhase::kKilled);
  EXPECT_TRUE(Exit(runner::ExitKind::kKilled).empty()) << "Killed stays";
  EXPECT_EQ(trial_.phase, TrialPhase::kKilled);
}

TEST_F(TrialWaitsTest, ARestartWhilePreemptingStopsTheReattachedJobAgain) {
  trial_.reason = kPreemptingReason;
  trial_.message = "preempted for namespace u's guaranteed share";
  runner::RecoveredJob job;
  job.attached = true;
  job.running = true;
  job.job_id = "job-1";
  Effects recovered = Carry(event::Recovered{job, false, {}});
  EXPECT_TRUE(recovered.kill);
  Effects exited = Exit(runner::ExitKind::kSignaled);
  EXPECT_EQ(*exited.update->phase, TrialPhase::kPending);
  EXPECT_EQ(*exited.update->reason, "Preempted");
}

// Preempted before, running again when the server restarted: its log is
// read again from the start, and the resumed run's repeat of a stored step
// (another value: no replay) was stored a second time.
TEST_F(TrialWaitsTest, ARestartAfterAPreemptionStillStoresRepeatedStepsOnce) {
  trial_.preemptions = 1;
  runner::RecoveredJob job;
  job.attached = true;
  job.running = true;
  job.job_id = "job-2";
  Carry(event::Recovered{job, false, {Obs(1, 0.9), Obs(2, 0.8), Obs(3, 0.7), Obs(4, 0.6)}});
  EXPECT_TRUE(Carry(event::Observed{Obs(3, 0.65)}).observations.empty());
  EXPECT_TRUE(Carry(event::Observed{Obs(4, 0.6)}).observations.empty()) << "a replay";
  EXPECT_EQ(Carry(event::Observed{Obs(5, 0.5)}).observations.size(), 1u);
}

}  // namespace
}  // namespace hpt::controller::testing
