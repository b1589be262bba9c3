#include "api/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "api/metrics_format.h"
#include "api/spec_codec.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ValidSpec;

std::string Problems(const ExperimentSpec& spec) {
  Status s = ValidateSpec(spec);
  if (!s.ok()) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  }
  return s.message();
}

ParameterSpec ValidationParam(std::string name, ParameterType type) {
  ParameterSpec p;
  p.name = std::move(name);
  p.type = type;
  return p;
}

TEST(ValidateSpec, AcceptsTheIssueExampleAndAValidSpec) {
  auto spec = SpecFromYaml(testing::kFullYaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  EXPECT_TRUE(ValidateSpec(ValidSpec()).ok()) << ValidateSpec(ValidSpec()).ToString();
}

TEST(IsDnsLabel, FollowsRfc1123) {
  for (const char* ok : {"a", "quickstart-branin", "x1", "0abc", "a-b-c"}) {
    EXPECT_TRUE(IsDnsLabel(ok)) << ok;
  }
  for (const char* bad : {"", "Upper", "-lead", "trail-", "under_score", "dot.ted",
                          "sp ace", "ü"}) {
    EXPECT_FALSE(IsDnsLabel(bad)) << bad;
  }
  EXPECT_TRUE(IsDnsLabel(std::string(63, 'a')));
  EXPECT_FALSE(IsDnsLabel(std::string(64, 'a')));
}

TEST(ValidateSpec, RejectsANameThatIsNotADnsLabel) {
  ExperimentSpec s = ValidSpec();
  s.name = "My_Experiment";
  EXPECT_THAT(Problems(s), HasSubstr("name: 'My_Experiment' must be a lowercase DNS label"));
}

TEST(ValidateSpec, RejectsMinAboveMax) {
  ExperimentSpec s = ValidSpec();
  s.parameters[0].feasible_space.min = 5;
  s.parameters[0].feasible_space.max = 3;
  EXPECT_THAT(Problems(s), HasSubstr("parameters[0].feasibleSpace: min 5 is above max 3"));
  s.parameters[0].feasible_space.max = 5;  // min == max is allowed (Katib)
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, RejectsARangeWiderThanADouble) {
  ExperimentSpec s = ValidSpec();
  s.parameters[0].feasible_space.min = -1e308;
  s.parameters[0].feasible_space.max = 1e308;
  EXPECT_THAT(Problems(s),
              HasSubstr("parameters[0].feasibleSpace: the width max - min overflows a double"));
  s.parameters[0].feasible_space.min = 0;  // width 1e308: every algorithm copes
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, RejectsANulInWhatBecomesACString) {
  ExperimentSpec s = ValidSpec();
  ParameterSpec c;
  c.name = "opt";
  c.type = ParameterType::kCategorical;
  c.feasible_space.list = {"sgd", std::string("a\0b", 3)};
  s.parameters.push_back(c);
  s.trial_template->command.push_back(std::string("x\0y", 3));
  s.trial_template->env["MODE"] = std::string("1\0", 2);
  const std::string p = Problems(s);
  EXPECT_THAT(p, HasSubstr("parameters[1].feasibleSpace.list[1]: must not contain a NUL"));
  EXPECT_THAT(p, HasSubstr("trialTemplate.command[" +
                           std::to_string(s.trial_template->command.size() - 1) +
                           "]: must not contain a NUL"));
  EXPECT_THAT(p, HasSubstr("trialTemplate.env.MODE: must not contain a NUL"));
}

TEST(ValidateSpec, RequiresMinAndMaxForNumericParameters) {
  ExperimentSpec s = ValidSpec();
  s.parameters[0].feasible_space.min.reset();
  s.parameters[0].feasible_space.max.reset();
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("parameters[0].feasibleSpace.min: is required"));
  EXPECT_THAT(err, HasSubstr("parameters[0].feasibleSpace.max: is required"));
}

TEST(ValidateSpec, LogUniformNeedsPositiveBounds) {
  for (double min : {0.0, -1.0}) {
    ExperimentSpec s = ValidSpec();
    s.parameters[0].feasible_space.min = min;
    s.parameters[0].feasible_space.distribution = Distribution::kLogUniform;
    EXPECT_THAT(Problems(s), HasSubstr("parameters[0].feasibleSpace.min: must be "
                                       "positive for a logUniform distribution"));
  }
  ExperimentSpec s = ValidSpec();
  s.parameters[0].feasible_space.min = 1e-5;
  s.parameters[0].feasible_space.distribution = Distribution::kLogUniform;
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, ListOnlyForDiscreteAndCategorical) {
  ExperimentSpec s = ValidSpec();
  s.parameters[0].feasible_space.list = {"1", "2"};
  EXPECT_THAT(Problems(s), HasSubstr("parameters[0].feasibleSpace.list: is only for "
                                     "discrete and categorical parameters, not double"));
}

TEST(ValidateSpec, MinMaxNotUsedByListParameters) {
  ExperimentSpec s = ValidSpec();
  ParameterSpec c = ValidationParam("opt", ParameterType::kCategorical);
  c.feasible_space.list = {"sgd"};
  c.feasible_space.min = 0;
  c.feasible_space.distribution = Distribution::kLogUniform;
  s.parameters.push_back(c);
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.min: is not used by categorical"));
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.distribution: is not used"));
}

TEST(ValidateSpec, DiscreteValuesMustBeNumbers) {
  ExperimentSpec s = ValidSpec();
  ParameterSpec d = ValidationParam("batch", ParameterType::kDiscrete);
  d.feasible_space.list = {"16", "big", "64"};
  s.parameters.push_back(d);
  EXPECT_THAT(Problems(s), HasSubstr("parameters[1].feasibleSpace.list[1]: 'big' is "
                                     "not a number"));
}

TEST(ValidateSpec, ListsMustBeNonEmptyWithoutDuplicates) {
  ExperimentSpec s = ValidSpec();
  s.parameters.push_back(ValidationParam("empty", ParameterType::kCategorical));
  ParameterSpec dup = ValidationParam("dup", ParameterType::kCategorical);
  dup.feasible_space.list = {"a", "b", "a"};
  s.parameters.push_back(dup);
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.list: must have at least one value"));
  EXPECT_THAT(err, HasSubstr("parameters[2].feasibleSpace.list[2]: 'a' is listed twice"));

  // Discrete values are numbers: "1.0" is the "1" already listed. As
  // categorical text they are two values.
  ExperimentSpec n = ValidSpec();
  ParameterSpec d = ValidationParam("d", ParameterType::kDiscrete);
  d.feasible_space.list = {"1", "2", "1.0"};
  n.parameters.push_back(d);
  EXPECT_THAT(Problems(n), HasSubstr("parameters[1].feasibleSpace.list[2]: '1.0' is listed "
                                     "twice (as '1')"));
  n.parameters.back().type = ParameterType::kCategorical;
  EXPECT_EQ(Problems(n), "");
}

TEST(ValidateSpec, IntBoundsMustBeIntegersAndStepPositive) {
  ExperimentSpec s = ValidSpec();
  ParameterSpec i = ValidationParam("layers", ParameterType::kInt);
  i.feasible_space.min = 1.5;
  i.feasible_space.max = 8;
  i.feasible_space.step = 0;
  s.parameters.push_back(i);
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.min: 1.5 is not an integer"));
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.step: must be positive, not 0"));
}

TEST(ValidateSpec, ParameterNamesMustBeUniqueAndNonEmpty) {
  ExperimentSpec s = ValidSpec();
  s.parameters.push_back(s.parameters[0]);
  s.parameters.push_back(s.parameters[0]);
  s.parameters[2].name = "";
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("parameters[1].name: 'x' is defined twice"));
  EXPECT_THAT(err, HasSubstr("parameters[2].name: must not be empty"));
  s.parameters.clear();
  EXPECT_THAT(Problems(s), HasSubstr("parameters: must not be empty"));
}

TEST(ValidateSpec, ParallelTrialCountWithinMaxTrialCount) {
  ExperimentSpec s = ValidSpec();
  s.parallel_trial_count = 11;
  EXPECT_THAT(Problems(s),
              HasSubstr("parallelTrialCount: 11 must not exceed maxTrialCount 10"));
  s.parallel_trial_count = 0;
  EXPECT_THAT(Problems(s), HasSubstr("parallelTrialCount: must be positive, not 0"));
  s.parallel_trial_count = 10;
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, MaxTrialCountMustBePositive) {
  ExperimentSpec s = ValidSpec();
  s.max_trial_count = 0;
  EXPECT_THAT(Problems(s), HasSubstr("maxTrialCount: must be positive, not 0"));
}

TEST(ValidateSpec, MaxFailedTrialCountBetweenZeroAndMaxTrialCount) {
  ExperimentSpec s = ValidSpec();
  s.max_failed_trial_count = -1;
  EXPECT_THAT(Problems(s), HasSubstr("maxFailedTrialCount: -1 must be between 0 and "
                                     "maxTrialCount 10"));
  s.max_failed_trial_count = 11;
  EXPECT_THAT(Problems(s), HasSubstr("maxFailedTrialCount: 11"));
  for (int ok : {0, 10}) {
    s.max_failed_trial_count = ok;
    EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
  }
}

TEST(ValidateSpec, DefaultMaxFailedTrialCountFitsASmallBudget) {
  // maxFailedTrialCount is optional (default 3); a spec that leaves it out
  // must not be rejected for it when maxTrialCount is below 3.
  auto spec = SpecFromYaml(R"(
name: small
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 2
parallelTrialCount: 1
parameters: [{name: x, parameterType: double, feasibleSpace: {min: 0, max: 1}}]
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  EXPECT_EQ(spec->max_failed_trial_count, 2);
  EXPECT_LE(spec->max_failed_trial_count, spec->max_trial_count);
}

TEST(ValidateSpec, AdditionalMetricsMustNotContainTheObjective) {
  ExperimentSpec s = ValidSpec();
  s.objective.additional_metric_names = {"acc", "loss", "acc"};
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames[1]: must not repeat the "
                             "objective metric 'loss'"));
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames[2]: 'acc' is listed twice"));
  s.objective.metric_name = "";
  EXPECT_THAT(Problems(s), HasSubstr("objective.objectiveMetricName: must not be empty"));
}

TEST(ValidateSpec, AlgorithmNameRequired) {
  ExperimentSpec s = ValidSpec();
  s.algorithm.name = "";
  EXPECT_THAT(Problems(s), HasSubstr("algorithm.algorithmName: must not be empty"));
}

TEST(ValidateSpec, UndefinedTrialParameterPlaceholder) {
  ExperimentSpec s = ValidSpec();
  s.trial_template->command.push_back("--y=${trialParameters.y}");
  s.trial_template->env["SEED"] = "${trialParameters.seed}";
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("trialTemplate.command[3]: ${trialParameters.y} is not "
                             "defined in trialTemplate.trialParameters"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.env.SEED: ${trialParameters.seed} is not defined"));
}

TEST(ValidateSpec, EnvNamesArePosixVariableNames) {
  for (const char* bad : {"<img src=x>", "A=B", "1X", "", "A B"}) {
    ExperimentSpec s = ValidSpec();
    s.trial_template->env[bad] = "1";
    EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.env: '" + std::string(bad) +
                                       "' is not a valid variable name"))
        << bad;
  }
  ExperimentSpec s = ValidSpec();
  s.trial_template->env["_OK_1"] = "1";
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, UnusedTrialParameter) {
  ExperimentSpec s = ValidSpec();
  s.trial_template->command = {"python3", "train.py"};
  EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.trialParameters[0].name: 'x' is "
                                     "never used as ${trialParameters.x}"));
  // A use in env counts.
  s.trial_template->env["X"] = "${trialParameters.x}";
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
}

TEST(ValidateSpec, TrialParameterMustReferenceAParameter) {
  ExperimentSpec s = ValidSpec();
  s.trial_template->trial_parameters[0].reference = "nope";
  EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.trialParameters[0].reference: "
                                     "'nope' is not one of the experiment's parameters"));
}

TEST(ValidateSpec, TemplateCommandAndResources) {
  ExperimentSpec s = ValidSpec();
  s.trial_template->command.clear();
  s.trial_template->trial_parameters.clear();
  s.trial_template->resources.gpu = -1;
  s.trial_template->timeout_seconds = -5;
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("trialTemplate.command: must not be empty"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.gpu: must not be negative"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.timeoutSeconds: must not be negative"));
}

TEST(ValidateSpec, PidsIsAPositiveTaskCount) {
  ExperimentSpec s = ValidSpec();
  for (int64_t ok : {int64_t{0}, int64_t{1}, int64_t{64}, kMaxTrialPids}) {
    s.trial_template->resources.pids = ok;
    EXPECT_TRUE(ValidateSpec(s).ok()) << ok << ": " << Problems(s);
  }
  for (int64_t bad : {int64_t{-1}, kMaxTrialPids + 1}) {
    s.trial_template->resources.pids = bad;
    EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.resources.pids: must be a positive integer "
                                       "(at most 4194304), not " + std::to_string(bad)));
  }
}

TEST(ValidateSpec, GpusAreWholeCardsOrAShareOfOne) {
  ExperimentSpec s = ValidSpec();
  for (double ok : {0.0, 0.25, 0.5, 1.0, 2.0}) {
    s.trial_template->resources.gpu = ok;
    EXPECT_EQ(Problems(s), "") << ok;
  }
  s.trial_template->resources.gpu = 1.5;
  EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.resources.gpu: 1.5 is neither whole GPUs "
                                     "nor a share of one card"));
  s.trial_template->resources.gpu = 0.001;
  EXPECT_THAT(Problems(s),
              HasSubstr("trialTemplate.resources.gpu: a share of a card must be at least 0.01"));
  s.trial_template->resources.gpu = 0;
  s.trial_template->resources.gpu_memory = 1 << 30;
  EXPECT_THAT(Problems(s), HasSubstr("trialTemplate.resources.gpuMemory: needs gpu"));
}

TEST(ValidateSpec, CollectorKind) {
  ExperimentSpec s = ValidSpec();
  s.metrics_collector.kind = "Prometheus";
  EXPECT_THAT(Problems(s), HasSubstr("metricsCollectorSpec.collector.kind: 'Prometheus' "
                                     "is not supported"));
  s.metrics_collector.kind = "File";
  EXPECT_THAT(Problems(s), HasSubstr("metricsCollectorSpec.source.fileSystemPath.path: "
                                     "is required for the File collector"));
  s.metrics_collector.file_path = "/tmp/metrics.log";
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
  for (const char* kind : {"StdOut", "Push", "None"}) {
    s.metrics_collector.kind = kind;
    EXPECT_TRUE(ValidateSpec(s).ok()) << kind << ": " << Problems(s);
  }
}

TEST(ValidateSpec, ClientRunExperimentsCannotUseFileOrNone) {
  ExperimentSpec s = ValidSpec();
  s.trial_template.reset();
  EXPECT_TRUE(ValidateSpec(s).ok()) << Problems(s);
  s.metrics_collector.kind = "None";
  EXPECT_THAT(Problems(s), HasSubstr("'None' needs a trialTemplate"));
}

TEST(ValidateSpec, CollectorRegexMustCompileWithTwoGroups) {
  ExperimentSpec s = ValidSpec();
  s.metrics_collector.metrics_format = {"([a-z]+)=(\\d+", "(\\w+)", "(\\w+)\\s*:\\s*(\\S+)"};
  std::string err = Problems(s);
  EXPECT_THAT(err, HasSubstr("metricsCollectorSpec.source.filter.metricsFormat[0]: "
                             "invalid regular expression"));
  EXPECT_THAT(err, HasSubstr("metricsCollectorSpec.source.filter.metricsFormat[1]: "
                             "needs two groups (name, then value), not 1"));
  EXPECT_THAT(err, Not(HasSubstr("metricsFormat[2]")));
  s.metrics_collector.step_key = "";
  EXPECT_THAT(Problems(s), HasSubstr("metricsCollectorSpec.stepKey: must not be empty"));
}

TEST(ValidateSpec, ReportsEveryProblemTogether) {
  ExperimentSpec s = ValidSpec();
  s.name = "Bad Name";
  s.parameters[0].feasible_space.min = 2;
  s.parallel_trial_count = 20;
  s.objective.additional_metric_names = {"loss"};
  s.trial_template->command.push_back("${trialParameters.z}");
  s.metrics_collector.kind = "Bogus";
  Status status = ValidateSpec(s);
  ASSERT_FALSE(status.ok());
  const std::string& err = status.message();
  EXPECT_THAT(err, HasSubstr("name: "));
  EXPECT_THAT(err, HasSubstr("parameters[0].feasibleSpace: min 2 is above max 1"));
  EXPECT_THAT(err, HasSubstr("parallelTrialCount: 20"));
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames[0]"));
  EXPECT_THAT(err, HasSubstr("${trialParameters.z}"));
  EXPECT_THAT(err, HasSubstr("metricsCollectorSpec.collector.kind"));
  EXPECT_EQ(std::count(err.begin(), err.end(), ';'), 5) << err;
}

}  // namespace
}  // namespace hpt::api

namespace hpt::api {
namespace {

TEST(MetricsRegexProblem, KatibLiteralBracesAreAccepted) {
  // Katib's file-metrics-collector example, written for Go's RE2.
  EXPECT_EQ(MetricsRegexProblem(R"({metricName: ([\w|-]+), metricValue: ((-?\d+)(\.\d+)?)})"),
            "");
  EXPECT_EQ(MetricsRegexProblem(R"(a{2,3}\{x\}(a)(b))"), "");
  EXPECT_NE(MetricsRegexProblem("(a)"), "");
  EXPECT_NE(MetricsRegexProblem("(a)(b"), "");
  EXPECT_NE(MetricsRegexProblem(std::string(5000, 'a') + "(a)(b)"), "");
}

}  // namespace
}  // namespace hpt::api
