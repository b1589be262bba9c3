// The darts suggestion: each trial is a whole search, handed Katib's three
// assignments; it validates nasConfig and says when it cannot run.
#include "suggestion/darts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/nas.h"
#include "api/spec_codec.h"

namespace hpt::suggestion {
namespace {

using ::testing::HasSubstr;

api::ExperimentSpec DartsSpec(const std::string& settings) {
  auto spec = api::SpecFromYaml(
      "name: d\nobjective: {type: maximize, objectiveMetricName: Best-Genotype}\n"
      "algorithm: {algorithmName: darts, algorithmSettings: [" + settings + "]}\n"
      "maxTrialCount: 4\nparallelTrialCount: 2\n"
      "nasConfig:\n  graphConfig: {numLayers: 5}\n  operations:\n"
      "    - {operationType: max_pooling, parameters: [{name: filter_size, "
      "parameterType: categorical, feasibleSpace: {list: ['3']}}]}\n"
      "    - {operationType: skip_connection}\n");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return *spec;
}

TEST(DartsTest, EachTrialGetsKatibsThreeAssignmentsAndItsOwnSeed) {
  Darts darts{Status::Ok()};
  api::ExperimentSpec spec =
      DartsSpec("{name: num_epochs, value: '2'}, {name: random_state, value: '10'}");
  ASSERT_TRUE(darts.Validate(spec).ok()) << darts.Validate(spec).ToString();
  std::vector<api::Trial> history(1);  // one trial made before
  auto s = darts.Suggest(spec, history, "", 2);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->assignments.size(), 2u);
  const api::Assignment& a = s->assignments[1];
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].name, api::kNasSettingsReference);
  EXPECT_EQ(a[0].value, "{'num_epochs': '2', 'random_state': '12'}");
  EXPECT_EQ(a[1].name, api::kNasSearchSpaceReference);
  EXPECT_EQ(a[1].value, "['max_pooling_3x3', 'skip_connection']");
  EXPECT_EQ(a[2].name, api::kNasLayersReference);
  EXPECT_EQ(a[2].value, "5");
  EXPECT_EQ(s->assignments[0][0].value, "{'num_epochs': '2', 'random_state': '11'}");
  // What the trial reads back is what the experiment said.
  auto settings = api::ParseSettingsLiteral(a[0].value, "--algorithm-settings");
  ASSERT_TRUE(settings.ok());
  auto read = api::ReadDartsSettings(*settings);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->num_epochs, 2);
  EXPECT_EQ(*read->random_state, 12);
}

TEST(DartsTest, SeedsWrapBelowTheTopOfTheRange) {
  Darts darts{Status::Ok()};
  api::ExperimentSpec spec =
      DartsSpec("{name: random_state, value: '9223372036854775807'}");
  auto s = darts.Suggest(spec, {}, "", 2);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->assignments[0][0].value, "{'random_state': '9223372036854775807'}");
  EXPECT_EQ(s->assignments[1][0].value, "{'random_state': '0'}");
}

TEST(DartsTest, AOneCellSearchCannotFeedALargerEvaluation) {
  Darts darts{Status::Ok()};
  api::ExperimentSpec spec = DartsSpec("{name: eval_num_layers, value: '3'}");
  spec.nas_config->num_layers = 1;
  EXPECT_THAT(darts.Validate(spec).message(),
              HasSubstr("eval_num_layers 3 needs a reduce cell"));
  spec.nas_config->num_layers = 2;
  EXPECT_TRUE(darts.Validate(spec).ok());
}

TEST(DartsTest, BadSettingsAndAMissingNasConfigAreNamed) {
  Darts darts{Status::Ok()};
  api::ExperimentSpec spec = DartsSpec("{name: w_lr, value: '-1'}");
  EXPECT_THAT(darts.Validate(spec).message(),
              HasSubstr("algorithm.algorithmSettings[0].value: w_lr must be greater than 0"));
  spec.nas_config.reset();
  EXPECT_THAT(darts.Validate(spec).message(), HasSubstr("nasConfig: required by darts"));
}

TEST(DartsTest, WithoutLibtorchItSaysWhy) {
  Darts darts{Unavailable("built without libtorch")};
  Status s = darts.Validate(DartsSpec(""));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("algorithm.algorithmName: darts is unavailable: built "
                                     "without libtorch"));
}

}  // namespace
}  // namespace hpt::suggestion
