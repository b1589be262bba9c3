#include "earlystop/curve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

using api::ObjectiveType;
using testing::Running;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

api::Observation Obs(int64_t step, std::map<std::string, double> metrics) {
  api::Observation o;
  o.step = step;
  o.metrics = std::move(metrics);
  return o;
}

TEST(MakeCurveTest, SortsByStepKeepsTheLastReportAndSkipsOthers) {
  api::Trial trial;
  trial.name = "t";
  trial.phase = api::TrialPhase::kRunning;
  TrialCurve curve =
      MakeCurve(trial,
                {Obs(3, {{"loss", 0.3}}), Obs(1, {{"loss", 0.9}}),
                 Obs(2, {{"accuracy", 0.5}}), Obs(3, {{"loss", 0.25}}),
                 Obs(4, {{"loss", kNaN}}), Obs(5, {{"loss", 0.2}})},
                "loss");
  EXPECT_EQ(curve.name, "t");
  EXPECT_EQ(curve.phase, api::TrialPhase::kRunning);
  ASSERT_EQ(curve.points.size(), 3u);
  EXPECT_EQ(curve.points[0].step, 1);
  EXPECT_EQ(curve.points[0].value, 0.9);
  EXPECT_EQ(curve.points[1].step, 3);
  EXPECT_EQ(curve.points[1].value, 0.25);
  EXPECT_EQ(curve.points[2].step, 5);
}

TEST(MakeCurveTest, NoObservationsGiveNoPoints) {
  api::Trial trial;
  trial.name = "t";
  EXPECT_TRUE(MakeCurve(trial, {}, "loss").points.empty());
}

TEST(CurveQueriesTest, AnswerFromFinitePointsUpToTheStep) {
  TrialCurve c = Running("t", {4, 2, kNaN, 3});  // steps 1..4
  EXPECT_EQ(LastStep(c), 4);
  EXPECT_EQ(BestUpTo(c, 1, ObjectiveType::kMinimize), 4);
  EXPECT_EQ(BestUpTo(c, 4, ObjectiveType::kMinimize), 2);
  EXPECT_EQ(BestUpTo(c, 4, ObjectiveType::kMaximize), 4);
  EXPECT_EQ(BestUpTo(c, 0, ObjectiveType::kMinimize), std::nullopt);
  EXPECT_EQ(ValueAt(c, 2), 2);
  EXPECT_EQ(ValueAt(c, 3), 2);  // step 3 is NaN: the value of step 2 holds
  EXPECT_EQ(ValueAt(c, 9), 3);
  EXPECT_EQ(ValueAt(c, 0), std::nullopt);
  EXPECT_EQ(ValueAt(Running("t", {kNaN, 5}), 1), std::nullopt);
  ASSERT_NE(FirstAtOrAfter(c, 3), nullptr);
  EXPECT_EQ(FirstAtOrAfter(c, 3)->step, 4);  // step 3 is NaN
  EXPECT_EQ(FirstAtOrAfter(c, 2.5)->step, 4);
  EXPECT_EQ(FirstAtOrAfter(c, 5), nullptr);
}

TEST(CurveQueriesTest, EmptyAndAllNaNCurvesHaveNoLastStep) {
  EXPECT_EQ(LastStep(Running("t", {})), std::nullopt);
  EXPECT_EQ(LastStep(Running("t", {kNaN, kNaN})), std::nullopt);
}

}  // namespace
}  // namespace hpt::earlystop

namespace hpt::earlystop {
namespace {

// SetPoint keeps the points in step order, a step reported again with its
// latest value, so the queries that scan from the end answer as a full scan.
TEST(SetPointTest, KeepsStepOrderAndTheLatestValue) {
  TrialCurve curve{"t", api::TrialPhase::kRunning, {}};
  const std::vector<CurvePoint> reports = {{1, 4}, {2, 2}, {3, std::nan("")}, {5, 6},
                                           {4, 1}, {2, 8}, {7, 3}, {8, std::nan("")}};
  for (const CurvePoint& p : reports) {
    SetPoint(curve, p);
    std::optional<int64_t> scanned;
    for (size_t i = 0; i < curve.points.size(); ++i) {
      if (i > 0) EXPECT_LT(curve.points[i - 1].step, curve.points[i].step);
      if (std::isfinite(curve.points[i].value)) scanned = curve.points[i].step;
    }
    EXPECT_EQ(LastStep(curve), scanned);
  }
  ASSERT_EQ(curve.points.size(), 7u);  // step 2 reported twice counts once
  EXPECT_EQ(curve.points[1].value, 8);
  EXPECT_EQ(LastStep(curve), 7);        // step 8 is NaN
  EXPECT_EQ(ValueAt(curve, 3), 8);      // step 3 is NaN: step 2's latest value
}

}  // namespace
}  // namespace hpt::earlystop
