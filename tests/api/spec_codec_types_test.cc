// Strict JSON types in the spec decoder (issue 10): a value of the wrong
// type is an error naming the field, never silently converted, except
// where Katib writes numbers as strings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

using testing::DecodeError;
using testing::FullJson;

TEST(SpecFromJsonTypes, NumbersAreNotTakenForStrings) {
  json j = FullJson();
  j["name"] = 123;
  j["objective"]["objectiveMetricName"] = 1;
  j["objective"]["additionalMetricNames"] = {2};
  j["algorithm"]["algorithmName"] = 7;
  j["parameters"][0]["name"] = 5;
  j["trialTemplate"]["command"][1] = 3;
  j["trialTemplate"]["env"]["KEY"] = 1;
  j["metricsCollectorSpec"]["collector"]["kind"] = true;
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("name: must be a string, not a number"));
  EXPECT_THAT(err, HasSubstr("objective.objectiveMetricName: must be a string, not a number"));
  EXPECT_THAT(err,
              HasSubstr("objective.additionalMetricNames[0]: must be a string, not a number"));
  EXPECT_THAT(err, HasSubstr("algorithm.algorithmName: must be a string, not a number"));
  EXPECT_THAT(err, HasSubstr("parameters[0].name: must be a string, not a number"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.command[1]: must be a string, not a number"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.env.KEY: must be a string, not a number"));
  EXPECT_THAT(err,
              HasSubstr("metricsCollectorSpec.collector.kind: must be a string, not a boolean"));
}

TEST(SpecFromJsonTypes, StringsAreNotTakenForIntegers) {
  json j = FullJson();
  j["maxTrialCount"] = "10";
  j["parallelTrialCount"] = "3";
  j["maxFailedTrialCount"] = "1";
  j["trialTemplate"]["timeoutSeconds"] = "600";
  j["trialTemplate"]["resources"]["gpu"] = "1";
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("maxTrialCount: must be an integer, not a string"));
  EXPECT_THAT(err, HasSubstr("parallelTrialCount: must be an integer, not a string"));
  EXPECT_THAT(err, HasSubstr("maxFailedTrialCount: must be an integer, not a string"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.timeoutSeconds: must be an integer, not a string"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.gpu: must be a number, not a string"));
}

TEST(SpecFromJsonTypes, KatibStringNumbersStay) {
  json j = FullJson();
  j["objective"]["goal"] = "0.4";
  j["parameters"][0]["feasibleSpace"] = {{"min", "-5"}, {"max", 10}};
  j["parameters"][2]["feasibleSpace"] = {{"min", "1"}, {"max", "8"}, {"step", "1"}};
  j["parameters"][3]["feasibleSpace"]["list"] = {"16", 32, 64.5};
  j["algorithm"]["algorithmSettings"][0]["value"] = "7";
  auto spec = SpecFromJson(j);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->objective.goal, 0.4);
  EXPECT_EQ(spec->parameters[0].feasible_space.min, -5.0);
  EXPECT_EQ(spec->parameters[2].feasible_space.step, 1.0);
  EXPECT_EQ(spec->parameters[3].feasible_space.list,
            (std::vector<std::string>{"16", "32", "64.5"}));
  EXPECT_EQ(spec->algorithm.settings[0].value, "7");
}

TEST(SpecFromYamlTypes, PlainCountsAreIntegersQuotedOnesAreStrings) {
  const std::string body = R"(
name: n
objective: {type: maximize, objectiveMetricName: acc}
algorithm: {algorithmName: random}
parameters: [{name: x, parameterType: double, feasibleSpace: {min: "0.01", max: "0.05"}}]
)";
  auto plain = SpecFromYaml(body + "maxTrialCount: 10\n");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->max_trial_count, 10);
  auto quoted = SpecFromYaml(body + "maxTrialCount: \"10\"\n");
  ASSERT_FALSE(quoted.ok());
  EXPECT_THAT(quoted.status().message(),
              HasSubstr("maxTrialCount: must be an integer, not a string"));
}

TEST(SpecFromYamlTypes, QuotedNumberIsAStringName) {
  auto spec = SpecFromYaml(R"(
name: n
objective: {type: maximize, objectiveMetricName: "1"}
algorithm: {algorithmName: random}
maxTrialCount: 2
parameters: [{name: 5, parameterType: double, feasibleSpace: {min: 0, max: 1}}]
)");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("parameters[0].name: must be a string, not a number"));
  EXPECT_THAT(spec.status().message(), ::testing::Not(HasSubstr("objectiveMetricName")));
}

TEST(KatibExperimentTypes, MetadataNameMustBeAString) {
  json doc = {{"apiVersion", "kubeflow.org/v1beta1"},
              {"kind", "Experiment"},
              {"metadata", {{"name", 123}}},
              {"spec", FullJson()}};
  doc["spec"].erase("name");
  doc["spec"].erase("trialTemplate");
  std::vector<std::string> notes;
  auto converted = FromKatibExperiment(doc, &notes);
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  EXPECT_THAT(DecodeError(*converted), HasSubstr("name: must be a string, not a number"));
}

TEST(KatibExperimentTypes, GpuLimitMustBeAWholeCount) {
  for (const char* bad : {"2abc", "-1", "1.5", "many"}) {
    json doc = {{"apiVersion", "kubeflow.org/v1beta1"},
                {"kind", "Experiment"},
                {"metadata", {{"name", "gpus"}}},
                {"spec", FullJson()}};
    doc["spec"].erase("name");
    doc["spec"]["trialTemplate"] = json::parse(R"({"trialSpec": {
        "apiVersion": "batch/v1", "kind": "Job",
        "spec": {"template": {"spec": {"containers": [{
          "name": "main", "command": ["python3", "train.py"],
          "resources": {"limits": {"nvidia.com/gpu": "GPUS"}}}]}}}}})");
    doc["spec"]["trialTemplate"]["trialSpec"]["spec"]["template"]["spec"]["containers"][0]
       ["resources"]["limits"]["nvidia.com/gpu"] = bad;
    std::vector<std::string> notes;
    auto converted = FromKatibExperiment(doc, &notes);
    ASSERT_FALSE(converted.ok()) << bad;
    EXPECT_THAT(converted.status().message(), HasSubstr("is not a GPU count")) << bad;
  }
}

TEST(SpecFromJsonTypes, ResourcesTakeSharesAndKubernetesQuantities) {
  json j = FullJson();
  j["trialTemplate"]["resources"] = {
      {"gpu", 0.25}, {"gpuMemory", "10Gi"}, {"cpu", "500m"}, {"memory", 4294967296}};
  auto s = SpecFromJson(j);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const Resources& r = s->trial_template->resources;
  EXPECT_EQ(r.gpu, 0.25);
  EXPECT_EQ(r.gpu_memory, 10ll << 30);
  EXPECT_EQ(r.cpu, 0.5);
  EXPECT_EQ(r.memory, 4ll << 30);
  EXPECT_EQ(SpecToJson(*s)["trialTemplate"]["resources"],
            json({{"gpu", 0.25}, {"gpuMemory", "10Gi"}, {"cpu", 0.5}, {"memory", "4Gi"}}));

  j["trialTemplate"]["resources"] = {
      {"gpu", 0.001}, {"gpuMemory", "10GB"}, {"cpu", "-1"}, {"memory", "lots"}, {"disk", 1}};
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.gpuMemory: '10GB' is not a quantity"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.cpu: '-1' is not a quantity"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.memory: 'lots' is not a quantity"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.disk: unknown field"));
}

// resources.pids: a trial's cap on its tasks, a positive integer up to the
// kernel's pid limit; kept through a round trip, absent when not given.
TEST(SpecFromJsonTypes, ResourcesPidsIsAPositiveTaskCount) {
  json j = FullJson();
  j["trialTemplate"]["resources"] = {{"pids", 64}};
  auto s = SpecFromJson(j);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(SpecToJson(*s)["trialTemplate"]["resources"], json({{"gpu", 0}, {"pids", 64}}));
  j["trialTemplate"]["resources"] = {{"pids", 4194304}};
  EXPECT_EQ(DecodeError(j), "");
  j["trialTemplate"]["resources"] = {{"cpu", 1}};
  s = SpecFromJson(j);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(SpecToJson(*s)["trialTemplate"]["resources"].contains("pids"));

  const std::string field =
      "trialTemplate.resources.pids: must be a positive integer (at most 4194304), not ";
  for (const auto& [bad, shown] : std::vector<std::pair<json, std::string>>{
           {0, "0"}, {-1, "-1"}, {1.5, "1.5"}, {4194305, "4194305"}, {1e300, "1e+300"},
           {"64", "a string"}, {true, "a boolean"}, {nullptr, "null"}}) {
    j["trialTemplate"]["resources"] = {{"pids", bad}};
    EXPECT_THAT(DecodeError(j), HasSubstr(field + shown)) << bad.dump();
  }
}

TEST(SpecFromYamlTypes, ResourcesPidsReadsFromYaml) {
  json j = FullJson();
  j["trialTemplate"]["resources"] = {{"pids", 128}};
  auto s = SpecFromYaml(JsonToYaml(j));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(SpecToJson(*s)["trialTemplate"]["resources"]["pids"], 128);
  j["trialTemplate"]["resources"] = {{"pids", "lots"}};
  s = SpecFromYaml(JsonToYaml(j));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("trialTemplate.resources.pids: must be a positive integer"));
}

}  // namespace
}  // namespace hpt::api
