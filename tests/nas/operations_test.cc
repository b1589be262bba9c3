// The primitive ops and MixedOp.

#include "nas/operations.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "nas/supernet.h"

namespace hpt::nas {
namespace {

const std::vector<std::string> kAll = {"none",
                                       "skip_connection",
                                       "separable_convolution_3x3",
                                       "separable_convolution_5x5",
                                       "dilated_convolution_3x3",
                                       "dilated_convolution_5x5",
                                       "avg_pooling_3x3",
                                       "max_pooling_3x3",
                                       "max_pooling_5x5"};

TEST(Operations, ShapesAtStrideOneAndTwoForOddAndEvenSizes) {
  torch::manual_seed(0);
  for (bool supernet : {true, false}) {
    for (const std::string& name : kAll) {
      for (int64_t stride : {1, 2}) {
        StatusOr<Op> op = MakeOp(name, 4, stride, supernet);
        ASSERT_TRUE(op.ok()) << name << ": " << op.status().message();
        for (auto [h, w] : {std::pair<int64_t, int64_t>{8, 8},
                            {7, 7},
                            {9, 6},
                            {28, 28},
                            {14, 15}}) {
          torch::Tensor y = (*op)->Apply(torch::randn({2, 4, h, w}));
          const int64_t want_h = stride == 1 ? h : (h + 1) / 2;
          const int64_t want_w = stride == 1 ? w : (w + 1) / 2;
          EXPECT_EQ(y.sizes(), torch::IntArrayRef({2, 4, want_h, want_w}))
              << name << " stride " << stride << " on " << h << "x" << w;
        }
      }
    }
  }
}

TEST(Operations, UnknownNameIsInvalidArgument) {
  StatusOr<Op> op = MakeOp("conv_7x7", 4, 1, true);
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().code(), StatusCode::kInvalidArgument);
}

TEST(Operations, SupernetBatchNormIsNotAffineEvaluationBatchNormIs) {
  auto count = [](bool supernet) {
    StatusOr<Op> op = MakeOp("max_pooling_3x3", 4, 1, supernet);
    return (*op)->parameters().size();
  };
  EXPECT_EQ(count(true), 0u);   // PoolBN(affine=false): no parameters
  EXPECT_EQ(count(false), 0u);  // a bare pool
  StatusOr<Op> search = MakeOp("dilated_convolution_3x3", 4, 1, true);
  StatusOr<Op> eval = MakeOp("dilated_convolution_3x3", 4, 1, false);
  EXPECT_EQ((*search)->parameters().size(), 2u);  // two convolutions
  EXPECT_EQ((*eval)->parameters().size(), 4u);    // + BN weight and bias
}

TEST(Operations, ZeroIsZeroAndIdentityIsIdentity) {
  torch::Tensor x = torch::randn({2, 4, 7, 7});
  EXPECT_EQ((*MakeOp("none", 4, 2, true))->Apply(x).abs().sum().item<float>(),
            0.f);
  EXPECT_TRUE(
      torch::equal((*MakeOp("skip_connection", 4, 1, true))->Apply(x), x));
}

TEST(MixedOp, WeightsAreASoftmaxAndOneHotSelectsAnOp) {
  torch::manual_seed(1);
  const std::vector<std::string> ops = {"none", "skip_connection",
                                        "separable_convolution_3x3",
                                        "avg_pooling_3x3"};
  StatusOr<MixedOp> mixed = MakeMixedOp(ops, 4, 1);
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  (*mixed)->eval();  // BN on running statistics: each op is deterministic
  torch::Tensor x = torch::randn({2, 4, 9, 9});

  torch::Tensor alpha = torch::randn({3, 4});
  torch::Tensor weights = torch::softmax(alpha, -1);
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({3})));

  for (size_t pick = 1; pick < ops.size(); ++pick) {
    // exp(-40) relative to 1: the other ops' share is below 1e-17.
    torch::Tensor one_hot = torch::full({4}, -20.0);
    one_hot[pick] = 20.0;
    torch::Tensor y = (*mixed)->Forward(x, torch::relu(x),
                                        torch::softmax(one_hot, -1).unbind(0));
    torch::Tensor want = (*mixed)->ops()[pick]->Apply(x);
    EXPECT_TRUE(torch::allclose(y, want, 1e-5, 1e-6)) << ops[pick];
  }
  // Equal weights: the mean of the non-"none" ops times 3/4.
  torch::Tensor y =
      (*mixed)->Forward(x, torch::relu(x), torch::full({4}, 0.25).unbind(0));
  torch::Tensor want = torch::zeros_like(x);
  for (size_t i = 1; i < ops.size(); ++i) {
    want += 0.25 * (*mixed)->ops()[i]->Apply(x);
  }
  EXPECT_TRUE(torch::allclose(y, want, 1e-5, 1e-6));
}

}  // namespace
}  // namespace hpt::nas
