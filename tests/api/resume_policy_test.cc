// resumePolicy (Katib's Never, LongRunning, FromVolume) in hpt's spec and
// in Katib documents: FromVolume is taken for every algorithm, and a policy
// Katib does not have is one line naming the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

using testing::FullJson;

json KatibDoc(const std::string& algorithm, const std::string& policy) {
  json spec = FullJson();
  spec.erase("name");
  spec.erase("trialTemplate");
  spec["algorithm"] = {{"algorithmName", algorithm}};
  spec["resumePolicy"] = policy;
  return {{"apiVersion", "kubeflow.org/v1beta1"},
          {"kind", "Experiment"},
          {"metadata", {{"name", "resume"}}},
          {"spec", spec}};
}

TEST(ResumePolicy, DefaultsToNeverAndIsLeftOutOfAnswersThen) {
  auto spec = SpecFromJson(FullJson());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->resume_policy, ResumePolicy::kNever);
  EXPECT_FALSE(SpecToJson(*spec).contains("resumePolicy"));
}

TEST(ResumePolicy, EachPolicyRoundTrips) {
  for (ResumePolicy policy :
       {ResumePolicy::kNever, ResumePolicy::kLongRunning, ResumePolicy::kFromVolume}) {
    json j = FullJson();
    j["resumePolicy"] = ToString(policy);
    auto spec = SpecFromJson(j);
    ASSERT_TRUE(spec.ok()) << ToString(policy) << ": " << spec.status().ToString();
    EXPECT_EQ(spec->resume_policy, policy);
    auto again = SpecFromJson(SpecToJson(*spec));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->resume_policy, policy);
  }
}

TEST(ResumePolicy, AnUnknownPolicyIsOneLineNamingTheField) {
  json j = FullJson();
  j["resumePolicy"] = "FromDisk";
  auto spec = SpecFromJson(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "resumePolicy: 'FromDisk' must be Never, LongRunning or FromVolume");
  j["resumePolicy"] = 3;
  spec = SpecFromJson(j);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("resumePolicy: must be a string"));
  EXPECT_THAT(spec.status().message(), Not(HasSubstr("\n")));
}

TEST(ResumePolicy, KatibFromVolumeIsTakenForEveryAlgorithm) {
  for (const char* algorithm : {"random", "grid", "tpe", "bayesianoptimization", "pbt"}) {
    std::vector<std::string> notes;
    auto converted = FromKatibExperiment(KatibDoc(algorithm, "FromVolume"), &notes);
    ASSERT_TRUE(converted.ok()) << algorithm << ": " << converted.status().ToString();
    auto spec = SpecFromJson(*converted);
    ASSERT_TRUE(spec.ok()) << algorithm << ": " << spec.status().ToString();
    EXPECT_EQ(spec->resume_policy, ResumePolicy::kFromVolume) << algorithm;
    ASSERT_EQ(notes.size(), 1u) << algorithm;
    EXPECT_THAT(notes[0], HasSubstr("/var/log/katib/checkpoints"));
  }
}

TEST(ResumePolicy, KatibPolicyOutsideKatibsIsOneLineNamingTheField) {
  std::vector<std::string> notes;
  auto converted = FromKatibExperiment(KatibDoc("random", "Sometimes"), &notes);
  ASSERT_TRUE(converted.ok());
  auto spec = SpecFromJson(*converted);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "resumePolicy: 'Sometimes' must be Never, LongRunning or FromVolume");
}

}  // namespace
}  // namespace hpt::api
