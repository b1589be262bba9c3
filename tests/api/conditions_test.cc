#include "api/conditions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/spec_codec.h"
#include "api/trial_template.h"
#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// optimizer {sgd, adam}; momentum (sgd only); beta1 (adam only); nesterov
// {yes, no} (sgd only); dampening (nesterov = no: a grandchild).
constexpr const char* kConditionalYaml = R"(
name: conditional
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 10
parallelTrialCount: 2
parameters:
  - {name: optimizer, parameterType: categorical, feasibleSpace: {list: [sgd, adam]}}
  - name: momentum
    parameterType: double
    feasibleSpace: {min: "0.5", max: "0.99"}
    parent: {name: optimizer, values: [sgd]}
  - name: beta1
    parameterType: double
    feasibleSpace: {min: "0.8", max: "0.999"}
    parent: {name: optimizer, values: [adam]}
  - {name: nesterov, parameterType: categorical, feasibleSpace: {list: ["yes", "no"]},
     parent: {name: optimizer, values: [sgd]}}
  - {name: dampening, parameterType: double, feasibleSpace: {min: 0, max: 1},
     parent: {name: nesterov, values: ["no"]}}
trialTemplate:
  command: [python3, train.py, "--optimizer=${trialParameters.optimizer}",
            "--momentum=${trialParameters.momentum}", "--beta1=${trialParameters.beta1}"]
  trialParameters:
    - {name: optimizer, reference: optimizer}
    - {name: momentum, reference: momentum}
    - {name: beta1, reference: beta1}
  env: {NESTEROV: "${trialParameters.nesterov}"}
)";

ExperimentSpec Conditional() {
  auto spec = SpecFromYaml(kConditionalYaml);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  spec->trial_template->trial_parameters.push_back({"nesterov", "nesterov", ""});
  return *spec;
}

std::string ConditionProblems(const ExperimentSpec& spec) {
  Status s = ValidateSpec(spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  return s.message();
}

ParameterSpec Param(std::string name, ParameterType type) {
  ParameterSpec p;
  p.name = std::move(name);
  p.type = type;
  return p;
}

TEST(DefinedByRun, ActiveExactlyWhereTheAssignmentHoldsIt) {
  // A trial of a dynamic network asks for units_1 only with two layers:
  // elsewhere the parameter is inactive, as a conditional one is, so the
  // algorithms model it on the trials that have it.
  std::vector<ParameterSpec> params = {Param("layers", ParameterType::kInt),
                                       Param("units_1", ParameterType::kInt)};
  EXPECT_FALSE(HasConditions(params));
  params[1].defined_by_run = true;
  EXPECT_TRUE(HasConditions(params));
  const Assignment one = {{"layers", "1"}};
  const Assignment two = {{"layers", "2"}, {"units_1", "16"}};
  EXPECT_FALSE(IsActive(params, one, "units_1"));
  EXPECT_TRUE(IsActive(params, two, "units_1"));
  EXPECT_THAT(ActiveParameters(params, one), ElementsAre(true, false));
  EXPECT_THAT(ActiveParameters(params, two), ElementsAre(true, true));
  EXPECT_EQ(PruneInactive(params, two).size(), 2u);
}

TEST(DefinedByRun, TheFlagRoundTripsThroughTheSpec) {
  auto spec = SpecFromJson(nlohmann::json::parse(R"({
    "name": "dbr", "objective": {"type": "minimize", "objectiveMetricName": "loss"},
    "algorithm": {"algorithmName": "tpe"}, "maxTrialCount": 5,
    "parameters": [{"name": "x", "parameterType": "double", "definedByRun": true,
                    "feasibleSpace": {"min": "0", "max": "1"}}]})"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->parameters[0].defined_by_run);
  EXPECT_EQ(SpecToJson(*spec)["parameters"][0]["definedByRun"], true);
}

TEST(DefinedByRun, AClientRunExperimentMayStartWithNoParameters) {
  // Its trials define them (trial.suggest_*); one the server runs may not.
  auto spec = SpecFromJson(nlohmann::json::parse(R"({
    "name": "empty", "objective": {"type": "minimize", "objectiveMetricName": "loss"},
    "algorithm": {"algorithmName": "tpe"}, "maxTrialCount": 5, "parameters": []})"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  spec->trial_template.emplace();
  spec->trial_template->command = {"true"};
  EXPECT_THAT(ValidateSpec(*spec).message(), HasSubstr("parameters: must not be empty"));
}

TEST(ConditionalSpec, DecodesParentAndRoundTrips) {
  ExperimentSpec spec = Conditional();
  EXPECT_TRUE(ValidateSpec(spec).ok()) << ValidateSpec(spec).ToString();
  EXPECT_FALSE(spec.parameters[0].parent.has_value());
  ASSERT_TRUE(spec.parameters[1].parent.has_value());
  EXPECT_EQ(spec.parameters[1].parent->name, "optimizer");
  EXPECT_THAT(spec.parameters[1].parent->values, ElementsAre("sgd"));
  EXPECT_THAT(spec.parameters[4].parent->values, ElementsAre("no"));

  nlohmann::json encoded = SpecToJson(spec);
  EXPECT_EQ(encoded["parameters"][1]["parent"],
            nlohmann::json({{"name", "optimizer"}, {"values", {"sgd"}}}));
  EXPECT_FALSE(encoded["parameters"][0].contains("parent"));
  auto decoded = SpecFromJson(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(SpecToJson(*decoded), encoded);
}

TEST(ConditionalSpec, NumericParentValuesAreText) {
  auto spec = SpecFromYaml(R"(
name: c
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 4
parameters:
  - {name: layers, parameterType: int, feasibleSpace: {min: 1, max: 3}}
  - {name: width, parameterType: int, feasibleSpace: {min: 8, max: 64},
     parent: {name: layers, values: [2, 3]}}
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_THAT(spec->parameters[1].parent->values, ElementsAre("2", "3"));
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
}

TEST(ConditionalSpec, DecodingNamesBadParentFields) {
  auto spec = SpecFromJson(nlohmann::json::parse(R"({
    "name": "c", "objective": {"type": "minimize", "objectiveMetricName": "loss"},
    "algorithm": {"algorithmName": "random"}, "maxTrialCount": 4,
    "parameters": [
      {"name": "a", "parameterType": "categorical", "feasibleSpace": {"list": ["x"]}},
      {"name": "b", "parameterType": "double", "feasibleSpace": {"min": 0, "max": 1},
       "parent": {"name": "a", "value": ["x"]}},
      {"name": "c", "parameterType": "double", "feasibleSpace": {"min": 0, "max": 1},
       "parent": "a"}
    ]})"));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("parameters[1].parent.value"));
  EXPECT_THAT(spec.status().message(), HasSubstr("parameters[1].parent.values"));
  EXPECT_THAT(spec.status().message(), HasSubstr("parameters[2].parent"));
}

TEST(ConditionalSpec, ValidationNamesEveryProblemWithItsPath) {
  ExperimentSpec spec = Conditional();
  spec.parameters[1].parent->name = "optimzer";
  EXPECT_THAT(
      ConditionProblems(spec),
      HasSubstr("parameters[1].parent.name: unknown parameter 'optimzer'"));

  spec = Conditional();
  spec.parameters[2].parent->name = "beta1";
  EXPECT_THAT(
      ConditionProblems(spec),
      HasSubstr("parameters[2].parent.name: 'beta1' cannot be its own parent"));

  spec = Conditional();
  spec.parameters[2].parent->values.clear();
  EXPECT_THAT(
      ConditionProblems(spec),
      HasSubstr("parameters[2].parent.values: must list at least one value"));

  spec = Conditional();
  spec.parameters[1].parent->values = {"sgd", "rmsprop"};
  EXPECT_THAT(ConditionProblems(spec),
              HasSubstr("parameters[1].parent.values[1]: 'rmsprop' is not a "
                        "value of 'optimizer' "
                        "(sgd, adam)"));

  spec = Conditional();
  spec.parameters[1].parent->values = {"sgd", "sgd"};
  EXPECT_THAT(
      ConditionProblems(spec),
      HasSubstr("parameters[1].parent.values[1]: 'sgd' is listed twice"));

  spec = Conditional();
  spec.parameters[2].parent = ParentCondition{"momentum", {"0.5"}};
  EXPECT_THAT(
      ConditionProblems(spec),
      HasSubstr("parameters[2].parent.name: 'momentum' is a double "
                "parameter; a parent must be int, discrete or categorical"));

  spec = Conditional();
  spec.parameters[2].parent = ParentCondition{"", {"x"}};
  EXPECT_THAT(ConditionProblems(spec),
              HasSubstr("parameters[2].parent.name: is required"));
}

TEST(ConditionalSpec, CyclesAreReportedOnceAtTheirFirstParameter) {
  ExperimentSpec spec = testing::ValidSpec();
  ParameterSpec a = Param("a", ParameterType::kCategorical);
  a.feasible_space.list = {"p", "q"};
  a.parent = ParentCondition{"b", {"p"}};
  ParameterSpec b = a;
  b.name = "b";
  b.parent = ParentCondition{"a", {"q"}};
  ParameterSpec c = a;  // below the cycle: no problem of its own
  c.name = "c";
  c.parent = ParentCondition{"b", {"q"}};
  spec.parameters = {spec.parameters[0], a, b, c};
  const std::string problems = ConditionProblems(spec);
  EXPECT_THAT(problems, HasSubstr("parameters[1].parent.name: a -> b -> a is a cycle"));
  EXPECT_THAT(problems, Not(HasSubstr("parameters[2].parent.name")));
  EXPECT_THAT(problems, Not(HasSubstr("parameters[3].parent.name")));
}

TEST(ConditionalSpec, IntAndDiscreteParentValuesMustBeReachable) {
  ExperimentSpec spec = testing::ValidSpec();
  ParameterSpec layers = Param("layers", ParameterType::kInt);
  layers.feasible_space.min = 1;
  layers.feasible_space.max = 7;
  layers.feasible_space.step = 2;
  ParameterSpec batch = Param("batch", ParameterType::kDiscrete);
  batch.feasible_space.list = {"16", "32"};
  ParameterSpec w = Param("w", ParameterType::kDouble);
  w.feasible_space.min = 0;
  w.feasible_space.max = 1;
  w.parent = ParentCondition{"layers", {"3", "7.0", "4", "9", "2.5", "x"}};
  ParameterSpec v = w;
  v.name = "v";
  v.parent = ParentCondition{"batch", {"32.0", "48", "32"}};
  spec.parameters = {spec.parameters[0], layers, batch, w, v};
  const std::string problems = ConditionProblems(spec);
  EXPECT_THAT(problems, Not(HasSubstr("values[0]")));
  EXPECT_THAT(problems, Not(HasSubstr("values[1]: '7.0'")));
  for (const char* bad : {"values[2]: '4'", "values[3]: '9'", "values[4]: '2.5'", "values[5]: 'x'"}) {
    EXPECT_THAT(problems, HasSubstr(std::string("parameters[3].parent.") + bad +
                                    " is not a value of 'layers' (whole numbers from 1 to 7, "
                                    "step 2)"));
  }
  EXPECT_THAT(problems, HasSubstr("parameters[4].parent.values[1]: '48' is not a value of 'batch'"));
  EXPECT_THAT(problems, HasSubstr("parameters[4].parent.values[2]: '32' is listed twice"));
}

TEST(ConditionalSpec, NasOperationsTakeNoParent) {
  auto spec = SpecFromYaml(R"(
name: n
objective: {type: maximize, objectiveMetricName: acc}
algorithm: {algorithmName: darts}
maxTrialCount: 1
nasConfig:
  graphConfig: {numLayers: 2}
  operations:
    - operationType: separable_convolution
      parameters:
        - {name: filter_size, parameterType: categorical, feasibleSpace: {list: ["3"]},
           parent: {name: x, values: ["1"]}}
)");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(),
              HasSubstr("nasConfig.operations[0].parameters[0].parent: is for the experiment's "
                        "parameters only"));
}

TEST(Conditions, IsActiveFollowsTheChain) {
  const ExperimentSpec spec = Conditional();
  const auto& p = spec.parameters;
  const Assignment sgd = {{"optimizer", "sgd"}, {"momentum", "0.9"}, {"nesterov", "no"},
                          {"dampening", "0.1"}};
  EXPECT_TRUE(IsActive(p, sgd, "optimizer"));
  EXPECT_TRUE(IsActive(p, sgd, "momentum"));
  EXPECT_FALSE(IsActive(p, sgd, "beta1"));
  EXPECT_TRUE(IsActive(p, sgd, "dampening"));
  EXPECT_FALSE(IsActive(p, sgd, "unknown"));
  // A grandchild is inactive with its parent, whatever that parent's value.
  const Assignment adam = {{"optimizer", "adam"}, {"nesterov", "no"}, {"dampening", "0.1"}};
  EXPECT_FALSE(IsActive(p, adam, "nesterov"));
  EXPECT_FALSE(IsActive(p, adam, "dampening"));
  EXPECT_THAT(ActiveParameters(p, adam), ElementsAre(true, false, true, false, false));
  EXPECT_THAT(ActiveParameters(p, sgd), ElementsAre(true, true, false, true, true));
}

TEST(Conditions, PruneInactiveKeepsOrderAndUnknownNames) {
  const ExperimentSpec spec = Conditional();
  const Assignment full = {{"optimizer", "adam"}, {"momentum", "0.9"}, {"beta1", "0.9"},
                           {"nesterov", "yes"},   {"dampening", "0.5"}, {"extra", "1"}};
  const Assignment pruned = PruneInactive(spec.parameters, full);
  ASSERT_EQ(pruned.size(), 3u);
  EXPECT_EQ(pruned[0].name, "optimizer");
  EXPECT_EQ(pruned[1].name, "beta1");
  EXPECT_EQ(pruned[2].name, "extra");
  EXPECT_EQ(PruneInactive(testing::ValidSpec().parameters, full).size(), full.size());
}

TEST(Conditions, NumericParentsMatchByValue) {
  ParameterSpec layers = Param("layers", ParameterType::kInt);
  EXPECT_TRUE(ConditionValueMatches(layers, "3", "3.0"));
  EXPECT_FALSE(ConditionValueMatches(layers, "3", "4"));
  ParameterSpec opt = Param("opt", ParameterType::kCategorical);
  EXPECT_FALSE(ConditionValueMatches(opt, "1", "1.0"));
}

TEST(Conditions, TopologicalOrderPutsParentsFirst) {
  std::vector<ParameterSpec> p = {Param("c", ParameterType::kDouble),
                                  Param("b", ParameterType::kCategorical),
                                  Param("a", ParameterType::kCategorical),
                                  Param("d", ParameterType::kDouble)};
  p[0].parent = ParentCondition{"b", {"x"}};
  p[1].parent = ParentCondition{"a", {"x"}};
  EXPECT_THAT(TopologicalOrder(p), ElementsAre(2, 1, 0, 3));
  // A cycle goes last, and nothing walks it forever.
  p[2].parent = ParentCondition{"c", {"x"}};
  EXPECT_THAT(TopologicalOrder(p), ElementsAre(3, 0, 1, 2));
  EXPECT_FALSE(IsActive(p, {{"a", "x"}, {"b", "x"}, {"c", "x"}}, "c"));
  EXPECT_THAT(ActiveParameters(p, {}), ElementsAre(false, false, false, true));
}

TEST(SubstituteActive, DropsArgumentsAndVariablesOfInactiveParameters) {
  const ExperimentSpec spec = Conditional();
  const TrialTemplate& t = *spec.trial_template;
  const Assignment adam = {{"optimizer", "adam"}, {"beta1", "0.9"}};
  std::vector<std::string> argv;
  for (const std::string& arg : t.command) {
    auto s = SubstituteActive(arg, spec.parameters, t, adam, "c-1");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    if (*s) argv.push_back(**s);
  }
  EXPECT_THAT(argv, ElementsAre("python3", "train.py", "--optimizer=adam", "--beta1=0.9"));
  auto env = SubstituteActive(t.env.at("NESTEROV"), spec.parameters, t, adam, "c-1");
  ASSERT_TRUE(env.ok());
  EXPECT_FALSE(env->has_value());

  const Assignment sgd = {{"optimizer", "sgd"}, {"momentum", "0.9"}, {"nesterov", "yes"}};
  auto momentum = SubstituteActive(t.command[3], spec.parameters, t, sgd, "c-2");
  ASSERT_TRUE(momentum.ok());
  EXPECT_EQ(momentum->value_or(""), "--momentum=0.9");
  env = SubstituteActive(t.env.at("NESTEROV"), spec.parameters, t, sgd, "c-2");
  EXPECT_EQ(env->value_or(""), "yes");
  // An active parameter without a value is still an error.
  auto missing = SubstituteActive(t.command[3], spec.parameters, t, {{"optimizer", "sgd"}}, "c");
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace hpt::api
