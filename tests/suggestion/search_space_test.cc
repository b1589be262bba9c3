#include "suggestion/search_space.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;

std::string Check(std::vector<api::ParameterSpec> parameters) {
  return CheckSearchSpace(parameters).message();
}

TEST(SearchSpaceTest, CheckNamesTheField) {
  api::ParameterSpec no_min = DoubleParam("x", 0, 1);
  no_min.feasible_space.min.reset();
  EXPECT_EQ(Check({IntParam("a", 1, 2), no_min}),
            "parameters[1].feasibleSpace.min: required for double parameters");
  EXPECT_EQ(Check({DoubleParam("x", 3, 1)}),
            "parameters[0].feasibleSpace: min 3 is above max 1");
  EXPECT_EQ(Check({DoubleParam("x", 0, 1, std::nullopt,
                               api::Distribution::kLogUniform)}),
            "parameters[0].feasibleSpace.min: logUniform needs min > 0, got 0");
  EXPECT_EQ(Check({IntParam("b", -4, 64, std::nullopt,
                            api::Distribution::kLogNormal)}),
            "parameters[0].feasibleSpace.min: logNormal needs min > 0, got -4");
  EXPECT_TRUE(CheckSearchSpace({IntParam("b", -4, 64, std::nullopt,
                                         api::Distribution::kNormal)})
                  .ok());
  api::ParameterSpec normal_list =
      ListParam(ParameterType::kCategorical, "c", {"a", "b"});
  normal_list.feasible_space.distribution = api::Distribution::kNormal;
  EXPECT_EQ(Check({normal_list}),
            "parameters[0].feasibleSpace.distribution: normal is not used by "
            "categorical parameters");
  EXPECT_EQ(Check({DoubleParam("x", 0, 1, -0.5)}),
            "parameters[0].feasibleSpace.step: must be positive, got -0.5");
  EXPECT_EQ(Check({IntParam("n", 0, 10, 2.5)}),
            "parameters[0].feasibleSpace.step: must be an integer for int "
            "parameters, got 2.5");
  EXPECT_EQ(Check({IntParam("n", 0.5, 10)}),
            "parameters[0].feasibleSpace.min: must be an integer within "
            "+-2^53 for int parameters, got 0.5");
  EXPECT_EQ(Check({ListParam(ParameterType::kCategorical, "c", {})}),
            "parameters[0].feasibleSpace.list: must not be empty for "
            "categorical parameters");
  EXPECT_EQ(Check({ListParam(ParameterType::kDiscrete, "d", {"1", "two"})}),
            "parameters[0].feasibleSpace.list[1]: discrete values must be "
            "numbers, got 'two'");
  EXPECT_TRUE(
      CheckSearchSpace({IntParam("n", 4, 4), DoubleParam("x", 1, 1)}).ok());
}

TEST(SearchSpaceTest, SizesOfEachType) {
  EXPECT_EQ(GridSize(IntParam("n", 1, 10)), 10);
  EXPECT_EQ(GridSize(IntParam("n", 1, 10, 4)), 3);  // 1, 5, 9
  EXPECT_EQ(GridSize(DoubleParam("x", 0, 1, 0.1)), 11);
  EXPECT_EQ(GridSize(DoubleParam("x", 0, 0.3, 0.1)), 4);  // 0.3/0.1 < 3
  EXPECT_EQ(GridSize(DoubleParam("x", 0, 1)), std::nullopt);
  EXPECT_EQ(GridSize(ListParam(ParameterType::kCategorical, "c", {"a", "b"})),
            2);
  EXPECT_EQ(SpaceSize({}), 1);
  EXPECT_EQ(SpaceSize({IntParam("n", 1, 10), DoubleParam("x", 0, 1)}),
            std::nullopt);
  EXPECT_EQ(SpaceSize({IntParam("a", 1, 1e9), IntParam("b", 1, 1e9),
                       IntParam("c", 1, 1e9)}),
            kUnboundedSize);
}

TEST(SearchSpaceTest, PointAtCountsLastParameterFastest) {
  std::vector<api::ParameterSpec> parameters = {
      IntParam("a", 0, 1),
      ListParam(ParameterType::kCategorical, "b", {"x", "y", "z"})};
  api::Assignment point = PointAt(parameters, 4);  // a=1, b=y
  ASSERT_EQ(point.size(), 2u);
  EXPECT_EQ(point[0].name, "a");
  EXPECT_EQ(point[0].value, "1");
  EXPECT_EQ(point[1].name, "b");
  EXPECT_EQ(point[1].value, "y");
}

TEST(SearchSpaceTest, AssignmentKeyIsUnambiguous) {
  std::vector<api::ParameterSpec> parameters = {
      ListParam(ParameterType::kCategorical, "p", {"a", "ab"}),
      ListParam(ParameterType::kCategorical, "q", {"bc", "c"})};
  EXPECT_NE(AssignmentKey(parameters, {{"p", "a"}, {"q", "bc"}}),
            AssignmentKey(parameters, {{"p", "ab"}, {"q", "c"}}));
  // Order of the assignment's entries and extra entries do not matter.
  EXPECT_EQ(AssignmentKey(parameters, {{"q", "c"}, {"p", "a"}, {"z", "1"}}),
            AssignmentKey(parameters, {{"p", "a"}, {"q", "c"}}));
}

}  // namespace
}  // namespace hpt::suggestion
