// Pool2d: its own CPU forward and backward give libtorch's max_pool2d and
// avg_pool2d (padding k / 2, count_include_pad = false) values and
// gradients.

#include "nas/pooling.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <tuple>

namespace hpt::nas {
namespace {

struct PoolCase {
  bool max;
  int64_t kernel, stride, height, width;
};

class PoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolTest, MatchesLibtorchForwardAndGradient) {
  const PoolCase c = GetParam();
  torch::manual_seed(3);
  const torch::Tensor x0 = torch::randn({2, 3, c.height, c.width});
  const int64_t pad = c.kernel / 2;
  auto run = [&](bool ours) {
    torch::Tensor x = x0.clone().requires_grad_(true);
    torch::Tensor y;
    if (ours) {
      y = Pool2d(x, c.max, c.kernel, c.stride);
    } else if (c.max) {
      y = torch::max_pool2d(x, {c.kernel, c.kernel}, {c.stride, c.stride},
                            {pad, pad});
    } else {
      y = torch::avg_pool2d(x, {c.kernel, c.kernel}, {c.stride, c.stride},
                            {pad, pad}, false, false);
    }
    const torch::Tensor probe = torch::linspace(-1, 2, y.numel()).view_as(y);
    (y * probe).sum().backward();
    return std::make_tuple(y.detach(), x.grad());
  };
  const auto [y_ours, g_ours] = run(true);
  const auto [y_ref, g_ref] = run(false);
  ASSERT_EQ(y_ours.sizes(), y_ref.sizes());
  EXPECT_TRUE(torch::allclose(y_ours, y_ref, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(g_ours, g_ref, 1e-5, 1e-6))
      << (g_ours - g_ref).abs().max().item<float>();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PoolTest,
    ::testing::Values(PoolCase{true, 3, 1, 8, 8}, PoolCase{true, 3, 2, 8, 8},
                      PoolCase{true, 3, 2, 7, 9}, PoolCase{true, 5, 1, 6, 7},
                      PoolCase{true, 5, 2, 9, 9}, PoolCase{false, 3, 1, 8, 8},
                      PoolCase{false, 3, 2, 7, 7}, PoolCase{false, 5, 1, 7, 6},
                      PoolCase{false, 5, 2, 10, 9},
                      PoolCase{false, 3, 1, 1, 1}));

TEST(PoolTieTest, AllEqualWindowSendsTheGradientToOnePixel) {
  torch::Tensor x = torch::zeros({1, 1, 4, 4}).requires_grad_(true);
  torch::Tensor ref = torch::zeros({1, 1, 4, 4}).requires_grad_(true);
  Pool2d(x, true, 3, 2).sum().backward();
  torch::max_pool2d(ref, {3, 3}, {2, 2}, {1, 1}).sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), ref.grad()));
  EXPECT_EQ(x.grad().sum().item<float>(), 4.f);
}

}  // namespace
}  // namespace hpt::nas
