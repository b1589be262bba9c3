// Runner-run trials with conditional parameters (api/conditions.h): a
// command argument or env variable that references an inactive parameter
// is left out of the launch (api::SubstituteActive).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using ::testing::Contains;
using ::testing::Not;

nlohmann::json ConditionalSpec(const std::string& name, int trials) {
  nlohmann::json spec = RunnerSpec(name, trials, trials);
  spec["parameters"].push_back({{"name", "optimizer"},
                                {"parameterType", "categorical"},
                                {"feasibleSpace", {{"list", {"sgd", "adam"}}}}});
  spec["parameters"].push_back({{"name", "momentum"},
                                {"parameterType", "double"},
                                {"feasibleSpace", {{"min", "0.5"}, {"max", "0.99"}}},
                                {"parent", {{"name", "optimizer"}, {"values", {"sgd"}}}}});
  spec["trialTemplate"]["command"] = {"train", "--x=${trialParameters.x}",
                                      "--optimizer=${trialParameters.optimizer}",
                                      "--momentum=${trialParameters.momentum}"};
  spec["trialTemplate"]["env"] = {{"MOMENTUM", "${trialParameters.momentum}"}};
  spec["trialTemplate"]["trialParameters"] = {{{"name", "x"}, {"reference", "x"}},
                                              {{"name", "optimizer"}, {"reference", "optimizer"}},
                                              {{"name", "momentum"}, {"reference", "momentum"}}};
  return spec;
}

class ConditionalLaunchTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }
};

TEST_F(ConditionalLaunchTest, InactiveParametersLeaveNoArgumentOrVariable) {
  constexpr int kTrials = 8;
  Create(ConditionalSpec("c", kTrials));
  ASSERT_TRUE(WaitForRunning("c", kTrials));
  int with_momentum = 0;
  for (const runner::LaunchSpec& launch : executor_->started()) {
    api::Trial trial = Trial("c", launch.trial);
    EXPECT_EQ(trial.phase, api::TrialPhase::kRunning) << trial.reason << ": " << trial.message;
    const std::string optimizer = *api::FindValue(trial.assignment, "optimizer");
    const std::string* momentum = api::FindValue(trial.assignment, "momentum");
    EXPECT_EQ(momentum != nullptr, optimizer == "sgd") << launch.trial;
    EXPECT_THAT(launch.argv, Contains("--optimizer=" + optimizer));
    if (momentum) {
      ++with_momentum;
      ASSERT_EQ(launch.argv.size(), 4u);
      EXPECT_EQ(launch.argv[3], "--momentum=" + *momentum);
      EXPECT_EQ(launch.env.at("MOMENTUM"), *momentum);
    } else {
      EXPECT_EQ(launch.argv.size(), 3u);
      EXPECT_THAT(launch.argv, Not(Contains(::testing::StartsWith("--momentum"))));
      EXPECT_EQ(launch.env.count("MOMENTUM"), 0u);
    }
  }
  EXPECT_GT(with_momentum, 0);
  EXPECT_LT(with_momentum, kTrials);
}

}  // namespace
}  // namespace hpt::controller::testing
