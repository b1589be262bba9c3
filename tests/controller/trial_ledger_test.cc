// The trial lifecycle's transition table (controller/trial_ledger.h), case
// by case: no store, no executor, no threads; time is a fake clock's.
#include "controller/trial_ledger.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <vector>

#include "tests/testing/fake_clock.h"

namespace hpt::controller {
namespace {

using api::TrialPhase;
using std::chrono::milliseconds;
using std::chrono::seconds;

api::Observation Obs(int64_t step, double loss) {
  api::Observation o;
  o.step = step;
  o.metrics = {{"loss", loss}};
  return o;
}

class TrialLedgerTest : public ::testing::Test {
 protected:
  TrialLedgerTest() {
    spec_.name = "e";
    spec_.objective.metric_name = "loss";
    spec_.trial_template.emplace();
    spec_.trial_template->timeout_seconds = 30;
    spec_.trial_template->resources.memory = 64 << 20;
    spec_.trial_lease_seconds = 60;
    trial_.name = "e-1";
    trial_.phase = TrialPhase::kRunning;
    trial_.job_id = "job-1";
  }

  Effects Apply(const TrialEvent& e) { return ledger_.Apply(trial_, e, clock_.NowMillis()); }
  // Applies `e` and mirrors its update into trial_, as the runner does.
  Effects Carry(const TrialEvent& e) {
    Effects effects = Apply(e);
    if (effects.update) Mirror(*effects.update);
    return effects;
  }
  void Mirror(const storage::TrialUpdate& u) { storage::ApplyTrialUpdate(u, trial_); }
  Effects Exit(runner::ExitKind kind, int code = 0) {
    runner::ExitInfo info;
    info.kind = kind;
    info.exit_code = code;
    info.signal = kind == runner::ExitKind::kSignaled ? 9 : 0;
    return Apply(event::Exited{info});
  }
  void Reported(double loss) { trial_.metrics = {{"loss", loss, loss, loss}}; }

  testing::FakeClock clock_;
  api::ExperimentSpec spec_;
  api::Trial trial_;
  TrialLedger ledger_{&spec_, /*runner_run=*/true};
};

// ---- Exited: the exit -> phase table ----

TEST_F(TrialLedgerTest, ExitZeroWithObjectiveSucceeds) {
  Reported(0.5);
  Effects e = Exit(runner::ExitKind::kExited, 0);
  ASSERT_TRUE(e.update);
  EXPECT_EQ(*e.update->phase, TrialPhase::kSucceeded);
  EXPECT_EQ(*e.update->reason, "Completed");
  EXPECT_EQ(*e.update->exit_code, 0);
  EXPECT_EQ(*e.update->completion_time_ms, clock_.NowMillis());
  EXPECT_FALSE(e.kill);
}

TEST_F(TrialLedgerTest, ExitZeroWithoutObjectiveNamesWhatItPrinted) {
  trial_.metrics = {{"val_loss", 1, 1, 1}};
  runner::ExitInfo info;
  info.other_metrics = {"vloss"};
  info.log_tail = "done";
  Effects e = Apply(event::Exited{info});
  EXPECT_EQ(*e.update->phase, TrialPhase::kMetricsUnavailable);
  EXPECT_EQ(*e.update->reason, "MetricsUnavailable");
  EXPECT_NE(e.update->message->find("objective metric 'loss'"), std::string::npos);
  EXPECT_NE(e.update->message->find("val_loss"), std::string::npos);
  EXPECT_NE(e.update->message->find("other names with a number: vloss"), std::string::npos);
  EXPECT_NE(e.update->message->find("log tail:\ndone"), std::string::npos);
}

TEST_F(TrialLedgerTest, ExitNonZeroFailsWithItsCode) {
  Reported(0.5);
  Effects e = Exit(runner::ExitKind::kExited, 3);
  EXPECT_EQ(*e.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*e.update->reason, "ExitCode");
  EXPECT_EQ(*e.update->message, "exited with code 3");
  EXPECT_EQ(*e.update->exit_code, 3);
}

TEST_F(TrialLedgerTest, ExitBySignalTimeoutKillAndStartFailure) {
  EXPECT_EQ(*Exit(runner::ExitKind::kSignaled).update->reason, "Signal");
  EXPECT_EQ(*Exit(runner::ExitKind::kSignaled).update->message, "killed by signal 9");
  Effects timeout = Exit(runner::ExitKind::kTimedOut);
  EXPECT_EQ(*timeout.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*timeout.update->message, "ran past timeoutSeconds 30");
  Effects killed = Exit(runner::ExitKind::kKilled);
  EXPECT_EQ(*killed.update->phase, TrialPhase::kKilled);
  EXPECT_EQ(*killed.update->reason, "Killed");
  runner::ExitInfo never;
  never.kind = runner::ExitKind::kStartFailed;
  never.exit_code = 127;
  never.log_tail = "no such file";
  Effects failed = Apply(event::Exited{never});
  EXPECT_EQ(*failed.update->reason, "StartFailed");
  EXPECT_EQ(*failed.update->message, "no such file");
  EXPECT_FALSE(failed.update->exit_code) << "a command that never started has no exit code";
}

TEST_F(TrialLedgerTest, OomKilledNamesTheLimitOnlyWhenItFailed) {
  runner::ExitInfo info;
  info.kind = runner::ExitKind::kSignaled;
  info.signal = 9;
  info.oom_killed = true;
  Effects e = Apply(event::Exited{info});
  EXPECT_EQ(*e.update->reason, "OOMKilled");
  EXPECT_NE(e.update->message->find("memory limit of 64Mi"), std::string::npos)
      << *e.update->message;
  Reported(0.1);
  info.kind = runner::ExitKind::kExited;
  info.exit_code = 0;
  EXPECT_EQ(*Apply(event::Exited{info}).update->phase, TrialPhase::kSucceeded);
}

TEST_F(TrialLedgerTest, LostOutputIsNamedAndFailsWhenTheMetricsWereInIt) {
  Reported(0.5);
  runner::ExitInfo info;
  info.log_bytes_lost = 4096;
  info.log_error = "No space left on device";
  Effects kept = Apply(event::Exited{info});
  EXPECT_EQ(*kept.update->phase, TrialPhase::kSucceeded);
  EXPECT_EQ(*kept.update->reason, "LogIncomplete");
  EXPECT_NE(kept.update->message->find("4096 bytes"), std::string::npos);
  info.metrics_lost = true;
  Effects lost = Apply(event::Exited{info});
  EXPECT_EQ(*lost.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*lost.update->reason, "LogIncomplete");
  EXPECT_NE(lost.update->message->find("metrics it printed there were lost"), std::string::npos);
}

TEST_F(TrialLedgerTest, AnEndedTrialKeepsItsPhaseWhenItsJobExits) {
  trial_.phase = TrialPhase::kEarlyStopped;
  EXPECT_TRUE(Exit(runner::ExitKind::kSignaled).empty());
}

// ---- Started, Waiting, Running ----

TEST_F(TrialLedgerTest, StartedRunsQueuesOrFails) {
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  runner::JobHandle job;
  job.pid = 42;
  job.id = "local:42";
  Effects running = Apply(event::Started{job});
  EXPECT_EQ(*running.update->phase, TrialPhase::kRunning);
  EXPECT_EQ(*running.update->pid, 42);
  EXPECT_EQ(*running.update->start_time_ms, clock_.NowMillis());
  job.queued = true;
  job.id = "7";
  Effects queued = Apply(event::Started{job});
  EXPECT_FALSE(queued.update->phase) << "Pending until the cluster runs it";
  EXPECT_EQ(*queued.update->reason, "QueuedInCluster");
  EXPECT_EQ(*queued.update->job_id, "7");
  EXPECT_FALSE(queued.update->start_time_ms);
  Effects failed = Apply(event::Started{InvalidArgument("argv is empty")});
  EXPECT_EQ(*failed.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*failed.update->reason, "StartFailed");
  EXPECT_EQ(*failed.update->message, "argv is empty");
}

TEST_F(TrialLedgerTest, WaitingIsWrittenOncePerMessageAndClearedByTheStart) {
  trial_.phase = TrialPhase::kPending;
  ASSERT_TRUE(Carry(event::Waiting{"waiting for 1 GPU (0 of 2 free)"}).update);
  EXPECT_EQ(trial_.reason, "WaitingForResources");
  EXPECT_TRUE(Carry(event::Waiting{"waiting for 1 GPU (0 of 2 free)"}).empty());
  EXPECT_TRUE(Carry(event::Waiting{"waiting for 1 GPU (1 of 2 free)"}).update);
  runner::JobHandle job;
  Effects started = Apply(event::Started{job});
  EXPECT_EQ(*started.update->reason, "");
  trial_.phase = TrialPhase::kRunning;
  EXPECT_TRUE(Apply(event::Waiting{"x"}).empty()) << "only Pending trials wait";
}

TEST_F(TrialLedgerTest, RunningStartsAQueuedTrialOnce) {
  trial_.phase = TrialPhase::kPending;
  clock_.Advance(seconds(5));
  Effects e = Carry(event::Running{});
  EXPECT_EQ(*e.update->phase, TrialPhase::kRunning);
  EXPECT_EQ(*e.update->start_time_ms, clock_.NowMillis());
  EXPECT_TRUE(Apply(event::Running{}).empty());
}

// ---- Observed, StopRequested, EarlyStop ----

TEST_F(TrialLedgerTest, ObservationsAreStoredAndJudged) {
  Effects e = Apply(event::Observed{Obs(1, 0.5)});
  ASSERT_EQ(e.observations.size(), 1u);
  EXPECT_TRUE(e.judge);
  EXPECT_FALSE(e.update);
}

TEST_F(TrialLedgerTest, StopKillsARunningOrQueuedJobOnly) {
  Effects running = Carry(event::StopRequested{"StoppedByUser"});
  EXPECT_EQ(trial_.phase, TrialPhase::kKilled);
  EXPECT_EQ(trial_.reason, "StoppedByUser");
  EXPECT_TRUE(running.kill);
  EXPECT_TRUE(Apply(event::StopRequested{"again"}).empty()) << "already ended";

  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  EXPECT_FALSE(Apply(event::StopRequested{"ExperimentFinished"}).kill) << "no job yet";
  trial_.job_id = "8";  // queued in a cluster
  EXPECT_TRUE(Apply(event::StopRequested{"ExperimentFinished"}).kill);
}

TEST_F(TrialLedgerTest, StopRacingTheExitKeepsKilled) {
  Carry(event::StopRequested{"StoppedByUser"});
  // The job was ending anyway: its exit (any kind) does not change Killed.
  EXPECT_TRUE(Exit(runner::ExitKind::kExited, 0).empty());
  EXPECT_TRUE(Exit(runner::ExitKind::kSignaled).empty());
}

TEST_F(TrialLedgerTest, ExitBeforeTheStopLeavesNothingToStop) {
  Reported(0.2);
  Carry(event::Exited{runner::ExitInfo{}});
  EXPECT_EQ(trial_.phase, TrialPhase::kSucceeded);
  EXPECT_TRUE(Apply(event::StopRequested{"StoppedByUser"}).empty());
}

TEST_F(TrialLedgerTest, EarlyStopEndsARunningTrialAndItsExitKeepsThePhase) {
  Effects e = Carry(event::EarlyStop{"below the median"});
  EXPECT_EQ(trial_.phase, TrialPhase::kEarlyStopped);
  EXPECT_EQ(trial_.message, "below the median");
  EXPECT_TRUE(e.kill);
  EXPECT_TRUE(Exit(runner::ExitKind::kSignaled).empty());
  EXPECT_TRUE(Apply(event::EarlyStop{"again"}).empty());
}

// ---- Refused writes: held, merged under newer ones, retried in order ----

TEST_F(TrialLedgerTest, ARefusedWriteGoesFirstInTheNextOne) {
  Effects first = Apply(event::Observed{Obs(1, 0.9)});
  ledger_.Hold(trial_.name, first);
  EXPECT_TRUE(ledger_.HasHeld());
  Effects second = Apply(event::Observed{Obs(2, 0.8)});
  ASSERT_EQ(second.observations.size(), 2u);
  EXPECT_EQ(second.observations[0].step, 1);
  EXPECT_EQ(second.observations[1].step, 2);
  EXPECT_FALSE(ledger_.HasHeld()) << "taken out with the write that carries it";
}

TEST_F(TrialLedgerTest, HeldFieldsAreMergedUnderNewerOnes) {
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  runner::JobHandle job;
  job.pid = 7;
  job.id = "local:7";
  ledger_.Hold(trial_.name, Carry(event::Started{job}));
  clock_.Advance(seconds(1));
  Reported(0.3);
  Effects exit = Apply(event::Exited{runner::ExitInfo{}});
  ASSERT_TRUE(exit.update);
  EXPECT_EQ(*exit.update->pid, 7) << "the start's fields still go";
  EXPECT_EQ(*exit.update->job_id, "local:7");
  EXPECT_EQ(*exit.update->phase, TrialPhase::kSucceeded) << "the newer phase wins";
}

TEST_F(TrialLedgerTest, TheExitIsJudgedOnHeldObservationsAndWritesThemFirst) {
  ledger_.Hold(trial_.name, Apply(event::Observed{Obs(1, 0.25)}));
  EXPECT_EQ(ledger_.WithHeld(trial_).size(), 1u);
  Effects exit = Apply(event::Exited{runner::ExitInfo{}});
  EXPECT_EQ(*exit.update->phase, TrialPhase::kSucceeded) << "the objective was only held";
  ASSERT_EQ(exit.observations.size(), 1u);
}

TEST_F(TrialLedgerTest, AnEndedTrialsExitStillCarriesItsHeldObservations) {
  trial_.phase = TrialPhase::kKilled;
  ledger_.Hold(trial_.name, Effects{{Obs(3, 0.1)}, std::nullopt});
  Effects exit = Exit(runner::ExitKind::kSignaled);
  EXPECT_EQ(exit.observations.size(), 1u);
  EXPECT_FALSE(exit.update) << "no phase change";
}

TEST_F(TrialLedgerTest, TakeHeldGivesTheOldestTrialFirstAndHoldPutsItBack) {
  ledger_.Hold("e-2", Effects{{Obs(1, 1)}, std::nullopt});
  ledger_.Hold("e-1", Effects{{Obs(1, 2)}, std::nullopt});
  auto first = ledger_.TakeHeld();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->first, "e-1");
  ledger_.Hold(first->first, first->second);  // refused again
  EXPECT_EQ(ledger_.TakeHeld()->first, "e-1");
  EXPECT_EQ(ledger_.TakeHeld()->first, "e-2");
  EXPECT_FALSE(ledger_.TakeHeld());
}

// ---- Recovered ----

TEST_F(TrialLedgerTest, AnAttachedTrialsReplayedOutputIsStoredOnce) {
  runner::RecoveredJob job;
  job.attached = true;
  EXPECT_TRUE(Apply(event::Recovered{job, false, {Obs(1, 0.9), Obs(2, 0.8)}}).empty());
  EXPECT_TRUE(Apply(event::Observed{Obs(1, 0.9)}).observations.empty()) << "a replay";
  EXPECT_EQ(Apply(event::Observed{Obs(1, 0.9)}).observations.size(), 1u)
      << "met once each: a second one is new";
  EXPECT_TRUE(Apply(event::Observed{Obs(2, 0.8)}).observations.empty());
  EXPECT_EQ(Apply(event::Observed{Obs(3, 0.7)}).observations.size(), 1u);
  api::Observation texts = Obs(4, 0.6);
  EXPECT_EQ(Apply(event::Observed{texts}).observations.size(), 1u);
}

TEST_F(TrialLedgerTest, AReplayedObservationKeepsItsTexts) {
  runner::RecoveredJob job;
  job.attached = true;
  Apply(event::Recovered{job, false, {Obs(1, 0.9)}});
  api::Observation o = Obs(1, 0.9);
  o.texts = {{"note", "x"}};
  Effects e = Apply(event::Observed{o});
  ASSERT_EQ(e.observations.size(), 1u);
  EXPECT_TRUE(e.observations[0].metrics.empty());
  EXPECT_EQ(e.observations[0].texts.size(), 1u);
}

TEST_F(TrialLedgerTest, AStoppedTrialFoundRunningIsKilledAndItsOutputIgnored) {
  trial_.phase = TrialPhase::kEarlyStopped;
  runner::RecoveredJob job;
  job.attached = true;
  Effects e = Apply(event::Recovered{job, /*ended=*/true, {}});
  EXPECT_TRUE(e.kill);
  EXPECT_FALSE(e.update);
  EXPECT_TRUE(Apply(event::Observed{Obs(9, 0.0)}).observations.empty())
      << "what it printed after its end must not turn it into the best";
  EXPECT_TRUE(Exit(runner::ExitKind::kKilled).empty());
  EXPECT_EQ(Apply(event::Observed{Obs(10, 0.0)}).observations.size(), 1u)
      << "a leftover only until its exit";
}

TEST_F(TrialLedgerTest, AStoppedTrialAlreadyGoneNeedsNothing) {
  trial_.phase = TrialPhase::kKilled;
  EXPECT_TRUE(Apply(event::Recovered{runner::RecoveredJob{}, true, {}}).empty());
}

TEST_F(TrialLedgerTest, AGoneTrialFailsWithServerRestartedUnlessItNeverStarted) {
  Effects gone = Apply(event::Recovered{runner::RecoveredJob{}, false, {}});
  EXPECT_EQ(*gone.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*gone.update->reason, "ServerRestarted");
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  EXPECT_TRUE(Apply(event::Recovered{runner::RecoveredJob{}, false, {}}).empty())
      << "never started: the runner starts it";
}

TEST_F(TrialLedgerTest, ATrialStoredUnstartedButFoundRunsOn) {
  trial_.phase = TrialPhase::kPending;
  trial_.job_id.clear();
  runner::RecoveredJob job;
  job.attached = true;
  job.job_id = "found";
  job.running = true;
  Effects e = Apply(event::Recovered{job, false, {}});
  EXPECT_EQ(*e.update->job_id, "found");
  EXPECT_EQ(*e.update->phase, TrialPhase::kRunning);
  job.running = false;  // still queued in its cluster
  Effects queued = Apply(event::Recovered{job, false, {}});
  EXPECT_FALSE(queued.update->phase);
}

TEST_F(TrialLedgerTest, AnUnknownAnswerKeepsThePhaseAndIsAskedAgainLater) {
  runner::RecoveredJob unknown;
  unknown.unknown = true;
  unknown.why = "the cluster does not answer";
  EXPECT_TRUE(Apply(event::Recovered{unknown, false, {}}).empty());
  EXPECT_TRUE(ledger_.RecoveryPending("e-1"));
  EXPECT_EQ(ledger_.NextDeadline(), clock_.NowMillis() + kRecoveryRetryMs);
  clock_.Advance(milliseconds(kRecoveryRetryMs - 1));
  EXPECT_TRUE(ledger_.RecoveryDue(clock_.NowMillis()).empty());
  clock_.Advance(milliseconds(1));
  EXPECT_EQ(ledger_.RecoveryDue(clock_.NowMillis()), std::vector<std::string>{"e-1"});
  EXPECT_FALSE(ledger_.RecoveryPending("e-1"));
  EXPECT_EQ(ledger_.NextDeadline(), 0);
}

// ---- Leases (client-run trials) ----

class LeaseTest : public TrialLedgerTest {
 protected:
  LeaseTest() { spec_.trial_template.reset(); }
  TrialLedger client_{&spec_, /*runner_run=*/false};
  Effects Tick() { return client_.Apply(trial_, event::LeaseTick{}, clock_.NowMillis()); }
};

TEST_F(LeaseTest, ALeaseRunsOutAfterTrialLeaseSecondsWithoutAReport) {
  client_.Apply(trial_, event::Renewed{}, clock_.NowMillis());
  EXPECT_EQ(client_.NextLeaseExpiry(), clock_.NowMillis() + 60000);
  clock_.Advance(seconds(59));
  EXPECT_TRUE(Tick().empty());
  client_.Apply(trial_, event::Renewed{}, clock_.NowMillis());  // a report
  clock_.Advance(seconds(59));
  EXPECT_TRUE(Tick().empty());
  clock_.Advance(seconds(1));
  Effects e = Tick();
  ASSERT_TRUE(e.update);
  EXPECT_EQ(*e.update->phase, TrialPhase::kFailed);
  EXPECT_EQ(*e.update->reason, "Abandoned");
  EXPECT_NE(e.update->message->find("no report for 60 s (trialLeaseSeconds 60)"),
            std::string::npos)
      << *e.update->message;
  EXPECT_EQ(client_.NextLeaseExpiry(), 0) << "forgotten once ended";
}

TEST_F(LeaseTest, ARunningTrialLoadedWithoutALeaseGetsAFullOne) {
  EXPECT_TRUE(Tick().empty());
  clock_.Advance(seconds(60));
  EXPECT_TRUE(Tick().update);
}

TEST_F(LeaseTest, ANewLeaseLengthAppliesAtOnceAndZeroMeansNone) {
  client_.Apply(trial_, event::Renewed{}, clock_.NowMillis());
  clock_.Advance(seconds(20));
  spec_.trial_lease_seconds = 10;  // PATCH
  EXPECT_TRUE(Tick().update);
  trial_.phase = TrialPhase::kRunning;
  spec_.trial_lease_seconds = 0;
  client_.Apply(trial_, event::Renewed{}, clock_.NowMillis());
  clock_.Advance(std::chrono::hours(24));
  EXPECT_TRUE(Tick().empty());
  EXPECT_EQ(client_.NextLeaseExpiry(), 0);
}

TEST_F(LeaseTest, RunnerRunTrialsAndEndedOnesHaveNoLease) {
  ledger_.Apply(trial_, event::Renewed{}, clock_.NowMillis());
  clock_.Advance(std::chrono::hours(1));
  EXPECT_TRUE(ledger_.Apply(trial_, event::LeaseTick{}, clock_.NowMillis()).empty());
  trial_.phase = TrialPhase::kSucceeded;
  EXPECT_TRUE(Tick().empty());
}

// What a retry after an Unavailable answer must not store again.
TEST(DropStoredTest, TakesOutEachStoredValueOnceAndKeepsTheRest) {
  auto at = [](int64_t step, int64_t ms, std::map<std::string, double> metrics) {
    api::Observation o;
    o.step = step;
    o.timestamp_ms = ms;
    o.metrics = std::move(metrics);
    return o;
  };
  const std::vector<api::Observation> stored = {at(1, 10, {{"loss", 0.3}, {"acc", 0.5}}),
                                                at(2, 20, {{"loss", 0.2}})};
  api::Observation texts_only = at(2, 20, {});
  texts_only.texts = {{"genotype", "g"}};
  std::vector<api::Observation> held = {
      at(1, 10, {{"loss", 0.3}, {"acc", 0.5}}),  // stored: out
      at(1, 10, {{"loss", 0.3}}),                // the same again: matched once, kept
      at(2, 21, {{"loss", 0.2}}),                // another moment: kept
      at(2, 20, {{"loss", 0.2}, {"extra", 1}}),  // loss stored: only extra kept
      texts_only,                                // texts are merged by name: kept
  };
  DropStored(stored, &held);
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(held[0].metrics, (std::map<std::string, double>{{"loss", 0.3}}));
  EXPECT_EQ(held[1].timestamp_ms, 21);
  EXPECT_EQ(held[2].metrics, (std::map<std::string, double>{{"extra", 1}}));
  EXPECT_EQ(held[3].texts.at("genotype"), "g");

  std::vector<api::Observation> none = {at(3, 30, {{"loss", 0.1}})};
  DropStored({}, &none);
  EXPECT_EQ(none.size(), 1u);
}

}  // namespace
}  // namespace hpt::controller
