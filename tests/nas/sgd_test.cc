#include "nas/sgd.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

namespace hpt::nas {
namespace {

// Three weights of different shapes; the last gets no gradient at step 2.
std::vector<torch::Tensor> Weights() {
  torch::manual_seed(3);
  return {torch::randn({4, 3}).requires_grad_(),
          torch::randn({5}).requires_grad_(),
          torch::randn({2, 2, 3, 3}).requires_grad_()};
}

std::vector<torch::Tensor> Grads(int step) {
  torch::manual_seed(100 + step);
  std::vector<torch::Tensor> g = {torch::randn({4, 3}), torch::randn({5}),
                                  torch::randn({2, 2, 3, 3})};
  if (step == 2) g[2] = torch::Tensor();
  return g;
}

TEST(MomentumSgdTest, MatchesTorchSgdOverSteps) {
  std::vector<torch::Tensor> mine = Weights(), theirs = Weights();
  MomentumSgd sgd(mine, 0.9, 3e-4);
  torch::optim::SGD reference(
      theirs, torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(3e-4));
  for (int step = 0; step < 5; ++step) {
    const double lr = 0.1 / (step + 1);
    for (auto& group : reference.param_groups()) {
      static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
    }
    std::vector<torch::Tensor> g = Grads(step);
    for (size_t i = 0; i < theirs.size(); ++i) {
      theirs[i].mutable_grad() = g[i].defined() ? g[i].clone() : torch::Tensor();
    }
    reference.step();
    sgd.Step(g, torch::Tensor(), lr);
    for (size_t i = 0; i < mine.size(); ++i) {
      EXPECT_TRUE(torch::allclose(mine[i], theirs[i], 1e-5, 1e-6))
          << "weight " << i << " after step " << step;
    }
  }
  // The skipped weight's velocity kept its value from step 1 through 2.
  EXPECT_GT(sgd.velocity()[2].abs().sum().item<double>(), 0);
}

TEST(MomentumSgdTest, ScaleMultipliesGradientsFirst) {
  std::vector<torch::Tensor> a = Weights(), b = Weights();
  MomentumSgd scaled(a, 0.9, 0), plain(b, 0.9, 0);
  std::vector<torch::Tensor> g = Grads(0), half;
  for (const torch::Tensor& t : g) half.push_back(t * 0.5);
  scaled.Step(g, torch::tensor(0.5), 0.1);
  plain.Step(half, torch::Tensor(), 0.1);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a[i], b[i])) << i;
    EXPECT_TRUE(torch::allclose(g[i], half[i])) << "scaled in place " << i;
  }
}

TEST(MomentumSgdTest, StepOnGradsReadsEachWeightsGradAndClearGradsDropsThem) {
  std::vector<torch::Tensor> w = Weights();
  const torch::Tensor before = w[0].detach().clone();
  MomentumSgd sgd(w, 0.9, 0);
  (w[0].sum() * 2).backward();  // w[0].grad() = 2, the others none
  sgd.StepOnGrads(0.25);
  EXPECT_TRUE(torch::allclose(w[0], before - 0.5));
  EXPECT_EQ(sgd.velocity()[1].abs().sum().item<double>(), 0);
  sgd.ClearGrads();
  for (const torch::Tensor& t : w) EXPECT_FALSE(t.grad().defined());
}

}  // namespace
}  // namespace hpt::nas
