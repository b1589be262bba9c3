// DetectGpus and QueryGpuUsage run the real `nvidia-smi` through the shell;
// here a fake one first on PATH stands in for the driver, answering only
// the exact command line hpt must send, so the whole path (command line,
// child process, exit status, parsing) is checked on machines without GPUs.
#include "trial-runner/gpu_inventory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/testing/path_prefix.h"
#include "tests/testing/temp_dir.h"

namespace hpt::runner {
namespace {

using hpt::testing::PathPrefix;
using hpt::testing::TempDir;

constexpr char kInventoryArgs[] =
    "--query-gpu=index,uuid,memory.total --format=csv,noheader,nounits";
constexpr char kUsageArgs[] =
    "--query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits";

// An executable `nvidia-smi` in dir/bin that prints `inventory` or `usage`
// when asked exactly what hpt asks, and then exits with `status`; any other
// command line exits 2 with no output.
std::string FakeNvidiaSmi(const TempDir& dir, const std::string& inventory,
                          const std::string& usage, int status = 0) {
  const std::string bin = dir.File("bin");
  hpt::testing::WriteFile(bin + "/nvidia-smi",
                          "#!/bin/sh\n"
                          "case \"$*\" in\n"
                          "  '" +
                              std::string(kInventoryArgs) + "') printf '" +
                              inventory +
                              "' ;;\n"
                              "  '" +
                              std::string(kUsageArgs) + "') printf '" + usage +
                              "' ;;\n"
                              "  *) exit 2 ;;\n"
                              "esac\n"
                              "exit " +
                              std::to_string(status) + "\n");
  std::filesystem::permissions(bin + "/nvidia-smi", std::filesystem::perms::owner_all);
  return bin;
}

TEST(GpuInventoryTest, DetectGpusListsTheCardsNvidiaSmiReports) {
  TempDir dir;
  PathPrefix path(FakeNvidiaSmi(dir, "0, GPU-aaaa, 16384\\n3, GPU-dddd, [N/A]\\n", ""));
  std::vector<GpuDevice> cards = DetectGpus();
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0].index, 0);
  EXPECT_EQ(cards[0].uuid, "GPU-aaaa");
  EXPECT_EQ(cards[0].memory, int64_t{16384} << 20);
  EXPECT_EQ(cards[1].index, 3);
  EXPECT_EQ(cards[1].uuid, "GPU-dddd");
  EXPECT_EQ(cards[1].memory, 0) << "memory nvidia-smi cannot tell is unknown, not an error";
}

TEST(GpuInventoryTest, QueryGpuUsageReadsUtilisationAndMemory) {
  TempDir dir;
  PathPrefix path(FakeNvidiaSmi(dir, "", "1, 87, 30000, 40960\\n"));
  std::vector<GpuUsage> usage = QueryGpuUsage();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].index, 1);
  EXPECT_EQ(usage[0].utilization, 87);
  EXPECT_EQ(usage[0].memory_used, int64_t{30000} << 20);
  EXPECT_EQ(usage[0].memory_total, int64_t{40960} << 20);
}

// A driver that prints rows but then fails ("No devices were found" exits
// 6, a driver/library mismatch 9) is not believed: no GPUs.
TEST(GpuInventoryTest, NvidiaSmiThatFailsMeansNoGpus) {
  TempDir dir;
  PathPrefix path(FakeNvidiaSmi(dir, "0, GPU-aaaa, 16384\\n", "0, 5, 10, 16384\\n", 6));
  EXPECT_TRUE(DetectGpus().empty());
  EXPECT_TRUE(QueryGpuUsage().empty());
}

TEST(GpuInventoryTest, NoNvidiaSmiMeansNoGpus) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("empty"));
  PathPrefix path(dir.File("empty"), PathPrefix::kOnly);
  EXPECT_TRUE(DetectGpus().empty());
  EXPECT_TRUE(QueryGpuUsage().empty());
}

}  // namespace
}  // namespace hpt::runner
