// BuildLaunch and BaseLaunch (controller/trial_launch.h): a trial's launch
// from its experiment's spec, its assignment and the server's context. Pure
// functions: checked on specs decoded as the server decodes them.

#include "controller/trial_launch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/spec_codec.h"
#include "controller/checkpoints.h"

namespace hpt::controller {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// x in [0, 1]; optimizer sgd|adam; momentum only when optimizer is sgd.
nlohmann::json LaunchJsonSpec() {
  return {
      {"name", "e"},
      {"objective",
       {{"type", "minimize"},
        {"objectiveMetricName", "loss"},
        {"additionalMetricNames", {"accuracy"}}}},
      {"algorithm", {{"algorithmName", "random"}}},
      {"parallelTrialCount", 1},
      {"maxTrialCount", 1},
      {"parameters",
       {{{"name", "x"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}},
        {{"name", "optimizer"},
         {"parameterType", "categorical"},
         {"feasibleSpace", {{"list", {"sgd", "adam"}}}}},
        {{"name", "momentum"},
         {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0.5"}, {"max", "0.99"}}},
         {"parent", {{"name", "optimizer"}, {"values", {"sgd"}}}}}}},
      {"trialTemplate",
       {{"command",
         {"hpt", "--x=${trialParameters.x}", "--momentum=${trialParameters.momentum}",
          "--trial=${trialSpec.Name}"}},
        {"env",
         {{"X", "${trialParameters.x}"},
          {"MOMENTUM", "${trialParameters.momentum}"},
          {"HPT_TOKEN", "from-the-template"}}},
        {"trialParameters",
         {{{"name", "x"}, {"reference", "x"}},
          {{"name", "momentum"}, {"reference", "momentum"}}}},
        {"workingDir", "/work/dir"},
        {"timeoutSeconds", 30}}}};
}

api::ExperimentSpec Decode(const nlohmann::json& json) {
  auto spec = api::SpecFromJson(json);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return spec.ok() ? *spec : api::ExperimentSpec{};
}

api::Trial TrialOf(api::Assignment assignment) {
  api::Trial trial;
  trial.name = "e-7";
  trial.assignment = std::move(assignment);
  return trial;
}

LaunchContext Context() {
  LaunchContext context;
  context.log_path = "/logs/e/e-7.log";
  context.max_log_bytes = 4096;
  context.server_url = "http://127.0.0.1:8080";
  context.hpt_binary = "/usr/local/bin/hpt";
  context.trial_token = "trial-token";
  return context;
}

TEST(TrialLaunchTest, SubstitutesParametersAndAddsTheServersVariables) {
  const api::ExperimentSpec spec = Decode(LaunchJsonSpec());
  auto launch = BuildLaunch(spec, TrialOf({{"x", "0.25"}, {"optimizer", "sgd"}, {"momentum", "0.9"}}),
                            Context());
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  EXPECT_THAT(launch->argv, ElementsAre("/usr/local/bin/hpt", "--x=0.25", "--momentum=0.9",
                                        "--trial=e-7"));
  EXPECT_THAT(launch->env,
              ElementsAre(Pair("HPT_EXPERIMENT", "e"), Pair("HPT_NAMESPACE", "default"),
                          Pair("HPT_TOKEN", "trial-token"),
                          Pair("HPT_TRIAL", "e-7"), Pair("HPT_URL", "http://127.0.0.1:8080"),
                          Pair("MOMENTUM", "0.9"), Pair("X", "0.25")));
  EXPECT_EQ(launch->experiment, "e");
  EXPECT_EQ(launch->trial, "e-7");
  EXPECT_EQ(launch->working_dir, "/work/dir");
  EXPECT_EQ(launch->timeout_seconds, 30);
  EXPECT_EQ(launch->log_path, "/logs/e/e-7.log");
  EXPECT_EQ(launch->max_log_bytes, 4096);
  EXPECT_THAT(launch->metric_names, ElementsAre("loss", "accuracy"));
}

TEST(TrialLaunchTest, InactiveConditionalParametersLeaveNoArgumentOrVariable) {
  const api::ExperimentSpec spec = Decode(LaunchJsonSpec());
  auto launch = BuildLaunch(spec, TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}), Context());
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  EXPECT_THAT(launch->argv, ElementsAre("/usr/local/bin/hpt", "--x=0.5", "--trial=e-7"));
  EXPECT_EQ(launch->env.count("MOMENTUM"), 0u);
  EXPECT_EQ(launch->env.at("X"), "0.5");
}

TEST(TrialLaunchTest, NoTrialTokenStillReplacesTheTemplatesToken) {
  // The admin token (or one the server was started with) never reaches a
  // trial: HPT_TOKEN is always the server's to set, empty when it has none.
  const api::ExperimentSpec spec = Decode(LaunchJsonSpec());
  LaunchContext context = Context();
  context.trial_token.clear();
  auto launch = BuildLaunch(spec, TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}), context);
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  EXPECT_EQ(launch->env.at("HPT_TOKEN"), "");
}

TEST(TrialLaunchTest, OnlyALeadingHptIsReplacedAndOnlyWhenTheBinaryIsKnown) {
  nlohmann::json json = LaunchJsonSpec();
  const api::Trial trial = TrialOf({{"x", "0.5"}, {"optimizer", "adam"}});
  LaunchContext unknown = Context();
  unknown.hpt_binary.clear();
  auto kept = BuildLaunch(Decode(json), trial, unknown);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->argv[0], "hpt");

  json["trialTemplate"]["command"] = {"python", "hpt", "hptx"};
  auto later = BuildLaunch(Decode(json), trial, Context());
  ASSERT_TRUE(later.ok()) << later.status().message();
  EXPECT_THAT(later->argv, ElementsAre("python", "hpt", "hptx"));
}

TEST(TrialLaunchTest, TheCheckpointFolderReplacesTheMountedPath) {
  nlohmann::json json = LaunchJsonSpec();
  json["algorithm"]["algorithmSettings"] = {
      {{"name", "suggestion_trial_dir"}, {"value", "/var/ckpt"}}};
  json["trialTemplate"]["command"] = {"train", "--checkpoint=/var/ckpt/model.pt",
                                      "--data=/var/ckpt2"};
  json["trialTemplate"]["env"] = {{"CKPT", "/var/ckpt"}};
  LaunchContext context = Context();
  context.checkpoint_dir = "/logs/e/checkpoints/e-7";
  auto launch = BuildLaunch(Decode(json), TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}), context);
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  EXPECT_THAT(launch->argv, ElementsAre("train", "--checkpoint=/logs/e/checkpoints/e-7/model.pt",
                                        "--data=/var/ckpt2"));
  EXPECT_EQ(launch->env.at("CKPT"), "/logs/e/checkpoints/e-7");
  EXPECT_EQ(launch->env.at(kCheckpointDirEnv), "/logs/e/checkpoints/e-7");

  // Without a folder nothing is rewritten and no variable is set.
  context.checkpoint_dir.reset();
  auto without = BuildLaunch(Decode(json), TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}), context);
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_EQ(without->argv[1], "--checkpoint=/var/ckpt/model.pt");
  EXPECT_EQ(without->env.count(kCheckpointDirEnv), 0u);
}

// resumePolicy FromVolume: Katib's trial path is the trial's folder, for
// any algorithm; under other policies that path is left as written.
TEST(TrialLaunchTest, FromVolumeRewritesKatibsCheckpointPath) {
  nlohmann::json json = LaunchJsonSpec();
  json["trialTemplate"]["command"] = {"train", "--ckpt=/var/log/katib/checkpoints/m.pt"};
  json["trialTemplate"]["env"] = {{"CKPT", "/var/log/katib/checkpoints/"}};
  LaunchContext context = Context();
  context.checkpoint_dir = "/logs/e/checkpoints/e-7";
  const api::Trial trial = TrialOf({{"x", "0.5"}, {"optimizer", "adam"}});
  auto never = BuildLaunch(Decode(json), trial, context);
  ASSERT_TRUE(never.ok()) << never.status().message();
  EXPECT_EQ(never->argv[1], "--ckpt=/var/log/katib/checkpoints/m.pt");
  EXPECT_EQ(never->env.at(kCheckpointDirEnv), "/logs/e/checkpoints/e-7");

  json["resumePolicy"] = "FromVolume";
  auto from_volume = BuildLaunch(Decode(json), trial, context);
  ASSERT_TRUE(from_volume.ok()) << from_volume.status().message();
  EXPECT_THAT(from_volume->argv, ElementsAre("train", "--ckpt=/logs/e/checkpoints/e-7/m.pt"));
  EXPECT_EQ(from_volume->env.at("CKPT"), "/logs/e/checkpoints/e-7/");
  EXPECT_EQ(from_volume->env.at(kCheckpointDirEnv), "/logs/e/checkpoints/e-7");
}

TEST(TrialLaunchTest, AnUndefinedPlaceholderIsAnErrorNamingIt) {
  nlohmann::json json = LaunchJsonSpec();
  json["trialTemplate"]["command"] = {"train", "--y=${trialParameters.y}"};
  auto launch = BuildLaunch(Decode(json), TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}),
                            Context());
  ASSERT_FALSE(launch.ok());
  EXPECT_EQ(launch.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(launch.status().message(), HasSubstr("trialParameters.y"));
}

TEST(TrialLaunchTest, TheBaseLaunchHasNoCommandOrEnvironment) {
  // What Recover() hands the executor: enough to find and watch the job.
  const api::ExperimentSpec spec = Decode(LaunchJsonSpec());
  runner::LaunchSpec base =
      BaseLaunch(spec, TrialOf({{"x", "0.5"}, {"optimizer", "adam"}}), Context());
  EXPECT_TRUE(base.argv.empty());
  EXPECT_TRUE(base.env.empty());
  EXPECT_EQ(base.trial, "e-7");
  EXPECT_EQ(base.log_path, "/logs/e/e-7.log");
  EXPECT_THAT(base.metric_names, ElementsAre("loss", "accuracy"));
  EXPECT_EQ(base.run_as_user, "");
}

TEST(TrialLaunchTest, TheNamespacesUserGoesWithTheLaunchAndItsRecovery) {
  const api::ExperimentSpec spec = Decode(LaunchJsonSpec());
  LaunchContext context = Context();
  context.run_as_user = "ana";
  const api::Trial trial = TrialOf({{"x", "0.5"}, {"optimizer", "adam"}});
  EXPECT_EQ(BaseLaunch(spec, trial, context).run_as_user, "ana");
  auto launch = BuildLaunch(spec, trial, context);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->run_as_user, "ana");
}

// #35: a container's args are substituted too; in its image they stay
// apart from the command (the image's ENTRYPOINT takes them when there is
// none), on the host they follow it.
TEST(TrialLaunchTest, ContainerArgsAreSubstitutedAndStayApartInTheImage) {
  nlohmann::json j = LaunchJsonSpec();
  j["trialTemplate"]["command"] = {"hpt", "train"};
  j["trialTemplate"]["container"] = {{"image", "localhost/trainer:1"},
                                     {"args", {"--x=${trialParameters.x}",
                                               "--momentum=${trialParameters.momentum}"}}};
  const api::ExperimentSpec spec = Decode(j);
  LaunchContext in_image = Context();
  in_image.in_container = true;
  auto launch = BuildLaunch(spec, TrialOf({{"x", "0.25"}, {"optimizer", "adam"}}), in_image);
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  EXPECT_THAT(launch->argv, ElementsAre("hpt", "train"));  // the image's hpt, not ours
  EXPECT_THAT(launch->container.args, ElementsAre("--x=0.25"));
  EXPECT_EQ(launch->container.image, "localhost/trainer:1");
  // Recovery names the same container: BaseLaunch carries the image.
  EXPECT_EQ(BaseLaunch(spec, TrialOf({}), in_image).container.image, "localhost/trainer:1");

  auto on_host = BuildLaunch(spec, TrialOf({{"x", "0.25"}, {"optimizer", "adam"}}), Context());
  ASSERT_TRUE(on_host.ok()) << on_host.status().message();
  EXPECT_THAT(on_host->argv, ElementsAre("/usr/local/bin/hpt", "train", "--x=0.25"));
  EXPECT_TRUE(on_host->container.image.empty());
}

}  // namespace
}  // namespace hpt::controller
