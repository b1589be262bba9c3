#include "earlystop/median_stop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

using api::ObjectiveType;
using api::TrialPhase;
using testing::Curve;
using testing::Running;
using testing::StopSpec;
using testing::Succeeded;

// Most cases judge against three Succeeded trials from step 4 on: hpt's
// defaults before MedianPruner's (MedianPruner's are tested at the end).
const std::vector<api::AlgorithmSetting> kThreeFromStep4 = {
    {"min_trials_required", "3"}, {"start_step", "4"}};

api::ExperimentSpec MedianSpec(
    std::vector<api::AlgorithmSetting> settings = kThreeFromStep4,
    ObjectiveType type = ObjectiveType::kMinimize) {
  return StopSpec("medianstop", std::move(settings), type);
}

api::ExperimentSpec Defaults(ObjectiveType type = ObjectiveType::kMinimize) {
  return StopSpec("medianstop", {}, type);
}

StopDecision MedianDecide(const api::ExperimentSpec& spec,
                          const TrialCurve& trial,
                          const std::vector<TrialCurve>& others) {
  StatusOr<StopDecision> d = MedianStop().ShouldStop(spec, trial, others);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : StopDecision{};
}

// Succeeded trials whose values at every step are 1, 2 and 3.
std::vector<TrialCurve> Flat123() {
  return {Succeeded("a", {1, 1, 1, 1, 1, 1}),
          Succeeded("b", {2, 2, 2, 2, 2, 2}),
          Succeeded("c", {3, 3, 3, 3, 3, 3})};
}

TEST(MedianStopTest, StopsATrialWhoseBestIsWorseThanTheMedian) {
  StopDecision d =
      MedianDecide(MedianSpec(), Running("t", {5, 5, 5, 4}), Flat123());
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason,
            "best loss 4 by step 4 is worse than the median 2 of 3 succeeded "
            "trials' values at that step");
}

TEST(MedianStopTest, KeepsATrialWhoseBestBeatsTheMedian) {
  // The best so far counts, not the latest value.
  StopDecision d =
      MedianDecide(MedianSpec(), Running("t", {1.5, 5, 5, 5}), Flat123());
  EXPECT_FALSE(d.stop);
  EXPECT_EQ(d.reason, "");
}

TEST(MedianStopTest, UsesTheMedianNotKatibsMean) {
  // Running averages 1, 1.2 and 100: the mean (34) would let a trial at 5
  // continue; the median (1.2) does not.
  std::vector<TrialCurve> others = {Succeeded("a", {1, 1, 1, 1}),
                                    Succeeded("b", {1.2, 1.2, 1.2, 1.2}),
                                    Succeeded("c", {100, 100, 100, 100})};
  EXPECT_TRUE(
      MedianDecide(MedianSpec(), Running("t", {5, 5, 5, 5}), others).stop);
}

TEST(MedianStopTest, EvenCountTakesTheMeanOfTheMiddleTwo) {
  std::vector<TrialCurve> others = Flat123();
  others.push_back(Succeeded("d", {4, 4, 4, 4}));  // median 2.5
  auto spec = MedianSpec();
  EXPECT_TRUE(MedianDecide(spec, Running("t", {9, 9, 9, 2.6}), others).stop);
  EXPECT_FALSE(MedianDecide(spec, Running("t", {9, 9, 9, 2.5}), others).stop);
}

TEST(MedianStopTest, ComparesValuesAtTheTrialsStepNotRunningAverages) {
  // Rising accuracy curves: at step 4 the succeeded trials are at 0.9, 0.8
  // and 0.7 (median 0.8), while their running averages are only 0.4-0.5.
  auto spec = MedianSpec(kThreeFromStep4, ObjectiveType::kMaximize);
  std::vector<TrialCurve> others = {Succeeded("a", {0.1, 0.3, 0.5, 0.9, 0.95}),
                                    Succeeded("b", {0.1, 0.3, 0.5, 0.8, 0.85}),
                                    Succeeded("c", {0.1, 0.3, 0.5, 0.7, 0.75})};
  // 0.6 beats every running average but is behind the median trial.
  StopDecision d =
      MedianDecide(spec, Running("t", {0.2, 0.4, 0.5, 0.6}), others);
  EXPECT_TRUE(d.stop);
  EXPECT_NE(d.reason.find("median 0.8 of 3"), std::string::npos) << d.reason;
  EXPECT_FALSE(
      MedianDecide(spec, Running("t", {0.2, 0.4, 0.5, 0.8}), others).stop);
  // At step 5 the bar is the values at step 5.
  EXPECT_TRUE(
      MedianDecide(spec, Running("t", {0.2, 0.4, 0.5, 0.8, 0.84}), others)
          .stop);
  EXPECT_FALSE(
      MedianDecide(spec, Running("t", {0.2, 0.4, 0.5, 0.8, 0.85}), others)
          .stop);
}

TEST(MedianStopTest, AGapTakesTheLatestValueBeforeTheStep) {
  // b and c report every other step: at step 5 their values are those of
  // step 4 (loss 1 and 3), a's is 2: median 2.
  std::vector<TrialCurve> others = {Succeeded("a", {2, 2, 2, 2, 2, 2}),
                                    Succeeded("b", {}), Succeeded("c", {})};
  others[1].points = {{2, 9}, {4, 1}, {6, 0}};
  others[2].points = {{2, 9}, {4, 3}, {6, 0}};
  auto spec = MedianSpec();
  EXPECT_TRUE(MedianDecide(spec, Running("t", {5, 5, 5, 5, 2.1}), others).stop);
  EXPECT_FALSE(MedianDecide(spec, Running("t", {5, 5, 5, 5, 2}), others).stop);
}

TEST(MedianStopTest, Maximize) {
  auto spec = MedianSpec(kThreeFromStep4, ObjectiveType::kMaximize);
  // Median of 1, 2, 3 is 2; higher is better.
  EXPECT_TRUE(MedianDecide(spec, Running("t", {1, 1, 1, 1.9}), Flat123()).stop);
  EXPECT_FALSE(
      MedianDecide(spec, Running("t", {0, 0, 0, 2.1}), Flat123()).stop);
  EXPECT_FALSE(
      MedianDecide(spec, Running("t", {2.5, 0, 0, 0}), Flat123()).stop);
}

TEST(MedianStopTest, ATieWithTheMedianContinues) {
  EXPECT_FALSE(
      MedianDecide(MedianSpec(), Running("t", {2, 2, 2, 2}), Flat123()).stop);
  auto max = MedianSpec(kThreeFromStep4, ObjectiveType::kMaximize);
  EXPECT_FALSE(MedianDecide(max, Running("t", {2, 2, 2, 2}), Flat123()).stop);
}

TEST(MedianStopTest, FlatIdenticalCurvesAreNeverStopped) {
  std::vector<TrialCurve> others = {Succeeded("a", {0.5, 0.5, 0.5, 0.5, 0.5}),
                                    Succeeded("b", {0.5, 0.5, 0.5, 0.5, 0.5}),
                                    Succeeded("c", {0.5, 0.5, 0.5, 0.5, 0.5})};
  for (int steps = 1; steps <= 5; ++steps) {
    TrialCurve t = Running("t", std::vector<double>(steps, 0.5));
    EXPECT_FALSE(MedianDecide(MedianSpec(), t, others).stop) << steps;
    EXPECT_FALSE(
        MedianDecide(MedianSpec(kThreeFromStep4, ObjectiveType::kMaximize), t,
                     others)
            .stop)
        << steps;
  }
}

TEST(MedianStopTest, WaitsForStartStep) {
  auto spec = MedianSpec();
  EXPECT_FALSE(MedianDecide(spec, Running("t", {9, 9, 9}), Flat123()).stop);
  EXPECT_TRUE(MedianDecide(spec, Running("t", {9, 9, 9, 9}), Flat123()).stop);
  auto later = MedianSpec({{"min_trials_required", "3"}, {"start_step", "6"}});
  EXPECT_FALSE(
      MedianDecide(later, Running("t", {9, 9, 9, 9, 9}), Flat123()).stop);
  EXPECT_TRUE(
      MedianDecide(later, Running("t", {9, 9, 9, 9, 9, 9}), Flat123()).stop);
}

TEST(MedianStopTest, StartStepIsAStepNotACountOfReports) {
  // One report, at step 10.
  TrialCurve t = Curve("t", TrialPhase::kRunning, {9}, 10);
  std::vector<TrialCurve> others;
  for (std::string name : {"a", "b", "c"}) {
    others.push_back(Curve(name, TrialPhase::kSucceeded, {1, 1}, 9));
  }
  EXPECT_TRUE(MedianDecide(MedianSpec(), t, others).stop);
}

TEST(MedianStopTest, WaitsForMinTrialsRequired) {
  std::vector<TrialCurve> two = {Succeeded("a", {1, 1, 1, 1}),
                                 Succeeded("b", {1, 1, 1, 1})};
  TrialCurve t = Running("t", {9, 9, 9, 9});
  EXPECT_FALSE(MedianDecide(MedianSpec(), t, two).stop);
  EXPECT_TRUE(
      MedianDecide(MedianSpec({{"min_trials_required", "2"}}), t, two).stop);
  EXPECT_FALSE(
      MedianDecide(MedianSpec({{"min_trials_required", "5"}}), t, Flat123())
          .stop);
}

TEST(MedianStopTest, NMinTrialsCountsOnlySucceededTrialsThatReachedTheStep) {
  TrialCurve t = Running("t", {9, 9, 9, 9});
  auto spec = MedianSpec({{"min_trials_required", "3"},
                          {"start_step", "4"},
                          {"n_min_trials", "3"}});
  std::vector<TrialCurve> others = {
      Succeeded("a", {1, 1, 1, 1}),
      Succeeded("b", {1, 1, 1, 1, 1}),
      // Not counted: not Succeeded, or Succeeded before step 4.
      Running("c", {1, 1, 1, 1}),
      Curve("d", TrialPhase::kFailed, {1, 1, 1, 1}),
      Curve("e", TrialPhase::kKilled, {1, 1, 1, 1}),
      Curve("f", TrialPhase::kEarlyStopped, {1, 1, 1, 1, 1}),
      Succeeded("g", {1, 1, 1}),
      Succeeded("h", {}),
  };
  EXPECT_FALSE(MedianDecide(spec, t, others).stop);  // only a and b qualify
  others.push_back(Succeeded("i", {1, 1, 1, 1}));
  EXPECT_TRUE(MedianDecide(spec, t, others).stop);
}

TEST(MedianStopTest, StartupTrialsAreEverySucceededTrial) {
  // As MedianPruner's n_startup_trials: Succeeded trials of any length
  // count; the median is taken over those that reached the step.
  TrialCurve t = Running("t", {9, 9});
  std::vector<TrialCurve> others = {
      Succeeded("a", {1, 1}), Succeeded("b", {1}), Succeeded("c", {1}),
      Curve("d", TrialPhase::kEarlyStopped, {1, 1}),
      Curve("e", TrialPhase::kFailed, {1, 1})};
  auto spec = MedianSpec({{"min_trials_required", "3"}, {"start_step", "0"}});
  EXPECT_TRUE(MedianDecide(spec, t, others).stop);
  others.erase(others.begin() + 2);  // two Succeeded trials left
  EXPECT_FALSE(MedianDecide(spec, t, others).stop);
}

TEST(MedianStopTest, EarlyStoppedTrialsDoNotLowerTheBar) {
  // Loss: three good Succeeded trials at 1 and four stopped bad ones at 8.
  // Counting the stopped ones the median would be 8 and a trial at 5 would
  // run on; among the Succeeded ones it is 1.
  std::vector<TrialCurve> others = {Succeeded("a", {1, 1, 1, 1}),
                                    Succeeded("b", {1, 1, 1, 1}),
                                    Succeeded("c", {1, 1, 1, 1})};
  for (std::string name : {"d", "e", "f", "g"}) {
    others.push_back(Curve(name, TrialPhase::kEarlyStopped, {8, 8, 8, 8}));
  }
  EXPECT_TRUE(
      MedianDecide(MedianSpec(), Running("t", {5, 5, 5, 5}), others).stop);
}

TEST(MedianStopTest, ATrialWithNoStepsIsNeverStopped) {
  EXPECT_FALSE(MedianDecide(MedianSpec(), Running("t", {}), Flat123()).stop);
  EXPECT_FALSE(
      MedianDecide(MedianSpec({{"start_step", "1"}}), Running("t", {}), {})
          .stop);
}

TEST(MedianStopTest, NoOtherTrialsNoStop) {
  EXPECT_FALSE(MedianDecide(MedianSpec(), Running("t", {9, 9, 9, 9}), {}).stop);
}

TEST(MedianStopTest, SkipsItselfAmongOthers) {
  std::vector<TrialCurve> others = {Succeeded("a", {1, 1, 1, 1}),
                                    Succeeded("b", {1, 1, 1, 1})};
  TrialCurve t = Running("t", {9, 9, 9, 9});
  // Even listed as completed, the trial's own curve does not count.
  others.push_back(Curve("t", TrialPhase::kSucceeded, {1, 1, 1, 1}));
  EXPECT_FALSE(MedianDecide(MedianSpec(), t, others).stop);
}

TEST(MedianStopTest, AFinishedTrialIsNotStopped) {
  TrialCurve t = Curve("t", TrialPhase::kSucceeded, {9, 9, 9, 9});
  EXPECT_FALSE(MedianDecide(MedianSpec(), t, Flat123()).stop);
}

TEST(MedianStopValidateTest, AcceptsDefaultsAndKatibSettings) {
  MedianStop policy;
  EXPECT_TRUE(policy.Validate(MedianSpec()).ok());
  EXPECT_TRUE(policy
                  .Validate(MedianSpec(
                      {{"min_trials_required", "1"}, {"start_step", " 10 "}}))
                  .ok());
}

TEST(MedianStopValidateTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"start_step", "2"}, {"min_trials", "3"}},
       "earlyStopping.algorithmSettings[1].name: unknown setting "
       "'min_trials' for medianstop (supported: min_trials_required, "
       "start_step, n_startup_trials, n_warmup_steps, interval_steps, "
       "n_min_trials)"},
      {{{"min_trials_required", "three"}},
       "earlyStopping.algorithmSettings[0].value: min_trials_required must "
       "be an integer, got 'three'"},
      {{{"min_trials_required", "-1"}},
       "earlyStopping.algorithmSettings[0].value: min_trials_required must "
       "be at least 0, got -1"},
      {{{"min_trials_required", "2"}, {"n_warmup_steps", "-2"}},
       "earlyStopping.algorithmSettings[1].value: n_warmup_steps must be "
       "at least 0, got -2"},
      {{{"interval_steps", "0"}},
       "earlyStopping.algorithmSettings[0].value: interval_steps must be at "
       "least 1, got 0"},
      {{{"n_min_trials", "0"}},
       "earlyStopping.algorithmSettings[0].value: n_min_trials must be at "
       "least 1, got 0"},
      // One setting under both its names is refused.
      {{{"start_step", "2"}, {"n_warmup_steps", "2"}},
       "earlyStopping.algorithmSettings[1].value: n_warmup_steps is "
       "start_step under Optuna's name; give one of them"},
      {{{"start_step", "1.5"}},
       "earlyStopping.algorithmSettings[0].value: start_step must be an "
       "integer, got '1.5'"},
      // A repeat is refused; the last one used to win.
      {{{"start_step", "2"}, {"start_step", "5"}},
       "earlyStopping.algorithmSettings[1].name: 'start_step' is already set "
       "by earlyStopping.algorithmSettings[0]"},
  };
  for (const Case& c : cases) {
    api::ExperimentSpec spec = MedianSpec(c.settings);
    Status status = MedianStop().Validate(spec);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.message);
    // ShouldStop refuses the same spec rather than guessing.
    StatusOr<StopDecision> d =
        MedianStop().ShouldStop(spec, Running("t", {9, 9, 9, 9}), Flat123());
    EXPECT_EQ(d.status().message(), c.message);
  }
}

// The defaults are MedianPruner's: 5 Succeeded trials, from step 0 on.
TEST(MedianStopDefaultsTest, ThreeFoldsPruneAfterFiveTrials) {
  // Cross-validation reporting folds as steps 0, 1, 2 (Optuna counts from
  // 0). hpt used to wait for step 4, so it never stopped such a trial.
  std::vector<TrialCurve> five;
  for (std::string name : {"a", "b", "c", "d", "e"}) {
    five.push_back(Curve(name, TrialPhase::kSucceeded, {0.5, 0.3, 0.2}, 0));
  }
  TrialCurve bad = Curve("t", TrialPhase::kRunning, {0.45}, 0);
  EXPECT_FALSE(MedianDecide(Defaults(), bad, five).stop);  // better at fold 0
  bad.points.push_back({1, 0.4});
  StopDecision d = MedianDecide(Defaults(), bad, five);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason,
            "best loss 0.4 by step 1 is worse than the median 0.3 of 5 "
            "succeeded trials' values at that step");
  // Step 0 is judged as well.
  EXPECT_TRUE(
      MedianDecide(Defaults(), Curve("t", TrialPhase::kRunning, {0.9}, 0), five)
          .stop);
  // Four Succeeded trials are not enough.
  five.pop_back();
  EXPECT_FALSE(MedianDecide(Defaults(), bad, five).stop);
}

TEST(MedianStopDefaultsTest, OptunasNamesAndIntervals) {
  std::vector<TrialCurve> three = {Succeeded("a", {1, 1, 1, 1, 1, 1}),
                                   Succeeded("b", {1, 1, 1, 1, 1, 1}),
                                   Succeeded("c", {1, 1, 1, 1, 1, 1})};
  // Checks at steps 2, 4, 6: step 3 follows the check at step 2.
  auto spec = MedianSpec({{"n_startup_trials", "3"},
                          {"n_warmup_steps", "2"},
                          {"interval_steps", "2"}});
  EXPECT_FALSE(MedianDecide(spec, Running("t", {9}), three).stop);
  EXPECT_TRUE(MedianDecide(spec, Running("t", {9, 9}), three).stop);
  EXPECT_FALSE(MedianDecide(spec, Running("t", {9, 9, 9}), three).stop);
  EXPECT_TRUE(MedianDecide(spec, Running("t", {9, 9, 9, 9}), three).stop);
  // A report that skips a check point is judged in its place.
  TrialCurve skipped = Running("t", {9, 9});
  skipped.points[1].step = 5;  // steps 1 and 5: the check at 4 was skipped
  EXPECT_TRUE(MedianDecide(spec, skipped, three).stop);
}

TEST(MedianStopNotesTest, SaysWhenItCanNeverStopATrial) {
  api::ExperimentSpec spec = Defaults();
  spec.max_trial_count = 5;
  EXPECT_EQ(MedianStop().Notes(spec),
            std::vector<std::string>{
                "earlyStopping: medianstop waits for 5 succeeded trials "
                "(n_startup_trials) but maxTrialCount is 5, so it can never "
                "stop a trial"});
  spec.max_trial_count = 6;
  EXPECT_TRUE(MedianStop().Notes(spec).empty());
  spec.early_stopping.settings = {{"n_min_trials", "6"}};
  EXPECT_EQ(MedianStop().Notes(spec).size(), 1u);
}

}  // namespace
}  // namespace hpt::earlystop
