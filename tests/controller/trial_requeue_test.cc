// The ledger's rows for a cluster's own preemption (controller/
// trial_waits.cc, trial_ledger.cc): a job Slurm requeues (the same job runs
// again) and a job Slurm ends PREEMPTED (hpt starts the trial again), case
// by case; no store, no executor, no threads.
#include "tests/controller/ledger_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::TrialPhase;

class TrialRequeueTest : public LedgerFixture {
 protected:
  TrialRequeueTest() {
    trial_.job_id = "slurm:12";
    trial_.pid = 0;
  }
  // Stored observations that Observed(o) adds (none: a repeat).
  size_t Stored(const api::Observation& o) { return Carry(event::Observed{o}).observations.size(); }
};

TEST_F(TrialRequeueTest, ARequeuedJobMakesTheTrialPendingThenRunningAgainAsTheSameJob) {
  Effects requeued = Carry(event::Requeued{"Slurm requeued its job 12 (due to preemption)",
                                           {Obs(1, 0.1), Obs(2, 0.2), Obs(3, 0.3)}});
  ASSERT_TRUE(requeued.update);
  EXPECT_FALSE(requeued.kill) << "Slurm stopped it already";
  EXPECT_EQ(trial_.phase, TrialPhase::kPending);
  EXPECT_EQ(trial_.reason, "Preempted");
  EXPECT_EQ(trial_.message,
            "Slurm requeued its job 12 (due to preemption); it runs again as the same job, under "
            "its name, with its checkpoint folder");
  EXPECT_FALSE(requeued.update->job_id) << "the same job runs again";
  EXPECT_FALSE(requeued.update->completion_time_ms);
  EXPECT_FALSE(requeued.update->exit_code);
  EXPECT_EQ(trial_.job_id, "slurm:12");
  EXPECT_EQ(trial_.preemptions, 1) << "counted apart from failures";

  Carry(event::Running{});
  EXPECT_EQ(trial_.phase, TrialPhase::kRunning);
  EXPECT_EQ(trial_.reason, "");
  // It resumed from its checkpoint of step 2: step 3 again is stored once.
  EXPECT_EQ(Stored(Obs(3, 1.3)), 0u);
  EXPECT_EQ(Stored(Obs(4, 1.4)), 1u);
  trial_.metrics = {{"loss", 1.4, 1.4, 1.4}};
  Effects done = Exit(runner::ExitKind::kExited);
  EXPECT_EQ(*done.update->phase, TrialPhase::kSucceeded);
}

TEST_F(TrialRequeueTest, ARequeueChangesNothingWithoutAJobOrWhileHptPreemptsIt) {
  TrialLedger client_run(&spec_, /*runner_run=*/false);
  EXPECT_TRUE(client_run.Apply(trial_, event::Requeued{"x", {}}, clock_.NowMillis()).empty());
  trial_.phase = TrialPhase::kKilled;
  EXPECT_TRUE(Carry(event::Requeued{"x", {}}).empty()) << "its end stays";
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  EXPECT_TRUE(Carry(event::Requeued{"x", {}}).empty()) << "no job";
  // hpt cancels the job for another namespace's guarantee: its exit decides.
  trial_.phase = TrialPhase::kRunning;
  trial_.job_id = "slurm:12";
  ASSERT_TRUE(Carry(event::Preempt{"preempted for namespace u's guaranteed share"}).kill);
  EXPECT_TRUE(Carry(event::Requeued{"x", {}}).empty());
  EXPECT_EQ(trial_.reason, "Preempting");
  Exit(runner::ExitKind::kKilled);
  EXPECT_EQ(trial_.phase, TrialPhase::kPending);
  EXPECT_EQ(trial_.job_id, "");
}

// PreemptMode=CANCEL: the job ends PREEMPTED. As after hpt's own
// preemption: Pending with no job, started again under its name.
TEST_F(TrialRequeueTest, APreemptedExitMakesThePendingTrialStartAgain) {
  trial_.pid = 0;
  Effects exited = Exit(runner::ExitKind::kPreempted);
  ASSERT_TRUE(exited.update);
  EXPECT_EQ(*exited.update->phase, TrialPhase::kPending);
  EXPECT_EQ(*exited.update->reason, "Preempted");
  EXPECT_EQ(*exited.update->message,
            "its cluster preempted its job slurm:12; it starts again under its name, with its "
            "checkpoint folder");
  EXPECT_EQ(*exited.update->job_id, "");
  EXPECT_FALSE(exited.update->completion_time_ms);
  EXPECT_FALSE(exited.update->exit_code);
  EXPECT_EQ(*exited.update->preemptions, 1);
  runner::JobHandle job;
  job.id = "slurm:13";
  job.queued = true;
  Carry(event::Started{job, {Obs(1, 0.1), Obs(2, 0.2)}});
  EXPECT_EQ(trial_.phase, TrialPhase::kPending);
  EXPECT_EQ(trial_.job_id, "slurm:13");
  Carry(event::Running{});
  EXPECT_EQ(Stored(Obs(2, 1.2)), 0u);
  EXPECT_EQ(Stored(Obs(3, 1.3)), 1u);
}

TEST_F(TrialRequeueTest, APreemptedExitOfAStoppedTrialKeepsItsEnd) {
  Carry(event::StopRequested{"StoppedByUser"});
  EXPECT_TRUE(Exit(runner::ExitKind::kPreempted).empty());
  EXPECT_EQ(trial_.phase, TrialPhase::kKilled);
}

// The server restarted while Slurm held the trial's job requeued: it is
// re-attached as queued, stays Pending (Preempted), and runs again with
// its steps stored once.
TEST_F(TrialRequeueTest, ARestartWhileRequeuedKeepsItPendingAndItsStepsOnce) {
  trial_.phase = TrialPhase::kPending;
  trial_.reason = "Preempted";
  trial_.message = "Slurm requeued its job 12";
  runner::RecoveredJob job;
  job.attached = true;
  job.running = false;
  job.restarts = 1;
  job.job_id = "slurm:12";
  trial_.preemptions = 1;
  Effects recovered = Carry(event::Recovered{job, false, {Obs(1, 0.1), Obs(2, 0.2), Obs(3, 0.3)}});
  EXPECT_FALSE(recovered.kill);
  EXPECT_FALSE(recovered.update) << "nothing changes";
  EXPECT_EQ(trial_.preemptions, 1) << "the same requeue, not counted again";
  EXPECT_EQ(trial_.phase, TrialPhase::kPending);
  Carry(event::Running{});
  EXPECT_EQ(trial_.phase, TrialPhase::kRunning);
  // The log is read again from its start: the first run's lines are
  // replays, the resumed run's step 3 a repeat.
  for (int step = 1; step <= 3; ++step) EXPECT_EQ(Stored(Obs(step, step / 10.0)), 0u);
  EXPECT_EQ(Stored(Obs(3, 1.3)), 0u);
  EXPECT_EQ(Stored(Obs(4, 1.4)), 1u);
}

TEST_F(TrialRequeueTest, AJobRequeuedWhileNoServerWatchedMakesTheRunningTrialPending) {
  runner::RecoveredJob job;
  job.attached = true;
  job.running = false;
  job.restarts = 1;
  job.job_id = "slurm:12";
  Carry(event::Recovered{job, false, {Obs(1, 0.1)}});
  EXPECT_EQ(trial_.phase, TrialPhase::kPending);
  EXPECT_EQ(trial_.reason, "Preempted");
  EXPECT_EQ(trial_.job_id, "slurm:12");
  EXPECT_NE(trial_.message.find("requeued its job slurm:12"), std::string::npos) << trial_.message;
  EXPECT_EQ(trial_.preemptions, 1);
  // Re-attached and still running (requeued before, already run again):
  // nothing changes, and its steps are stored once.
  api::Trial running = trial_;
  running.phase = TrialPhase::kRunning;
  job.running = true;
  TrialLedger fresh(&spec_, true);
  EXPECT_FALSE(fresh.Apply(running, event::Recovered{job, false, {Obs(1, 0.1)}}, 0).update);
  EXPECT_TRUE(fresh.Apply(running, event::Observed{Obs(1, 0.5)}, 0).observations.empty());
}

}  // namespace
}  // namespace hpt::controller::testing
