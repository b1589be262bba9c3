// Issue 30, finding 5: on a 2 MiB tmpfs, trials ended Succeeded with ~165 of
// 400 steps stored and no sign of the loss (the log's write errors were
// dropped), or Failed with no reason at all. Here the real server keeps its
// logs on such a disk: the trial's end names the loss, and what was stored
// is what the trial printed.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/small_disk.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

TEST(FullDiskTest, TrialWhoseOutputTheDiskRefusedEndsWithTheLossNamed) {
  TempDir dir;
  SmallDisk disk(dir.File("data/logs"), 2 << 20);
  if (!disk.ok()) GTEST_SKIP() << disk.why();
  HptProcess server(dir.File("data/hpt.db"));
  auto client = server.Client();
  // 400 steps of 16 KiB lines (6.6 MiB); each loss is 1 + step / 1000.
  auto created = client->Json(
      "POST", "/api/v1/experiments",
      ShellExperiment("full",
                      "awk 'BEGIN { pad = \" \"; while (length(pad) < 16000) pad = pad pad;"
                      " for (i = 0; i < 400; i++)"
                      " printf \"step=%d loss=%.3f %s\\n\", i, 1 + i / 1000, pad }'",
                      1, 1));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  nlohmann::json done = WaitForExperiment(*client, "full", 60);
  ASSERT_TRUE(done["status"]["completionTime"].is_string()) << done.dump();

  auto trial = client->Json("GET", "/api/v1/experiments/full/trials/full-1");
  ASSERT_TRUE(trial.ok()) << trial.status().ToString();
  // Its metrics were read from the log, so a partial curve was stored: no
  // result to tune on.
  EXPECT_EQ((*trial)["phase"], "Failed") << trial->dump();
  EXPECT_EQ((*trial)["reason"], "LogIncomplete") << trial->dump();
  const std::string message = (*trial)["message"];
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      message, m,
      std::regex("^([0-9]+) bytes of the trial's output were lost: No space left on device "
                 "writing /.*/data/logs/full/full-1[^ ]*; the metrics it printed there were lost")))
      << message;
  EXPECT_GT(std::stoll(m[1]), 1 << 20);

  // The steps stored are steps the trial printed, each with its own loss.
  auto stored = client->Json("GET", "/api/v1/experiments/full/trials/full-1/observations");
  ASSERT_TRUE(stored.ok());
  const nlohmann::json& obs = (*stored)["observations"];
  EXPECT_GT(obs.size(), 0u);
  EXPECT_LT(obs.size(), 400u);
  int64_t previous = -1;
  for (const nlohmann::json& o : obs) {
    const int64_t step = o["step"];
    EXPECT_GT(step, previous);
    previous = step;
    EXPECT_NEAR(o["metrics"]["loss"].get<double>(), 1 + step / 1000.0, 1e-9) << o.dump();
  }
}

}  // namespace
}  // namespace hpt::testing
