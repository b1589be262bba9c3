#include "api/experiment_status.h"

#include <gtest/gtest.h>

#include <random>

namespace hpt::api {
namespace {

Trial MakeTrial(TrialPhase phase, std::optional<double> loss = std::nullopt) {
  Trial t;
  t.phase = phase;
  if (loss) t.metrics.push_back({"loss", *loss, *loss, *loss});
  return t;
}

Objective MinimizeWithGoal(std::optional<double> goal = std::nullopt) {
  Objective o;
  o.metric_name = "loss";
  o.goal = goal;
  return o;
}

Objective Maximize(std::optional<double> goal = std::nullopt) {
  Objective o = MinimizeWithGoal(goal);
  o.type = ObjectiveType::kMaximize;
  return o;
}

TEST(CountTrials, CountsEveryPhase) {
  std::vector<Trial> trials = {
      MakeTrial(TrialPhase::kPending),   MakeTrial(TrialPhase::kRunning),
      MakeTrial(TrialPhase::kRunning),   MakeTrial(TrialPhase::kSucceeded),
      MakeTrial(TrialPhase::kFailed),    MakeTrial(TrialPhase::kFailed),
      MakeTrial(TrialPhase::kFailed),    MakeTrial(TrialPhase::kEarlyStopped),
      MakeTrial(TrialPhase::kMetricsUnavailable), MakeTrial(TrialPhase::kKilled)};
  TrialCounts c = CountTrials(trials);
  EXPECT_EQ(c.pending, 1);
  EXPECT_EQ(c.running, 2);
  EXPECT_EQ(c.succeeded, 1);
  EXPECT_EQ(c.failed, 3);
  EXPECT_EQ(c.early_stopped, 1);
  EXPECT_EQ(c.metrics_unavailable, 1);
  EXPECT_EQ(c.killed, 1);
  EXPECT_EQ(c.total, 10);
  EXPECT_EQ(c.active(), 3);
  EXPECT_EQ(c.completed(), 3);
}

TEST(CountTrials, EmptyHistory) {
  TrialCounts c = CountTrials({});
  EXPECT_EQ(c.total, 0);
  EXPECT_EQ(c.active(), 0);
}

TEST(BestTrialIndex, MinimizePicksTheLowestObjective) {
  std::vector<Trial> trials = {MakeTrial(TrialPhase::kSucceeded, 3.0),
                               MakeTrial(TrialPhase::kSucceeded, 1.0),
                               MakeTrial(TrialPhase::kSucceeded, 2.0)};
  EXPECT_EQ(BestTrialIndex(trials, MinimizeWithGoal()), 1u);
  EXPECT_EQ(BestTrialIndex(trials, Maximize()), 0u);
}

TEST(BestTrialIndex, OnlySucceededOrEarlyStoppedTrialsWithTheObjectiveCount) {
  std::vector<Trial> trials = {MakeTrial(TrialPhase::kFailed, -10.0),
                               MakeTrial(TrialPhase::kRunning, -9.0),
                               MakeTrial(TrialPhase::kKilled, -8.0),
                               MakeTrial(TrialPhase::kMetricsUnavailable, -7.0),
                               MakeTrial(TrialPhase::kSucceeded),
                               MakeTrial(TrialPhase::kSucceeded, 5.0),
                               MakeTrial(TrialPhase::kEarlyStopped, 4.0)};
  EXPECT_EQ(BestTrialIndex(trials, MinimizeWithGoal()), 6u);
  EXPECT_EQ(BestTrialIndex(trials, Maximize()), 5u);
}

TEST(BestTrialIndex, TiesKeepTheFirstAndNoneGivesNullopt) {
  std::vector<Trial> trials = {MakeTrial(TrialPhase::kSucceeded, 1.0),
                               MakeTrial(TrialPhase::kSucceeded, 1.0)};
  EXPECT_EQ(BestTrialIndex(trials, MinimizeWithGoal()), 0u);
  EXPECT_EQ(BestTrialIndex(trials, Maximize()), 0u);
  EXPECT_FALSE(BestTrialIndex({}, MinimizeWithGoal()).has_value());
  EXPECT_FALSE(BestTrialIndex({MakeTrial(TrialPhase::kFailed, 1.0)},
                              MinimizeWithGoal()));
}

TEST(BestTrialIndex, UsesTheObjectiveMetricUnderItsStrategy) {
  Trial t = MakeTrial(TrialPhase::kSucceeded);
  t.metrics = {{"acc", 0.0, 0.0, 0.0}, {"loss", 0.1, 9.0, 5.0}};
  Trial u = MakeTrial(TrialPhase::kSucceeded, 4.0);
  EXPECT_EQ(BestTrialIndex({t, u}, MinimizeWithGoal()),
            0u);  // by default its min, 0.1
  Objective latest = MinimizeWithGoal();
  latest.metric_strategies["loss"] = "latest";
  EXPECT_EQ(BestTrialIndex({t, u}, latest), 1u);  // 5 against 4
}

TEST(GoalReached, MinimizeAndMaximize) {
  EXPECT_TRUE(GoalReached(MinimizeWithGoal(0.5), 0.5));
  EXPECT_TRUE(GoalReached(MinimizeWithGoal(0.5), 0.1));
  EXPECT_FALSE(GoalReached(MinimizeWithGoal(0.5), 0.6));
  EXPECT_TRUE(GoalReached(Maximize(0.9), 0.9));
  EXPECT_TRUE(GoalReached(Maximize(0.9), 0.95));
  EXPECT_FALSE(GoalReached(Maximize(0.9), 0.5));
  EXPECT_FALSE(GoalReached(MinimizeWithGoal(), -1e300));
  EXPECT_FALSE(GoalReached(Maximize(), 1e300));
}

// The tally agrees with a rescan after every step of a long random history
// of additions and phase changes, ties and goal-less objectives included.
TEST(TrialTally, AgreesWithARescanAfterEveryChange) {
  for (const Objective& objective : {MinimizeWithGoal(), Maximize()}) {
    std::mt19937 rng(7);
    std::vector<Trial> trials;
    TrialTally tally(objective);
    const TrialPhase finished[] = {TrialPhase::kSucceeded, TrialPhase::kFailed,
                                   TrialPhase::kEarlyStopped, TrialPhase::kMetricsUnavailable,
                                   TrialPhase::kKilled};
    for (int step = 0; step < 3000; ++step) {
      std::vector<size_t> active;
      for (size_t i = 0; i < trials.size(); ++i) {
        if (!IsFinished(trials[i].phase)) active.push_back(i);
      }
      if (active.empty() || rng() % 3 == 0) {
        trials.push_back(MakeTrial(rng() % 2 ? TrialPhase::kPending : TrialPhase::kRunning));
        tally.Added(trials, trials.size() - 1);
      } else {
        size_t i = active[rng() % active.size()];
        TrialPhase from = trials[i].phase;
        if (from == TrialPhase::kPending) {
          trials[i].phase = TrialPhase::kRunning;
        } else {
          // Few distinct values, so ties between trials are common.
          double loss = static_cast<int>(rng() % 20) / 4.0;
          trials[i].metrics = {{"loss", loss, loss, loss}};
          trials[i].phase = finished[rng() % 5];
        }
        tally.PhaseChanged(trials, i, from);
      }
      if (step % 97 == 0) tally.Invalidate();
      TrialCounts want = CountTrials(trials);
      const TrialCounts& got = tally.Counts(trials);
      ASSERT_EQ(got.total, want.total) << step;
      ASSERT_EQ(got.pending, want.pending) << step;
      ASSERT_EQ(got.running, want.running) << step;
      ASSERT_EQ(got.succeeded, want.succeeded) << step;
      ASSERT_EQ(got.failed, want.failed) << step;
      ASSERT_EQ(got.early_stopped, want.early_stopped) << step;
      ASSERT_EQ(got.metrics_unavailable, want.metrics_unavailable) << step;
      ASSERT_EQ(got.killed, want.killed) << step;
      ASSERT_EQ(tally.Best(trials), BestTrialIndex(trials, objective)) << step;
    }
  }
}

}  // namespace
}  // namespace hpt::api
