#include "api/pareto.h"

#include <gtest/gtest.h>

#include "api/spec_codec.h"

namespace hpt::api {
namespace {

Trial Scored(const std::string& name, double a, double b,
             TrialPhase phase = TrialPhase::kSucceeded) {
  Trial t;
  t.name = name;
  t.phase = phase;
  t.metrics = {{"loss", a, a, a}, {"acc", b, b, b}};
  return t;
}

Objective LossAndAccuracy() {
  Objective o;
  o.metric_name = "loss";
  o.type = ObjectiveType::kMinimize;
  o.more_objectives = {{"acc", ObjectiveType::kMaximize}};
  return o;
}

TEST(ParetoTest, FrontOfAHandMadeSetMixesDirections) {
  // Minimise loss, maximise acc. b dominates d (lower loss, higher acc);
  // c is dominated by a; e is Failed and f reported only one metric.
  std::vector<Trial> trials = {Scored("a", 0.2, 0.90), Scored("b", 0.5, 0.95),
                               Scored("c", 0.3, 0.85), Scored("d", 0.6, 0.94),
                               Scored("e", 0.0, 1.00, TrialPhase::kFailed),
                               Scored("g", 0.1, 0.70)};
  Trial f;
  f.name = "f";
  f.phase = TrialPhase::kSucceeded;
  f.metrics = {{"loss", 0.0, 0.0, 0.0}};
  trials.push_back(f);
  std::vector<FrontMember> front = ParetoFront(trials, LossAndAccuracy());
  std::vector<std::string> names;
  for (const auto& m : front) names.push_back(trials[m.index].name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "g"}));
  EXPECT_EQ(front[1].values, (std::vector<double>{0.5, 0.95}));
}

TEST(ParetoTest, RanksPeelFronts) {
  std::vector<std::vector<double>> p = {{1, 4}, {2, 2}, {4, 1}, {3, 3}, {5, 5}, {2, 5}};
  EXPECT_EQ(ParetoRanks(p), (std::vector<int>{0, 0, 0, 1, 2, 1}));
}

TEST(ParetoTest, HypervolumeIsExactIn2dAnd3d) {
  // Staircase: (1,3), (2,2), (3,1) against (4,4): 3 + 2 + 1 = 6.
  EXPECT_DOUBLE_EQ(Hypervolume({{1, 3}, {2, 2}, {3, 1}, {3, 3}}, {4, 4}), 6.0);
  // A point outside the reference adds nothing.
  EXPECT_DOUBLE_EQ(Hypervolume({{1, 3}, {5, 0}}, {4, 4}), 3.0);
  // One 3-D point: a box.
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 0, 0}}, {1, 2, 3}), 6.0);
  // Two boxes [0,2]x[0,1]x[0,1] and [0,1]x[0,2]x[0,1]... shifted by
  // points (0,1,0) and (1,0,0) against (2,2,1): union = 2 + 2 - 1 = 3.
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 1, 0}, {1, 0, 0}}, {2, 2, 1}), 3.0);
  // Third dimension slices: (0,0,1) and (1,1,0) against (2,2,2):
  // z in [0,1): 1x1 = 1; z in [1,2): 2x2 = 4.
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 0, 1}, {1, 1, 0}}, {2, 2, 2}), 5.0);
}

TEST(ParetoTest, HypervolumeCurveGrowsWithTheFront) {
  std::vector<Trial> trials = {Scored("a", 0.5, 0.5), Scored("b", 0.6, 0.4),
                               Scored("c", 0.2, 0.6, TrialPhase::kRunning),
                               Scored("d", 0.25, 0.75)};
  // Minimise loss, maximise acc; reference (1, 0).
  std::vector<double> curve = HypervolumeCurve(trials, LossAndAccuracy(), {1.0, 0.0});
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_DOUBLE_EQ(curve[0], 0.25);
  EXPECT_DOUBLE_EQ(curve[1], 0.25);  // b is dominated by a
  EXPECT_DOUBLE_EQ(curve[2], 0.25);  // c is still running
  EXPECT_DOUBLE_EQ(curve[3], 0.75 * 0.75);
  auto ref = DefaultReference(trials, LossAndAccuracy());
  ASSERT_TRUE(ref);
  EXPECT_NEAR((*ref)[0], 0.6 + 0.035, 1e-12);
  EXPECT_NEAR((*ref)[1], 0.4 - 0.035, 1e-12);
}

TEST(ParetoTest, SpecCodecRoundTripsSeveralObjectives) {
  auto spec = SpecFromYaml(R"(
name: mo
objective:
  objectives:
    - {type: minimize, objectiveMetricName: loss}
    - {type: maximize, objectiveMetricName: acc}
algorithm: {algorithmName: random}
maxTrialCount: 4
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
)");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->objective.metric_name, "loss");
  EXPECT_EQ(spec->objective.more_objectives,
            (std::vector<ObjectiveMetric>{{"acc", ObjectiveType::kMaximize}}));
  auto again = SpecFromJson(SpecToJson(*spec));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->objective.more_objectives, spec->objective.more_objectives);

  auto clash = SpecFromYaml(R"(
name: mo
objective:
  type: maximize
  objectiveMetricName: loss
  objectives:
    - {type: minimize, objectiveMetricName: loss}
    - {type: maximize, objectiveMetricName: acc}
algorithm: {algorithmName: random}
maxTrialCount: 4
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
)");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("objective.type"), std::string::npos)
      << clash.status().message();
}

}  // namespace
}  // namespace hpt::api
