// GPUs as nvidia-smi reports them: the inventory the scheduler packs
// (memory per card), and utilisation and memory in /metrics and
// /api/v1/gpus. A fake nvidia-smi on PATH stands in for the driver.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/path_prefix.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

TEST(GpuMetricsTest, NvidiaSmiCardsAreScheduledAndReported) {
  TempDir dir;
  const std::string smi = dir.File("bin/nvidia-smi");
  WriteFile(smi,
            "#!/bin/sh\n"
            "case \"$*\" in\n"
            "  *utilization*) printf '0, 87, 30000, 16384\\n1, 3, 512, 16384\\n' ;;\n"
            "  *uuid*) printf '0, GPU-aaaa, 16384\\n1, GPU-bbbb, 16384\\n' ;;\n"
            "  *) exit 1 ;;\n"
            "esac\n");
  std::filesystem::permissions(smi, std::filesystem::perms::owner_all);
  PathPrefix path(dir.File("bin"));
  HptProcessOptions ask_nvidia_smi;  // no --gpus: the cards nvidia-smi lists
  ask_nvidia_smi.detect_gpus = true;
  HptProcess server(dir.File("hpt.db"), {}, ask_nvidia_smi);
  auto client = server.Client();

  RawResponse metrics = RawHttp(server.url(), "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("hpt_gpu_utilization_ratio{gpu=\"0\"} 0.87"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("hpt_gpu_memory_total_bytes{gpu=\"1\"} 17179869184"),
            std::string::npos)
      << metrics.body;
  auto gpus = client->Json("GET", "/api/v1/gpus");
  ASSERT_TRUE(gpus.ok());
  ASSERT_EQ((*gpus)["gpus"].size(), 2u);
  EXPECT_EQ((*gpus)["gpus"][0]["utilization"], 87);
  EXPECT_EQ((*gpus)["gpus"][1]["memoryUsed"], 512ll << 20);

  // The inventory knows each card's 16 GiB: a trial asking for more can
  // never fit and fails at once, saying so.
  json spec = ShellExperiment("big", "echo loss=1", 1, 1);
  spec["trialTemplate"]["resources"] = {{"gpu", 0.5}, {"gpuMemory", "20Gi"}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  WaitForExperiment(*client, "big", 30);
  auto t = client->Json("GET", "/api/v1/experiments/big/trials/big-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Failed") << t->dump();
  EXPECT_NE((*t)["message"].get<std::string>().find("with 20Gi"), std::string::npos) << t->dump();
}

TEST(GpuMetricsTest, WithoutGpusNothingIsReported) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), {"--gpus", "none"});
  RawResponse metrics = RawHttp(server.url(), "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body.find("hpt_gpu_"), std::string::npos);
  auto gpus = server.Client()->Json("GET", "/api/v1/gpus");
  ASSERT_TRUE(gpus.ok());
  EXPECT_TRUE((*gpus)["gpus"].empty());
}

}  // namespace
}  // namespace hpt::testing
