#include "trial-runner/gpu_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace hpt::runner {
namespace {

TEST(GpuPoolTest, AcquireTakesLowestFreeIdsAndReleaseReturnsThem) {
  GpuPool pool({3, 1, 0, 2});
  EXPECT_EQ(pool.size(), 4);
  EXPECT_EQ(pool.Acquire(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(pool.Acquire(3), std::nullopt);
  EXPECT_EQ(pool.available(), 2);
  EXPECT_EQ(pool.Acquire(0), std::vector<int>{});
  pool.Release({1, 7});  // 7 is not ours
  EXPECT_EQ(pool.available(), 3);
  EXPECT_EQ(pool.Acquire(3), (std::vector<int>{1, 2, 3}));
}

TEST(GpuPoolTest, EmptyPoolGivesOnlyZeroGpus) {
  GpuPool pool({});
  EXPECT_EQ(pool.Acquire(1), std::nullopt);
  EXPECT_EQ(pool.Acquire(0), std::vector<int>{});
}

TEST(GpuPoolTest, ConcurrentUseNeverHandsOutAnIdTwice) {
  GpuPool pool({0, 1, 2, 3});
  std::vector<std::thread> threads;
  std::atomic<int> overlaps{0};
  std::vector<std::atomic<int>> holders(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto ids = pool.Acquire(2);
        if (!ids) continue;
        for (int id : *ids) {
          if (holders[id].fetch_add(1) != 0) ++overlaps;
        }
        for (int id : *ids) holders[id].fetch_sub(1);
        pool.Release(*ids);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(pool.available(), 4);
}

TEST(GpuPoolTest, ParseGpuList) {
  EXPECT_EQ(ParseGpuList("0,1").value(), (std::vector<int>{0, 1}));
  EXPECT_EQ(ParseGpuList(" 2 , 5 ").value(), (std::vector<int>{2, 5}));
  EXPECT_EQ(ParseGpuList("").value(), std::vector<int>{});
  for (const char* bad : {"a", "0,", "-1", "1,1", "1.5"}) {
    auto ids = ParseGpuList(bad);
    ASSERT_FALSE(ids.ok()) << bad;
    EXPECT_EQ(ids.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(GpuPoolTest, ParseNvidiaSmiList) {
  const char* output =
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1234)\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-5678)\n"
      "  MIG 1g.10gb Device 0: (UUID: MIG-abc)\n"
      "No devices were found\n";
  EXPECT_EQ(ParseNvidiaSmiList(output), (std::vector<int>{0, 1}));
  EXPECT_EQ(ParseNvidiaSmiList(""), std::vector<int>{});
}

TEST(GpuPoolTest, DetectGpusDoesNotFail) {
  // Whatever this machine has; without nvidia-smi it is empty.
  std::vector<int> ids = DetectGpus();
  for (int id : ids) EXPECT_GE(id, 0);
}

}  // namespace
}  // namespace hpt::runner
