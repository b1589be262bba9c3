#include "suggestion/single_objective.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "suggestion/algorithm.h"
#include "tests/suggestion/multi_objective.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::MultiObjectiveSpec;

api::ExperimentSpec TwoObjectives(const std::string& algorithm) {
  return MultiObjectiveSpec(
      algorithm, {DoubleParam("x", 0, 1, 0.25), DoubleParam("y", 0, 1, 0.25)});
}

TEST(SingleObjectiveTest, OneObjectiveAlgorithmsRefuseSeveral) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  for (const char* name :
       {"tpe", "multivariate-tpe", "cmaes", "hyperband", "pbt", "darts"}) {
    StatusOr<std::unique_ptr<Algorithm>> algorithm = registry.Create(name);
    ASSERT_TRUE(algorithm.ok()) << name;
    Status s = (*algorithm)->Validate(TwoObjectives(name));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << name;
    EXPECT_NE(s.message().find("objective.objectives: " + std::string(name) +
                               " optimises one objective, got 2"),
              std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(kMultiObjectiveAlgorithms), std::string::npos)
        << s.message();
  }
}

TEST(SingleObjectiveTest, SeveralObjectiveAlgorithmsAcceptThem) {
  Registry<Algorithm> registry;
  RegisterBuiltins(registry);
  for (const char* name :
       {"bayesianoptimization", "nsga2", "random", "sobol", "grid"}) {
    StatusOr<std::unique_ptr<Algorithm>> algorithm = registry.Create(name);
    ASSERT_TRUE(algorithm.ok()) << name;
    Status s = (*algorithm)->Validate(TwoObjectives(name));
    EXPECT_TRUE(s.ok()) << name << ": " << s.message();
  }
  api::ExperimentSpec one = TwoObjectives("tpe");
  one.objective.more_objectives.clear();
  EXPECT_TRUE(RequireSingleObjective(one, "tpe").ok());
}

}  // namespace
}  // namespace hpt::suggestion
