#include "earlystop/hyperband_stop.h"

#include <gtest/gtest.h>

#include <map>
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

// eta 3, r_l 27: brackets 0..3 with first rungs 1, 3, 9 and 27.
api::ExperimentSpec Spec(std::vector<api::AlgorithmSetting> settings = {{"r_l",
                                                                         "27"}},
                         ObjectiveType type = ObjectiveType::kMinimize) {
  return StopSpec("hyperband", std::move(settings), type);
}

const std::vector<int64_t> kWeights27 = {27, 12, 6, 4};

StopDecision Decide(const api::ExperimentSpec& spec, const TrialCurve& trial,
                    const std::vector<TrialCurve>& others) {
  StatusOr<StopDecision> d = HyperbandStop().ShouldStop(spec, trial, others);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : StopDecision{};
}

// The i-th name "e-<n>" (n = 1, 2, ...) that falls in `bracket` for r_l 27.
std::string NameIn(int bracket, int i = 0) {
  for (int n = 1;; ++n) {
    std::string name = "e-" + std::to_string(n);
    if (HyperbandBracketOf(name, kWeights27) == bracket && i-- == 0)
      return name;
  }
}

// `n` Succeeded trials of `bracket` with loss 1, 2, ..., n at every one of
// `steps` steps.
std::vector<TrialCurve> Ladder(int bracket, int n, int steps) {
  std::vector<TrialCurve> curves;
  for (int i = 1; i <= n; ++i) {
    curves.push_back(
        Succeeded(NameIn(bracket, i), std::vector<double>(steps, i)));
  }
  return curves;
}

TEST(HyperbandBracketsTest, WeightsAreHyperbandsBracketSizes) {
  EXPECT_EQ(HyperbandBracketWeights(3, 1, 27), kWeights27);
  EXPECT_EQ(HyperbandBracketWeights(3, 1, 81),
            (std::vector<int64_t>{81, 34, 15, 8, 5}));
  // 28 is not a power: still four brackets.
  EXPECT_EQ(HyperbandBracketWeights(3, 1, 28), kWeights27);
  // min_resource 2, eta 2, r_l 8: rungs from 2, 4 and 8.
  EXPECT_EQ(HyperbandBracketWeights(2, 2, 8), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(HyperbandBracketWeights(3, 1, 2), (std::vector<int64_t>{1}));
}

TEST(HyperbandBracketsTest, NamesSpreadInProportionToTheWeights) {
  std::map<int, int> count;
  for (int n = 0; n < 49000; ++n) {
    ++count[HyperbandBracketOf("exp-" + std::to_string(n), kWeights27)];
  }
  // 27 : 12 : 6 : 4 of 49,000 within 5%.
  EXPECT_NEAR(count[0], 27000, 1350);
  EXPECT_NEAR(count[1], 12000, 600);
  EXPECT_NEAR(count[2], 6000, 300);
  EXPECT_NEAR(count[3], 4000, 200);
  EXPECT_EQ(HyperbandBracketOf("anything", {1}), 0);
}

TEST(HyperbandBracketsTest, TheHashIsFixed) {
  // FNV-1a 64 of "" is its offset basis 14695981039346656037, which is 2
  // modulo 49; of "a" it is 0xaf63dc4c8601ec8c, 19 modulo 49. A change
  // would move a running experiment's trials to other brackets.
  EXPECT_EQ(HyperbandBracketOf("", kWeights27), 0);
  EXPECT_EQ(HyperbandBracketOf("", {2, 1}), 1);
  EXPECT_EQ(HyperbandBracketOf("a", {19, 1, 29}), 1);
  EXPECT_EQ(HyperbandBracketOf("a", {20, 29}), 0);
}

TEST(HyperbandStopTest, Bracket0HalvesFromStep1) {
  // With the trial, 6 of bracket 0 reached step 1: the top 2 continue.
  auto spec = Spec();
  std::vector<TrialCurve> others = Ladder(0, 5, 1);
  EXPECT_FALSE(Decide(spec, Running(NameIn(0), {1.5}), others).stop);
  StopDecision d = Decide(spec, Running(NameIn(0), {2.5}), others);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason,
            "loss 2.5 at step 1 (rung 0, step 1) is not in the top 2 of the 6 "
            "trials that reached the rung; 2 did better in bracket 0 of 4");
}

TEST(HyperbandStopTest, OnlyTheTrialsOwnBracketCompetes) {
  // Five better trials, all in bracket 1: alone in bracket 0, t continues.
  auto spec = Spec();
  std::vector<TrialCurve> others = Ladder(1, 5, 3);
  EXPECT_FALSE(Decide(spec, Running(NameIn(0), {9, 9, 9}), others).stop);
  // In bracket 1 it meets them at step 3.
  EXPECT_TRUE(Decide(spec, Running(NameIn(1), {9, 9, 9}), others).stop);
}

TEST(HyperbandStopTest, LaterBracketsStartHalvingLater) {
  auto spec = Spec();
  std::vector<TrialCurve> others = Ladder(2, 5, 27);
  TrialCurve t = Running(NameIn(2), std::vector<double>(8, 9.0));
  EXPECT_FALSE(Decide(spec, t, others).stop);  // rung 9 not reached
  t = Running(NameIn(2), std::vector<double>(9, 9.0));
  StopDecision d = Decide(spec, t, others);
  EXPECT_TRUE(d.stop);
  EXPECT_NE(d.reason.find("(rung 0, step 9)"), std::string::npos) << d.reason;
}

TEST(HyperbandStopTest, NothingIsJudgedAtRl) {
  // Bracket 3's only rung is 27 = r_l: a trial that trained its whole
  // budget has nothing left to save, in any bracket.
  auto spec = Spec();
  for (int bracket : {0, 3}) {
    std::vector<TrialCurve> others = Ladder(bracket, 5, 27);
    TrialCurve t = Running(NameIn(bracket), std::vector<double>(27, 0.5));
    t.points.back().value = 9;  // worst of all at step 27
    EXPECT_FALSE(Decide(spec, t, others).stop) << bracket;
  }
  // With r_l 30, step 27 is a rung of bracket 3.
  std::vector<TrialCurve> others = Ladder(3, 5, 27);
  auto r30 = Spec({{"r_l", "30"}});
  EXPECT_TRUE(
      Decide(r30, Running(NameIn(3), std::vector<double>(27, 9.0)), others)
          .stop);
}

TEST(HyperbandStopTest, MaximizeAndFinishedTrials) {
  auto spec = Spec({{"r_l", "27"}}, ObjectiveType::kMaximize);
  std::vector<TrialCurve> others = Ladder(0, 5, 1);
  EXPECT_FALSE(Decide(spec, Running(NameIn(0), {4.5}), others).stop);
  EXPECT_TRUE(Decide(spec, Running(NameIn(0), {3.5}), others).stop);
  TrialCurve done = Curve(NameIn(0), TrialPhase::kSucceeded, {0});
  EXPECT_FALSE(Decide(spec, done, others).stop);
}

TEST(HyperbandStopValidateTest, AcceptsSettings) {
  HyperbandStop policy;
  EXPECT_TRUE(policy.Validate(Spec()).ok());
  api::ExperimentSpec epochs = Spec({{"r_l", "100"},
                                     {"eta", "2.5"},
                                     {"min_resource", "2"},
                                     {"resource_name", "epoch"}});
  epochs.metrics_collector.step_key = "epoch";
  EXPECT_TRUE(policy.Validate(epochs).ok());
}

TEST(HyperbandStopValidateTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{},
       "earlyStopping.algorithmSettings: r_l is required (the step a trial "
       "reaches when it runs to the end)"},
      {{{"r_l", "27"}, {"reduction_factor", "3"}},
       "earlyStopping.algorithmSettings[1].name: unknown setting "
       "'reduction_factor' for hyperband (supported: r_l, eta, "
       "min_resource, resource_name)"},
      {{{"r_l", "27"}, {"eta", "1"}},
       "earlyStopping.algorithmSettings[1].value: eta must be greater than "
       "1, got 1"},
      {{{"r_l", "2"}, {"min_resource", "3"}},
       "earlyStopping.algorithmSettings[0].value: r_l 2 must be at least "
       "min_resource 3"},
      {{{"r_l", "27"}, {"resource_name", "epochs"}},
       "earlyStopping.algorithmSettings[1].value: hyperband's resource is "
       "the step trials report, which the metrics collector reads from "
       "'step'; resource_name must be 'step' or be left out, got 'epochs'"},
  };
  for (const Case& c : cases) {
    api::ExperimentSpec spec = Spec(c.settings);
    Status status = HyperbandStop().Validate(spec);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.message);
    StatusOr<StopDecision> d =
        HyperbandStop().ShouldStop(spec, Running("t", {9}), Ladder(0, 5, 1));
    EXPECT_EQ(d.status().message(), c.message);
  }
}

}  // namespace
}  // namespace hpt::earlystop
