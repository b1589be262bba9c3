// Names and list sizes a spec may have (issue 10).
#include "api/input_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using testing::ValidSpec;

TEST(IsSafeName, KatibStyleNamesPass) {
  for (const char* name : {"loss", "Validation-accuracy", "train/loss", "lr", "a.b",
                           "_x", "0x", "num-epochs", "a|b", "batch_size"}) {
    EXPECT_TRUE(IsSafeName(name)) << name;
  }
  EXPECT_TRUE(IsSafeName(std::string(kMaxNameLength, 'a')));
}

TEST(IsSafeName, MarkupSpacesAndOddStartsFail) {
  for (const char* name : {"", "<img src=x onerror=alert(1)>", "a b", "-x", ".x", "/x",
                           "a\"b", "a'b", "a&b", "a\nb", "caf\xc3\xa9", "${x}"}) {
    EXPECT_FALSE(IsSafeName(name)) << name;
  }
  EXPECT_FALSE(IsSafeName(std::string(kMaxNameLength + 1, 'a')));
}

TEST(SafeNameProblem, SaysWhatIsAllowed) {
  EXPECT_EQ(SafeNameProblem(""), "must not be empty");
  EXPECT_THAT(SafeNameProblem("a b"), HasSubstr("'a b' may only use letters, digits"));
  EXPECT_THAT(SafeNameProblem(std::string(200, 'a')),
              HasSubstr("is longer than 128 characters"));
  EXPECT_THAT(SafeNameProblem("a\nb"), HasSubstr("'a?b'"));
}

std::string LimitProblems(const ExperimentSpec& spec) {
  return ValidateSpec(spec).message();
}

TEST(ValidateSpecNames, ParameterAndMetricNamesAreSafe) {
  ExperimentSpec spec = ValidSpec();
  spec.objective.metric_name = "<b>loss</b>";
  spec.objective.additional_metric_names = {"acc", "a b"};
  spec.parameters[0].name = "x\"";
  std::string err = LimitProblems(spec);
  EXPECT_THAT(err, HasSubstr("objective.objectiveMetricName: '<b>loss</b>' may only use"));
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames[1]: 'a b' may only use"));
  EXPECT_THAT(err, HasSubstr("parameters[0].name: 'x\"' may only use"));
}

TEST(ValidateSpecNames, MetricStrategyNamesMustBeMetrics) {
  ExperimentSpec spec = ValidSpec();
  spec.objective.metric_strategies["<x>"] = "max";
  EXPECT_THAT(LimitProblems(spec),
              HasSubstr("objective.metricStrategies: '<x>' is neither"));
}

TEST(ValidateSpecLimits, TooManyParameters) {
  ExperimentSpec spec = ValidSpec();
  spec.trial_template.reset();
  spec.metrics_collector.kind = "Push";
  for (size_t i = 1; i <= kMaxParameters; ++i) {
    ParameterSpec p = spec.parameters[0];
    p.name = "p" + std::to_string(i);
    spec.parameters.push_back(p);
  }
  EXPECT_EQ(LimitProblems(spec), "parameters: at most 256 entries, not 257");
  spec.parameters.pop_back();
  EXPECT_TRUE(ValidateSpec(spec).ok()) << LimitProblems(spec);
}

TEST(ValidateSpecLimits, OtherListsAreCapped) {
  ExperimentSpec spec = ValidSpec();
  spec.objective.additional_metric_names.resize(kMaxMetricNames, "m");
  spec.parameters[0].feasible_space.list.resize(kMaxListValues + 1, "v");
  spec.algorithm.settings.resize(kMaxSettings + 1);
  spec.trial_template->command.resize(kMaxCommandArgs + 1, "a");
  std::string err = LimitProblems(spec);
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames: at most 99 entries, not 100"));
  EXPECT_THAT(err, HasSubstr("parameters[0].feasibleSpace.list: at most 10000 entries"));
  EXPECT_THAT(err, HasSubstr("algorithm.algorithmSettings: at most 100 entries"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.command: at most 4096 entries"));
}

}  // namespace
}  // namespace hpt::api
