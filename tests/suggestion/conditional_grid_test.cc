// Finite conditional spaces: counting and numbering their distinct active
// configurations (conditional_grid.h, search_space.h's SpaceSize, PointAt
// and AssignmentKey), and grid over them.
#include "suggestion/conditional_grid.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "suggestion/grid_search.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/conditional_spaces.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::ExpectValidAssignment;
using testing::FiniteConditionalParameters;
using testing::IntParam;
using testing::ListParam;
using testing::WithParent;

std::string Text(const api::Assignment& a) {
  std::string out;
  for (const auto& v : a) out += v.name + "=" + v.value + " ";
  return out;
}

TEST(ConditionalGridTest, CountsAndNumbersDistinctActiveConfigurations) {
  const std::vector<api::ParameterSpec> params = FiniteConditionalParameters();
  ASSERT_TRUE(CheckSearchSpace(params).ok()) << CheckSearchSpace(params).ToString();
  ASSERT_EQ(SpaceSize(params), testing::kFiniteConfigurations);
  const SpacePoints points(params);
  std::set<std::string> keys;
  for (int64_t i = 0; i < testing::kFiniteConfigurations; ++i) {
    const api::Assignment a = points.At(i);
    ExpectValidAssignment(params, a);
    EXPECT_EQ(Text(a), Text(PointAt(params, i)));
    EXPECT_TRUE(keys.insert(AssignmentKey(params, a)).second) << i << ": " << Text(a);
  }
  // Roots are digits, the first slowest; a parent's value is followed by
  // its children's configurations.
  EXPECT_EQ(Text(points.At(0)), "lr=0.1 optimizer=sgd momentum=0.5 nesterov=yes batch=1 ");
  EXPECT_EQ(Text(points.At(1)), "lr=0.1 optimizer=sgd momentum=0.5 nesterov=yes batch=2 ");
  EXPECT_EQ(Text(points.At(2)),
            "lr=0.1 optimizer=sgd momentum=0.5 nesterov=no dampening=0 batch=1 ");
  EXPECT_EQ(Text(points.At(18)), "lr=0.1 optimizer=adam beta1=0.9 batch=1 ");
  EXPECT_EQ(Text(points.At(43)), "lr=0.01 optimizer=adam beta1=0.99 batch=2 ");
}

TEST(ConditionalGridTest, IntParentsAndValuesThatActivateNothing) {
  const std::vector<api::ParameterSpec> params = {
      IntParam("layers", 1, 5),
      WithParent(IntParam("width", 8, 10), "layers", {"2", "4"}),
      WithParent(ListParam(ParameterType::kCategorical, "act", {"relu", "tanh"}), "layers",
                 {"4"}),
  };
  // 1, 3, 5: one point each; 2: 3 widths; 4: 3 widths x 2 activations.
  ASSERT_EQ(SpaceSize(params), 3 + 3 + 6);
  const SpacePoints points(params);
  EXPECT_EQ(Text(points.At(0)), "layers=1 ");
  EXPECT_EQ(Text(points.At(1)), "layers=2 width=8 ");
  EXPECT_EQ(Text(points.At(4)), "layers=3 ");
  EXPECT_EQ(Text(points.At(5)), "layers=4 width=8 act=relu ");
  EXPECT_EQ(Text(points.At(6)), "layers=4 width=8 act=tanh ");
  EXPECT_EQ(Text(points.At(11)), "layers=5 ");
}

TEST(ConditionalGridTest, AContinuousChildMakesTheSpaceInfinite) {
  std::vector<api::ParameterSpec> params = FiniteConditionalParameters();
  params.push_back(WithParent(DoubleParam("eps", 0, 1), "optimizer", {"adam"}));
  EXPECT_FALSE(SpaceSize(params).has_value());
}

TEST(ConditionalGridTest, KeysIgnoreValuesOfInactiveParameters) {
  const std::vector<api::ParameterSpec> params = FiniteConditionalParameters();
  const api::Assignment pruned = {{"lr", "0.1"}, {"optimizer", "adam"}, {"beta1", "0.9"},
                                  {"batch", "1"}};
  api::Assignment full = pruned;
  full.push_back({"momentum", "0.7"});
  full.push_back({"nesterov", "no"});
  EXPECT_EQ(AssignmentKey(params, full), AssignmentKey(params, pruned));
}

TEST(ConditionalGridTest, CheckSearchSpaceRefusesBadParents) {
  std::vector<api::ParameterSpec> params = FiniteConditionalParameters();
  params[2].parent->name = "optimzer";
  Status s = CheckSearchSpace(params);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("parameters[2].parent.name: unknown parameter 'optimzer'"),
            std::string::npos)
      << s.message();
  params = FiniteConditionalParameters();
  params[1].parent = api::ParentCondition{"dampening", {"0"}};  // a cycle
  EXPECT_FALSE(CheckSearchSpace(params).ok());
}

TEST(GridSearchTest, ConditionalGridHasNoDuplicatesAndEnds) {
  const api::ExperimentSpec spec = testing::MakeSpec("grid", FiniteConditionalParameters());
  GridSearch grid;
  ASSERT_TRUE(grid.Validate(spec).ok()) << grid.Validate(spec).ToString();
  std::vector<api::Trial> history;
  std::string state;
  std::set<std::string> keys;
  bool exhausted = false;
  for (int call = 0; call < 20 && !exhausted; ++call) {
    StatusOr<Suggestion> s = grid.Suggest(spec, history, state, 5);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (const api::Assignment& a : s->assignments) {
      ExpectValidAssignment(spec.parameters, a);
      EXPECT_TRUE(keys.insert(AssignmentKey(spec.parameters, a)).second) << Text(a);
      history.push_back({.assignment = a, .phase = api::TrialPhase::kSucceeded});
    }
    state = s->state;
    exhausted = s->exhausted;
  }
  EXPECT_TRUE(exhausted);
  EXPECT_EQ(keys.size(), static_cast<size_t>(testing::kFiniteConfigurations));
}

TEST(GridSearchTest, ConditionalGridSkipsHandMadeTrialsWithInactiveValues) {
  const api::ExperimentSpec spec = testing::MakeSpec("grid", FiniteConditionalParameters());
  // The first grid point, given with values of inactive parameters too.
  api::Assignment by_hand = SpacePoints(spec.parameters).At(0);
  by_hand.push_back({"beta1", "0.9"});
  GridSearch grid;
  StatusOr<Suggestion> s = grid.Suggest(
      spec, {{.assignment = by_hand, .phase = api::TrialPhase::kSucceeded}}, "", 1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->assignments.size(), 1u);
  EXPECT_EQ(Text(s->assignments[0]), Text(SpacePoints(spec.parameters).At(1)));
}

}  // namespace
}  // namespace hpt::suggestion
