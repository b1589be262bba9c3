#pragma once
// The network a genotype describes, trained from scratch in the evaluation
// stage (internal to nas/): each cell's node sums its two chosen ops, BN is
// affine, pools stand alone; no auxiliary head and no drop-path.

#include <torch/torch.h>

#include <memory>
#include <utility>
#include <vector>

#include "api/status.h"
#include "nas/darts.h"
#include "nas/operations.h"

namespace hpt::nas {

class EvalCellImpl : public torch::nn::Module {
 public:
  // `nodes[j]`: node j's (op, input state) pairs, ops from MakeOp.
  EvalCellImpl(Op preprocess0, Op preprocess1,
               std::vector<std::vector<std::pair<Op, int>>> nodes);
  torch::Tensor Forward(const torch::Tensor& s0, const torch::Tensor& s1);

 private:
  Op preprocess0_, preprocess1_;
  // [node] -> its (op, input state) pairs.
  std::vector<std::vector<std::pair<Op, int>>> nodes_;
};
using EvalCell = std::shared_ptr<EvalCellImpl>;

struct EvalNetworkConfig {
  int64_t in_channels = 1;
  int64_t num_classes = 10;
  int64_t init_channels = 16;
  int num_layers = 8;
  int64_t stem_multiplier = 3;
};

class EvalNetworkImpl : public torch::nn::Module {
 public:
  // Use MakeEvalNetwork.
  EvalNetworkImpl() = default;
  torch::Tensor forward(const torch::Tensor& x);

 private:
  friend StatusOr<std::shared_ptr<EvalNetworkImpl>> MakeEvalNetwork(
      const Genotype&, const EvalNetworkConfig&);
  torch::nn::Sequential stem_{nullptr};
  std::vector<EvalCell> cells_;
  torch::nn::Linear classifier_{nullptr};
};
using EvalNetwork = std::shared_ptr<EvalNetworkImpl>;

// Reduction layers as in the supernet (IsReductionLayer). InvalidArgument
// for an unknown primitive, a genotype without nodes, or one without a
// reduce cell when a layer reduces.
StatusOr<EvalNetwork> MakeEvalNetwork(const Genotype& genotype,
                                      const EvalNetworkConfig& config);

}  // namespace hpt::nas
