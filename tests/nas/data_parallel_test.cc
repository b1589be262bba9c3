// nas::Replicas and its ThreadTeam: shards' gradients add up to the whole
// batch's, copies follow the master after Sync, each copy's thread runs
// libtorch with its own thread count, and errors reach the caller.

#include "nas/data_parallel.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace hpt::nas {
namespace {

TEST(ReplicaCountTest, OnePerThreadButNoShardUnder32Images) {
  EXPECT_EQ(ReplicaCount(1, 96), 1);
  EXPECT_EQ(ReplicaCount(0, 96), 1);
  EXPECT_EQ(ReplicaCount(2, 96), 2);
  EXPECT_EQ(ReplicaCount(2, 64), 2);
  EXPECT_EQ(ReplicaCount(2, 48), 1);
  EXPECT_EQ(ReplicaCount(16, 96), 3);
  EXPECT_EQ(ReplicaCount(4, 512), 4);
}

TEST(ThreadTeamTest, RunsEveryIndexOncePerRunWithItsOwnThreadCount) {
  const int before = at::get_num_threads();
  ThreadTeam team(3, 1);
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> mask{0}, threads_seen{0};
    team.Run([&](int i) {
      mask.fetch_or(1 << i);
      threads_seen.fetch_add(at::get_num_threads());
    });
    EXPECT_EQ(mask.load(), 0b111);
    EXPECT_EQ(threads_seen.load(), 3);  // one intra-op thread each
  }
  EXPECT_EQ(at::get_num_threads(), before);  // the caller's is untouched
}

TEST(ThreadTeamTest, AWorkersExceptionReachesTheCaller) {
  ThreadTeam team(2, 1);
  EXPECT_THROW(team.Run([](int i) {
                 if (i == 1) throw std::runtime_error("shard failed");
               }),
               std::runtime_error);
  std::atomic<int> ran{0};
  team.Run([&](int) { ran.fetch_add(1); });  // still usable
  EXPECT_EQ(ran.load(), 2);
}

std::vector<std::shared_ptr<torch::nn::Module>> Copies(
    const std::vector<torch::nn::Sequential>& nets) {
  std::vector<std::shared_ptr<torch::nn::Module>> modules;
  for (const auto& net : nets) modules.push_back(net.ptr());
  return modules;
}

TEST(ReplicasTest, ShardGradientsAddUpToTheWholeBatchGradient) {
  torch::manual_seed(11);
  // No batch norm: the sharded gradient must equal the whole batch's.
  auto make = [] {
    return torch::nn::Sequential(torch::nn::Linear(6, 8), torch::nn::Tanh(),
                                 torch::nn::Linear(8, 3));
  };
  std::vector<torch::nn::Sequential> nets = {make(), make(), make()};
  Replicas replicas(
      Copies(nets),
      [&nets](size_t r, const torch::Tensor& x) { return nets[r]->forward(x); },
      3);
  for (size_t k = 0; k < nets[0]->parameters().size(); ++k) {
    EXPECT_TRUE(torch::equal(nets[0]->parameters()[k],
                             nets[2]->parameters()[k]));
  }
  // 7 images: shards of 2, 2 and 3, so the weighting by size matters.
  const torch::Tensor x = torch::randn({7, 6});
  const torch::Tensor y = torch::tensor({0, 1, 2, 2, 1, 0, 1}, torch::kLong);
  const auto shards = replicas.ForwardBackward(x, y);
  ASSERT_EQ(shards.size(), 3u);
  EXPECT_EQ(shards[0].size + shards[1].size + shards[2].size, 7);

  torch::nn::Sequential whole = make();
  {
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < whole->parameters().size(); ++k) {
      whole->parameters()[k].copy_(nets[0]->parameters()[k]);
    }
  }
  torch::cross_entropy_loss(whole->forward(x), y).backward();
  for (size_t k = 0; k < whole->parameters().size(); ++k) {
    EXPECT_TRUE(torch::allclose(nets[0]->parameters()[k].grad(),
                                whole->parameters()[k].grad(), 1e-5, 1e-6));
  }
}

TEST(ReplicasTest, SyncCopiesTheMastersWeightsAndAveragesBatchNormStats) {
  torch::manual_seed(12);
  auto make = [] {
    return torch::nn::Sequential(torch::nn::Linear(4, 5),
                                 torch::nn::BatchNorm1d(5),
                                 torch::nn::Linear(5, 2));
  };
  std::vector<torch::nn::Sequential> nets = {make(), make()};
  Replicas replicas(
      Copies(nets),
      [&nets](size_t r, const torch::Tensor& x) { return nets[r]->forward(x); },
      2);
  // Shards from different distributions: their running means differ.
  const torch::Tensor x =
      torch::cat({torch::randn({8, 4}), torch::randn({8, 4}) + 3.0});
  const torch::Tensor y = torch::randint(0, 2, {16}, torch::kLong);
  replicas.ForwardBackward(x, y);
  const torch::Tensor mean0 = nets[0]->buffers()[0].clone();
  const torch::Tensor mean1 = nets[1]->buffers()[0].clone();
  ASSERT_FALSE(torch::allclose(mean0, mean1));
  {
    torch::NoGradGuard no_grad;
    nets[0]->parameters()[0].add_(1.0);  // as an optimizer step would
  }
  replicas.Sync();
  EXPECT_TRUE(torch::equal(nets[1]->parameters()[0], nets[0]->parameters()[0]));
  EXPECT_TRUE(torch::allclose(nets[0]->buffers()[0], (mean0 + mean1) / 2));
  EXPECT_TRUE(torch::equal(nets[1]->buffers()[0], nets[0]->buffers()[0]));
}

}  // namespace
}  // namespace hpt::nas
