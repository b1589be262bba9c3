// Deleting an experiment and at once creating one of the same name: the
// deleted trials' jobs used to still hold their names in the executor, so
// the new experiment's first trials failed "already running" (and late
// exits were taken for the new trials').
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

TEST(DeleteRecreateTest, ANewExperimentOfTheSameNameRunsCleanly) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  const std::string started = dir.File("started");
  // Ignores SIGTERM (so does its sleep): it stops only at the SIGKILL that
  // follows the grace period.
  json stubborn = ShellExperiment(
      "race", "trap '' TERM; echo go >> " + started + "; sleep 60; echo loss=1", 2, 2);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", stubborn).ok());
  for (int i = 0; i < 100 && ReadFile(started).size() < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(ReadFile(started), "go\ngo\n");
  auto deleted = client->Json("DELETE", "/api/v1/experiments/race");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();

  ASSERT_TRUE(
      client->Json("POST", "/api/v1/experiments", ShellExperiment("race", "echo loss=$X", 4, 2))
          .ok());
  json done = WaitForExperiment(*client, "race", 60);
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  auto trials = client->Json("GET", "/api/v1/experiments/race/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 4u);
  for (const json& t : (*trials)["trials"]) EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
}

}  // namespace
}  // namespace hpt::testing
