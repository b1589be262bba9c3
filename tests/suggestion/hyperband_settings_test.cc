// Hyperband's bracket plan (as Katib computes it) and the validation of
// its settings.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "api/types.h"
#include "suggestion/hyperband.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using testing::DoubleParam;
using testing::HyperbandSpec;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;

TEST(HyperbandPlanTest, MatchesKatibForEta3AndRl81) {
  auto plan = HyperbandPlan(3, 81);
  std::vector<std::vector<std::pair<int64_t, double>>> expected = {
      {{81, 1}, {27, 3}, {9, 9}, {3, 27}, {1, 81}},
      {{34, 3}, {11, 9}, {3, 27}, {1, 81}},
      {{15, 9}, {5, 27}, {1, 81}},
      {{8, 27}, {2, 81}},
      {{5, 81}}};
  ASSERT_EQ(plan.size(), expected.size());
  int64_t total = 0;
  for (size_t b = 0; b < plan.size(); ++b) {
    ASSERT_EQ(plan[b].size(), expected[b].size()) << b;
    for (size_t i = 0; i < plan[b].size(); ++i) {
      EXPECT_EQ(plan[b][i].trials, expected[b][i].first) << b << "," << i;
      EXPECT_EQ(plan[b][i].budget, expected[b][i].second) << b << "," << i;
      total += plan[b][i].trials;
    }
  }
  EXPECT_EQ(total, 206);
}

TEST(HyperbandPlanTest, SmallRlHasOneBracket) {
  auto plan = HyperbandPlan(3, 2);
  ASSERT_EQ(plan.size(), 1u);
  ASSERT_EQ(plan[0].size(), 1u);
  EXPECT_EQ(plan[0][0].trials, 1);
  EXPECT_EQ(plan[0][0].budget, 2);
}

TEST(HyperbandValidateTest, AcceptsKatibSettings) {
  Hyperband h;
  EXPECT_TRUE(h.Validate(HyperbandSpec()).ok());
  EXPECT_TRUE(h.Validate(HyperbandSpec({{"resource_name", "epochs"},
                                        {"eta", "2"},
                                        {"r_l", "81"}}))
                  .ok());
}

TEST(HyperbandValidateTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"r_l", "9"}},
       "algorithm.algorithmSettings: resource_name is required (the int or "
       "double parameter that receives each trial's budget)"},
      {{{"resource_name", "epochs"}},
       "algorithm.algorithmSettings: r_l is required (the largest budget a "
       "trial gets in 'epochs')"},
      {{{"resource_name", "epochs"}, {"r_l", "9"}, {"eta", "1"}},
       "algorithm.algorithmSettings[2].value: eta must be greater than 1, "
       "got 1"},
      {{{"resource_name", "epochs"}, {"r_l", "9"}, {"eta", "-2"}},
       "algorithm.algorithmSettings[2].value: eta must be greater than 1, "
       "got -2"},
      {{{"eta", "three"}, {"resource_name", "epochs"}, {"r_l", "9"}},
       "algorithm.algorithmSettings[0].value: eta must be a number, got "
       "'three'"},
      {{{"resource_name", "epochs"}, {"r_l", "0.5"}},
       "algorithm.algorithmSettings[1].value: r_l must be at least 1, got "
       "0.5"},
      {{{"resource_name", "epochs"}, {"r_l", "9.5"}},
       "algorithm.algorithmSettings[1].value: r_l must be an integer for int "
       "parameter 'epochs', got 9.5"},
      {{{"resource_name", "steps"}, {"r_l", "9"}},
       "algorithm.algorithmSettings[0].value: resource_name 'steps' is not a "
       "parameter"},
      {{{"resource_name", "epochs"}, {"r_l", "1e9"}},
       "algorithm.algorithmSettings[1].value: r_l 1000000000 with eta 3 "
       "starts 387420489 trials at once, more than hyperband's limit of "
       "100000"},
      {{{"resource_name", "epochs"}, {"r_l", "9"}, {"s_max", "2"}},
       "algorithm.algorithmSettings[2].name: unknown setting 's_max' for "
       "hyperband (supported: eta, r_l, resource_name, random_state)"},
      {{{"resource_name", "epochs"}, {"r_l", "9"}, {"random_state", "x"}},
       "algorithm.algorithmSettings[2].value: random_state must be an "
       "integer, got 'x'"},
      // A repeat is refused, not "the last one wins".
      {{{"resource_name", "epochs"}, {"r_l", "9"}, {"r_l", "27"}},
       "algorithm.algorithmSettings[2].name: 'r_l' is already set by "
       "algorithm.algorithmSettings[1]"},
      // Every problem is reported, not only the first.
      {{{"eta", "1"}, {"r_l", "0"}, {"s_max", "2"}},
       "algorithm.algorithmSettings[2].name: unknown setting 's_max' for "
       "hyperband (supported: eta, r_l, resource_name, random_state); "
       "algorithm.algorithmSettings: resource_name is required (the int or "
       "double parameter that receives each trial's budget); "
       "algorithm.algorithmSettings[0].value: eta must be greater than 1, "
       "got 1; "
       "algorithm.algorithmSettings[1].value: r_l must be at least 1, got 0"},
  };
  for (const Case& c : cases) {
    api::ExperimentSpec spec = HyperbandSpec(c.settings);
    Status status = Hyperband().Validate(spec);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(status.message(), c.message);
    StatusOr<Suggestion> s = Hyperband().Suggest(spec, {}, "", 1);
    EXPECT_EQ(s.status().message(), c.message);
  }
}

TEST(HyperbandValidateTest, ResourceMustBeIntOrDouble) {
  api::ExperimentSpec spec =
      MakeSpec("hyperband",
               {DoubleParam("lr", 0, 1),
                ListParam(ParameterType::kDiscrete, "epochs", {"1", "3", "9"})},
               {{"resource_name", "epochs"}, {"r_l", "9"}});
  Status status = Hyperband().Validate(spec);
  EXPECT_EQ(status.message(),
            "algorithm.algorithmSettings[0].value: resource_name 'epochs' must "
            "name an int or double parameter, but parameters[1] is discrete");
}

TEST(HyperbandValidateTest, NeedsAParameterBesidesTheResource) {
  api::ExperimentSpec spec =
      MakeSpec("hyperband", {IntParam("epochs", 1, 9)},
               {{"resource_name", "epochs"}, {"r_l", "9"}});
  EXPECT_EQ(Hyperband().Validate(spec).message(),
            "parameters: hyperband needs a parameter to tune besides "
            "resource_name 'epochs'");
}

TEST(HyperbandValidateTest, ChecksTheSearchSpace) {
  api::ExperimentSpec spec =
      MakeSpec("hyperband", {DoubleParam("lr", 2, 1), IntParam("epochs", 1, 9)},
               {{"resource_name", "epochs"}, {"r_l", "9"}});
  Status status = Hyperband().Validate(spec);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("parameters[0]"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace hpt::suggestion
