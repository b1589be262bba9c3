// The supernet, genotype derivation and the evaluation network.

#include "nas/supernet.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "nas/eval_network.h"
#include "nas/genotype.h"

namespace hpt::nas {
namespace {

SupernetConfig TinySupernet(int layers) {
  SupernetConfig c;
  c.in_channels = 1;
  c.num_classes = 3;
  c.init_channels = 4;
  c.num_layers = layers;
  c.num_nodes = 2;
  c.stem_multiplier = 2;
  c.primitives = {"separable_convolution_3x3", "max_pooling_3x3",
                  "skip_connection"};
  return c;
}

TEST(Supernet, ReductionLayersFollowKatib) {
  EXPECT_FALSE(IsReductionLayer(0, 1));
  EXPECT_FALSE(IsReductionLayer(0, 2));
  EXPECT_TRUE(IsReductionLayer(1, 2));
  std::vector<int> eight;
  for (int i = 0; i < 8; ++i) {
    if (IsReductionLayer(i, 8)) eight.push_back(i);
  }
  EXPECT_EQ(eight, (std::vector<int>{2, 5}));
  EXPECT_TRUE(IsReductionLayer(1, 3));
  EXPECT_TRUE(IsReductionLayer(2, 3));
}

TEST(Supernet, LogitsForOddAndEvenImagesAndAlphaApart) {
  torch::manual_seed(0);
  StatusOr<Supernet> net = MakeSupernet(TinySupernet(3));
  ASSERT_TRUE(net.ok()) << net.status().message();
  for (int64_t side : {16, 28, 9}) {
    torch::Tensor logits = (*net)->forward(torch::rand({4, 1, side, side}));
    EXPECT_EQ(logits.sizes(), torch::IntArrayRef({4, 3})) << side;
  }
  ASSERT_EQ((*net)->alpha_normal().size(), 2u);
  ASSERT_EQ((*net)->alpha_reduce().size(), 2u);
  EXPECT_EQ((*net)->alpha_normal()[1].sizes(), torch::IntArrayRef({3, 4}));
  EXPECT_LT((*net)->alpha_normal()[0].abs().max().item<float>(), 0.01);
  for (const torch::Tensor& w : (*net)->Weights()) {
    for (const torch::Tensor& a : (*net)->Alphas()) {
      EXPECT_FALSE(w.is_same(a));
    }
  }
  // One cell, no reduction: Katib keeps no alpha_reduce.
  StatusOr<Supernet> one = MakeSupernet(TinySupernet(1));
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE((*one)->alpha_reduce().empty());
  EXPECT_EQ((*one)->forward(torch::rand({2, 1, 8, 8})).size(1), 3);
}

TEST(Supernet, RejectsUnknownPrimitive) {
  SupernetConfig c = TinySupernet(2);
  c.primitives.push_back("conv_7x7");
  StatusOr<Supernet> net = MakeSupernet(c);
  ASSERT_FALSE(net.ok());
  EXPECT_EQ(net.status().code(), StatusCode::kInvalidArgument);
}

TEST(Genotype, TopTwoNonNoneEdgesPerNode) {
  const std::vector<std::string> names = {"none", "sep", "max", "skip"};
  // Node 0 (2 edges): both kept, the better first; "none" is the largest
  // entry of edge 0 but never chosen.
  torch::Tensor node0 =
      torch::tensor({{9.0, 1.0, 2.0, 0.0}, {0.0, 3.0, 0.0, 0.0}});
  // Node 1 (3 edges): edge 1's best (skip, 4.0) and edge 2's (sep, 2.5)
  // beat edge 0's (max, 1.0) even though edge 0's "none" is 10.
  torch::Tensor node1 = torch::tensor(
      {{10.0, 0.0, 1.0, 0.0}, {0.0, 0.0, 0.0, 4.0}, {0.0, 2.5, 0.0, 0.0}});
  auto cell = DeriveCell({node0, node1}, names);
  ASSERT_EQ(cell.size(), 2u);
  EXPECT_EQ(cell[0],
            (std::vector<std::pair<std::string, int>>{{"sep", 1}, {"max", 0}}));
  EXPECT_EQ(cell[1], (std::vector<std::pair<std::string, int>>{{"skip", 1},
                                                               {"sep", 2}}));
}

TEST(EvalNetwork, BuildsFromGenotype) {
  torch::manual_seed(0);
  Genotype g;
  g.normal = {{{"separable_convolution_3x3", 0}, {"skip_connection", 1}},
              {{"max_pooling_3x3", 2}, {"dilated_convolution_3x3", 0}}};
  g.reduce = {{{"skip_connection", 0}, {"avg_pooling_3x3", 1}},
              {{"separable_convolution_5x5", 2}, {"max_pooling_3x3", 1}}};
  EvalNetworkConfig c;
  c.num_classes = 3;
  c.init_channels = 4;
  c.num_layers = 3;
  c.stem_multiplier = 2;
  StatusOr<EvalNetwork> net = MakeEvalNetwork(g, c);
  ASSERT_TRUE(net.ok()) << net.status().message();
  for (int64_t side : {16, 15}) {
    EXPECT_EQ((*net)->forward(torch::rand({4, 1, side, side})).sizes(),
              torch::IntArrayRef({4, 3}));
  }
  Genotype no_reduce = g;
  no_reduce.reduce.clear();
  EXPECT_FALSE(MakeEvalNetwork(no_reduce, c).ok());
  c.num_layers = 1;
  EXPECT_TRUE(MakeEvalNetwork(no_reduce, c).ok());
  Genotype bad = g;
  bad.normal[0][0].first = "none";
  EXPECT_FALSE(MakeEvalNetwork(bad, c).ok());
}

}  // namespace
}  // namespace hpt::nas
