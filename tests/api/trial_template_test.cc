#include "api/trial_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpt::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TrialTemplate Template() {
  TrialTemplate t;
  t.trial_parameters = {{"lr", "learning_rate", ""}, {"opt", "optimizer", ""}};
  return t;
}

Assignment Values() {
  return {{"learning_rate", "0.01"}, {"optimizer", "adam"}};
}

TEST(ReferencedTrialParameters, ListsNamesInOrder) {
  EXPECT_THAT(ReferencedTrialParameters(
                  "--lr=${trialParameters.lr} ${trialSpec.Name} ${trialParameters.opt}"
                  " ${trialParameters.lr}"),
              ElementsAre("lr", "opt", "lr"));
  EXPECT_TRUE(ReferencedTrialParameters("no placeholders").empty());
  EXPECT_TRUE(ReferencedTrialParameters("${trialParameters.x").empty());
  EXPECT_TRUE(ReferencedTrialParameters("$HOME ${other.thing}").empty());
}

TEST(Substitute, ReplacesTrialParametersWithTheirReferencedValues) {
  auto out = Substitute("--lr=${trialParameters.lr}", Template(), Values(), "t-1");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "--lr=0.01");
}

TEST(Substitute, ReplacesSeveralPlaceholdersAndTheTrialName) {
  auto out = Substitute("${trialSpec.Name}/${trialParameters.opt}-${trialParameters.lr}"
                        "-${trialParameters.opt}",
                        Template(), Values(), "exp-abc123");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "exp-abc123/adam-0.01-adam");
}

TEST(Substitute, LeavesTextWithoutPlaceholdersAndForeignPlaceholdersAlone) {
  for (const char* text : {"", "plain", "$HOME", "${HOME}", "${unclosed", "a}b",
                           "${trialSpec.Namespace}"}) {
    auto out = Substitute(text, Template(), Values(), "t");
    ASSERT_TRUE(out.ok()) << text;
    EXPECT_EQ(*out, text);
  }
  auto out = Substitute("${HOME}:${trialParameters.lr}:${unclosed", Template(), Values(), "t");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "${HOME}:0.01:${unclosed");
}

TEST(Substitute, UndefinedTrialParameterIsAnError) {
  auto out = Substitute("--x=${trialParameters.x}", Template(), Values(), "t");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("${trialParameters.x} is not defined"));
}

TEST(Substitute, ParameterWithoutAValueIsAnError) {
  Assignment partial = {{"learning_rate", "0.01"}};
  auto out = Substitute("${trialParameters.opt}", Template(), partial, "t");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("parameter 'optimizer' has no value"));
}

}  // namespace
}  // namespace hpt::api
