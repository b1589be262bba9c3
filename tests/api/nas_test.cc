// nasConfig and the darts settings: decoding, the spec's completion,
// validation messages and Katib's Python literals.
#include "api/nas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/spec_codec.h"
#include "api/validation.h"

namespace hpt::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kDartsYaml = R"(
name: darts-small
objective: {type: maximize, objectiveMetricName: Best-Genotype}
algorithm:
  algorithmName: darts
  algorithmSettings:
    - {name: num_epochs, value: "2"}
    - {name: init_channels, value: "4"}
maxTrialCount: 1
parallelTrialCount: 1
nasConfig:
  graphConfig: {numLayers: 3}
  operations:
    - operationType: separable_convolution
      parameters:
        - {name: filter_size, parameterType: categorical, feasibleSpace: {list: ["3", "5"]}}
    - operationType: max_pooling
      parameters:
        - {name: filter_size, parameterType: categorical, feasibleSpace: {list: ["3"]}}
    - operationType: skip_connection
)";

TEST(NasSpecTest, DecodesNasConfigAndCompletesTheSpec) {
  auto spec = SpecFromYaml(kDartsYaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->nas_config.has_value());
  EXPECT_EQ(spec->nas_config->num_layers, 3);
  auto primitives = DartsPrimitives(*spec->nas_config);
  ASSERT_TRUE(primitives.ok());
  EXPECT_THAT(*primitives, ElementsAre("separable_convolution_3x3", "separable_convolution_5x5",
                                       "max_pooling_3x3", "skip_connection"));
  // Katib's Best-Genotype objective: ranked by validation accuracy, the
  // genotype collected as text.
  EXPECT_EQ(spec->objective.metric_name, kNasObjectiveMetric);
  EXPECT_EQ(spec->objective.type, ObjectiveType::kMaximize);
  EXPECT_THAT(spec->objective.additional_metric_names,
              ElementsAre("Train-Loss", "Train-Accuracy", "Validation-Loss", "Test-Accuracy",
                          kGenotypeMetric));
  // No trialTemplate: the native search with Katib's three parameters.
  ASSERT_TRUE(spec->trial_template.has_value());
  EXPECT_THAT(spec->trial_template->command, ElementsAre("hpt", "nas", "darts", ::testing::_,
                                                         ::testing::_, ::testing::_));
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  // The canonical JSON reads back to the same spec.
  auto again = SpecFromJson(SpecToJson(*spec));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(SpecToJson(*again), SpecToJson(*spec));
}

TEST(NasSpecTest, BadOperationsAreNamedByTheirPath) {
  std::string yaml = kDartsYaml;
  yaml.replace(yaml.find("max_pooling"), 11, "mean_pooling");
  yaml.replace(yaml.find("\"5\""), 3, "\"4\"");
  auto spec = SpecFromYaml(yaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  Status s = ValidateSpec(*spec);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("nasConfig.operations[1].operationType: unknown "
                                     "operation 'mean_pooling'"));
  EXPECT_THAT(s.message(), HasSubstr("nasConfig.operations[0].parameters.filter_size.list[1]: "
                                     "filter_size must be an odd number"));
}

TEST(NasSpecTest, NasExperimentsTakeNoParametersAndNeedDarts) {
  std::string yaml = std::string(kDartsYaml) +
                     "parameters: [{name: lr, parameterType: double, feasibleSpace: "
                     "{min: \"0.1\", max: \"1\"}}]\n";
  yaml.replace(yaml.find("algorithmName: darts"), 20, "algorithmName: enas");
  auto spec = SpecFromYaml(yaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  Status s = ValidateSpec(*spec);
  EXPECT_THAT(s.message(), HasSubstr("parameters: a neural architecture search"));
  EXPECT_THAT(s.message(), HasSubstr("algorithm.algorithmName: nasConfig is searched by darts"));
}

TEST(NasSpecTest, MissingGraphConfigIsNamed) {
  auto spec = SpecFromYaml(
      "name: x\nobjective: {type: maximize, objectiveMetricName: a}\n"
      "algorithm: {algorithmName: darts}\nmaxTrialCount: 1\nnasConfig: {operations: []}\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("nasConfig.graphConfig"));
}

TEST(NasSpecTest, DartsWithoutNasConfigIsNotAskedForParameters) {
  auto spec = SpecFromYaml(
      "name: x\nobjective: {type: maximize, objectiveMetricName: a}\n"
      "algorithm: {algorithmName: darts}\nmaxTrialCount: 1\n");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  Status s = ValidateSpec(*spec);
  EXPECT_EQ(s.message().find("parameters"), std::string::npos) << s.message();
}

TEST(DartsSettingsTest, KatibDefaults) {
  auto s = ReadDartsSettings({});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->num_epochs, 50);
  EXPECT_DOUBLE_EQ(s->w_lr, 0.025);
  EXPECT_DOUBLE_EQ(s->w_lr_min, 0.001);
  EXPECT_DOUBLE_EQ(s->w_momentum, 0.9);
  EXPECT_DOUBLE_EQ(s->w_weight_decay, 3e-4);
  EXPECT_DOUBLE_EQ(s->w_grad_clip, 5);
  EXPECT_DOUBLE_EQ(s->alpha_lr, 3e-4);
  EXPECT_DOUBLE_EQ(s->alpha_weight_decay, 1e-3);
  EXPECT_EQ(s->batch_size, 128);
  EXPECT_EQ(s->init_channels, 16);
  EXPECT_EQ(s->print_step, 50);
  EXPECT_EQ(s->num_nodes, 4);
  EXPECT_EQ(s->stem_multiplier, 3);
  EXPECT_FALSE(s->unrolled);
  EXPECT_EQ(s->dataset, "fashion-mnist");
}

TEST(DartsSettingsTest, EveryBadSettingIsNamed) {
  auto s = ReadDartsSettings({{"num_epochs", "0"},
                              {"w_lr", "fast"},
                              {"unrolled", "maybe"},
                              {"num_layer", "3"},
                              {"device", "tpu"}});
  ASSERT_FALSE(s.ok());
  const std::string m = s.status().message();
  EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[0].value: num_epochs must be at least 1"));
  EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[1].value: w_lr must be a number"));
  EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[2].value"));
  EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[3].name: unknown setting 'num_layer'"));
  EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[4].value"));
}

TEST(NasSpecTest, LayersAboveTheLimitAndATwiceGivenFilterSizeAreNamed) {
  std::string yaml = kDartsYaml;
  yaml.replace(yaml.find("numLayers: 3"), 12, "numLayers: 65");
  const std::string pooling_size = "{list: [\"3\"]}}";  // max_pooling's, the last
  yaml.replace(yaml.rfind(pooling_size), pooling_size.size(),
               pooling_size + "\n        - {name: filter_size, parameterType: categorical, "
                              "feasibleSpace: {list: [\"5\"]}}");
  auto spec = SpecFromYaml(yaml);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  Status s = ValidateSpec(*spec);
  EXPECT_THAT(s.message(), HasSubstr("nasConfig.graphConfig.numLayers: must be from 1 to 64, "
                                     "got 65"));
  EXPECT_THAT(s.message(), HasSubstr("nasConfig.operations[1].parameters[1].name: filter_size "
                                     "is given twice"));
}

TEST(DartsSettingsTest, SizesAndRatesHaveUpperBounds) {
  auto s = ReadDartsSettings({{"w_lr", "1e39"},
                              {"alpha_weight_decay", "1e308"},
                              {"init_channels", "100000"},
                              {"stem_multiplier", "1048576"},
                              {"eval_num_layers", "65"},
                              {"eval_init_channels", "2048"}});
  ASSERT_FALSE(s.ok());
  const std::string m = s.status().message();
  for (int i = 0; i < 6; ++i) {
    EXPECT_THAT(m, HasSubstr("algorithm.algorithmSettings[" + std::to_string(i) +
                             "].value"));
  }
  EXPECT_THAT(m, HasSubstr("w_lr must be at most 1000"));
  EXPECT_THAT(m, HasSubstr("eval_num_layers must be at most 64"));
  EXPECT_TRUE(ReadDartsSettings({{"w_lr", "1000"}, {"init_channels", "1024"}}).ok());
}

TEST(DartsSettingsTest, AnEvaluationOfSeveralCellsNeedsASearchedReduceCell) {
  auto s = ReadDartsSettings({{"eval_num_layers", "3"}});
  ASSERT_TRUE(s.ok());
  Status one = CheckDartsLayers(*s, 1);
  EXPECT_EQ(one.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(one.message(), HasSubstr("eval_num_layers 3 needs a reduce cell"));
  EXPECT_TRUE(CheckDartsLayers(*s, 2).ok());
  EXPECT_TRUE(CheckDartsLayers(*ReadDartsSettings({}), 1).ok());
}

TEST(DartsSettingsTest, EvalAugmentIsABooleanOffByDefault) {
  auto off = ReadDartsSettings({});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->eval_augment);
  auto on = ReadDartsSettings({{"eval_augment", "true"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->eval_augment);
  auto bad = ReadDartsSettings({{"eval_augment", "sometimes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("algorithm.algorithmSettings[0].value"));
}

TEST(DartsSettingsTest, DataParallelIsABooleanOnByDefault) {
  auto on = ReadDartsSettings({});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->data_parallel);
  auto off = ReadDartsSettings({{"data_parallel", "false"}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->data_parallel);
  auto bad = ReadDartsSettings({{"data_parallel", "2"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("algorithm.algorithmSettings[0].value"));
}

TEST(NasLiteralTest, KatibPythonLiteralsRoundTrip) {
  std::vector<AlgorithmSetting> settings = {{"num_epochs", "3"}, {"dataset", "/data/it's"}};
  auto back = ParseSettingsLiteral(SettingsLiteral(settings), "--algorithm-settings");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].value, "/data/it's");
  auto ops = ParsePrimitivesLiteral("\"['max_pooling_3x3', 'skip_connection']\"", "--search-space");
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  EXPECT_THAT(*ops, ElementsAre("max_pooling_3x3", "skip_connection"));
  // Katib's own form: numbers, None and booleans.
  auto katib = ParseSettingsLiteral("{'num_epochs': 3, 'w_lr': 2.5e-2, 'batch_size': None, "
                                    "'unrolled': True}", "x");
  ASSERT_TRUE(katib.ok()) << katib.status().ToString();
  EXPECT_EQ(katib->size(), 3u);
  EXPECT_EQ((*katib)[1].value, "0.025");
  EXPECT_EQ((*katib)[2].value, "true");
}

TEST(NasLiteralTest, GarbageIsAnErrorNamingTheFlag) {
  auto bad = ParsePrimitivesLiteral("['conv_3x3']", "--search-space");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown operation 'conv_3x3'"));
  auto junk = ParseSettingsLiteral("{'a': os.system('x')}", "--algorithm-settings");
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.status().message(), HasSubstr("--algorithm-settings"));
}

TEST(NasLiteralTest, PrimitivesParse) {
  auto p = ParsePrimitive("dilated_convolution_5x5");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kind, "dilated_convolution");
  EXPECT_EQ(p->size, 5);
  EXPECT_FALSE(ParsePrimitive("dilated_convolution_5x3").ok());
  EXPECT_FALSE(ParsePrimitive("skip_connection_3x3").ok());
}

TEST(NasLiteralTest, ASearchSpaceHasOneSpellingPerOperation) {
  auto p = ParsePrimitivesLiteral("['max_pooling_03x03', 'skip_connection']", "--search-space");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_THAT(*p, ElementsAre("max_pooling_3x3", "skip_connection"));
  auto twice = ParsePrimitivesLiteral("['max_pooling_3x3', 'max_pooling_03x03']", "--search-space");
  EXPECT_EQ(twice.status().message(), "--search-space: 'max_pooling_3x3' is listed twice");
  auto none = ParsePrimitivesLiteral("['none']", "--search-space");
  EXPECT_THAT(none.status().message(), HasSubstr("--search-space: unknown operation 'none'"));
}

}  // namespace
}  // namespace hpt::api
