#include "api/constraints.h"

#include <gtest/gtest.h>

#include "api/experiment_status.h"
#include "api/json_codec.h"
#include "api/pareto.h"

namespace hpt::api {
namespace {

Trial Done(const std::string& name, std::vector<std::pair<std::string, double>> metrics) {
  Trial t;
  t.name = name;
  t.phase = TrialPhase::kSucceeded;
  for (const auto& [m, v] : metrics) t.metrics.push_back({m, v, v, v});
  return t;
}

Objective Minimize(const std::string& metric) {
  Objective o;
  o.metric_name = metric;
  return o;
}

TEST(ConstraintsTest, NamesAndIndices) {
  EXPECT_EQ(ConstraintMetricName(3), "constraint_3");
  EXPECT_EQ(ConstraintIndex("constraint_0"), 0u);
  EXPECT_EQ(ConstraintIndex("constraint_63"), 63u);
  for (const char* other : {"constraint_", "constraint_64", "constraint_01", "constraint_x",
                            "constraints_0", "loss", "constraint_-1"}) {
    EXPECT_FALSE(ConstraintIndex(other)) << other;
  }
}

TEST(ConstraintsTest, ValuesFeasibilityAndViolation) {
  const Trial t = Done("a", {{"loss", 1}, {"constraint_2", 0.5}, {"constraint_0", -1}});
  EXPECT_EQ(ConstraintValues(t), (std::vector<double>{-1, 0, 0.5}));  // a gap reads 0
  EXPECT_TRUE(HasConstraints(t));
  EXPECT_FALSE(IsFeasible(t));
  EXPECT_DOUBLE_EQ(Violation({-1, 0.25, 0.5}), 0.75);
  EXPECT_TRUE(IsFeasible(Done("b", {{"loss", 1}, {"constraint_0", 0}})));
  const Trial plain = Done("c", {{"loss", 1}});
  EXPECT_FALSE(HasConstraints(plain));
  EXPECT_TRUE(IsFeasible(plain));
  EXPECT_TRUE(ConstraintValues(plain).empty());
  EXPECT_FALSE(AnyConstraints({plain}));
  EXPECT_TRUE(AnyConstraints({plain, t}));
}

TEST(ConstraintsTest, TheBestTrialIsNeverInfeasible) {
  std::vector<Trial> trials = {Done("a", {{"loss", 0.1}, {"constraint_0", 0.2}}),
                               Done("b", {{"loss", 0.5}, {"constraint_0", -0.2}}),
                               Done("c", {{"loss", 0.7}})};
  EXPECT_EQ(BestTrialIndex(trials, Minimize("loss")), 1u);
  TrialTally tally(Minimize("loss"));
  EXPECT_EQ(tally.Best(trials), 1u);
  trials.push_back(Done("d", {{"loss", 0.05}, {"constraint_1", 1}}));
  tally.Added(trials, 3);
  EXPECT_EQ(tally.Best(trials), 1u);
  // None feasible: no best trial.
  EXPECT_FALSE(BestTrialIndex({trials[0], trials[3]}, Minimize("loss")));
}

TEST(ConstraintsTest, TheParetoFrontLeavesInfeasibleTrialsOut) {
  Objective o = Minimize("a");
  o.more_objectives.push_back({"b", ObjectiveType::kMinimize});
  const std::vector<Trial> trials = {
      Done("x", {{"a", 0}, {"b", 0}, {"constraint_0", 1}}),  // dominates all, infeasible
      Done("y", {{"a", 1}, {"b", 2}, {"constraint_0", 0}}),
      Done("z", {{"a", 2}, {"b", 1}})};
  std::vector<size_t> front;
  for (const FrontMember& m : ParetoFront(trials, o)) front.push_back(m.index);
  EXPECT_EQ(front, (std::vector<size_t>{1, 2}));
}

TEST(ConstraintsTest, TrialJsonShowsThemAndFeasible) {
  nlohmann::json j = TrialToJson(Done("a", {{"loss", 1}, {"constraint_0", -2}, {"constraint_1", 3}}),
                                 Minimize("loss"));
  EXPECT_EQ(j["constraints"], nlohmann::json({-2.0, 3.0}));
  EXPECT_EQ(j["feasible"], false);
  j = TrialToJson(Done("b", {{"loss", 1}}), Minimize("loss"));
  EXPECT_FALSE(j.contains("constraints"));
  EXPECT_FALSE(j.contains("feasible"));
}

}  // namespace
}  // namespace hpt::api
