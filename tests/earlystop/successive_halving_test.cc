#include "earlystop/successive_halving.h"

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

api::ExperimentSpec HalvingSpec(
    std::vector<api::AlgorithmSetting> settings = {},
    ObjectiveType type = ObjectiveType::kMinimize) {
  return StopSpec("asha", std::move(settings), type);
}

StopDecision HalvingDecide(const api::ExperimentSpec& spec,
                           const TrialCurve& trial,
                           const std::vector<TrialCurve>& others) {
  StatusOr<StopDecision> d =
      SuccessiveHalving().ShouldStop(spec, trial, others);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : StopDecision{};
}

// Finished trials whose values at step 1 are 1, 2, ..., n (then flat).
std::vector<TrialCurve> HalvingLadder(int n, int steps = 1) {
  std::vector<TrialCurve> curves;
  for (int i = 1; i <= n; ++i) {
    curves.push_back(
        Succeeded("o" + std::to_string(i), std::vector<double>(steps, i)));
  }
  return curves;
}

TEST(SuccessiveHalvingTest, KeepsTheTopThirdAtTheFirstRung) {
  // With the trial, 6 reached step 1 (values 1..5 and the trial's): the top
  // 2 continue.
  auto spec = HalvingSpec();
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {0.5}), HalvingLadder(5)).stop);
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {1.5}), HalvingLadder(5)).stop);
  StopDecision d = HalvingDecide(spec, Running("t", {2.5}), HalvingLadder(5));
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason,
            "loss 2.5 at step 1 (rung 0, step 1) is not in the top 2 of the 6 "
            "trials that reached the rung; 2 did better");
}

TEST(SuccessiveHalvingTest, Maximize) {
  auto spec = HalvingSpec({}, ObjectiveType::kMaximize);
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {4.5}), HalvingLadder(5)).stop);
  EXPECT_TRUE(HalvingDecide(spec, Running("t", {3.5}), HalvingLadder(5)).stop);
}

TEST(SuccessiveHalvingTest, KeepsAtLeastOne) {
  auto spec = HalvingSpec();
  // Alone at the rung: continues.
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {9}), {}).stop);
  // Two at the rung, floor(2/3) = 0 but one is kept: the better one.
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {1}), HalvingLadder(1)).stop);
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {0.5}), HalvingLadder(1)).stop);
  EXPECT_TRUE(HalvingDecide(spec, Running("t", {1.5}), HalvingLadder(1)).stop);
}

TEST(SuccessiveHalvingTest, TiesKeepEveryTiedTrial) {
  // Six trials tied at the rung: none has two strictly better.
  std::vector<TrialCurve> others;
  for (int i = 0; i < 5; ++i) {
    others.push_back(Running("o" + std::to_string(i), {0.7, 0.7, 0.7}));
  }
  EXPECT_FALSE(
      HalvingDecide(HalvingSpec(), Running("t", {0.7, 0.7, 0.7}), others).stop);
  EXPECT_FALSE(HalvingDecide(HalvingSpec({}, ObjectiveType::kMaximize),
                             Running("t", {0.7, 0.7, 0.7}), others)
                   .stop);
  // One better than the tie: the tied ones still have only one above them.
  others.push_back(Running("best", {0.1, 0.1, 0.1}));
  EXPECT_FALSE(
      HalvingDecide(HalvingSpec(), Running("t", {0.7, 0.7, 0.7}), others).stop);
}

TEST(SuccessiveHalvingTest, JudgesAtTheHighestRungReached) {
  // Rungs at steps 1, 3, 9. The others are 1..5 at step 1 but 5..1 at
  // step 3.
  std::vector<TrialCurve> others;
  for (int i = 1; i <= 5; ++i) {
    others.push_back(Succeeded("o" + std::to_string(i),
                               {double(i), double(i), double(6 - i)}));
  }
  auto spec = HalvingSpec();
  // Good at rung 0, not yet at step 3: continues.
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {0.5, 3}), others).stop);
  // At step 3 its 3 ranks 4th of 6: stopped.
  EXPECT_TRUE(HalvingDecide(spec, Running("t", {0.5, 3, 3}), others).stop);
  // Bad at rung 0 no longer matters once it reached rung 1 with 1.5.
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {9, 9, 1.5}), others).stop);
  // Between rungs (step 5) it is judged at rung 1's value (step 3).
  EXPECT_TRUE(
      HalvingDecide(spec, Running("t", {0.5, 0.5, 3, 0, 0}), others).stop);
}

TEST(SuccessiveHalvingTest, ARungIsReachedByTheFirstReportAtOrPastIt) {
  // Others report at steps 2, 4, 6: rung 3 is reached at step 4.
  std::vector<TrialCurve> others;
  for (int i = 1; i <= 5; ++i) {
    TrialCurve c{"o" + std::to_string(i), TrialPhase::kRunning, {}};
    c.points = {{2, 100}, {4, double(i)}, {6, 100}};
    others.push_back(c);
  }
  TrialCurve t{"t", TrialPhase::kRunning, {{3, 2.5}}};
  EXPECT_TRUE(HalvingDecide(HalvingSpec(), t, others).stop);
  t.points = {{3, 1.5}};
  EXPECT_FALSE(HalvingDecide(HalvingSpec(), t, others).stop);
}

TEST(SuccessiveHalvingTest, CountsTrialsOfEveryPhase) {
  std::vector<TrialCurve> others = {
      Running("a", {1}), Curve("b", TrialPhase::kEarlyStopped, {2}),
      Curve("c", TrialPhase::kFailed, {3}), Succeeded("d", {4}),
      Curve("e", TrialPhase::kKilled, {5})};
  EXPECT_TRUE(HalvingDecide(HalvingSpec(), Running("t", {2.5}), others).stop);
  EXPECT_FALSE(HalvingDecide(HalvingSpec(), Running("t", {1.5}), others).stop);
}

TEST(SuccessiveHalvingTest, NoStepsOrBeforeTheFirstRungIsNeverStopped) {
  auto spec = HalvingSpec({{"min_resource", "4"}});
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {}), HalvingLadder(5, 8)).stop);
  EXPECT_FALSE(
      HalvingDecide(spec, Running("t", {9, 9, 9}), HalvingLadder(5, 8)).stop);
  EXPECT_TRUE(
      HalvingDecide(spec, Running("t", {9, 9, 9, 9}), HalvingLadder(5, 8))
          .stop);
  // Others with no steps do not count as having reached a rung.
  std::vector<TrialCurve> empty = {Running("a", {}), Succeeded("b", {})};
  EXPECT_FALSE(HalvingDecide(HalvingSpec(), Running("t", {9}), empty).stop);
}

TEST(SuccessiveHalvingTest, SkipsItselfAndFinishedTrials) {
  std::vector<TrialCurve> others = HalvingLadder(1);
  others.push_back(Running("t", {0}));  // its own stale curve
  EXPECT_TRUE(HalvingDecide(HalvingSpec(), Running("t", {1.5}), others).stop);
  EXPECT_FALSE(HalvingDecide(HalvingSpec(),
                             Curve("t", TrialPhase::kSucceeded, {1.5}),
                             HalvingLadder(1))
                   .stop);
}

TEST(SuccessiveHalvingTest, RungsFollowEtaAndMinResource) {
  // eta 2, min_resource 2: rungs at 2, 4, 8.
  auto spec = HalvingSpec({{"eta", "2"}, {"min_resource", "2"}});
  std::vector<TrialCurve> others;
  for (int i = 1; i <= 3; ++i) {
    others.push_back(
        Succeeded("o" + std::to_string(i), {9, 9, 9, double(i), 9, 9, 9, 9}));
  }
  // Step 4: 4 trials reached, top 2 continue.
  EXPECT_FALSE(HalvingDecide(spec, Running("t", {0, 0, 0, 1.5}), others).stop);
  EXPECT_TRUE(HalvingDecide(spec, Running("t", {0, 0, 0, 2.5}), others).stop);
  // A fractional eta: rungs at 1, 2.5, 6.25 are reached at steps 1, 3, 7.
  auto frac = HalvingSpec({{"eta", "2.5"}});
  others = HalvingLadder(4, 3);
  EXPECT_FALSE(HalvingDecide(frac, Running("t", {0, 9}), others).stop);
  EXPECT_TRUE(HalvingDecide(frac, Running("t", {0, 9, 9}), others).stop);
}

TEST(SuccessiveHalvingTest, HighRungsNeedNoFloatingLuck) {
  // 3^4 = 81 must be a rung reached at step 81.
  std::vector<TrialCurve> others;
  for (int i = 1; i <= 2; ++i) {
    TrialCurve c{"o" + std::to_string(i),
                 TrialPhase::kRunning,
                 {{27, 0}, {81, double(i)}}};
    others.push_back(c);
  }
  TrialCurve t{"t", TrialPhase::kRunning, {{27, 0}, {81, 3}}};
  StopDecision d = HalvingDecide(HalvingSpec(), t, others);
  EXPECT_TRUE(d.stop);
  EXPECT_NE(d.reason.find("(rung 4, step 81)"), std::string::npos) << d.reason;
}

TEST(SuccessiveHalvingValidateTest, AcceptsDefaultsAndSettings) {
  SuccessiveHalving policy;
  EXPECT_TRUE(policy.Validate(HalvingSpec()).ok());
  EXPECT_TRUE(policy
                  .Validate(HalvingSpec({{"eta", "2.5"},
                                         {"min_resource", "3"},
                                         {"resource_name", "step"}}))
                  .ok());
  api::ExperimentSpec epochs = HalvingSpec({{"resource_name", "epoch"}});
  epochs.metrics_collector.step_key = "epoch";
  EXPECT_TRUE(policy.Validate(epochs).ok());
}

TEST(SuccessiveHalvingValidateTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"reduction_factor", "3"}},
       "earlyStopping.algorithmSettings[0].name: unknown setting "
       "'reduction_factor' for asha (supported: eta, min_resource, "
       "resource_name)"},
      {{{"eta", "1"}},
       "earlyStopping.algorithmSettings[0].value: eta must be greater than "
       "1, got 1"},
      {{{"min_resource", "2"}, {"eta", "0.5"}},
       "earlyStopping.algorithmSettings[1].value: eta must be greater than "
       "1, got 0.5"},
      {{{"eta", "fast"}},
       "earlyStopping.algorithmSettings[0].value: eta must be a number, got "
       "'fast'"},
      {{{"eta", "inf"}},
       "earlyStopping.algorithmSettings[0].value: eta must be a number, got "
       "'inf'"},
      {{{"min_resource", "0"}},
       "earlyStopping.algorithmSettings[0].value: min_resource must be at "
       "least 1, got 0"},
      {{{"resource_name", "epochs"}},
       "earlyStopping.algorithmSettings[0].value: asha's resource is the "
       "step trials report, which the metrics collector reads from 'step'; "
       "resource_name must be 'step' or be left out, got 'epochs'"},
  };
  for (const Case& c : cases) {
    api::ExperimentSpec spec = HalvingSpec(c.settings);
    Status status = SuccessiveHalving().Validate(spec);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.message);
    StatusOr<StopDecision> d = SuccessiveHalving().ShouldStop(
        spec, Running("t", {9}), HalvingLadder(5));
    EXPECT_EQ(d.status().message(), c.message);
  }
}

}  // namespace
}  // namespace hpt::earlystop
