// DepthwiseConv2d: its own CPU backward gives libtorch's gradients, for
// every kernel size, stride, dilation and padding DARTS uses and some it
// does not (odd sizes, no padding, more padding than "same").

#include "nas/depthwise_conv.h"

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <tuple>

namespace hpt::nas {
namespace {

struct Case {
  int64_t kernel, stride, padding, dilation, height, width;
};

class DepthwiseConvTest : public ::testing::TestWithParam<Case> {};

TEST_P(DepthwiseConvTest, MatchesLibtorchForwardAndGradients) {
  const Case c = GetParam();
  torch::manual_seed(7);
  const int64_t channels = 5;
  const torch::Tensor x0 = torch::randn({3, channels, c.height, c.width});
  const torch::Tensor w0 = torch::randn({channels, 1, c.kernel, c.kernel});

  auto run = [&](bool ours) {
    torch::Tensor x = x0.clone().requires_grad_(true);
    torch::Tensor w = w0.clone().requires_grad_(true);
    torch::Tensor y =
        ours ? DepthwiseConv2d(x, w, c.stride, c.padding, c.dilation)
             : torch::conv2d(x, w, {}, c.stride, c.padding, c.dilation,
                             channels);
    // A weighting that differs per position, so a gradient routed to the
    // wrong pixel shows.
    const torch::Tensor probe = torch::linspace(-1, 1, y.numel()).view_as(y);
    (y * probe).sum().backward();
    return std::make_tuple(y.detach(), x.grad(), w.grad());
  };
  const auto [y_ours, gx_ours, gw_ours] = run(true);
  const auto [y_ref, gx_ref, gw_ref] = run(false);
  ASSERT_EQ(y_ours.sizes(), y_ref.sizes());
  EXPECT_TRUE(torch::allclose(y_ours, y_ref, 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(gx_ours, gx_ref, 1e-4, 1e-4))
      << (gx_ours - gx_ref).abs().max().item<float>();
  EXPECT_TRUE(torch::allclose(gw_ours, gw_ref, 1e-4, 1e-4))
      << (gw_ours - gw_ref).abs().max().item<float>();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DepthwiseConvTest,
    ::testing::Values(Case{3, 1, 1, 1, 8, 8}, Case{5, 1, 2, 1, 9, 7},
                      Case{3, 1, 2, 2, 8, 8}, Case{5, 1, 4, 2, 7, 10},
                      Case{3, 2, 1, 1, 8, 8}, Case{5, 2, 2, 1, 9, 9},
                      Case{3, 2, 2, 2, 7, 8}, Case{5, 2, 4, 2, 8, 8},
                      Case{3, 1, 0, 1, 6, 6}, Case{3, 1, 3, 1, 5, 5},
                      Case{5, 3, 1, 2, 11, 9}));

TEST(DepthwiseConvGradTest, OnlyTheRequestedGradientIsComputed) {
  const torch::Tensor x = torch::randn({2, 3, 6, 6});
  torch::Tensor w = torch::randn({3, 1, 3, 3}).requires_grad_(true);
  torch::Tensor y = DepthwiseConv2d(x, w, 1, 1, 1);
  const auto grads = torch::autograd::grad({y.sum()}, {w});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_TRUE(grads[0].defined());
  EXPECT_FALSE(x.grad().defined());
}

TEST(DepthwiseConvGradTest, DoubleInputTakesLibtorchsPathExactly) {
  const torch::Tensor x0 = torch::randn({2, 2, 5, 5}, torch::kDouble);
  const torch::Tensor w0 = torch::randn({2, 1, 3, 3}, torch::kDouble);
  auto grad_w = [&](bool ours) {
    torch::Tensor w = w0.clone().requires_grad_(true);
    torch::Tensor y = ours ? DepthwiseConv2d(x0, w, 1, 2, 2)
                           : torch::conv2d(x0, w, {}, 1, 2, 2, 2);
    y.pow(2).sum().backward();
    return w.grad();
  };
  EXPECT_TRUE(torch::equal(grad_w(true), grad_w(false)));
}

}  // namespace
}  // namespace hpt::nas
