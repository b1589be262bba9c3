#include "trial-runner/gpu_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace hpt::runner {
namespace {

api::Resources Gpu(double gpu, int64_t memory = 0) {
  api::Resources r;
  r.gpu = gpu;
  r.gpu_memory = memory;
  return r;
}

std::vector<GpuDevice> Cards(int n, int64_t memory = 0) {
  std::vector<GpuDevice> out;
  for (int i = 0; i < n; ++i) out.push_back({i, "GPU-" + std::to_string(i), memory});
  return out;
}

TEST(GpuPoolTest, WholeCardsAreTheLowestFreeAndComeBack) {
  GpuPool pool(DevicesFromIndices({3, 1, 0, 2}));
  EXPECT_EQ(pool.size(), 4);
  std::string waiting;
  auto two = pool.Acquire(Gpu(2), &waiting);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(two->share, 1000);
  EXPECT_FALSE(pool.Acquire(Gpu(3), &waiting));
  EXPECT_EQ(waiting, "waiting for 3 GPUs (2 of 4 free)");
  EXPECT_TRUE(pool.Acquire(Gpu(0), &waiting)->empty());
  pool.Release(*two);
  EXPECT_EQ(pool.Acquire(Gpu(3), &waiting)->ids, (std::vector<int>{0, 1, 2}));
}

TEST(GpuPoolTest, SharesPackBestFitAndNoCardGoesOverItsWhole) {
  GpuPool pool(Cards(2));
  std::string waiting;
  std::vector<GpuLease> leases;
  // Eight quarters fill two cards, the first before the second.
  for (int i = 0; i < 8; ++i) {
    auto lease = pool.Acquire(Gpu(0.25), &waiting);
    ASSERT_TRUE(lease) << i;
    EXPECT_EQ(lease->ids, std::vector<int>{i < 4 ? 0 : 1}) << i;
    leases.push_back(*lease);
  }
  EXPECT_FALSE(pool.Acquire(Gpu(0.25), &waiting));
  EXPECT_EQ(waiting, "waiting for 0.25 of a GPU (the freest card has 0 free)");
  EXPECT_FALSE(pool.Acquire(Gpu(1), &waiting));
  pool.Release(leases[5]);  // card 1 has a quarter free
  pool.Release(leases[0]);
  pool.Release(leases[1]);  // card 0 has half free
  // Best fit: the quarter goes where the least room is left, card 1.
  EXPECT_EQ(pool.Acquire(Gpu(0.25), &waiting)->ids, std::vector<int>{1});
  EXPECT_EQ(pool.Acquire(Gpu(0.5), &waiting)->ids, std::vector<int>{0});
  EXPECT_EQ(pool.free_share(0), 0);
  EXPECT_EQ(pool.free_share(1), 0);
}

TEST(GpuPoolTest, MemoryClaimsCountAgainstTheCard) {
  GpuPool pool(Cards(1, 16ll << 30));
  std::string waiting;
  auto a = pool.Acquire(Gpu(0.25, 10ll << 30), &waiting);
  ASSERT_TRUE(a);
  EXPECT_FALSE(pool.Acquire(Gpu(0.25, 10ll << 30), &waiting));
  EXPECT_NE(waiting.find("with 10Gi"), std::string::npos) << waiting;
  EXPECT_TRUE(pool.Acquire(Gpu(0.25, 6ll << 30), &waiting));
  EXPECT_EQ(pool.CheckFits(Gpu(0.5, 20ll << 30)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(pool.CheckFits(Gpu(2)).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(pool.CheckFits(Gpu(1, 16ll << 30)).ok());
}

TEST(GpuPoolTest, LeasesRoundTripThroughTheEnvironmentAndClaim) {
  GpuPool pool(Cards(2));
  std::string waiting;
  auto quarter = pool.Acquire(Gpu(0.25, 1 << 30), &waiting);
  ASSERT_TRUE(quarter);
  std::map<std::string, std::string> env;
  AddLeaseToEnv(*quarter, env);
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "0");
  EXPECT_EQ(env["HPT_GPU_FRACTION"], "0.25");
  GpuLease back = LeaseFromEnv(env["CUDA_VISIBLE_DEVICES"], env["HPT_GPU_FRACTION"],
                               env["HPT_GPU_MEMORY"]);
  EXPECT_EQ(back.ids, quarter->ids);
  EXPECT_EQ(back.share, 250);
  EXPECT_EQ(back.memory, 1 << 30);
  // A new pool (a restarted server) claims what the trial holds.
  GpuPool again(Cards(2));
  again.Claim(back);
  EXPECT_EQ(again.free_share(0), 750);
  std::map<std::string, std::string> none;
  AddLeaseToEnv(GpuLease{}, none);
  EXPECT_EQ(none["CUDA_VISIBLE_DEVICES"], "");
  EXPECT_FALSE(none.count("HPT_GPU_FRACTION"));
}

TEST(GpuPoolTest, ConcurrentUseNeverOverfillsACard) {
  GpuPool pool(Cards(2));
  std::vector<std::thread> threads;
  std::atomic<int> over{0};
  std::vector<std::atomic<int>> used(2);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string waiting;
        auto lease = pool.Acquire(Gpu(t % 2 ? 0.5 : 0.25), &waiting);
        if (!lease) continue;
        for (int id : lease->ids) {
          if (used[id].fetch_add(lease->share) + lease->share > 1000) ++over;
        }
        for (int id : lease->ids) used[id].fetch_sub(lease->share);
        pool.Release(*lease);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(over.load(), 0);
  EXPECT_EQ(pool.free_share(0), 1000);
  EXPECT_EQ(pool.free_share(1), 1000);
}

TEST(GpuInventoryTest, ParsesNvidiaSmiAndGpuLists) {
  auto cards = ParseNvidiaSmiQuery(
      "0, GPU-aaaa, 81559\n1, GPU-bbbb, 81559\nNo devices were found\n");
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[1].index, 1);
  EXPECT_EQ(cards[1].uuid, "GPU-bbbb");
  EXPECT_EQ(cards[1].memory, 81559ll << 20);
  EXPECT_EQ(*ParseGpuList(" 2 , 5 ", "--gpus"), (std::vector<int>{2, 5}));
  for (const char* none : {"", "  ", "none", " none "}) {
    auto ids = ParseGpuList(none, "--gpus");
    ASSERT_TRUE(ids.ok()) << none;
    EXPECT_TRUE(ids->empty()) << none;
  }
  const std::pair<const char*, const char*> bad[] = {
      {"a", "--gpus: 'a': 'a' is not a GPU index"},
      {"0,", "--gpus: '0,': an entry is empty"},
      {"0,,1", "an entry is empty"},
      {",0", "an entry is empty"},
      {"-1", "'-1' is not a GPU index"},
      {"+1", "'+1' is not a GPU index"},
      {"1.5", "'1.5' is not a GPU index"},
      {"0-3", "'0-3' is not a GPU index"},
      {"1 1", "'1 1' is not a GPU index"},
      {"99999999999", "is not a GPU index"},
      {"1,1", "--gpus: '1,1': GPU 1 is given twice"},
      {"0, 1, 01", "GPU 1 is given twice"},
      {"none,0", "'none' is not a GPU index"},
  };
  for (const auto& [list, why] : bad) {
    auto ids = ParseGpuList(list, "--gpus");
    ASSERT_FALSE(ids.ok()) << list;
    EXPECT_EQ(ids.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(ids.status().message().find(why), std::string::npos) << ids.status().message();
  }
}

// CUDA_VISIBLE_DEVICES of a re-attached trial is read by the same rule.
TEST(GpuInventoryTest, LeasesFromTheEnvironmentUseTheSameRule) {
  EXPECT_EQ(LeaseFromEnv(std::string("0, 3"), std::nullopt, std::nullopt).ids,
            (std::vector<int>{0, 3}));
  for (const char* unreadable : {"1,1", "0,", "GPU-aaaa", "none", ""}) {
    EXPECT_TRUE(LeaseFromEnv(std::string(unreadable), std::nullopt, std::nullopt).empty())
        << unreadable;
  }
}

}  // namespace
}  // namespace hpt::runner
