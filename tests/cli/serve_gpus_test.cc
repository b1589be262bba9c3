// `hpt serve --gpus` and CUDA_VISIBLE_DEVICES are read by one function
// (runner::ParseGpuList, issue 30 finding 11): the same lists mean the same
// GPUs, the same lists are refused, and the error names --gpus.
#include <gtest/gtest.h>

#include "cli/commands.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/gpu_inventory.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::cli {
namespace {

TEST(ServeGpusTest, BothEntryPointsGiveTheSameAnswers) {
  EXPECT_FALSE(ServeGpus(std::nullopt)->has_value()) << "absent: nvidia-smi decides";
  for (const char* list : {"0,1", " 0, 1 ", "3", "", "none", "1,0", "a", "0,", "0,,1", "-1",
                           "+1", "1.5", "1,1", "0-3", "all"}) {
    auto cli = ServeGpus(std::string(list));
    auto env = runner::ParseGpuList(list, "CUDA_VISIBLE_DEVICES");
    ASSERT_EQ(cli.ok(), env.ok()) << "'" << list << "': " << cli.status().ToString() << " vs "
                                  << env.status().ToString();
    if (cli.ok()) {
      ASSERT_TRUE(cli->has_value());
      EXPECT_EQ(**cli, *env) << list;
      EXPECT_EQ(runner::LeaseFromEnv(std::string(list), std::nullopt, std::nullopt).ids, *env)
          << list;
    } else {
      EXPECT_EQ(cli.status().message().rfind("--gpus: '", 0), 0u) << cli.status().message();
      EXPECT_EQ(env.status().message().rfind("CUDA_VISIBLE_DEVICES: '", 0), 0u);
    }
  }
}

// What the old --gpus parser let through (a duplicate, a trailing comma, a
// sign) the server now refuses at start, in one line naming --gpus.
TEST(ServeGpusTest, ServeRefusesWhatTheTrialRunnerWouldRefuse) {
  testing::TempDir dir;
  const std::pair<const char*, const char*> cases[] = {
      {"1,1", "--gpus: '1,1': GPU 1 is given twice"},
      {"0,", "--gpus: '0,': an entry is empty"},
      {"+1", "--gpus: '+1': '+1' is not a GPU index"},
  };
  for (const auto& [list, why] : cases) {
    std::string out, err;
    EXPECT_EQ(testing::RunHpt({"serve", "--port", "0", "--db", dir.File("hpt.db"), "--gpus", list},
                              &out, &err, 10),
              2)
        << list << ": " << out << err;
    EXPECT_NE(err.find(why), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

}  // namespace
}  // namespace hpt::cli
