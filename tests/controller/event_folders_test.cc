// TensorFlowEvent trials' own event folders (controller/event_folders.h):
// where the collector's path, as the trial command names it, goes for
// each trial, and what the collector then reads.
#include "controller/event_folders.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "controller/trial_launch.h"
#include "tests/testing/temp_dir.h"

namespace hpt::controller {
namespace {

using ::testing::ElementsAre;

api::ExperimentSpec TfEventSpec(const std::string& path, std::vector<std::string> command,
                                std::map<std::string, std::string> env = {}) {
  api::ExperimentSpec spec;
  spec.name = "e";
  spec.objective.metric_name = "accuracy";
  spec.metrics_collector.kind = "TensorFlowEvent";
  spec.metrics_collector.file_path = path;
  api::TrialTemplate t;
  t.command = std::move(command);
  t.env = std::move(env);
  spec.trial_template = t;
  return spec;
}

// One case (each ctest entry costs controller_test's start-up): who has a
// folder, which folder of the command's stands for the path, and the
// launch that follows.
TEST(EventFolders, TheTrialsFolderStandsForThePathTheCommandNames) {
  api::ExperimentSpec spec = TfEventSpec("/var/log/katib/tfevent/", {"train"});
  EXPECT_EQ(EventsFolder(spec, "/srv/logs", "t1"), "/srv/logs/e/tfevent/t1");
  EXPECT_EQ(EventsFolder(spec, "", "t1"), "");
  spec.metrics_collector.kind = "File";
  EXPECT_EQ(EventsFolder(spec, "/srv/logs", "t1"), "");

  // Katib's default path, named as it is.
  EventsMount a = MountEvents(
      TfEventSpec("/var/log/katib/tfevent/", {"python3", "--logdir=/var/log/katib/tfevent/"}),
      "/f");
  EXPECT_EQ(a.mentioned, "/var/log/katib/tfevent");
  EXPECT_EQ(a.events_dir, "/f");
  // Katib's TFJob example: the command names the folder above the path.
  EventsMount b = MountEvents(TfEventSpec("/mnist-with-summaries-logs/test",
                                          {"python", "--log-path=/mnist-with-summaries-logs"}),
                              "/f");
  EXPECT_EQ(b.mentioned, "/mnist-with-summaries-logs");
  EXPECT_EQ(b.events_dir, "/f/test");
  // In the environment, and below the path.
  EventsMount c = MountEvents(
      TfEventSpec("/logs", {"train"}, {{"TB_DIR", "/logs/run1"}}), "/f");
  EXPECT_EQ(c.mentioned, "/logs");
  // A folder above it only when named whole: /var is not named by /var/data.
  EventsMount d = MountEvents(TfEventSpec("/var/log/tb", {"train", "--data=/var/data"}), "/f");
  EXPECT_EQ(d.mentioned, "");
  EXPECT_EQ(d.events_dir, "/f");

  // The launch: the command's folder becomes the trial's, read below it.
  spec = TfEventSpec(
      "/logs/test", {"python3", "train.py", "--log-path=/logs", "--data=/logs2/x"},
      {{"OUT", "/logs/"}});
  api::Trial trial;
  trial.name = "t7";
  LaunchContext context;
  context.log_path = "/srv/logs/e/t7.log";
  context.events_folder = "/srv/logs/e/tfevent/t7";
  auto launch = BuildLaunch(spec, trial, context);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_THAT(launch->argv, ElementsAre("python3", "train.py",
                                        "--log-path=/srv/logs/e/tfevent/t7", "--data=/logs2/x"));
  EXPECT_EQ(launch->env.at("OUT"), "/srv/logs/e/tfevent/t7/");
  EXPECT_EQ(launch->events_dir, "/srv/logs/e/tfevent/t7/test");
  EXPECT_EQ(launch->collector.file_path, "/logs/test");  // as the spec names it
  // Recovery identifies the job with BaseLaunch: the same folder.
  EXPECT_EQ(BaseLaunch(spec, trial, context).events_dir, "/srv/logs/e/tfevent/t7/test");
}

TEST(EventFolders, AFolderIsMadeOnceAndKept) {
  hpt::testing::TempDir dir;
  const std::string folder = dir.File("logs/e/tfevent/t1");
  ASSERT_TRUE(PrepareEventsFolder(folder, nullptr).ok());
  EXPECT_TRUE(std::filesystem::is_directory(folder));
  EXPECT_EQ(std::filesystem::status(folder).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  hpt::testing::WriteFile(folder + "/events.out.tfevents.1", "x");
  // Started again (preempted): what it wrote stays.
  ASSERT_TRUE(PrepareEventsFolder(folder, nullptr).ok());
  EXPECT_EQ(hpt::testing::ReadFile(folder + "/events.out.tfevents.1"), "x");
}

}  // namespace
}  // namespace hpt::controller
