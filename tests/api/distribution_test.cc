// feasibleSpace.distribution: Katib's four names through every codec, and
// which parameters may use which.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "api/types.h"
#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::ValidSpec;

constexpr Distribution kAll[] = {
    Distribution::kUniform, Distribution::kLogUniform, Distribution::kNormal,
    Distribution::kLogNormal};

TEST(Distribution, KatibNamesRoundTrip) {
  EXPECT_STREQ(ToString(Distribution::kNormal), "normal");
  EXPECT_STREQ(ToString(Distribution::kLogNormal), "logNormal");
  for (Distribution d : kAll) EXPECT_EQ(ParseDistribution(ToString(d)), d);
  EXPECT_FALSE(ParseDistribution("Normal"));
  EXPECT_FALSE(ParseDistribution("lognormal"));
  EXPECT_FALSE(ParseDistribution("gaussian"));
}

ExperimentSpec WithDistribution(ParameterType type, Distribution d,
                                double min) {
  ExperimentSpec s = ValidSpec();
  s.parameters[0].type = type;
  s.parameters[0].feasible_space.min = min;
  s.parameters[0].feasible_space.max = 64;
  s.parameters[0].feasible_space.distribution = d;
  return s;
}

TEST(Distribution, JsonAndYamlRoundTripForDoublesAndInts) {
  for (ParameterType type : {ParameterType::kDouble, ParameterType::kInt}) {
    for (Distribution d : kAll) {
      ExperimentSpec s = WithDistribution(type, d, 32);
      ASSERT_TRUE(ValidateSpec(s).ok()) << ValidateSpec(s).ToString();
      json encoded = SpecToJson(s);
      auto from_json = SpecFromJson(encoded);
      ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
      EXPECT_EQ(from_json->parameters[0].feasible_space.distribution, d);
      auto from_yaml = SpecFromYaml(JsonToYaml(encoded));
      ASSERT_TRUE(from_yaml.ok()) << from_yaml.status().ToString();
      EXPECT_EQ(from_yaml->parameters[0].feasible_space.distribution, d);
      EXPECT_EQ(SpecToJson(*from_yaml), encoded);
    }
  }
}

TEST(Distribution, WrittenOnlyWhenNotUniform) {
  json uniform = SpecToJson(
      WithDistribution(ParameterType::kDouble, Distribution::kUniform, 1));
  EXPECT_FALSE(
      uniform["parameters"][0]["feasibleSpace"].contains("distribution"));
  json normal = SpecToJson(
      WithDistribution(ParameterType::kInt, Distribution::kNormal, 1));
  EXPECT_EQ(normal["parameters"][0]["feasibleSpace"]["distribution"], "normal");
}

TEST(Distribution, LogNormalNeedsAPositiveMinNormalDoesNot) {
  for (ParameterType type : {ParameterType::kDouble, ParameterType::kInt}) {
    for (double min : {0.0, -3.0}) {
      Status s =
          ValidateSpec(WithDistribution(type, Distribution::kLogNormal, min));
      EXPECT_THAT(s.message(),
                  HasSubstr("parameters[0].feasibleSpace.min: must be positive "
                            "for a logNormal distribution"));
      EXPECT_TRUE(
          ValidateSpec(WithDistribution(type, Distribution::kNormal, min))
              .ok());
    }
  }
}

TEST(Distribution, ListParametersRefuseEveryNonUniformDistribution) {
  for (ParameterType type :
       {ParameterType::kDiscrete, ParameterType::kCategorical}) {
    for (Distribution d : {Distribution::kNormal, Distribution::kLogNormal}) {
      ExperimentSpec s = ValidSpec();
      ParameterSpec p;
      p.name = "choice";
      p.type = type;
      p.feasible_space.list = {"1", "2"};
      p.feasible_space.distribution = d;
      s.parameters.push_back(p);
      Status st = ValidateSpec(s);
      EXPECT_THAT(
          st.message(),
          HasSubstr(
              "parameters[1].feasibleSpace.distribution: is not used by " +
              std::string(ToString(type)) + " parameters"));
    }
  }
}

// The parameters of Katib's hp-tuning/hyperopt-distribution.yaml, as a
// Katib document.
constexpr const char* kKatibDoc = R"(
apiVersion: kubeflow.org/v1beta1
kind: Experiment
metadata: {name: hyperopt-distribution}
spec:
  objective: {type: minimize, goal: 0.05, objectiveMetricName: loss}
  algorithm: {algorithmName: random}
  maxTrialCount: 12
  parameters:
    - {name: lr, parameterType: double,
       feasibleSpace: {min: "0.01", max: "0.05", step: "0.01", distribution: normal}}
    - {name: batch_size, parameterType: int,
       feasibleSpace: {min: "32", max: "64", distribution: logNormal}}
  trialTemplate:
    primaryContainerName: main
    trialParameters: [{name: lr, reference: lr}, {name: bs, reference: batch_size}]
    trialSpec:
      apiVersion: batch/v1
      kind: Job
      spec:
        template:
          spec:
            containers:
              - name: main
                image: unused
                command: [python3, train.py, "--lr=${trialParameters.lr}",
                          "--bs=${trialParameters.bs}"]
)";

TEST(Distribution, KatibHyperoptDistributionExampleValidates) {
  auto doc = YamlToJson(kKatibDoc);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  std::vector<std::string> notes;
  auto converted = FromKatibExperiment(*doc, &notes);
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  auto spec = SpecFromJson(*converted);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  EXPECT_EQ(spec->parameters[0].feasible_space.distribution,
            Distribution::kNormal);
  EXPECT_EQ(spec->parameters[1].feasible_space.distribution,
            Distribution::kLogNormal);
}

}  // namespace
}  // namespace hpt::api
