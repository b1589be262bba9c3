// pbt's settings and state: every bad value refused naming its field, a
// client-run experiment refused, an unreadable state an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/types.h"
#include "suggestion/pbt.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::MakeSpec;

api::ExperimentSpec PbtSpec(std::vector<api::AlgorithmSetting> settings) {
  api::ExperimentSpec spec =
      MakeSpec("pbt", {DoubleParam("lr", 0, 1)}, std::move(settings));
  spec.trial_template.emplace();
  spec.trial_template->command = {"python3", "train.py"};
  return spec;
}

TEST(PbtSettingsTest, BadSettingsAreRejectedNamingTheField) {
  Pbt pbt;
  auto error = [&](std::vector<api::AlgorithmSetting> settings) {
    return pbt.Validate(PbtSpec(std::move(settings))).message();
  };
  EXPECT_TRUE(pbt.Validate(PbtSpec({})).ok());
  EXPECT_TRUE(pbt.Validate(PbtSpec({{"suggestion_trial_dir",
                                     "/var/log/katib/checkpoints/"},
                                    {"resample_probability", "0.3"}}))
                  .ok());
  EXPECT_NE(error({{"n_population", "4"}})
                .find("algorithm.algorithmSettings[0].value: n_population must "
                      "be at least 5"),
            std::string::npos);
  EXPECT_NE(
      error({{"random_state", "1"}, {"truncation_threshold", "1.5"}})
          .find("algorithm.algorithmSettings[1].value: truncation_threshold"),
      std::string::npos);
  EXPECT_NE(
      error({{"resample_probability", "-0.1"}})
          .find("algorithm.algorithmSettings[0].value: resample_probability"),
      std::string::npos);
  EXPECT_NE(error({{"suggestion_trial_dir", "checkpoints"}})
                .find("algorithm.algorithmSettings[0].value: "
                      "suggestion_trial_dir must be an "
                      "absolute path, got 'checkpoints'"),
            std::string::npos);
  EXPECT_NE(error({{"n_population", "many"}}).find("n_population"),
            std::string::npos);
  EXPECT_NE(error({{"eta", "3"}}).find("algorithm.algorithmSettings[0].name"),
            std::string::npos);
  api::ExperimentSpec client_run = PbtSpec({});
  client_run.trial_template.reset();
  EXPECT_EQ(pbt.Validate(client_run).message().rfind("trialTemplate: ", 0), 0u)
      << pbt.Validate(client_run).message();
}

TEST(PbtSettingsTest, AnUnreadableStateIsAnError) {
  Pbt pbt;
  StatusOr<Suggestion> s = pbt.Suggest(PbtSpec({}), {}, "{\"trials\": 3}", 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace hpt::suggestion
