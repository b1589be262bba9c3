#include "api/spec_codec.h"
#include "api/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

void ExpectDecodesIssueExample(const ExperimentSpec& s) {
  EXPECT_EQ(s.name, "branin-random");
  EXPECT_EQ(s.objective.type, ObjectiveType::kMinimize);
  EXPECT_EQ(s.objective.metric_name, "loss");
  ASSERT_TRUE(s.objective.goal.has_value());
  EXPECT_DOUBLE_EQ(*s.objective.goal, 0.4);
  EXPECT_EQ(s.objective.additional_metric_names, std::vector<std::string>{"acc"});
  EXPECT_EQ(s.algorithm.name, "random");
  ASSERT_EQ(s.algorithm.settings.size(), 1u);
  EXPECT_EQ(s.algorithm.settings[0].name, "random_state");
  EXPECT_EQ(s.algorithm.settings[0].value, "7");
  EXPECT_EQ(s.parallel_trial_count, 3);
  EXPECT_EQ(s.max_trial_count, 12);
  EXPECT_EQ(s.max_failed_trial_count, 3);

  ASSERT_EQ(s.parameters.size(), 5u);
  const ParameterSpec& x = s.parameters[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.type, ParameterType::kDouble);
  EXPECT_EQ(x.feasible_space.min, -5.0);
  EXPECT_EQ(x.feasible_space.max, 10.0);
  EXPECT_FALSE(x.feasible_space.step.has_value());
  EXPECT_EQ(x.feasible_space.distribution, Distribution::kUniform);
  const ParameterSpec& lr = s.parameters[1];
  EXPECT_EQ(lr.feasible_space.min, 1e-5);
  EXPECT_EQ(lr.feasible_space.max, 1e-1);
  EXPECT_EQ(lr.feasible_space.distribution, Distribution::kLogUniform);
  const ParameterSpec& layers = s.parameters[2];
  EXPECT_EQ(layers.type, ParameterType::kInt);
  EXPECT_EQ(layers.feasible_space.min, 1.0);
  EXPECT_EQ(layers.feasible_space.max, 8.0);
  EXPECT_EQ(layers.feasible_space.step, 1.0);
  const ParameterSpec& batch = s.parameters[3];
  EXPECT_EQ(batch.type, ParameterType::kDiscrete);
  EXPECT_EQ(batch.feasible_space.list,
            (std::vector<std::string>{"16", "32", "64"}));
  const ParameterSpec& opt = s.parameters[4];
  EXPECT_EQ(opt.type, ParameterType::kCategorical);
  EXPECT_EQ(opt.feasible_space.list, (std::vector<std::string>{"sgd", "adam"}));

  ASSERT_TRUE(s.trial_template.has_value());
  const TrialTemplate& t = *s.trial_template;
  EXPECT_EQ(t.command, (std::vector<std::string>{"python3", "train.py",
                                                 "--x=${trialParameters.x}"}));
  ASSERT_EQ(t.trial_parameters.size(), 1u);
  EXPECT_EQ(t.trial_parameters[0].name, "x");
  EXPECT_EQ(t.trial_parameters[0].reference, "x");
  EXPECT_EQ(t.working_dir, ".");
  EXPECT_EQ(t.env, (std::map<std::string, std::string>{{"KEY", "value"}}));
  EXPECT_EQ(t.resources, Resources{});
  EXPECT_EQ(t.timeout_seconds, 600);
  EXPECT_EQ(s.metrics_collector.kind, "StdOut");
}

TEST(SpecFromYaml, DecodesEveryFieldOfTheIssueExample) {
  auto spec = SpecFromYaml(testing::kFullYaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ExpectDecodesIssueExample(*spec);
}

TEST(SpecFromJson, DecodesEveryFieldWithJsonNumbers) {
  auto spec = SpecFromJson(json::parse(testing::kFullJson));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ExpectDecodesIssueExample(*spec);
}

TEST(SpecFromYaml, AcceptsNumbersAsYamlNumbers) {
  auto spec = SpecFromYaml(R"(
name: n
objective: {type: maximize, objectiveMetricName: acc, goal: 0.9}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: 7}]}
maxTrialCount: 5
parallelTrialCount: 2
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: -5, max: 1.5e1}}
  - {name: b, parameterType: discrete, feasibleSpace: {list: [16, 0.5, 1e-3]}}
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->objective.type, ObjectiveType::kMaximize);
  EXPECT_EQ(spec->max_trial_count, 5);
  EXPECT_EQ(spec->algorithm.settings[0].value, "7");
  EXPECT_EQ(spec->parameters[0].feasible_space.min, -5.0);
  EXPECT_EQ(spec->parameters[0].feasible_space.max, 15.0);
  EXPECT_EQ(spec->parameters[1].feasible_space.list,
            (std::vector<std::string>{"16", "0.5", "0.001"}));
}

TEST(SpecFromYaml, DefaultsWhenOptionalFieldsAreAbsent) {
  auto spec = SpecFromYaml(R"(
name: client
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 4
parameters: [{name: x, parameterType: double, feasibleSpace: {min: 0, max: 1}}]
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->parallel_trial_count, 3);
  EXPECT_EQ(spec->max_failed_trial_count, 3);
  EXPECT_FALSE(spec->objective.goal.has_value());
  EXPECT_FALSE(spec->trial_template.has_value());
  EXPECT_EQ(spec->metrics_collector.kind, "StdOut");
  EXPECT_EQ(spec->metrics_collector.step_key, "step");
}

TEST(SpecFromYaml, TheDefaultParallelismNeverExceedsTheBudget) {
  auto spec = SpecFromYaml(R"(
name: one
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 1
parameters: [{name: x, parameterType: double, feasibleSpace: {min: 0, max: 1}}]
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->parallel_trial_count, 1);
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
}

// One rule for files, Katib's and ours, and PATCHes: a failure budget
// above the trial budget is that budget (it could never be reached).
TEST(SpecFromYaml, AFailureBudgetAboveTheTrialBudgetIsTakenAsIt) {
  auto spec = SpecFromYaml(R"(
name: many-failures
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 2
maxFailedTrialCount: 5
parameters: [{name: x, parameterType: double, feasibleSpace: {min: 0, max: 1}}]
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->max_failed_trial_count, 2);
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
}

TEST(SpecFromYaml, QuotedScalarsStayText) {
  auto json = YamlToJson("a: \"7\"\nb: 7\nc: '1e-5'\nd: true\ne: \"true\"\nf: ~\n");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ((*json)["a"], "7");
  EXPECT_EQ((*json)["b"], 7);
  EXPECT_EQ((*json)["c"], "1e-5");
  EXPECT_EQ((*json)["d"], true);
  EXPECT_EQ((*json)["e"], "true");
  EXPECT_TRUE((*json)["f"].is_null());
}

TEST(YamlToJson, PlainScalarsThatAreNotNumbersStayText) {
  // Dates, version ranges and the like contain digits and '-' but are not
  // numbers; YAML 1.2's core schema keeps them as strings.
  auto json = YamlToJson("date: 2024-01-01\nrange: 1-2\ntail: 5-\n");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ((*json)["range"], "1-2");
  EXPECT_EQ((*json)["date"], "2024-01-01");
  EXPECT_EQ((*json)["tail"], "5-");
}

TEST(YamlToJson, AliasExpansionIsBounded) {
  // 9 levels of 10 aliases: ~400 bytes of YAML that expand to 10^9 scalars.
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) yaml += (k ? ", " : "") + prev;
    yaml += "]\n";
  }
  auto json = YamlToJson(yaml);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(json.status().message(), HasSubstr("aliases"));
}

TEST(YamlToJson, SyntaxErrorNamesTheLine) {
  auto json = YamlToJson("name: a\nobjective: {type: minimize\nmaxTrialCount: 3\n");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(json.status().message(), HasSubstr("invalid YAML at line"));

  auto tab = YamlToJson("name: a\nparameters:\n  - x\n - y\n");
  ASSERT_FALSE(tab.ok());
  EXPECT_THAT(tab.status().message(), HasSubstr("line 4"));
}

TEST(SpecFromYaml, InvalidYamlIsInvalidArgument) {
  auto spec = SpecFromYaml("name: [a, b\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("line"));
}

TEST(SpecFromYaml, TopLevelMustBeAMapping) {
  for (const char* text : {"", "- a\n- b\n", "just text"}) {
    auto spec = SpecFromYaml(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_THAT(spec.status().message(), HasSubstr("must be a mapping")) << text;
  }
}

using testing::DecodeError;
using testing::FullJson;

TEST(SpecFromJson, BadNumberNamesItsFieldPath) {
  json j = FullJson();
  j["parameters"][1]["feasibleSpace"]["min"] = "abc";
  EXPECT_THAT(DecodeError(j),
              HasSubstr("parameters[1].feasibleSpace.min: 'abc' is not a finite number"));
}

TEST(SpecFromJson, WrongTypesNameTheirFieldPaths) {
  json j = FullJson();
  j["parameters"][0]["feasibleSpace"]["max"] = json::array({1});
  j["objective"]["additionalMetricNames"] = "acc";
  j["trialTemplate"]["command"] = "python3 train.py";
  j["maxTrialCount"] = true;
  j["algorithm"] = "random";
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("parameters[0].feasibleSpace.max: must be a finite "
                             "number, not a list"));
  EXPECT_THAT(err, HasSubstr("objective.additionalMetricNames: must be a list, "
                             "not a string"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.command: must be a list"));
  EXPECT_THAT(err, HasSubstr("maxTrialCount: must be an integer, not a boolean"));
  EXPECT_THAT(err, HasSubstr("algorithm: must be a mapping, not a string"));
}

TEST(SpecFromJson, NonIntegerCountsAreRejected) {
  json j = FullJson();
  j["maxTrialCount"] = 2.5;
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("maxTrialCount: 2.5 is not an integer"));
}

TEST(SpecFromJson, UnknownFieldsAreRejectedWithTheirPaths) {
  json j = FullJson();
  j["maxTrials"] = 3;
  j["parameters"][2]["feasibleSpace"]["stepp"] = 1;
  j["trialTemplate"]["resources"]["disk"] = 2;
  j["algorithm"]["algorithmSettings"][0]["extra"] = "x";
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("maxTrials: unknown field"));
  EXPECT_THAT(err, HasSubstr("parameters[2].feasibleSpace.stepp: unknown field"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.resources.disk: unknown field"));
  EXPECT_THAT(err, HasSubstr("algorithm.algorithmSettings[0].extra: unknown field"));
}

TEST(SpecFromJson, RequiredFieldsAreReported) {
  std::string err = DecodeError(json::object());
  for (const char* field : {"name: is required", "objective: is required",
                            "algorithm: is required", "maxTrialCount: is required",
                            "parameters: is required"}) {
    EXPECT_THAT(err, HasSubstr(field));
  }
  json j = FullJson();
  j["objective"].erase("objectiveMetricName");
  j["parameters"][3].erase("feasibleSpace");
  j["trialTemplate"]["trialParameters"][0].erase("reference");
  err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("objective.objectiveMetricName: is required"));
  EXPECT_THAT(err, HasSubstr("parameters[3].feasibleSpace: is required"));
  EXPECT_THAT(err, HasSubstr("trialTemplate.trialParameters[0].reference: is required"));
}

TEST(SpecFromJson, BadEnumValuesAreNamed) {
  json j = FullJson();
  j["objective"]["type"] = "minimise";
  j["parameters"][0]["parameterType"] = "float";
  j["parameters"][1]["feasibleSpace"]["distribution"] = "gaussian";
  std::string err = DecodeError(j);
  EXPECT_THAT(err, HasSubstr("objective.type: 'minimise' must be minimize or maximize"));
  EXPECT_THAT(err, HasSubstr("parameters[0].parameterType: 'float'"));
  EXPECT_THAT(err, HasSubstr("parameters[1].feasibleSpace.distribution: 'gaussian' must be "
                             "uniform, logUniform, normal or logNormal"));
}

TEST(SpecFromJson, MetricStrategiesChooseTheObjectiveValue) {
  json j = FullJson();
  j["objective"]["metricStrategies"] = {{{"name", "loss"}, {"value", "min"}}};
  auto spec = SpecFromJson(j);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->objective.metric_strategies.at("loss"), "min");
  Trial t;
  t.metrics = {{"loss", 0.1, 0.9, 0.5}};
  EXPECT_EQ(ObjectiveValue(t, spec->objective), 0.1);
  spec->objective.metric_strategies["loss"] = "max";
  EXPECT_EQ(ObjectiveValue(t, spec->objective), 0.9);
  spec->objective.metric_strategies["loss"] = "latest";
  EXPECT_EQ(ObjectiveValue(t, spec->objective), 0.5);
  spec->objective.metric_strategies.clear();
  EXPECT_EQ(SpecFromJson(SpecToJson(*spec))->objective.metric_strategies.size(), 0u);
}

TEST(SpecFromJson, ReportsEveryProblemJoinedBySemicolons) {
  json j = FullJson();
  j["bogus"] = 1;
  j["parameters"][4] = "opt";
  j["objective"]["metricStrategies"] = {{{"name", "loss"}}};
  auto spec = SpecFromJson(j);
  ASSERT_FALSE(spec.ok());
  const std::string& err = spec.status().message();
  EXPECT_THAT(err, HasSubstr("bogus: unknown field"));
  EXPECT_THAT(err, HasSubstr("parameters[4]: must be a mapping, not a string"));
  EXPECT_THAT(err, HasSubstr("objective.metricStrategies[0].value: is required"));
  EXPECT_EQ(std::count(err.begin(), err.end(), ';'), 2) << err;
}

TEST(SpecFromYaml, ErrorsCarryFieldPaths) {
  auto spec = SpecFromYaml(R"(
name: n
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 3
parameters:
  - {name: a, parameterType: double, feasibleSpace: {min: 0, max: 1}}
  - {name: b, parameterType: double, feasibleSpace: {min: "x1", max: 1}}
)");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("parameters[1].feasibleSpace.min: 'x1' is not a finite number"));
}

TEST(SpecToJson, RoundTripsTheIssueExample) {
  auto spec = SpecFromYaml(testing::kFullYaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  json encoded = SpecToJson(*spec);
  auto decoded = SpecFromJson(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString() << "\n" << encoded.dump(2);
  ExpectDecodesIssueExample(*decoded);
  EXPECT_EQ(SpecToJson(*decoded), encoded);
}

TEST(SpecToJson, RoundTripsEveryOptionalField) {
  ExperimentSpec s = testing::ValidSpec();
  s.objective.type = ObjectiveType::kMaximize;
  s.objective.goal = 0.125;
  s.objective.additional_metric_names = {"acc", "f1"};
  s.algorithm.settings = {{"random_state", "3"}, {"eta", "2"}};
  s.parameters[0].feasible_space.step = 0.1;
  s.parameters[0].feasible_space.min = 1e-7;
  s.parameters[0].feasible_space.distribution = Distribution::kLogUniform;
  s.trial_template->trial_parameters[0].description = "the x";
  s.trial_template->working_dir = "/tmp/w";
  s.trial_template->env = {{"A", "1"}, {"B", "${trialParameters.x}"}};
  s.trial_template->resources.gpu = 2;
  s.trial_template->resources.memory = 1 << 30;
  s.trial_template->timeout_seconds = 30;
  s.metrics_collector.kind = "File";
  s.metrics_collector.file_path = "/tmp/m.txt";
  s.metrics_collector.metrics_format = {"(\\w+):(\\S+)"};
  s.metrics_collector.step_key = "epoch";

  json encoded = SpecToJson(s);
  auto d = SpecFromJson(encoded);
  ASSERT_TRUE(d.ok()) << d.status().ToString() << "\n" << encoded.dump(2);
  EXPECT_EQ(d->objective.type, ObjectiveType::kMaximize);
  EXPECT_EQ(d->objective.goal, 0.125);
  EXPECT_EQ(d->objective.additional_metric_names, s.objective.additional_metric_names);
  ASSERT_EQ(d->algorithm.settings.size(), 2u);
  EXPECT_EQ(d->algorithm.settings[1].name, "eta");
  EXPECT_EQ(d->algorithm.settings[1].value, "2");
  EXPECT_EQ(d->parameters[0].feasible_space.step, 0.1);
  EXPECT_EQ(d->parameters[0].feasible_space.min, 1e-7);
  EXPECT_EQ(d->parameters[0].feasible_space.distribution, Distribution::kLogUniform);
  EXPECT_EQ(d->trial_template->trial_parameters[0].description, "the x");
  EXPECT_EQ(d->trial_template->working_dir, "/tmp/w");
  EXPECT_EQ(d->trial_template->env, s.trial_template->env);
  EXPECT_EQ(d->trial_template->resources, s.trial_template->resources);
  EXPECT_EQ(d->trial_template->timeout_seconds, 30);
  EXPECT_EQ(d->metrics_collector.kind, "File");
  EXPECT_EQ(d->metrics_collector.file_path, "/tmp/m.txt");
  EXPECT_EQ(d->metrics_collector.metrics_format, s.metrics_collector.metrics_format);
  EXPECT_EQ(d->metrics_collector.step_key, "epoch");
  EXPECT_EQ(SpecToJson(*d), encoded);
}

TEST(SpecToJson, ClientRunSpecHasNoTrialTemplate) {
  ExperimentSpec s = testing::ValidSpec();
  s.trial_template.reset();
  json encoded = SpecToJson(s);
  EXPECT_FALSE(encoded.contains("trialTemplate"));
  EXPECT_FALSE(encoded["objective"].contains("goal"));
  auto d = SpecFromJson(encoded);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->trial_template.has_value());
}

TEST(FormatDouble, ShortestTextThatReadsBack) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(3.0), "3");
  EXPECT_EQ(FormatDouble(-5.0), "-5");
  EXPECT_EQ(FormatDouble(0.0), "0");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(2.5), "2.5");
  EXPECT_EQ(FormatDouble(123456789.0), "123456789");
  for (double v : {0.1, 1.0 / 3.0, 1e-5, -2.718281828459045, 1e15, 1.5e300,
                   std::numeric_limits<double>::min(), 123456789012345.0,
                   0.30000000000000004}) {
    EXPECT_EQ(std::stod(FormatDouble(v)), v) << FormatDouble(v);
  }
}

}  // namespace
}  // namespace hpt::api
