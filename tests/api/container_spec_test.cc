// trialTemplate.container (#35): its wire form, its validation naming the
// field, Katib's container semantics in the converter, and which servers
// can run a template (api/container.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/container.h"
#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

json WithContainer(json container, bool command = true) {
  json j = json::parse(testing::kFullJson);
  j["trialTemplate"]["container"] = std::move(container);
  if (!command) j["trialTemplate"].erase("command");
  return j;
}

// What decoding and then validating `j` says ("" : nothing).
std::string DecodeOrValidateError(const json& j) {
  auto spec = SpecFromJson(j);
  if (!spec.ok()) return spec.status().message();
  Status valid = ValidateSpec(*spec);
  return valid.ok() ? "" : valid.message();
}

TEST(ContainerSpecTest, RoundTripsAndMayLeaveOutTheCommand) {
  json j = WithContainer({{"image", "localhost/trainer:1"},
                          {"args", {"--x=${trialParameters.x}"}},
                          {"workingDir", "/opt/app"},
                          {"imagePullPolicy", "Never"}},
                         false);
  auto spec = SpecFromJson(j);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const ContainerSpec& c = spec->trial_template->container;
  EXPECT_EQ(c.image, "localhost/trainer:1");
  EXPECT_EQ(c.args, std::vector<std::string>{"--x=${trialParameters.x}"});
  EXPECT_EQ(c.working_dir, "/opt/app");
  EXPECT_EQ(c.pull_policy, "Never");
  EXPECT_TRUE(spec->trial_template->command.empty());
  auto again = SpecFromJson(SpecToJson(*spec));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(SpecToJson(*again), SpecToJson(*spec));
}

TEST(ContainerSpecTest, ProblemsNameTheField) {
  EXPECT_THAT(DecodeOrValidateError(WithContainer({{"args", {"a"}}})),
              HasSubstr("trialTemplate.container.image: is required"));
  EXPECT_THAT(
      DecodeOrValidateError(WithContainer({{"image", "-v/:/host"}})),
      HasSubstr(
          "trialTemplate.container.image: '-v/:/host' is not an image name"));
  EXPECT_THAT(DecodeOrValidateError(WithContainer(
                  {{"image", "a"}, {"imagePullPolicy", "Sometimes"}})),
              HasSubstr("trialTemplate.container.imagePullPolicy: 'Sometimes' "
                        "is not Always"));
  EXPECT_THAT(
      DecodeOrValidateError(
          WithContainer({{"image", "a"}, {"workingDir", "app"}})),
      HasSubstr(
          "trialTemplate.container.workingDir: must be an absolute path"));
  EXPECT_THAT(DecodeOrValidateError(WithContainer(
                  {{"image", "a"}, {"args", {"${trialParameters.y}"}}})),
              HasSubstr("trialTemplate.container.args[0]: ${trialParameters.y} "
                        "is not defined"));
  EXPECT_THAT(DecodeOrValidateError(
                  WithContainer({{"image", "a"}, {"entrypoint", "x"}})),
              HasSubstr("trialTemplate.container.entrypoint"));
  json no_image = json::parse(testing::kFullJson);
  no_image["trialTemplate"]["executor"] = "container";
  EXPECT_THAT(DecodeOrValidateError(no_image),
              HasSubstr("trialTemplate.container.image: is required with "
                        "trialTemplate.executor "
                        "container"));
  no_image["trialTemplate"].erase("command");
  no_image["trialTemplate"].erase("executor");
  EXPECT_THAT(DecodeOrValidateError(no_image),
              HasSubstr("trialTemplate.command"));
}

TEST(ContainerSpecTest, WhereTrialsRunAndWhatAServerRefuses) {
  TrialTemplate t;
  t.command = {"python3", "train.py"};
  t.container.image = "localhost/trainer:1";
  EXPECT_FALSE(RunsInContainer(t, false, "local"));  // today's behaviour: on the host
  EXPECT_TRUE(RunsInContainer(t, true, "local"));    // hpt serve --containers podman
  EXPECT_FALSE(RunsInContainer(t, true, "slurm"));
  EXPECT_THAT(ContainerProblem(t, true, "slurm", true),
              HasSubstr("trialTemplate.container.image: trials on Slurm do not run in "
                        "containers"));
  EXPECT_EQ(ContainerProblem(t, false, "slurm", true), "");  // the command, on the nodes
  EXPECT_EQ(ContainerProblem(t, false, "local", false), "");
  t.executor = kContainerExecutor;
  EXPECT_TRUE(RunsInContainer(t, false, "slurm"));
  EXPECT_EQ(ExecutorNameOf(t, "slurm"), "local");
  EXPECT_THAT(ContainerProblem(t, false, "local", false),
              HasSubstr("need podman, which is not installed on this server (apt-get install "
                        "podman runc)"));
  EXPECT_EQ(ContainerProblem(t, false, "local", true), "");

  TrialTemplate args_only;
  args_only.container.image = "localhost/trainer:1";
  args_only.container.args = {"--epochs=1"};
  EXPECT_EQ(ContainerProblem(args_only, true, "local", true), "");
  const std::string problem = ContainerProblem(args_only, false, "local", true);
  EXPECT_THAT(problem, HasSubstr("trialTemplate.container.args: a container with args but no "
                                 "command runs its image's entrypoint"));
  EXPECT_THAT(problem, HasSubstr("hpt serve --containers podman"));
  EXPECT_EQ(problem.find('\n'), std::string::npos);
  args_only.container.args.clear();
  EXPECT_THAT(ContainerProblem(args_only, false, "local", true),
              HasSubstr("trialTemplate.command: is empty"));
}

json KatibWith(json container) {
  container["name"] = "main";
  return {{"apiVersion", "kubeflow.org/v1beta1"},
          {"kind", "Experiment"},
          {"metadata", {{"name", "k"}}},
          {"spec",
           {{"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
            {"algorithm", {{"algorithmName", "random"}}},
            {"maxTrialCount", 2},
            {"parameters",
             {{{"name", "lr"}, {"parameterType", "double"},
               {"feasibleSpace", {{"min", "0.1"}, {"max", "0.2"}}}}}},
            {"trialTemplate",
             {{"trialParameters",
               {{{"name", "lr"}, {"reference", "lr"}},
                {{"name", "team"}, {"reference", "${trialSpec.Labels[team]}"}}}},
              {"trialSpec",
               {{"apiVersion", "batch/v1"},
                {"kind", "Job"},
                {"metadata", {{"labels", {{"team", "vision"}}}}},
                {"spec", {{"template", {{"spec", {{"containers", {container}}}}}}}}}}}}}}};
}

TEST(ContainerSpecTest, KatibContainerKeepsImageArgsAndWorkingDir) {
  std::vector<std::string> notes;
  auto args_only = FromKatibExperiment(
      KatibWith({{"image", "docker.io/x/mnist:1"},
                 {"args", {"--lr=${trialParameters.lr}", "--team=${trialParameters.team}"}},
                 {"workingDir", "/opt/mnist"},
                 {"imagePullPolicy", "IfNotPresent"}}),
      &notes);
  ASSERT_TRUE(args_only.ok()) << args_only.status().message();
  const json& t = (*args_only)["trialTemplate"];
  EXPECT_EQ(t["command"], json::array()) << t.dump();  // args are not argv[0]
  EXPECT_EQ(t["container"],
            json({{"image", "docker.io/x/mnist:1"},
                  {"args", {"--lr=${trialParameters.lr}", "--team=vision"}},
                  {"workingDir", "/opt/mnist"},
                  {"imagePullPolicy", "IfNotPresent"}}))
      << t.dump();
  EXPECT_EQ(DecodeOrValidateError(*args_only), "");

  // command + args: the image is kept; on a host server command + args run.
  notes.clear();
  auto both = FromKatibExperiment(
      KatibWith({{"image", "docker.io/x/mnist:1"},
                 {"command", {"python3", "/opt/mnist.py"}},
                 {"args", {"--lr=${trialParameters.lr}"}}}),
      &notes);
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ((*both)["trialTemplate"]["command"], json({"python3", "/opt/mnist.py"}));
  EXPECT_EQ((*both)["trialTemplate"]["container"]["args"], json({"--lr=${trialParameters.lr}"}));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("docker.io/x/mnist:1 is not used on a server without "
                                  "--containers podman"));
}

}  // namespace
}  // namespace hpt::api
