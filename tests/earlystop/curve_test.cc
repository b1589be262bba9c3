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
  EXPECT_EQ(MeanUpTo(c, 2), 3);
  EXPECT_EQ(MeanUpTo(c, 4), 3);
  EXPECT_EQ(BestUpTo(c, 0, ObjectiveType::kMinimize), std::nullopt);
  EXPECT_EQ(MeanUpTo(c, 0), std::nullopt);
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

// The index answers exactly as the scan does, appended or out of order.
TEST(CurveIndexTest, IndexedQueriesMatchTheScan) {
  TrialCurve indexed{"t", api::TrialPhase::kRunning, {}};
  TrialCurve plain{"t", api::TrialPhase::kRunning, {}};
  const std::vector<CurvePoint> reports = {{1, 4}, {2, 2}, {3, std::nan("")}, {5, 6},
                                           {4, 1}, {2, 8}, {7, 3}};
  for (const CurvePoint& p : reports) {
    SetPoint(indexed, p);
    plain.points = indexed.points;
    ASSERT_EQ(indexed.finite_sum.size(), indexed.points.size());
    for (int64_t step = 0; step <= 8; ++step) {
      EXPECT_EQ(MeanUpTo(indexed, step), MeanUpTo(plain, step)) << step;
    }
    EXPECT_EQ(LastStep(indexed), LastStep(plain));
  }
  EXPECT_EQ(indexed.points.size(), 6u);  // step 2 reported twice counts once
  EXPECT_EQ(MeanUpTo(indexed, 2), (4.0 + 8.0) / 2);
}

}  // namespace
}  // namespace hpt::earlystop
